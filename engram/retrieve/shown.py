"""What retrieval already showed in this session (kept in the session state, `st`).

`st["retrieval"]["injected"]` maps node id -> [updated_at, tier]. A node is shown again
only when it changed since (its updated_at moved) or when it would now be shown at a
higher tier than before (listed by name at first, later in full). The map is bounded;
the oldest entries go first. Shared by SessionStart / UserPromptSubmit injection
(`engram.retrieve.inject`) and PostToolUse annotations (`engram.retrieve.involuntary`).
"""

from __future__ import annotations

KEY = "retrieval"
MAX_REMEMBERED = 2000


def rstate(st: dict) -> dict:
    """Retrieval's own corner of the session state, created on first use."""
    rs = st.get(KEY)
    if not isinstance(rs, dict):
        rs = st[KEY] = {}
    if not isinstance(rs.get("injected"), dict):
        rs["injected"] = {}
    return rs


def is_new(injected: dict, node: dict, level: int) -> bool:
    """False when this node, unchanged, was already shown at this tier or a higher one."""
    prev = injected.get(node["id"])
    return not (isinstance(prev, list) and len(prev) == 2 and prev[0] == node.get("updated_at")
                and isinstance(prev[1], int) and prev[1] >= level)


def remember(injected: dict, nodes: dict[str, dict], shown: list[tuple[str, int]]) -> None:
    """Record what was just shown; re-inserting keeps the dict ordered by recency."""
    for nid, level in shown:
        injected.pop(nid, None)
        injected[nid] = [nodes[nid].get("updated_at"), level]
    while len(injected) > MAX_REMEMBERED:
        injected.pop(next(iter(injected)))
