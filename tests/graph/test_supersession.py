"""supersession.py: strength 0, the supersedes edge, recovery, trajectories."""

from __future__ import annotations

import pytest

from engram.graph.supersession import supersede, trajectory, unsupersede
from engram.graph import embeddings, store
from engram.providers.offline import LocalEmbedder


def test_supersede_sets_strength_zero_status_pointer_and_edge(conn):
    old = store.create_node(conn, name="Session cookies", type="decision", strength=0.8,
                            affected_files=["src/auth.py"])
    new = store.create_node(conn, name="JWT tokens", type="decision", strength=0.9)
    edge_id = supersede(conn, old, new, reason="moved to stateless auth", episode_id="ep7")
    o = store.get_node(conn, old)
    assert (o["strength"], o["status"], o["superseded_by"]) == (0.0, "superseded", new)
    e = store.get_edge(conn, edge_id)
    assert (e["from_node"], e["to_node"], e["type"]) == (new, old, "supersedes")
    assert e["data"]["reason"] == "moved to stateless auth" and e["data"]["episode_id"] == "ep7"
    assert e["data"]["previous_strength"] == 0.8 and e["source_episodes"] == ["ep7"]
    assert o["data"]["history"][0]["event"] == "superseded"


def test_superseded_node_stays_findable_but_out_of_retrieval(conn):
    old = store.create_node(conn, name="Redis cache", type="concept", strength=0.7, affected_files=["cache.py"])
    new = store.create_node(conn, name="Memcached", type="concept", strength=0.7)
    embeddings.sync(conn, LocalEmbedder())
    supersede(conn, old, new, reason="r")
    assert [n["id"] for n in store.find_by_name(conn, "redis CACHE")] == [old]
    hit = embeddings.knn(conn, LocalEmbedder().embed(["Redis cache"])[0], k=1)
    assert hit[0][0] == old  # entity resolution still sees it
    assert store.find_by_file(conn, "cache.py") == []  # retrieval does not
    assert store.find_by_file(conn, "cache.py", include_superseded=True)[0]["id"] == old


def test_supersede_without_successor_and_errors(conn):
    a = store.create_node(conn, name="a", type="finding", strength=0.5)
    assert supersede(conn, a, None, reason="files deleted") is None
    assert store.get_node(conn, a)["superseded_by"] is None
    assert store.get_node(conn, a)["status"] == "superseded"
    with pytest.raises(ValueError):
        supersede(conn, a, a, reason="x")
    with pytest.raises(store.NotFound):
        supersede(conn, "n_nope", a, reason="x")
    with pytest.raises(store.NotFound):
        supersede(conn, a, "n_nope", reason="x")


def test_unsupersede_restores_and_keeps_history(conn):
    old = store.create_node(conn, name="pytest-xdist", type="concept", strength=0.6)
    observed = store.create_node(conn, name="pytest", type="concept", source_episodes=["e1"],
                                 sessions_without_reinforcement=1)
    new = store.create_node(conn, name="serial tests", type="concept")
    supersede(conn, old, new, reason="flaky", episode_id="e1")
    supersede(conn, observed, new, reason="x")
    n = unsupersede(conn, old, reason="flakiness fixed upstream", episode_id="e3")
    assert (n["status"], n["strength"], n["superseded_by"]) == ("active", 0.6, None)
    assert store.edges_of(conn, old, types=["supersedes"]) == []
    assert [h["event"] for h in n["data"]["history"]] == ["superseded", "unsuperseded"]
    m = unsupersede(conn, observed, reason="back")
    assert m["strength"] == pytest.approx(0.9048374180)  # the formula: log2(2) x e^-0.1
    assert unsupersede(conn, old, reason="again")["status"] == "active"  # no-op when active


def test_trajectory_follows_lineage_in_time_order(conn):
    v1 = store.create_node(conn, name="auth: sessions", type="decision", created_at="2026-01-01T00:00:00.000000Z")
    v2 = store.create_node(conn, name="auth: JWT", type="decision", created_at="2026-02-01T00:00:00.000000Z")
    v3 = store.create_node(conn, name="auth: JWT + refresh", type="decision", created_at="2026-03-01T00:00:00.000000Z")
    other = store.create_node(conn, name="unrelated", type="concept")
    supersede(conn, v1, v2, reason="stateless")
    store.upsert_edge(conn, v3, v2, "version_of")
    store.upsert_edge(conn, v3, other, "requires")  # not lineage
    for start in (v1, v3, "AUTH: jwt"):
        assert [n["id"] for n in trajectory(conn, start)] == [v1, v2, v3]
    t = trajectory(conn, v2)
    assert {e["type"] for e in t[1]["lineage"]} == {"supersedes", "version_of"}
    assert trajectory(conn, "no such thing") == []
    assert [n["id"] for n in trajectory(conn, other)] == [other]
