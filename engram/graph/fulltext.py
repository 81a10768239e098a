"""Keyword search over the persisted FTS5 index of node text (schema.sql, m005_node_fulltext).

The index holds each node's name, summary, description and file paths, tokenised by
FTS5's `porter unicode61` (casefolded words, `_` `/` `.` `-` as separators, English
stems); triggers keep it current on every write, so a search costs an index lookup and
BM25 over the matching rows, not a pass over every node. FTS5's `bm25()` is Okapi BM25
with k1 = 1.2, b = 0.75, negated (smaller is better); `search` returns it positive.

A term found in more than half of the nodes is left out of the search when others are
not: FTS5 gives it an IDF of 1e-6, so it cannot change the order, and it would only make
BM25 score nearly every node (a path word such as "src" or "py" at 50,000 nodes).
"""

from __future__ import annotations

from engram.graph.readonly import LIVE


def match_expression(terms: list[str]) -> str:
    """An FTS5 query that matches any of `terms`, each quoted (so no word is read as an
    operator or column name); "" when there is none."""
    quoted = ['"' + t.replace('"', '""') + '"' for t in dict.fromkeys(t for t in terms if t.strip())]
    return " OR ".join(quoted)


def available(conn) -> bool:
    """Whether this database has the index (a database not yet migrated to m005 has not)."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'node_fulltext'").fetchone() is not None


def _selective(conn, terms: list[str]) -> list[str]:
    """The terms found in at most half of the indexed nodes (each count is one doclist read),
    or, when every term found is that common, all of those."""
    total = conn.execute("SELECT count(*) FROM node_fulltext_rows").fetchone()[0]
    sql = "SELECT count(*) FROM node_fulltext WHERE node_fulltext MATCH ?"
    found = {t: n for t in terms if (n := conn.execute(sql, (match_expression([t]),)).fetchone()[0])}
    return [t for t, n in found.items() if n * 2 <= total] or list(found)


def search(conn, terms: list[str], limit: int) -> list[tuple[str, float]]:
    """[(live node id, BM25 score > 0)] best first, ties by id, for nodes matching any selective term."""
    expr = match_expression(_selective(conn, [t for t in terms if t.strip()]))
    if not expr:
        return []
    # Rank in the index alone, then keep the live: joining every match to `nodes` first cost
    # more than the ranking. The best `fetch` matches hold the best `limit` live ones once
    # `limit` of them are live, or when they are all the matches there are.
    fetch = 4 * limit
    while True:
        rows = conn.execute(
            # the inner order is bm25 alone: a second key would read every match's node_id
            "SELECT m.node_id, -m.rank, n.id IS NOT NULL FROM (SELECT node_id, bm25(node_fulltext) AS rank "
            "FROM node_fulltext WHERE node_fulltext MATCH ? ORDER BY rank LIMIT ?) m "
            f"LEFT JOIN nodes n ON n.id = m.node_id AND {LIVE} ORDER BY m.rank, m.node_id",
            (expr, fetch)).fetchall()
        live = [(nid, float(score)) for nid, score, ok in rows if ok and score > 0]
        if len(live) >= limit or len(rows) < fetch:
            return live[:limit]
        fetch *= 4
