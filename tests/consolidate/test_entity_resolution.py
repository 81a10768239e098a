"""Entity resolution: merge / child / new, names first, per-model bands, supersession recovery."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engram.consolidate import entity_resolution as er
from engram.consolidate import graph_apply
from engram.graph import supersession
from engram.graph import store
from engram.providers.offline import LocalEmbedder

REPO = Path(__file__).resolve().parents[2]


def _resolver(conn):
    return er.Resolver(conn, LocalEmbedder())


@pytest.mark.parametrize("a, b, expected", [
    ("SQLite 3.53.0", "SQLite", "merge"),
    ("  sqlite ", "SQLite", "merge"),
    ("unit tests", "Unit test", "merge"),
    ("API v2", "API v3", "child"),
    ("Redis", "Redis", "merge"),
    ("Redis", "React", None),
])
def test_name_relation(a, b, expected):
    assert er.name_relation(a, b) == expected


def test_normalise_keeps_what_identifies():
    assert er.normalise("SQLite 3.53.0") == "sqlite"
    assert er.normalise("Python v3.11.2") == "python"
    assert er.normalise("API v2") == "api v2"
    assert er.normalise("Redis") == "redis"


def test_merge_child_new(conn):
    sqlite = store.create_node(conn, name="SQLite", type="concept", description="Embedded SQL database")
    r = _resolver(conn)
    merge = r.resolve("SQLite 3.53.0", "concept", "Embedded SQL database, version 3.53")
    assert (merge.action, merge.node_id, merge.how) == ("merge", sqlite, "normalised")
    child = r.resolve("SQLite migration", "concept", "")
    assert child.action == "child" and child.node_id == sqlite and child.how == "embedding"
    lo, hi = er.bands_for(LocalEmbedder.model)
    assert lo >= child.similarity > hi
    assert r.resolve("Kubernetes operator", "concept", "Cluster automation").action == "new"


def test_type_must_match(conn):
    store.create_node(conn, name="SQLite", type="concept")
    assert _resolver(conn).resolve("SQLite", "decision").action == "new"


def test_file_concepts_resolve_by_exact_path_only(conn):
    store.create_node(conn, name="src/a/util.py", type="concept", data={"kind": "file"})
    r = _resolver(conn)
    assert r.resolve("src/b/util.py", "concept", exact_only=True).action == "new"
    assert r.resolve("src/a/util.py", "concept", exact_only=True).action == "merge"


def test_bands_are_per_model():
    assert er.bands_for("engram-hash-v1") != er.SPEC_BANDS
    assert er.bands_for("voyage-3-lite") == er.SPEC_BANDS == (0.95, 0.80)


def test_calibration_set_and_report():
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import entity_resolution_calibration as cal
    finally:
        sys.path.remove(str(REPO / "bench"))
    pairs = cal.load_pairs()
    assert len(pairs) >= 100 and {p[2] for p in pairs} == {"same", "child", "different"}
    sims = cal.similarities(LocalEmbedder(), pairs)
    sc = cal.scores(pairs, sims, er.bands_for(LocalEmbedder.model))
    assert all(p >= 0.85 and r >= 0.85 for p, r, _ in sc.values())
    assert cal.macro_f1(sc) > cal.macro_f1(cal.scores(pairs, sims, er.SPEC_BANDS))


# -- through graph_apply ------------------------------------------------------------------


def _request(*nodes, outcome="success"):
    return {"episode": {"goal": "g", "approach": "a", "outcome": outcome, "discoveries": [], "decisions": [],
                        "errors": []},
            "graph": {"nodes": [{"op": "create", "files": [], "evidence": [], "description": "", **n}
                                for n in nodes], "edges": []}}


def _apply(conn, request, to_seq=10, session="s1"):
    record = {"id": store.new_id("ep"), "goal": "g", "approach": "a", "outcome": request["episode"]["outcome"],
              "from_seq": to_seq - 9, "to_seq": to_seq, "kind": "full", "files_modified": []}
    planned = graph_apply.plan(request, _resolver(conn))
    return graph_apply.apply(conn, session=session, from_seq=to_seq - 9, to_seq=to_seq, record=record,
                             request=request, planned=planned)


def test_apply_merges_and_adds_the_source_episode(conn):
    sqlite = store.create_node(conn, name="SQLite", type="concept", source_episodes=["ep_old"])
    out = _apply(conn, _request({"key": "n1", "name": "SQLite 3.53.0", "type": "concept"},
                                {"key": "n2", "name": "SQLite migration", "type": "concept"}))
    assert out.counts["merged"] == 1 and out.counts["children"] == 1
    node = store.get_node(conn, sqlite)
    assert node["source_episodes"] == ["ep_old", out.episode_id]
    child = store.find_by_name(conn, "SQLite migration")[0]
    assert store.find_edge(conn, child["id"], sqlite, "version_of")
    assert store.find_edge(conn, child["id"], out.episode_node, "discovered_during")


def test_same_range_applies_once(conn):
    req = _request({"key": "n1", "name": "Redis", "type": "concept"})
    assert _apply(conn, req) is not None
    assert _apply(conn, req) is None
    assert len(store.find_by_name(conn, "Redis")) == 1


def test_decision_data_for_the_contradiction_checker(conn):
    _apply(conn, _request({"key": "d1", "name": "Use orjson instead of json in workers", "type": "decision",
                           "explicit": True, "rationale": "it is faster"}))
    d = store.find_by_name(conn, "Use orjson instead of json in workers")[0]
    assert d["description"] == "Decision: Use orjson instead of json in workers because it is faster"
    assert d["strength"] == graph_apply.EXPLICIT_STRENGTH
    assert d["data"]["explicit"] is True and d["data"]["requires"] == ["orjson"] and d["data"]["forbids"] == ["json"]


def _superseded_decision(conn):
    old = store.create_node(conn, name="Use JWT for sessions", type="decision", strength=0.85,
                            data={"explicit": True})
    new = store.create_node(conn, name="Use server-side sessions", type="decision", strength=0.85)
    supersession.supersede(conn, old, new, reason="moved to server sessions")
    return old, new


def test_supersession_recovery_explicit_unsupersedes(conn):
    old, new = _superseded_decision(conn)
    out = _apply(conn, _request({"key": "d1", "name": "use JWT for sessions", "type": "decision",
                                 "explicit": True, "rationale": "the mobile client needs stateless auth"}))
    assert out.counts["recovered"] == 1
    node = store.get_node(conn, old)
    assert node["status"] == "active" and node["strength"] > 0
    assert [h["event"] for h in node["data"]["history"]] == ["superseded", "unsuperseded"]


def test_supersession_recovery_implicit_annotates_and_reinforces_successor(conn):
    old, new = _superseded_decision(conn)
    out = _apply(conn, _request({"key": "d1", "name": "Use JWT for sessions", "type": "decision",
                                 "explicit": False}))
    assert out.counts["annotated"] == 1 and out.counts["recovered"] == 0
    node = store.get_node(conn, old)
    assert node["status"] == "superseded" and node["strength"] == 0
    assert node["data"]["history"][-1]["event"] == "reappeared"
    assert out.episode_id in store.get_node(conn, new)["source_episodes"]
    assert len(store.find_by_name(conn, "Use JWT for sessions")) == 1


def test_failure_inside_the_transaction_writes_nothing(conn, monkeypatch):
    req = _request({"key": "n1", "name": "Redis", "type": "concept"})
    monkeypatch.setattr(store, "record_consolidation", lambda *a, **k: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        _apply(conn, req)
    assert conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM episodes").fetchone()[0] == 0
