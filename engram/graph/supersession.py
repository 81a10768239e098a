"""Supersession, not deletion (docs/spec.md, "Supersession").

Outdated knowledge keeps its row: status 'superseded', strength 0 (retrieval ignores it),
`superseded_by` pointing at its replacement, and a `supersedes` edge from the new node to
the old one whose data holds the reason, the episode and the strength it had. It stays
findable by name and by embedding, so when a later episode proposes the same concept the
consolidator sees it and may `unsupersede` it. Each change is also appended to the old
node's `data["history"]`, which `engram show` prints.

`trajectory` answers "how has our auth approach evolved?": the nodes joined by
`supersedes` / `version_of` edges, oldest first.

`supersede_replaced` is what consolidation calls for every decision it writes: a decision
that says what it replaces ("use B instead of A", "the job queue now uses B", "B's retry
limit is now 5") supersedes the active decisions it replaces.
"""

from __future__ import annotations

import re
from typing import Any

from engram.graph.store import Node, NotFound, edges_of, find_by_name, get_node, get_nodes, now, transaction, update_node, upsert_edge
from engram.text import STOPWORDS

LINEAGE_EDGES = ("supersedes", "version_of")


def _history(node: Node, entry: dict[str, Any]) -> list[dict[str, Any]]:
    data = node["data"] if isinstance(node["data"], dict) else {}
    return list(data.get("history") or []) + [entry]


def supersede(
    conn: Any, old_id: str, new_id: str | None = None, *, reason: str, episode_id: str | None = None
) -> str | None:
    """Mark `old_id` superseded by `new_id` (None: nothing replaces it, e.g. its files are gone).

    Returns the `supersedes` edge id (None without a successor). Raises NotFound for an
    unknown node and ValueError when a node would supersede itself.
    """
    if new_id == old_id:
        raise ValueError(f"node {old_id!r} cannot supersede itself")
    with transaction(conn):
        old = get_node(conn, old_id)
        if old is None:
            raise NotFound(f"no node {old_id!r}")
        if new_id is not None and get_node(conn, new_id) is None:
            raise NotFound(f"no node {new_id!r}")
        stamp = now()
        info = {"reason": reason, "episode_id": episode_id, "previous_strength": old["strength"], "at": stamp}
        entry = {"event": "superseded", "by": new_id, **info}
        update_node(
            conn, old_id, status="superseded", strength=0.0, superseded_by=new_id,
            data={"history": _history(old, entry)},
        )  # fmt: skip
        if new_id is None:
            return None
        return upsert_edge(
            conn, new_id, old_id, "supersedes", strength=1.0,
            source_episodes=[episode_id] if episode_id else [], data=info,
        )  # fmt: skip


def unsupersede(conn: Any, node_id: str, *, reason: str, episode_id: str | None = None) -> Node:
    """Bring a superseded node back: active again, its `supersedes` edges removed.

    Strength returns to the formula's value when the node has episodes, else to the
    strength it had when superseded. The history keeps both events.
    """
    from engram.graph.strength import node_strength

    with transaction(conn):
        node = get_node(conn, node_id)
        if node is None:
            raise NotFound(f"no node {node_id!r}")
        if node["status"] != "superseded":
            return node
        history = node["data"].get("history", []) if isinstance(node["data"], dict) else []
        previous = next((h.get("previous_strength") for h in reversed(history) if h.get("event") == "superseded"), 0.0)
        entry = {"event": "unsuperseded", "reason": reason, "episode_id": episode_id, "at": now()}
        conn.execute("DELETE FROM edges WHERE to_node = ? AND type = 'supersedes'", (node_id,))
        restored = {**node, "status": "active", "strength": float(previous or 0.0)}
        return update_node(
            conn, node_id, status="active", superseded_by=None, strength=node_strength(restored),
            data={"history": _history(node, entry)},
        )  # fmt: skip


def _resolve(conn: Any, node_or_name: str) -> Node | None:
    node = get_node(conn, node_or_name)
    if node is None:
        matches = find_by_name(conn, node_or_name, limit=1)
        node = matches[0] if matches else None
    return node


def trajectory(conn: Any, node_or_name: str) -> list[Node]:
    """Every node linked to this one through supersedes / version_of edges, oldest first.

    Each node carries `lineage`: its lineage edges within the set. Accepts a node id or a
    name (exact or normalised). Returns [] when nothing matches.
    """
    start = _resolve(conn, node_or_name)
    if start is None:
        return []
    seen, frontier, edges = {start["id"]}, [start["id"]], {}
    while frontier:
        nxt = []
        for nid in frontier:
            for e in edges_of(conn, nid, types=LINEAGE_EDGES):
                edges[e["id"]] = e
                other = e["to_node"] if e["from_node"] == nid else e["from_node"]
                if other not in seen:
                    seen.add(other)
                    nxt.append(other)
        frontier = nxt
    nodes = list(get_nodes(conn, seen).values())
    for n in nodes:
        n["lineage"] = [e for e in edges.values() if n["id"] in (e["from_node"], e["to_node"])]
    return sorted(nodes, key=lambda n: (n["created_at"], n["id"]))


# -- decisions that replace decisions -----------------------------------------------------

_NOW = [re.compile(r"^(?:(?:from now on|going forward),?\s+)?(.+?)\s+(?:is|are)\s+now\b", re.I),
        re.compile(r"^(.+?)\s+now\s+(?:uses?|runs?|is|are|points? to|defaults? to)\b", re.I),
        re.compile(r"^(?:from now on|going forward),?\s+.*?\bfor\s+(.+?)[.!]?$", re.I)]


def _words(text: str) -> set[str]:

    text = re.sub(r"'s\b", "", str(text or "").casefold())
    words = (w.strip(".-") for w in re.split(r"[^\w.+-]+", text))
    return {w for w in words if w and w not in STOPWORDS}


def now_subject(text: str) -> set[str]:
    """The content words of what a "now" statement changes ("B's retry limit is now 5" ->
    {b, retry, limit}); empty for other sentences and for pronoun subjects ("we now use")."""
    for rx in _NOW:
        m = rx.match(" ".join(str(text).split()))
        if m:
            return _words(m.group(1))
    return set()


def supersede_replaced(conn: Any, node_id: str, *, episode_id: str | None = None) -> list[str]:
    """Supersede the active decisions that this explicit decision replaces; their ids.

    Replaced: a decision requiring something this one forbids ("use B instead of A"
    replaces "use A for the queue"), and, for a "now" statement, every other active
    decision whose text holds all the content words of what it changes ("B's retry limit
    is now 5" replaces "B's retry limit is 3"). Only explicit decisions replace.
    """
    new = get_node(conn, node_id)
    if not new or new["type"] != "decision" or new["status"] != "active" or not (new["data"] or {}).get("explicit"):
        return []
    forbids = {f.casefold() for f in (new["data"] or {}).get("forbids") or []}
    subject = now_subject(new["name"])
    out = []
    rows = conn.execute("SELECT id FROM nodes WHERE type = 'decision' AND status = 'active' AND id != ?", (node_id,))
    for (old_id,) in rows.fetchall():
        old = get_node(conn, old_id)
        requires = {r.casefold() for r in (old["data"] or {}).get("requires") or []} if old else set()
        if old and (forbids & requires or (subject and subject <= _words(f"{old['name']} {old['description']}"))):
            why = "replaced by a decision that forbids " + ", ".join(sorted(forbids & requires)) if forbids & requires \
                else "replaced by a newer statement about " + " ".join(sorted(subject))
            supersede(conn, old_id, node_id, reason=f"{why}: {new['name'][:80]}", episode_id=episode_id)
            out.append(old_id)
    return out
