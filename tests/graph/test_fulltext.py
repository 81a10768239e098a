"""The persisted full-text index (m005_node_fulltext): triggers keep it current, old databases get it."""

from __future__ import annotations

from engram.graph import fulltext, migrations, store
from engram.graph.connect import connect
from engram.graph.supersession import supersede


def ids(conn, *terms: str) -> list[str]:
    return sorted(nid for nid, _ in fulltext.search(conn, list(terms), 20))


def node(conn, name: str, **fields) -> str:
    """A live node (strength > 0: a node of strength 0 is not live)."""
    return store.create_node(conn, name=name, type=fields.pop("type", "concept"), strength=0.5, **fields)


def test_a_new_node_is_found_by_its_name_description_summary_and_files(conn):
    a = node(conn, "retry client", description="Exponential backoff.",
                          summary="wraps fetch", affected_files=["src/net/http_retry.ts"])
    node(conn, "unrelated", description="Nothing here.")
    for term in ("retry", "backoff", "wraps", "http", "net", "retries"):  # "retries": FTS5 stems
        assert ids(conn, term) == [a], term


def test_an_edit_replaces_the_indexed_text_and_a_strength_change_leaves_it(conn):
    a = node(conn, "queue", description="uses redis")
    rows = conn.execute("SELECT count(*) FROM node_fulltext").fetchone()[0]
    store.update_node(conn, a, description="uses sqlite")
    assert ids(conn, "redis") == [] and ids(conn, "sqlite") == [a]
    before = conn.execute("SELECT fts_rowid FROM node_fulltext_rows WHERE node_id = ?", (a,)).fetchone()
    conn.execute("UPDATE nodes SET strength = 0.2 WHERE id = ?", (a,))
    assert conn.execute("SELECT fts_rowid FROM node_fulltext_rows WHERE node_id = ?", (a,)).fetchone() == before
    assert conn.execute("SELECT count(*) FROM node_fulltext").fetchone()[0] == rows


def test_deleted_and_superseded_nodes_are_not_returned(conn):
    old = node(conn, "Use Redis for the job queue", type="decision")
    new = node(conn, "Use SQLite for the job queue", type="decision")
    gone = node(conn, "job queue notes", type="finding")
    supersede(conn, old, new, reason="no server")
    store.delete_node(conn, gone)
    assert ids(conn, "queue") == [new]
    assert conn.execute("SELECT count(*) FROM node_fulltext").fetchone()[0] == 2  # the delete removed its row


def test_the_index_survives_vacuum(conn):
    """nodes' rowids may change under VACUUM (engram forget runs it): the index is keyed by node id."""
    a = node(conn, "first")
    b = node(conn, "second")
    store.delete_node(conn, a)
    conn.execute("VACUUM")
    store.update_node(conn, b, description="renamed thing")
    assert ids(conn, "renamed") == [b] and ids(conn, "first") == []


def test_a_database_from_before_the_index_gets_it_with_its_nodes(db_path):
    old = connect(db_path, migrate=False)
    migrations.migrate(old, upto="m004_decision_decay")  # the one before the index
    assert not fulltext.available(old)
    a = node(old, "legacy cache", description="memcached in front")
    migrations.migrate(old)
    assert fulltext.available(old) and ids(old, "memcached") == [a]
    b = node(old, "new cache")
    store.update_node(old, a, description="redis now")
    assert ids(old, "cache") == sorted([a, b])
    assert ids(old, "memcached") == []
    old.close()


def test_words_that_look_like_fts_syntax_are_plain_words(conn):
    a = node(conn, "NOT near OR and")
    assert ids(conn, "NOT", "near", 'quote"d', "body:", "*") == [a]
    assert fulltext.match_expression([]) == "" and fulltext.search(conn, [], 5) == []
