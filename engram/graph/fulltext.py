"""Keyword search over the persisted FTS5 index of node text (schema.sql, m005_node_fulltext).

The index holds each node's name, summary, description and file paths, tokenised by
FTS5's `porter unicode61` (casefolded words, `_` `/` `.` `-` as separators, English
stems); triggers keep it current on every write. FTS5's `bm25()` is Okapi BM25 with
k1 = 1.2, b = 0.75, negated (smaller is better); `search` returns it positive.

What a search costs is the rows `bm25()` ranks (~4 µs each: 46,000 matches of a question's
common words took 170 ms at 50,000 nodes), so above MIN_ROWS nodes a search ranks at most a
row budget, a tenth of the nodes and at least MIN_ROWS (a smaller graph ranks every match of
its words in at most half the nodes, as before):

* The question's words in at most a tenth of the nodes, rarest first, while their matches
  fit the budget. Their IDF is over log(9), so the best nodes are theirs; a word in more
  than half the nodes has an IDF of 1e-6 and never counts.
* When every word is commoner than that, the nodes holding all of them (the words in at
  most half the nodes), then, below `limit`, those holding any; either among the newest
  budget rows of its matches only (the index's rowids grow with each write of a node's text).

What this costs and how far it keeps to the exhaustive ranking: docs/retrieval.md, "On demand: `engram query` and the MCP server".
"""

from __future__ import annotations

from engram.graph import readonly
from engram.graph.readonly import LIVE

SHARE = 10  # the row budget: a tenth of the indexed nodes ...
MIN_ROWS = 2000  # ... and at least this many (~8 ms of bm25)


def _quoted(terms: list[str]) -> list[str]:
    """Each term as an FTS5 string (so no word is read as an operator or column name)."""
    return ['"' + t.replace('"', '""') + '"' for t in dict.fromkeys(t for t in terms if t.strip())]


def match_expression(terms: list[str]) -> str:
    """An FTS5 query that matches any of `terms`; "" when there is none."""
    return " OR ".join(_quoted(terms))


def available(conn) -> bool:
    """Whether this database has the index (a database not yet migrated to m005 has not)."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'node_fulltext'").fetchone() is not None


def linked_paths(conn, suffixes: list[str]) -> list[str]:
    """Paths that may end with one of `suffixes` (seeds.suffix_hits keeps those that do): the
    paths of the nodes whose text holds a suffix's words in a row ("retry.ts": retry, ts). The
    index holds every node's paths, so none is missed unless more than MIN_ROWS nodes hold the
    words; reading every distinct path instead took 20-45 ms at 50,000 nodes. A database from
    before the index reads them all."""
    if not available(conn):
        return readonly.known_paths(conn)
    rows = conn.execute(
        "SELECT DISTINCT j.value FROM (SELECT node_id FROM node_fulltext WHERE node_fulltext MATCH ? LIMIT ?) m "
        "JOIN nodes n ON n.id = m.node_id, json_each(n.affected_files) j WHERE j.type = 'text'",
        (match_expression(suffixes), MIN_ROWS))
    return [r[0] for r in rows]


def indexed_rows(conn, index: str = "node_fulltext") -> int:
    """How many rows an index holds: the first varint of FTS5's averages record (rowid 1 of
    `<index>_data`; sqlite's fts5_index.c, "FTS5_AVERAGES_ROWID"), the count bm25() itself
    reads. One primary-key read, where count(*) would read every row."""
    row = conn.execute(f"SELECT block FROM {index}_data WHERE id = 1").fetchone()
    n = 0
    for byte in row[0] if row else b"":  # SQLite's varint: 7 bits a byte, high bit = more follow
        n = (n << 7) | (byte & 0x7F)
        if byte < 0x80:
            break
    return n


def _count(conn, term: str, cap: int, index: str = "node_fulltext") -> int:
    """Rows holding `term`, counted up to `cap` + 1: one doclist read that stops there."""
    return conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM {index} WHERE {index} MATCH ? LIMIT ?)",
                        (match_expression([term]), cap + 1)).fetchone()[0]


def _rarest(counts: dict[str, int], total: int, budget: int, common: bool = True) -> list[str]:
    """The words in at most a tenth of the nodes, rarest first, while their matches fit `budget`
    rows; in a graph of at most MIN_ROWS nodes, every word in at most half of them (or, when
    all are commoner and `common`, every word found), as before the budget."""
    if total <= MIN_ROWS:
        return [t for t, n in counts.items() if n and n * 2 <= total] or [t for t, n in counts.items() if n and common]
    out, rows = [], 0
    for n, t in sorted((n, t) for t, n in counts.items() if n and n * SHARE <= total):
        rows += n
        if rows > budget:
            break
        out.append(t)
    return out


def search(conn, terms: list[str], limit: int, rows: int | None = None) -> list[tuple[str, float]]:
    """[(live node id, BM25 score > 0)] best first, ties by id, ranking at most the row budget
    (or `rows`, a hook's smaller one)."""
    terms = list(dict.fromkeys(t for t in terms if t.strip()))
    if not terms:
        return []
    total = indexed_rows(conn)
    budget = rows or max(total // SHARE, MIN_ROWS)
    counts = {t: _count(conn, t, budget) for t in terms}
    if rows:  # a hook's search: only words in at most half the nodes; commoner ones say little
        return _ranked(conn, match_expression(_rarest(counts, total, budget, common=False)), limit)
    rare = _rarest(counts, total, budget)
    if rare:
        return _ranked(conn, match_expression(rare), limit)
    return _common(conn, [t for t in terms if counts[t]], total, budget, limit)


def _common(conn, terms: list[str], total: int, budget: int, limit: int) -> list[tuple[str, float]]:
    """Every word is in more than `budget` nodes: those holding all of them, then those holding
    any; both have the same words, so their scores are one scale."""
    words = [t for t in terms if _count(conn, t, total // 2) * 2 <= total] or terms
    hits = _ranked(conn, " AND ".join(_quoted(words)), limit, budget)
    if len(hits) < limit and len(words) > 1:
        seen = {nid for nid, _ in hits}
        hits += [h for h in _ranked(conn, match_expression(words), limit, budget) if h[0] not in seen]
    return sorted(hits, key=lambda h: (-h[1], h[0]))[:limit]


def _newest_floor(conn, expr: str, newest: int) -> int:
    """The lowest index rowid among the `newest` newest matches of `expr` (0: fewer match)."""
    row = conn.execute("SELECT rowid FROM node_fulltext WHERE node_fulltext MATCH ? ORDER BY rowid DESC "
                       "LIMIT 1 OFFSET ?", (expr, newest - 1)).fetchone()
    return row[0] if row else 0


def _ranked(conn, expr: str, limit: int, newest: int | None = None) -> list[tuple[str, float]]:
    """The best `limit` live matches of `expr` (among its `newest` newest, when given)."""
    if not expr:
        return []
    floor = _newest_floor(conn, expr, newest) if newest else 0
    # Rank in the index alone, then keep the live: joining every match to `nodes` first cost
    # more than the ranking. The best `fetch` matches hold the best `limit` live ones once
    # `limit` of them are live, or when they are all the matches there are.
    fetch = 4 * limit
    while True:
        rows = conn.execute(
            # the inner order is bm25 alone: a second key would read every match's node_id
            "SELECT m.node_id, -m.rank, n.id IS NOT NULL FROM (SELECT node_id, bm25(node_fulltext) AS rank "
            "FROM node_fulltext WHERE node_fulltext MATCH ? AND rowid >= ? ORDER BY rank LIMIT ?) m "
            f"LEFT JOIN nodes n ON n.id = m.node_id AND {LIVE} ORDER BY m.rank, m.node_id",
            (expr, floor, fetch)).fetchall()
        live = [(nid, float(score)) for nid, score, ok in rows if ok and score > 0]
        if len(live) >= limit or len(rows) < fetch:
            return live[:limit]
        fetch *= 4


def passages(conn, terms: list[str], session: str, limit: int, rows: int) -> list[tuple[str, str, str]]:
    """[(session, ts, text)] of the best `limit` passages (graph/schema.sql m012) holding any of
    `terms`, other sessions' only; [] before m012. The words are cut as a hook's node search cuts
    them (`search` with `rows`), so bm25 ranks at most `rows` matches whatever the history's
    length (ranking every match of a prompt's words took 34 ms at 20,000 passages)."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'passage_fulltext'").fetchone() is None:
        return []
    terms = list(dict.fromkeys(t for t in terms if t.strip()))
    total = indexed_rows(conn, "passage_fulltext")
    counts = {t: _count(conn, t, rows, "passage_fulltext") for t in terms}
    expr = match_expression(_rarest(counts, total, rows))
    if not expr:
        return []
    return conn.execute(
        "SELECT p.session_id, p.ts, p.text FROM (SELECT rowid, bm25(passage_fulltext) AS rank FROM passage_fulltext "
        "WHERE passage_fulltext MATCH ? ORDER BY rank LIMIT ?) m JOIN passages p ON p.rowid = m.rowid "
        "WHERE p.session_id != ? ORDER BY m.rank", (expr, limit + 8, session)).fetchall()[:limit]
