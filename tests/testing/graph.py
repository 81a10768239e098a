"""A project with a real graph built through engram.graph.store, and the fixtures the
retrieval and MCP tests share (imported into their conftest.py)."""

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
def facts(g):
    a = g.node("retry client", strength=0.9, files=["src/net/retry.ts"],
               description="The fetch client retries with exponential backoff.")
    b = g.node("Timeout in fetch", type="error", strength=0.8, description="Requests hung for 30 s.")
    g.edge(a, b, 0.9, "caused_by")
    g.node("unrelated", strength=0.9, description="Nothing to do with it.")
    return a, b
