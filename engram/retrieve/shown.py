"""What retrieval already showed in this session (kept in the session state, `st`).

`st["retrieval"]["injected"]` maps node id -> [updated_at, tier]. A node is shown again
only when it changed since (its updated_at moved) or when it would now be shown at a
higher tier than before (listed by name at first, later in full). The map is bounded;
the oldest entries go first. Shared by SessionStart / UserPromptSubmit injection
(`engram.retrieve.inject`) and PostToolUse annotations (`engram.retrieve.involuntary`).

Retrieval reads the database, which can be locked for a while; the session lock must not
be held meanwhile (the session's other hooks would wait). So the hook takes a `snapshot`
of this corner under the lock, retrieves on the copy without it, and `merge`s the copy
back under the lock, keeping what the session's other hooks recorded in between.
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


def newly_shown(view: dict) -> list[list]:
    """[[node id, tier]] a retrieval on `view` showed: the entries of its map that differ from
    the snapshot's (the hook records them as an `injected` event, consolidate/knowledge/payoff.py)."""
    before = view.get("_before") or {}
    mine = view.get(KEY) if isinstance(view.get(KEY), dict) else {}
    return [[nid, v[1]] for nid, v in (mine.get("injected") or {}).items()
            if before.get(nid) != v and isinstance(v, list) and len(v) == 2]


def snapshot(st: dict) -> dict:
    """A copy of what retrieval reads and writes in `st` (its corner, the files written, the
    last seq and turn), to work on without the session lock."""
    rs = rstate(st)
    return {KEY: {**rs, "injected": dict(rs["injected"])}, "written": list(st.get("written") or []),
            "seq": st.get("seq", 0), "turn": st.get("turn", 0), "_before": dict(rs["injected"])}


def merge(st: dict, view: dict) -> None:
    """Put what retrieval recorded in `view` back into `st`, with what other hooks recorded
    since the snapshot (an entry that changed under the lock is theirs)."""
    rs = rstate(st)
    before = view.get("_before") or {}
    theirs = {nid: v for nid, v in rs["injected"].items() if before.get(nid) != v}
    mine = view.get(KEY) if isinstance(view.get(KEY), dict) else {}
    injected = dict(mine.get("injected") or {})
    for nid, v in theirs.items():
        injected.pop(nid, None)
        injected[nid] = v
    rs.update({k: v for k, v in mine.items() if k != "injected"})
    rs["injected"] = injected
    while len(injected) > MAX_REMEMBERED:
        injected.pop(next(iter(injected)))
