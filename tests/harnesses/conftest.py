"""Adapter tests: a small git project, no detached consolidation workers."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def no_worker(monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")  # consolidation runs only when a test asks


@pytest.fixture
def proj(tmp_path):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text("from src.calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")
    return root
