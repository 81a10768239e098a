"""One answer when two current decisions may conflict (issue 30).

Supersession retires an older decision only when it is sure a newer one replaces it; when
it is not (the two concerns only contain one another, "the database" and "the test
database", or the newer rules the older's choice out without naming a concern), it keeps
both and links them: a `similar_to` edge from the newer to the older whose reason starts
"possibly replaces" (graph/supersession.py). Served side by side, the two would read as two
equal answers to one question. So every reader of decisions (`engram query`, the MCP tool
`query_knowledge`, SessionStart's and the prompt's context) serves the newest of such a
chain, where the older stood, and names the older on its line: "(possibly replaces: OLDER)".
"""

from __future__ import annotations

from engram.graph import readonly
from engram.retrieve import tiers
from engram.text import clip

MAX_NAMED = 2  # older decisions named on a newer one's line
MAX_HOPS = 8  # a chain of possible replacements followed this far


def _plan(conn, ids: list[str]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """({older id: the newest id that may replace it}, {newest id: [older ids]}) for the ids."""
    newer: dict[str, str] = {}
    frontier = set(ids)
    for _ in range(MAX_HOPS):
        pairs = [(a, b) for a, b in readonly.possible_replacements(conn, sorted(frontier)) if b not in newer]
        if not pairs:
            break
        for a, b in pairs:
            newer.setdefault(b, a)
        frontier = {a for a, _ in pairs} | {b for _, b in pairs}
    newest: dict[str, str] = {}
    for old in newer:
        top, seen = newer[old], {old}
        while top in newer and top not in seen:
            seen.add(top)
            top = newer[top]
        newest[old] = top
    olders: dict[str, list[str]] = {}
    for old, top in sorted(newest.items()):
        if old != top:
            olders.setdefault(top, []).append(old)
    return {o: t for o, t in newest.items() if o != t}, olders


def _served(conn, ids: list[str]) -> tuple[dict[str, str], dict[str, dict]]:
    """({id: the id served in its place}, {served id: its node, saying which it may replace})."""
    decisions = [i for i in ids if not i.startswith("pending:")]
    newest, olders = _plan(conn, decisions) if decisions else ({}, {})
    if not newest:
        return {}, {}
    rows = readonly.nodes(conn, sorted(set(newest.values()) | set(newest)))
    shown: dict[str, dict] = {}
    for top, olds in olders.items():
        names = [rows[o]["name"] for o in olds if o in rows][:MAX_NAMED]
        if top in rows and names:
            shown[top] = tiers.with_note(rows[top], " ".join(f"(possibly replaces: {clip(n, 120)})" for n in names))
    return {o: t for o, t in newest.items() if t in shown}, shown


def serve_one(conn, items: list[tuple[dict, float]]) -> list[tuple[dict, float]]:
    """Ranked (node, activation) pairs with each decision that may be replaced served as the
    newest decision that may replace it, once, at the better of their places. Only decisions
    are looked up: a possible replacement links two decisions, and a prompt's candidates are
    mostly files and findings, whose edges the lookup would read for nothing."""
    instead, shown = _served(conn, [n["id"] for n, _ in items if n.get("type") == "decision"])
    if not shown:
        return items
    out: list[tuple[dict, float]] = []
    placed: dict[str, int] = {}
    for node, act in items:
        nid = instead.get(node["id"], node["id"])
        if nid in placed:
            at = placed[nid]
            out[at] = (out[at][0], max(out[at][1], act))
            continue
        placed[nid] = len(out)
        out.append((shown.get(nid, node), act))
    return out


def serve_one_hits(conn, hits: list[dict]) -> list[dict]:
    """`engram query`'s hits (dicts with id, name, node, activation) served the same way."""
    instead, shown = _served(conn, [h["id"] for h in hits if h["type"] == "decision"])
    if not shown:
        return hits
    out: list[dict] = []
    placed: dict[str, int] = {}
    for h in hits:
        nid = instead.get(h["id"], h["id"]) if h["type"] == "decision" else h["id"]
        if nid in placed:
            at = placed[nid]
            out[at]["activation"] = max(out[at]["activation"], h["activation"])
            continue
        placed[nid] = len(out)
        node = shown.get(nid)
        out.append(h if node is None else {**h, "id": nid, "name": node["name"], "node": node,
                                           "files": tiers.files_of(node)})
    return out
