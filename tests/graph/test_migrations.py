"""Schema, migrations and connections: WAL, busy timeout, v1 upgrade, stdlib readers."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from engram.graph import store, migrations
from engram.graph.connect import connect
from engram.graph.readonly import open_ro

ALL = [name for name, _ in migrations.sections()]  # every migration, in file order


def _names(conn, kind):
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = ?", (kind,))}


def test_fresh_database_has_every_table_index_and_meta(conn):
    assert {"nodes", "edges", "episodes", "node_files", "consolidations", "meta", "tombstones",
            "embedding_cache", "node_vectors", "embedded", "decay_sessions"} <= _names(conn, "table")
    assert {"edges_from_node", "edges_from_cover", "edges_to_cover", "nodes_type", "nodes_strength",
            "nodes_affected_files", "nodes_name_key", "nodes_superseded", "nodes_kind",
            "nodes_data_key", "nodes_live_decisions"} <= _names(conn, "index")
    assert migrations.applied(conn) == ALL
    assert store.get_meta(conn, "schema_version") == str(len(ALL))
    assert migrations.pending(conn) == []


def test_every_connection_uses_wal_and_a_busy_timeout(conn, db_path):
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    ro = open_ro(db_path)  # readers wait less than writers: a hook must not stall the agent
    assert ro.execute("PRAGMA busy_timeout").fetchone()[0] == 250  # issue 18: a locked database costs a hook 250 ms
    assert ro.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_database_file_is_private(db_path, conn):
    assert oct(os.stat(db_path).st_mode & 0o777) == "0o600"
    assert oct(os.stat(os.path.dirname(db_path)).st_mode & 0o777) == "0o700"


def test_migrate_is_idempotent(conn):
    assert migrations.migrate(conn) == []
    assert migrations.migrate(conn) == []
    assert conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == len(ALL)


def test_edges_covering_indexes_serve_the_neighbour_lookups(db_path):
    """m015: a graph from before it keeps its edges, loses `edges_to_node`, and spreading
    activation's neighbour query reads both directions from the covering indexes alone."""
    old = connect(db_path, migrate=False)
    migrations.migrate(old, upto="m014_decision_statements_r4")
    a = store.create_node(old, name="a", type="concept", strength=0.8)
    b = store.create_node(old, name="b", type="concept", strength=0.8)
    store.upsert_edge(old, a, b, "requires", strength=0.4)
    old.close()
    conn = connect(db_path)
    assert "edges_to_node" not in _names(conn, "index")
    from engram.graph import readonly

    assert sorted(readonly.neighbours(conn, [a, b])) == sorted([(a, b, 0.4), (b, a, 0.4)])
    sql = ("SELECT e.from_node, e.to_node, e.strength FROM edges e JOIN nodes n ON n.id = e.to_node "
           f"WHERE e.from_node IN (?) AND e.strength > 0 AND {readonly.LIVE} UNION ALL "
           "SELECT e.to_node, e.from_node, e.strength FROM edges e JOIN nodes n ON n.id = e.from_node "
           f"WHERE e.to_node IN (?) AND e.strength > 0 AND {readonly.LIVE}")
    plan = [r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql, (a, a))]
    assert "SEARCH e USING COVERING INDEX edges_from_cover (from_node=?)" in plan
    assert "SEARCH e USING COVERING INDEX edges_to_cover (to_node=?)" in plan


def test_v1_database_upgrades_with_its_data(db_path):
    old = connect(db_path, migrate=False)
    assert migrations.migrate(old, upto="m001_spec_graph") == ["m001_spec_graph"]
    cols = {r[1] for r in old.execute("PRAGMA table_info(nodes)")}
    assert "summary" not in cols and "name_key" not in cols  # really the spec's v1 shape
    old.execute(
        "INSERT INTO nodes (id, name, type, description, strength, status, affected_files,"
        " source_episodes, created_at, updated_at) VALUES ('n1', '  Auth   Module ', 'concept', 'd',"
        " 0.7, 'active', '[\"src/auth.py\", \"src/jwt.py\"]', '[\"e1\", \"e2\"]', 't', 't')"
    )
    old.close()

    conn = connect(db_path)  # the ordinary path migrates
    assert migrations.applied(conn) == ALL
    node = store.get_node(conn, "n1")
    assert node["name_key"] == "auth module" and node["episode_count"] == 2
    assert node["strength"] == 0.7 and node["summary"] == "" and node["data"] == {}
    assert [n["id"] for n in store.find_by_file(conn, "src/jwt.py")] == ["n1"]
    assert [n["id"] for n in store.find_by_name(conn, "AUTH module")] == ["n1"]


def test_failed_migration_rolls_back_and_is_not_recorded(db_path, monkeypatch):
    conn = connect(db_path)
    bad = migrations.sections() + [("m999_broken", "CREATE TABLE t999 (x);\nSELECT * FROM no_such_table;\n")]
    monkeypatch.setattr(migrations, "sections", lambda: bad)
    with pytest.raises(Exception, match="no_such_table"):
        migrations.migrate(conn)
    assert "m999_broken" not in migrations.applied(conn)
    assert "t999" not in _names(conn, "table")
    assert not conn.in_transaction


def test_concurrent_first_opens_apply_each_migration_once(db_path):
    errors = []

    def opener():
        try:
            connect(db_path).close()
        except Exception as exc:  # pragma: no cover - the assertion reports it
            errors.append(exc)

    threads = [threading.Thread(target=opener) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    conn = connect(db_path)
    assert conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == len(ALL)


def test_split_statements_keeps_trigger_bodies_whole():
    sql = "-- c\nCREATE TABLE a (x);\nCREATE TRIGGER t AFTER INSERT ON a BEGIN\n  DELETE FROM a;\n  SELECT 1;\nEND;\n"
    stmts = migrations.split_statements(sql)
    assert len(stmts) == 2 and stmts[1].endswith("END;")
    with pytest.raises(ValueError, match="unterminated"):
        migrations.split_statements("CREATE TABLE b (x)")


def test_schema_sections_are_uniquely_named():
    names = [n for n, _ in migrations.sections()]
    assert names == sorted(set(names), key=names.index)
    assert names[0] == "m001_spec_graph"


def test_readonly_connection_is_none_for_a_missing_file_and_cannot_write(tmp_path, db_path, conn):
    assert open_ro(str(tmp_path / "missing.db")) is None
    assert not (tmp_path / "missing.db").exists()
    ro = open_ro(db_path)
    with pytest.raises(Exception, match="readonly"):
        ro.execute("INSERT INTO meta (key, value) VALUES ('x', 'y')")


def test_readonly_path_with_uri_characters(tmp_path):
    path = str(tmp_path / "we?ird#dir%20" / "engram.db")
    connect(path).close()
    assert open_ro(path).execute("SELECT count(*) FROM nodes").fetchone() == (0,)


STDLIB_READER = r"""
import sys, sqlite3
sys.path.insert(0, sys.argv[2])
from engram.graph.readonly import open_ro
from engram.graph import store
conn = open_ro(sys.argv[1])
print(sqlite3.sqlite_version, conn.execute("SELECT count(*) FROM nodes").fetchone()[0],
      [n["name"] for n in store.find_by_file(conn, "src/app.py")])
try:
    conn.execute("SELECT count(*) FROM node_embeddings").fetchone()
except sqlite3.OperationalError as exc:
    print("vec0:", exc)
print("third-party:", sorted(m for m in ("sqlean", "sqlite_vec", "orjson", "openai") if m in sys.modules))
"""


def test_stdlib_sqlite_reads_a_database_holding_a_vec0_table(conn, db_path):
    from engram.graph import embeddings
    from engram.providers.offline import LocalEmbedder

    assert conn.vec_version, conn.vector_reason
    store.create_node(conn, name="Flask app", type="concept", affected_files=["src/app.py"])
    embeddings.sync(conn, LocalEmbedder())
    root = os.path.dirname(os.path.dirname(os.path.abspath(store.__file__)))
    out = subprocess.run(
        [sys.executable, "-c", STDLIB_READER, db_path, os.path.dirname(root)],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    version, count, names = out[0].split(" ", 2)
    assert count == "1" and names == "['Flask app']"
    assert out[1] == "vec0: no such module: vec0"
    assert out[2] == "third-party: []"


def test_reader_sees_a_consistent_graph_during_a_write_transaction(conn, db_path):
    a = store.create_node(conn, name="a", type="concept")
    ro = open_ro(db_path)
    with store.transaction(conn):
        b = store.create_node(conn, name="b", type="concept")
        store.upsert_edge(conn, a, b, "requires")
        # the reader is not blocked and sees the state before the transaction
        assert ro.execute("SELECT count(*) FROM nodes").fetchone()[0] == 1
        assert ro.execute("SELECT count(*) FROM edges").fetchone()[0] == 0
    assert ro.execute("SELECT count(*) FROM nodes").fetchone()[0] == 2
    assert ro.execute("SELECT count(*) FROM edges").fetchone()[0] == 1


def test_vectors_can_be_disabled_and_say_why(tmp_path, monkeypatch):
    from engram.graph.embeddings import vector_path

    monkeypatch.setenv("ENGRAM_NO_VECTORS", "1")
    c = connect(str(tmp_path / "nv.db"))
    assert vector_path(c) == "python-fallback (disabled by ENGRAM_NO_VECTORS)"
    assert vector_path(connect(str(tmp_path / "nv2.db"), vectors=False)) == "python-fallback (vectors=False)"


def test_a_corrupt_file_raises_one_of_db_errors(tmp_path):
    from engram.graph.connect import db_errors

    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not a database at all" * 200)
    with pytest.raises(db_errors()) as info:
        connect(str(bad))
    assert "not a database" in str(info.value)


def _decisions_plan(conn) -> str:
    from engram.graph import readonly

    return " / ".join(r[-1] for r in conn.execute("EXPLAIN QUERY PLAN " + readonly._DECISIONS, (2000,)))


def test_a_database_from_before_the_live_decisions_index_gets_it_and_the_same_topics(db_path):
    """m006: the topic lookup read every live decision and sorted them (20-40 ms at 50,000
    nodes); migrated, it reads the strongest from the index, in its order, and finds the same."""
    from engram.graph import readonly
    from engram.graph.supersession import supersede

    old = connect(db_path, migrate=False)
    migrations.migrate(old, upto="m005_node_fulltext")  # the one before the index
    subject = {"statement": {"subject": ["job", "queue"], "choice": ["redis"], "ruled_out": []}}
    ids = {name: store.create_node(old, name=name, type=kind, strength=s, data=data)
           for name, kind, s, data in [("Use Redis for the job queue.", "decision", 0.5, subject),
                                        ("Keep the (job queue) small", "decision", 0.9, {}),
                                        ("Cap the job queue at 100", "decision", 0.5, {}),  # ties with the first
                                        ("Drain the job queue nightly", "decision", 0.0, {}),  # strength 0: not live
                                        ("Use SQS for the job queue", "decision", 0.7, {}),
                                        ("job queue", "concept", 1.0, {})]}
    supersede(old, ids["Use SQS for the job queue"], ids["Use Redis for the job queue."], reason="test")
    before = readonly.decisions_about(old, ["job queue"], {"job", "queue"})
    assert "TEMP B-TREE" in _decisions_plan(old)
    migrations.migrate(old)
    assert migrations.applied(old) == ALL
    for reader in (old, open_ro(db_path)):  # the query's driver (sqlean when installed) and the hooks' stdlib one
        plan = _decisions_plan(reader)
        assert "nodes_live_decisions" in plan and "TEMP B-TREE" not in plan, plan
    after = readonly.decisions_about(old, ["job queue"], {"job", "queue"})
    strongest = sorted([ids["Use Redis for the job queue."], ids["Cap the job queue at 100"]])
    assert after == before == [(ids["Keep the (job queue) small"], 0.9, "job queue")] + [
        (i, 0.5, "job queue") for i in strongest]
    assert readonly.decisions_about(old, ["job queue"], limit=2) == after[:2]  # the strongest `limit` only
    # m009 read every decision's statement again: its subject in text.stem's words
    assert readonly.decisions_about(old, [], {"job", "queu", "redis"}) == [
        (ids["Use Redis for the job queue."], 0.5, "subject:job queu")]
    old.close()


def test_a_database_from_before_the_live_episodes_index_gets_it_and_the_same_episodes(db_path):
    """m007: SessionStart's newest episodes read every episode and sorted them by time (~11 ms
    at 50,000 nodes); migrated, it reads them from the index, in its order, and finds the same."""
    from engram.graph import readonly

    old = connect(db_path, migrate=False)
    migrations.migrate(old, upto="m006_live_decisions_index")
    for i, (status, strength) in enumerate([("active", 0.5), ("active", 0.0), ("superseded", 0.5)] * 4):
        nid = store.create_node(old, name=f"episode {i}", type="episode", strength=strength)
        old.execute("UPDATE nodes SET status = ?, created_at = ? WHERE id = ?", (status, f"2026-01-{i + 1:02d}", nid))
    store.create_node(old, name="not an episode", type="finding", strength=1.0)
    plan = lambda c: " / ".join(r[-1] for r in c.execute(  # noqa: E731
        f"EXPLAIN QUERY PLAN SELECT id FROM nodes n WHERE n.type = 'episode' AND n.status = 'active' "
        f"AND +n.strength > 0 ORDER BY n.created_at DESC, n.id LIMIT 3"))
    before = [n["name"] for n in readonly.latest_episodes(old, 3)]
    assert "TEMP B-TREE" in plan(old)
    migrations.migrate(old)
    for reader in (old, open_ro(db_path)):
        assert "nodes_live_episodes" in plan(reader) and "TEMP B-TREE" not in plan(reader), plan(reader)
        assert [n["name"] for n in readonly.latest_episodes(reader, 3)] == before == ["episode 9", "episode 6",
                                                                                     "episode 3"]


def test_knowledge_items_of_a_failed_session_get_their_strength_back(db_path):
    """m011: a knowledge item first seen in a failed session had outcome 0/1, strength 0, and
    was never shown; migrated, it counts no outcome. Other nodes keep theirs."""
    old = connect(db_path, migrate=False)
    migrations.migrate(old, upto="m010_item_payoff")
    ids = {}
    for name, data in [("Failing at the end: pytest -q", {"kind": "unfinished"}),
                       ("`make test` runs the tests", {"kind": "command"}), ("an approach", {})]:
        ids[name] = store.create_node(old, name=name, type="finding", data=data, episode_count=1,
                                      outcome_total=1, outcome_success=0, strength=0.0)
    migrations.migrate(old)
    got = dict(old.execute("SELECT name, strength FROM nodes").fetchall())
    assert got["Failing at the end: pytest -q"] == got["`make test` runs the tests"] == 1.0  # log2(2) x 1 x 1
    assert got["an approach"] == 0.0
    assert old.execute("SELECT outcome_total FROM nodes WHERE name = 'an approach'").fetchone()[0] == 1
    old.close()
