"""Fixtures for the retrieval tests: a project directory and a real graph built through
engram.graph.store (helper-1's API), plus hook payload helpers."""

from __future__ import annotations

import pytest

from engram import config
from engram.graph import store
from engram.graph.connect import connect


class Graph:
    """A project with an engram.db; `node()` / `edge()` write through the graph API."""

    def __init__(self, root: str):
        self.root = root
        self.project = config.Project.from_cwd(root).ensure()
        self.conn = connect(self.project.db_path, vectors=False)

    def node(self, name: str, type: str = "concept", strength: float = 1.0, files=(), **kw) -> str:
        return store.create_node(self.conn, name=name, type=type, strength=strength,
                                 affected_files=list(files), **kw)

    def edge(self, a: str, b: str, strength: float = 1.0, type: str = "interacts_with") -> str:
        return store.upsert_edge(self.conn, a, b, type, strength=strength)

    def chain(self, n: int, strength: float = 1.0, w: float = 1.0, prefix: str = "c") -> list[str]:
        ids = [self.node(f"{prefix}{i}", strength=strength) for i in range(n)]
        for a, b in zip(ids, ids[1:]):
            self.edge(a, b, w)
        return ids

    def close(self) -> None:
        self.conn.close()


@pytest.fixture(autouse=True)
def no_worker(monkeypatch):
    """Hooks queue consolidation but spawn no worker: each test's graph is the one it built."""
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")


@pytest.fixture
def root(tmp_path) -> str:
    d = tmp_path / "proj"
    d.mkdir()
    return str(d)


@pytest.fixture
def g(root):
    gr = Graph(root)
    yield gr
    gr.close()


@pytest.fixture
def make_graph():
    """Graph(root) for a second project; closed at teardown."""
    made = []

    def make(root: str) -> Graph:
        made.append(Graph(root))
        return made[-1]

    yield make
    for gr in made:
        gr.close()


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
