"""Fixtures for the graph tests: real SQLite files in tmp dirs."""

from __future__ import annotations

import pytest

from engram.graph.connect import connect


@pytest.fixture
def plain_conn(tmp_path):
    """A connection without sqlite-vec: the python-fallback vector path."""
    c = connect(str(tmp_path / "plain" / "engram.db"), vectors=False)
    yield c
    c.close()
