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


def many(conn, words: list[str], n: int, start: int = 0) -> list[str]:
    """n live nodes whose text is `words` and a number of their own (the bulk path)."""
    return store.insert_nodes(conn, [{"name": f"{' '.join(words)} {start + i}", "type": "finding", "strength": 0.5}
                                     for i in range(n)])


def test_the_row_count_is_read_from_the_index_and_follows_writes(conn):
    assert fulltext.indexed_rows(conn) == 0
    ids = many(conn, ["filler"], 300)
    store.delete_node(conn, ids[0])
    store.update_node(conn, ids[1], description="edited")
    assert fulltext.indexed_rows(conn) == 299 == conn.execute("SELECT count(*) FROM node_fulltext_rows").fetchone()[0]


def test_at_scale_a_common_word_is_left_out_when_a_rare_one_matches(conn):
    """Ranking every node holding "timeout" (a third of the graph) cost ~100 ms at 50,000 nodes."""
    many(conn, ["timeout"], 2100)
    many(conn, ["filler"], 3000, start=2100)
    rare = many(conn, ["timeout", "healthcheck"], 3, start=5100) + many(conn, ["healthcheck"], 2, start=5103)
    assert ids(conn, "timeout", "healthcheck") == sorted(rare)  # not 15 padded with timeout-only nodes
    top = fulltext.search(conn, ["timeout", "healthcheck"], 20)
    assert len(top) == 5 and all(score > 0 for _, score in top)


def test_at_scale_when_every_word_is_common_the_nodes_holding_all_come_first(conn):
    a_only = many(conn, ["alpha"], 2100)
    b_only = many(conn, ["beta"], 2100, start=2100)
    both = many(conn, ["alpha", "beta"], 3, start=4200)
    many(conn, ["filler"], 800, start=4203)
    top = [nid for nid, _ in fulltext.search(conn, ["alpha", "beta"], 8)]
    assert sorted(top[:3]) == sorted(both) and set(top[3:]) <= set(a_only) | set(b_only) and len(top) == 8


def test_a_small_graph_ranks_every_match(conn):
    """Up to MIN_ROWS nodes nothing is left out but the words in more than half of them."""
    common = many(conn, ["timeout"], 30)
    rare = many(conn, ["timeout", "healthcheck"], 2, start=30)
    many(conn, ["filler"], 40, start=32)
    found = [nid for nid, _ in fulltext.search(conn, ["timeout", "healthcheck"], 100)]
    assert sorted(found[:2]) == sorted(rare) and set(found) == set(common) | set(rare)


def test_linked_paths_finds_paths_by_their_last_parts(conn):
    node(conn, "retry client", affected_files=["src/net/retry.ts", "src/net/other.ts"])
    node(conn, "pkg", affected_files=["core/retrieval/__init__.py"])
    node(conn, "unrelated", affected_files=["lib/x.py"])
    assert sorted(fulltext.linked_paths(conn, ["retry.ts"])) == ["src/net/other.ts", "src/net/retry.ts"]
    assert fulltext.linked_paths(conn, ["core/retrieval"]) == ["core/retrieval/__init__.py"]
    assert fulltext.linked_paths(conn, ["nothing.go"]) == []


def test_a_passage_search_ranks_only_the_rare_words_of_a_long_history(conn):
    """Ranking every passage holding a prompt's common words took 34 ms at 20,000 passages (a
    hook's cost): past MIN_ROWS passages a word in more than a tenth of them is left out."""
    common = [(i, "2026-01-01T00:00:00Z", f"the build passed again {i}") for i in range(2500)]
    store.insert_passages(conn, "s-old", common)
    store.insert_passages(conn, "s-rare", [(1, "2026-01-02T00:00:00Z", "the build needs the flatbuffers codegen")])
    store.insert_passages(conn, "s-now", [(1, "2026-01-03T00:00:00Z", "flatbuffers codegen is this session's")])
    found = fulltext.passages(conn, ["build", "flatbuffers", "codegen"], "s-now", 3, 500)
    assert [s for s, _, _ in found] == ["s-rare"]  # no build-only padding; the session's own left out
    assert fulltext.passages(conn, ["build", "passed"], "s-now", 3, 500) == []


def test_a_short_history_ranks_every_passage_holding_a_word_of_at_most_half_of_them(conn):
    said = ["the build passed", "the build failed on codegen", "docs updated", "release notes written"]
    store.insert_passages(conn, "s1", [(i, "2026-01-01T00:00:00Z", t) for i, t in enumerate(said)])
    found = fulltext.passages(conn, ["build", "codegen"], "s2", 3, 500)
    assert [t for _, _, t in found] == ["the build failed on codegen", "the build passed"]
    store.insert_passages(conn, "s1", [(9, "2026-01-01T00:02:00Z", "the build passed twice")])
    assert [t for _, _, t in fulltext.passages(conn, ["build", "codegen"], "s2", 3, 500)] == [said[1]]


def test_an_english_name_inside_a_cjk_sentence_is_a_word_of_its_own():
    """Chinese, Japanese and Korean put no space between words: a run of them is no search word,
    and the names written into it are found."""
    from engram.retrieve.entry_points import words_of

    assert words_of("READMEにCONTRIBUTINGへのリンクを追加して") == ["readme", "contributing"]
    assert words_of("mcp消して関連する記載も消して") == ["mcp"]
    assert words_of("café naïve über") == ["café", "naïve", "über"]
