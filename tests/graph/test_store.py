"""store.py: nodes, edges, episodes, consolidation records, transactions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engram.graph import store


def node(conn, name="SQLite", type="concept", **kw):
    return store.create_node(conn, name=name, type=type, **kw)


# -- nodes ------------------------------------------------------------------------


def test_create_and_get_node_round_trips_every_field(conn):
    nid = node(conn, description="embedded db", summary="the db", strength=0.8,
               affected_files=["src/db.py", "./src/db.py"], source_episodes=["e1", "e2", "e1"],
               data={"explicit": True, "requires": ["WAL"]}, causal=True)
    n = store.get_node(conn, nid)
    assert n["name"] == "SQLite" and n["type"] == "concept" and n["status"] == "active"
    assert n["affected_files"] == ["src/db.py"]  # normalised and deduplicated
    assert n["source_episodes"] == ["e1", "e2"] and n["episode_count"] == 2
    assert n["data"] == {"explicit": True, "requires": ["WAL"]}
    assert n["causal"] == 1 and n["strength"] == 0.8 and n["summary"] == "the db"
    assert n["created_at"] == n["updated_at"] and n["created_at"].endswith("Z")


def test_node_validation(conn):
    with pytest.raises(ValueError, match="node type 'thing'"):
        node(conn, type="thing")
    with pytest.raises(TypeError, match="colour"):
        store.create_node(conn, name="x", type="concept", colour="red")
    with pytest.raises(store.NotFound):
        store.update_node(conn, "n_missing", description="x")
    with pytest.raises(Exception, match="CHECK"):
        node(conn, strength=1.5)
    assert store.get_node(conn, "n_missing") is None


def test_update_merges_lists_and_data_never_overwrites(conn):
    nid = node(conn, affected_files=["a.py"], source_episodes=["e1"], data={"k": 1, "drop": 2})
    n = store.update_node(conn, nid, description="new", source_episodes=["e2", "e1"],
                          affected_files=["b.py"], data={"k2": 3, "drop": None})
    assert n["source_episodes"] == ["e1", "e2"] and n["episode_count"] == 2
    assert n["affected_files"] == ["a.py", "b.py"]
    assert n["data"] == {"k": 1, "k2": 3}
    assert n["description"] == "new" and n["updated_at"] > n["created_at"]
    assert [x["id"] for x in store.find_by_file(conn, "b.py")] == [nid]


def test_update_rename_changes_name_key(conn):
    nid = node(conn, name="Old Name")
    store.update_node(conn, nid, name="Brand  NEW name")
    assert [n["id"] for n in store.find_by_name(conn, "brand new NAME")] == [nid]
    assert store.find_by_name(conn, "old name") == []


def test_find_by_name_orders_exact_then_active_then_strength(conn):
    weak = node(conn, name="sqlite", strength=0.2)
    strong = node(conn, name="SQLITE", strength=0.9)
    exact = node(conn, name="SQLite", strength=0.1)
    old = node(conn, name="SQLite", strength=0.0, status="superseded")
    ids = [n["id"] for n in store.find_by_name(conn, "SQLite")]
    assert ids == [exact, old, strong, weak]
    assert old not in [n["id"] for n in store.find_by_name(conn, "SQLite", include_superseded=False)]
    assert store.find_by_name(conn, "sqlite", type="decision") == []


def test_find_by_file_filters_by_strength_and_status_strongest_first(conn):
    a = node(conn, name="a", strength=0.9, affected_files=["src/x.py"])
    b = node(conn, name="b", strength=0.6, affected_files=["src/x.py", "src/y.py"], type="decision")
    node(conn, name="c", strength=0.3, affected_files=["src/x.py"])
    node(conn, name="d", strength=0.0, status="superseded", affected_files=["src/x.py"])
    assert [n["id"] for n in store.find_by_file(conn, "src/x.py", min_strength=0.5)] == [a, b]
    assert [n["id"] for n in store.find_by_file(conn, "./src/x.py", min_strength=0.5, limit=1)] == [a]
    assert [n["id"] for n in store.find_by_file(conn, "src/x.py", type="decision")] == [b]
    assert len(store.find_by_file(conn, "src/x.py", include_superseded=True)) == 4
    assert store.find_by_file(conn, "nope.py") == []


@pytest.mark.parametrize("sql, plan", [
    ("SELECT n.id FROM node_files f JOIN nodes n ON n.id = f.node_id WHERE f.path = ? AND +n.strength >= 0",
     ["SEARCH f USING PRIMARY KEY (path=?)", "SEARCH n USING INDEX sqlite_autoindex_nodes_1 (id=?)"]),
    ("SELECT * FROM nodes WHERE name_key = ? AND +status = 'active'",
     ["SEARCH nodes USING INDEX nodes_name_key (name_key=?)"]),
    ("SELECT * FROM edges WHERE from_node = ?", ["SEARCH edges USING INDEX edges_from_cover (from_node=?)"]),
    ("SELECT * FROM edges WHERE to_node = ?", ["SEARCH edges USING INDEX edges_to_cover (to_node=?)"]),
])
def test_lookups_use_their_index(conn, sql, plan):
    for i in range(50):
        node(conn, name=f"n{i}", affected_files=[f"f{i}.py"], strength=0.5)
    conn.execute("ANALYZE")
    assert [r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql, ("x",))] == plan


def test_list_nodes_filters(conn):
    node(conn, name="a", strength=0.9)
    node(conn, name="b", type="decision", strength=0.5)
    node(conn, name="c", status="superseded")
    assert [n["name"] for n in store.list_nodes(conn)] == ["a", "b", "c"]
    assert [n["name"] for n in store.list_nodes(conn, type="decision")] == ["b"]
    assert [n["name"] for n in store.list_nodes(conn, status="active", min_strength=0.6)] == ["a"]
    assert len(store.list_nodes(conn, limit=2)) == 2


def test_replace_file_and_delete_node(conn):
    a = node(conn, name="a", affected_files=["old.py", "keep.py"])
    b = node(conn, name="b")
    store.upsert_edge(conn, a, b, "requires")
    store.replace_file(conn, a, "old.py", "new.py")
    assert store.get_node(conn, a)["affected_files"] == ["new.py", "keep.py"]
    assert store.find_by_file(conn, "old.py") == [] and store.find_by_file(conn, "new.py")
    assert store.delete_node(conn, a)
    assert store.get_node(conn, a) is None and store.edges_of(conn, b) == []
    assert store.find_by_file(conn, "keep.py") == []


def test_bulk_insert(conn):
    ids = store.insert_nodes(conn, [{"name": f"n{i}", "type": "concept", "affected_files": [f"f{i % 3}.py"]}
                                    for i in range(50)])
    edges = [{"from_node": ids[i], "to_node": ids[i + 1], "type": "requires"} for i in range(49)]
    assert store.insert_edges(conn, edges) == 49
    assert store.insert_edges(conn, edges[:5]) == 0  # existing triples are skipped
    assert len(store.find_by_file(conn, "f1.py")) == 17
    assert len(store.get_nodes(conn, ids + ["missing"])) == 50


@settings(max_examples=50, deadline=None)
@given(st.text(min_size=1, max_size=30).filter(lambda s: s.strip()))
def test_normalised_name_lookup_ignores_case_and_spacing(name):
    from engram.graph.connect import connect

    conn = connect(":memory:")
    nid = store.create_node(conn, name=name, type="concept")
    key = store.normalise_name(name)
    assert store.normalise_name(key) == key
    variant = "  " + "   ".join(name.split()) + "\t"
    assert nid in [n["id"] for n in store.find_by_name(conn, variant)]
    if store.normalise_name(name.upper()) == key:
        assert nid in [n["id"] for n in store.find_by_name(conn, name.upper())]


# -- edges ------------------------------------------------------------------------


def test_upsert_edge_merges_episodes_keeps_max_strength(conn):
    a, b = node(conn, name="a"), node(conn, name="b")
    e1 = store.upsert_edge(conn, a, b, "caused_by", strength=0.7, source_episodes=["e1"], data={"x": 1})
    e2 = store.upsert_edge(conn, a, b, "caused_by", strength=0.3, source_episodes=["e2", "e1"], data={"y": 2})
    assert e1 == e2
    e = store.get_edge(conn, e1)
    assert e["strength"] == 0.7 and e["source_episodes"] == ["e1", "e2"] and e["data"] == {"x": 1, "y": 2}
    store.upsert_edge(conn, a, b, "caused_by", strength=0.9)
    assert store.get_edge(conn, e1)["strength"] == 0.9
    other = store.upsert_edge(conn, a, b, "requires")  # another type is another edge
    assert other != e1 and store.find_edge(conn, a, b, "requires")["id"] == other


def test_edges_of_directions_and_types(conn):
    a, b, c = (node(conn, name=x) for x in "abc")
    ab = store.upsert_edge(conn, a, b, "requires")
    ca = store.upsert_edge(conn, c, a, "caused_by")
    assert [e["id"] for e in store.edges_of(conn, a)] == [ab, ca]
    assert [e["id"] for e in store.edges_of(conn, a, direction="out")] == [ab]
    assert [e["id"] for e in store.edges_of(conn, a, direction="in")] == [ca]
    assert [e["id"] for e in store.edges_of(conn, a, types=["caused_by"])] == [ca]
    with pytest.raises(ValueError):
        store.edges_of(conn, a, direction="sideways")
    with pytest.raises(ValueError, match="edge type 'likes'"):
        store.upsert_edge(conn, a, b, "likes")
    assert store.delete_edge(conn, ab) and store.get_edge(conn, ab) is None


def test_edge_to_a_missing_node_fails_at_commit(conn):
    a = node(conn, name="a")
    with pytest.raises(Exception, match="FOREIGN KEY"):
        store.upsert_edge(conn, a, "n_missing", "requires")
    assert store.edges_of(conn, a) == []


# -- episodes and consolidation records ----------------------------------------------


def test_episodes(conn):
    eid = store.insert_episode(conn, session_id="s1", outcome="partial", goal="g", approach="a",
                               episode_data={"discoveries": [1]})
    ep = store.get_episode(conn, eid)
    assert ep["outcome"] == "partial" and ep["episode_data"] == {"discoveries": [1]}
    store.insert_episode(conn, session_id="s1", outcome="success")
    assert [e["outcome"] for e in store.episodes_for_session(conn, "s1")] == ["partial", "success"]
    with pytest.raises(ValueError, match="outcome 'meh'"):
        store.insert_episode(conn, session_id="s1", outcome="meh")


def test_consolidation_range_applies_exactly_once(conn):
    assert not store.range_applied(conn, "s1", 10) and store.applied_through(conn, "s1") is None
    with store.transaction(conn):
        assert store.record_consolidation(conn, "s1", 1, 10, "ep1")
        node(conn, name="learned")
    assert store.range_applied(conn, "s1", 10) and store.range_applied(conn, "s1", 7)
    assert not store.range_applied(conn, "s1", 11) and not store.range_applied(conn, "s2", 10)
    assert store.record_consolidation(conn, "s1", 1, 10, "ep1") is False
    assert store.record_consolidation(conn, "s1", 11, 20, "ep2")
    assert store.applied_through(conn, "s1") == 20


def test_crash_inside_consolidation_leaves_neither_graph_nor_record(conn):
    with pytest.raises(RuntimeError):
        with store.transaction(conn):
            store.record_consolidation(conn, "s1", 1, 5)
            node(conn, name="half-written")
            raise RuntimeError("worker killed")
    assert not store.range_applied(conn, "s1", 5)
    assert store.find_by_name(conn, "half-written") == []


# -- transactions --------------------------------------------------------------------


def test_nested_transaction_rolls_back_only_the_inner_part(conn):
    with store.transaction(conn):
        node(conn, name="outer")
        with pytest.raises(KeyError):
            with store.transaction(conn):
                node(conn, name="inner")
                raise KeyError("boom")
        assert store.find_by_name(conn, "inner") == []
    assert store.find_by_name(conn, "outer") and not conn.in_transaction


def test_meta_tombstones_counts(conn):
    store.set_meta(conn, "k", 3)
    assert store.get_meta(conn, "k") == "3" and store.get_meta(conn, "nope", "d") == "d"
    store.add_tombstone(conn, "node:SQLite")
    store.add_tombstone(conn, "node:SQLite")
    assert store.has_tombstone(conn, "node:SQLite") and not store.has_tombstone(conn, "x")
    a, b = node(conn, name="a"), node(conn, name="b", type="decision", status="superseded")
    store.upsert_edge(conn, a, b, "requires")
    store.insert_episode(conn, session_id="s", outcome="failure")
    c = store.counts(conn)
    assert c["nodes"] == {"concept": {"active": 1}, "decision": {"superseded": 1}}
    assert (c["nodes_total"], c["edges_total"], c["episodes"]) == (2, 1, {"failure": 1})
