"""Knowledge items as plain data, for `engram memory`, `engram view` and `engram export --to`.

An item is a live node a session can be shown (episodes and `mention`s are not: they are
bookkeeping), with its kind (`data.kind`, else the node type), its payoff (times injected,
times used, last used), whether it is pinned or faded, and its evidence (graph/items/evidence.py)
with whether that evidence still holds in the project now.
"""

from __future__ import annotations

from typing import Any

from engram.errors import EngramError

HIDDEN_KINDS = ("mention",)


def kind_of(node: dict[str, Any]) -> str:
    data = node.get("data") if isinstance(node.get("data"), dict) else {}
    return str(data.get("kind") or node.get("type") or "")


def _row(node: dict[str, Any], state: dict[str, Any] | None, reader: Any = None) -> dict[str, Any]:
    from engram.graph.items import evidence

    state = state or {}
    ev = state.get("evidence") if isinstance(state.get("evidence"), dict) else {}
    needs = ev.get("needs") or []
    data = node.get("data") if isinstance(node.get("data"), dict) else {}
    stale = evidence.broken(needs, reader, data) if reader is not None and needs else None
    return {"id": node["id"], "kind": kind_of(node), "name": node["name"], "text": node.get("description") or "",
            "type": node["type"], "strength": round(float(node["strength"]), 3), "status": node["status"],
            "files": node.get("affected_files") or [], "pinned": bool(state.get("pinned")),
            "faded": bool(state.get("faded")), "injected": int(state.get("injected") or 0),
            "used": int(state.get("used") or 0), "last_used": state.get("last_used"),
            "evidence": {"session": ev.get("session"), "seqs": ev.get("seqs") or [],
                         "needs": [evidence.said(n) for n in needs if isinstance(n, list) and n],
                         "holds": None if reader is None or not needs else stale is None,
                         **({"broken": evidence.said(stale)} if stale else {})},
            "updated_at": node.get("updated_at")}


def list_items(conn: Any, root: str | None = None, kind: str | None = None) -> list[dict[str, Any]]:
    """The active items (of one kind), pinned first, then strongest; evidence checked against
    `root`. An item of strength 0 (of a session whose outcome was a failure) is listed too:
    retrieval passes it over unless it is pinned."""
    from engram.graph import items, store
    from engram.graph.items import evidence

    nodes = [n for n in store.list_nodes(conn, status="active") if n["type"] != "episode"
             and kind_of(n) not in HIDDEN_KINDS and (kind is None or kind_of(n) == kind)]
    states = items.states(conn, [n["id"] for n in nodes])
    reader = evidence.Reader(root, max_reads=10_000) if root else None
    rows = [_row(n, states.get(n["id"]), reader) for n in nodes]
    rows.sort(key=lambda r: (not r["pinned"], -r["strength"], r["name"], r["id"]))
    return rows


def get_item(conn: Any, node_id: str, root: str | None = None) -> dict[str, Any]:
    """One item with its curation log; EngramError for an id that names no live item."""
    from engram.graph import items, store
    from engram.graph.items import evidence

    node = store.get_node(conn, node_id) if isinstance(node_id, str) else None
    if node is None or node["type"] == "episode" or kind_of(node) in HIDDEN_KINDS:
        raise EngramError(f"no item {node_id!r}; `engram memory list` shows the ids")
    row = _row(node, items.states(conn, [node_id]).get(node_id),
               evidence.Reader(root, max_reads=100) if root else None)
    row["changes"] = items.changes(conn, node_id)
    return row


def live_item(conn: Any, node_id: str) -> dict[str, Any]:
    """The node of a live item (to change it); EngramError otherwise."""
    from engram.graph import store

    node = store.get_node(conn, node_id) if isinstance(node_id, str) else None
    if node is None or node["type"] == "episode" or kind_of(node) in HIDDEN_KINDS:
        raise EngramError(f"no item {node_id!r}; `engram memory list` shows the ids")
    if node["status"] != "active":
        raise EngramError(f"item {node_id} was superseded by {node.get('superseded_by') or 'a newer one'}; "
                          "change the item that replaced it (`engram memory list`)")
    return node
