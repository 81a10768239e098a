"""Strength in the database: recomputation, reinforcement, and activity-relative decay.

The formula is strength.py's. Decay is activity-relative: `apply_session` runs once per
consolidated session; nodes reinforced in it reset to 0 sessions without reinforcement,
every other active node gains 1. A session consolidated in several turns counts once
(`decay_sessions`). Nothing here reads the clock: two months without sessions change
nothing. A node with neither episodes nor an asserted strength keeps its stored strength;
a decision decays like any node from its asserted strength (strength.py says why).
"""

from __future__ import annotations

from typing import Any, Iterable

from engram.graph.store import NotFound, get_node, now, transaction
from engram.graph.strength import compute_strength

_EPS = 1e-9


def _register(conn: Any) -> None:
    conn.create_function("engram_strength", 7, compute_strength, deterministic=True)


_FORMULA = ("engram_strength(episode_count, sessions_without_reinforcement, outcome_success, outcome_total, causal,"
            " asserted, decay_rate)")


def recompute(conn: Any, node_ids: Iterable[str] | None = None) -> int:
    """Write the formula's value into every active node with episodes or an asserted
    strength whose stored strength differs.

    Returns how many rows changed (0 on a second run: idempotent).
    """
    _register(conn)
    sql = (
        f"UPDATE nodes SET strength = {_FORMULA}, updated_at = ? WHERE status = 'active'"
        f" AND (episode_count > 0 OR asserted > 0) AND abs(strength - {_FORMULA}) > {_EPS}"
    )
    with transaction(conn):
        if node_ids is None:
            return conn.execute(sql, (now(),)).rowcount
        ids, changed = list(node_ids), 0
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            q = sql + " AND id IN (%s)" % ",".join("?" * len(chunk))
            changed += conn.execute(q, (now(), *chunk)).rowcount
        return changed


def reinforce(
    conn: Any,
    node_id: str,
    *,
    episode_id: str,
    session_id: str | None = None,
    outcome: str | None = None,
    causal: bool | None = None,
) -> dict[str, Any]:
    """Count one episode as evidence for a node (idempotent per episode); return the node.

    A new episode adds 1 to episode_count and, with an outcome, to the outcome counts;
    the node's sessions-without-reinforcement resets to 0 and its strength is recomputed.
    """
    from engram import jsonio

    with transaction(conn):
        node = get_node(conn, node_id)
        if node is None:
            raise NotFound(f"no node {node_id!r}")
        sets: dict[str, Any] = {"sessions_without_reinforcement": 0, "updated_at": now()}
        if session_id is not None:
            sets["last_reinforced_session"] = session_id
        if causal is not None:
            sets["causal"] = 1 if causal else node["causal"]
        if episode_id not in node["source_episodes"]:
            sets["source_episodes"] = jsonio.dumps(node["source_episodes"] + [episode_id])
            sets["episode_count"] = node["episode_count"] + 1
            if outcome is not None:
                sets["outcome_total"] = node["outcome_total"] + 1
                sets["outcome_success"] = node["outcome_success"] + (outcome == "success")
        conn.execute(
            "UPDATE nodes SET %s WHERE id = :id" % ", ".join(f"{k} = :{k}" for k in sets),
            {**sets, "id": node_id},
        )
        recompute(conn, [node_id])
        return get_node(conn, node_id)  # type: ignore[return-value]


def apply_session(conn: Any, session_id: str, reinforced_ids: Iterable[str] = ()) -> dict[str, int]:
    """Advance activity-relative decay for one consolidated session.

    Nodes in `reinforced_ids` (and any already marked with this session by `reinforce`)
    reset to 0; every other active node gains one session without reinforcement, once per
    session however many times this is called. Strengths are recomputed.
    Returns {"reinforced": n, "decayed": n, "changed": n}.
    """
    ids = list(dict.fromkeys(reinforced_ids))
    with transaction(conn):
        reinforced = 0
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            reinforced += conn.execute(
                "UPDATE nodes SET sessions_without_reinforcement = 0, last_reinforced_session = ?"
                " WHERE id IN (%s)" % ",".join("?" * len(chunk)),
                (session_id, *chunk),
            ).rowcount
        decayed = 0
        if conn.execute("SELECT 1 FROM decay_sessions WHERE session_id = ?", (session_id,)).fetchone() is None:
            decayed = conn.execute(
                "UPDATE nodes SET sessions_without_reinforcement = sessions_without_reinforcement + 1"
                " WHERE status = 'active' AND last_reinforced_session IS NOT ?",
                (session_id,),
            ).rowcount
            conn.execute("INSERT INTO decay_sessions (session_id, counted_at) VALUES (?, ?)", (session_id, now()))
        changed = recompute(conn)
    return {"reinforced": reinforced, "decayed": decayed, "changed": changed}


def uncounted_sessions(conn: Any) -> list[str]:
    """Sessions with episodes whose decay step never ran, oldest first."""
    rows = conn.execute(
        "SELECT session_id FROM episodes WHERE session_id NOT IN (SELECT session_id FROM decay_sessions)"
        " GROUP BY session_id ORDER BY min(created_at)"
    ).fetchall()
    return [r[0] for r in rows]


def catch_up_decay(conn: Any) -> tuple[int, int]:
    """Run `apply_session` for consolidated sessions that skipped it (maintenance).

    A node counts as reinforced in a session when one of its source episodes belongs to
    that session. Returns (sessions counted, strengths changed).
    """
    sessions = uncounted_sessions(conn)
    changed = 0
    for session in sessions:
        reinforced = [
            r[0]
            for r in conn.execute(
                "SELECT DISTINCT n.id FROM nodes n, json_each(n.source_episodes) j"
                " WHERE j.value IN (SELECT id FROM episodes WHERE session_id = ?)",
                (session,),
            )
        ]
        changed += apply_session(conn, session, reinforced)["changed"]
    return len(sessions), changed
