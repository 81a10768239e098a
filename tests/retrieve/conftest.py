"""Fixtures for the retrieval tests: a project directory and a real graph built through
engram.graph.store (tests/testing/graph.py), plus hook payload helpers."""

from __future__ import annotations

import pytest
from testing.graph import facts, g, make_graph, root  # noqa: F401  (fixtures)

from engram import config


@pytest.fixture(autouse=True)
def no_worker(monkeypatch):
    """Hooks queue consolidation but spawn no worker: each test's graph is the one it built."""
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")


@pytest.fixture
def cfg() -> dict:
    return dict(config.DEFAULTS)


@pytest.fixture
def ro(g):
    """A read-only stdlib connection to the fixture graph (what the hooks use)."""
    from engram.graph import readonly

    c = readonly.open_ro(g.project.db_path)
    yield c
    c.close()
