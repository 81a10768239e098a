"""Adapter tests: no detached consolidation workers (the `proj` fixture is tests/conftest.py's)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def no_worker(monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")  # consolidation runs only when a test asks
