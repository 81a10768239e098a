"""MRR of on-demand retrieval (`query_knowledge`) on questions made from later prompts.

Each user prompt of a scored session becomes a question (its first QUESTION_CHARS
characters, whitespace collapsed): what the user asked is the most honest stand-in for
what an agent would ask memory about. Its relevant answers are the keys the same turn
then touched (files, tests, errors) that memory could have known: touched by an earlier
session or linked to a live node at the session's start. A question with no such key is
skipped (nothing could be right). The ranking is asked of the graph as it stood before
the session, so nothing of the session itself can answer it.

Rankers: engram = `engram.retrieve.query.search` (entry points + BM25 seeds + vector seeds,
then spreading activation), exactly what `engram query` / the MCP tool run; bm25 = the
keyword index alone over the same live nodes; recency = the previous session's files in
order; none = nothing. Reciprocal rank of the first relevant item in the top TOP (0 when
none is there); MRR is the mean over questions.
"""

from __future__ import annotations

from typing import Any

from engram.evaluation import outcomes
from engram.evaluation.recorder import Variant

TOP = 10
QUESTION_CHARS = 300


def question_of(prompt: str) -> str:
    return " ".join(str(prompt).split())[:QUESTION_CHARS]


def _ranked_ids(variant: Variant, conn: Any, root: str, question: str, cfg: dict) -> list[str]:
    from engram.retrieve import keyword, query

    if variant.kind == "bm25":
        return [nid for nid, _ in keyword.BM25(keyword.live_docs(conn)).rank(question, TOP)]
    return [h["id"] for h in query.search(conn, root, question, cfg)[:TOP]]


def rankings(variant: Variant, db_path: str, root: str, questions: list[str], cfg: dict,
             recent: list[str]) -> list[list[set[str]]]:
    """Per question, the key sets of the top TOP answers, best first."""
    if variant.kind == "none":
        return [[] for _ in questions]
    if variant.kind == "recency":
        return [[{f"file:{p}"} for p in recent[:TOP]] for _ in questions]
    from engram.retrieve import query

    conn = query.open_db(db_path)
    if conn is None:
        return [[] for _ in questions]
    try:
        out = []
        for q in questions:
            ids = _ranked_ids(variant, conn, root, q, cfg)
            keys = outcomes.keys_of(conn, ids)
            out.append([keys.get(i, set()) for i in ids])
        return out
    finally:
        conn.close()


def reciprocal_rank(ranked: list[set[str]], relevant: set[str]) -> float:
    for i, keys in enumerate(ranked[:TOP]):
        if keys & relevant:
            return 1.0 / (i + 1)
    return 0.0


def relevant_sets(events: list[dict[str, Any]], answerable: set[str]) -> list[tuple[str, set[str]]]:
    """[(question, relevant keys)] for the session's prompts that memory could answer."""
    touched = outcomes.touches(events)
    out = []
    for seq, text, end in outcomes.turns(events):
        relevant = {k for s, k in touched if seq < s < end} & answerable
        if relevant and text.strip():
            out.append((question_of(text), relevant))
    return out
