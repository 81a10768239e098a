"""Every test runs with ENGRAM_HOME in a temporary directory: no test touches ~/.engram."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def engram_home(tmp_path, monkeypatch):
    home = tmp_path / "engram-home"
    home.mkdir()
    monkeypatch.setenv("ENGRAM_HOME", str(home))
    return home
