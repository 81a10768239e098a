"""Per-item state: what each injected item earned, pins, fading, evidence, the curation log.

This package's `evidence.py` says what an item needs of the project's files. Here: every SQL statement on the tables of migration m010 (schema.sql): `injections`,
`item_state`, `session_payoff`, `curation_log`. The readers (`flagged`, `states`) run in the
hook on a read-only connection, standard library only; a database from before m010 (the
hooks never migrate) has none of these tables, and they then read as empty. The writers
run in the worker (`record_session`) and the CLI (`set_pinned`, `log_change`).
"""

from __future__ import annotations

from engram import jsonio

TYPE_CHECKING = False  # `typing` costs every hook ~20 ms: annotations only
if TYPE_CHECKING:
    from typing import Any, Iterable

CHUNK = 500
# What never fades: what the user said (an instruction, a decision), which holds until it is
# replaced whether or not a session can be seen following it, and open work, which is retired
# when a later session resolves it (docs/curation.md, "Payoff per item").
_FADES = ("(SELECT type != 'decision' AND coalesce(json_extract(CASE WHEN json_valid(data) THEN data END, '$.kind'), '') "
          "NOT IN ('instruction', 'unfinished') FROM nodes n WHERE n.id = item_state.node_id)")

# The showings that count towards fading: those where the item's use could have been seen
# (consolidate/knowledge/payoff.py, UNSEEN).
_SEEN = ("(SELECT count(*) FROM injections j WHERE j.node_id = item_state.node_id AND j.used_how != 'unseen')")


def _missing(exc: Exception) -> bool:
    return "no such table" in str(exc)


def _marks(n: int) -> str:
    return ",".join("?" * n)


# -- the hook's reads ----------------------------------------------------------------------


def flagged(conn: Any) -> tuple[list[str], set[str]]:
    """(pinned ids, faded ids): the partial index item_state_flagged, a few rows."""
    try:
        rows = conn.execute("SELECT node_id, pinned, faded FROM item_state WHERE pinned = 1 OR faded = 1 "
                            "ORDER BY node_id").fetchall()
    except Exception as exc:
        if _missing(exc):
            return [], set()
        raise
    return [r[0] for r in rows if r[1]], {r[0] for r in rows if r[2] and not r[1]}


def pinned_nodes(conn: Any, cols: str) -> list[dict[str, Any]]:
    """The active pinned nodes (`cols`: readonly.NODE_COLS), whatever their strength, by id."""
    try:
        cur = conn.execute(f"SELECT {cols} FROM item_state s CROSS JOIN nodes n ON n.id = s.node_id "
                           "WHERE s.pinned = 1 AND n.status = 'active' ORDER BY n.id")
    except Exception as exc:
        if _missing(exc):
            return []
        raise
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur]


def states(conn: Any, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """{node id: its item_state row, evidence decoded} for the ids that have one."""
    ids = list(ids)
    out: dict[str, dict[str, Any]] = {}
    try:
        for i in range(0, len(ids), CHUNK):
            part = ids[i : i + CHUNK]
            cur = conn.execute("SELECT node_id, pinned, faded, injected, used, last_injected, last_used, evidence "
                               f"FROM item_state WHERE node_id IN ({_marks(len(part))})", part)
            cols = [d[0] for d in cur.description]
            for row in cur:
                rec = dict(zip(cols, row))
                rec["evidence"] = _json(rec["evidence"], {})
                out[rec["node_id"]] = rec
    except Exception as exc:
        if _missing(exc):
            return {}
        raise
    return out


def _json(raw: Any, default: Any) -> Any:
    try:
        value = jsonio.loads(raw) if isinstance(raw, str) and raw else default
    except ValueError:
        return default
    return value if isinstance(value, type(default)) else default


# -- the worker's writes -------------------------------------------------------------------


def record_session(conn: Any, session: str, rows: list[dict[str, Any]], words: int, at: str,
                   fade_after: int) -> list[str]:
    """Replace one session's injection rows (the worker recomputes them from the whole session
    at each consolidation, so this is idempotent), then each touched item's sums and fading.
    Returns the ids this session used. Runs inside the caller's transaction."""
    old = [r[0] for r in conn.execute("SELECT node_id FROM injections WHERE session_id = ?", (session,))]
    conn.execute("DELETE FROM injections WHERE session_id = ?", (session,))
    conn.executemany("INSERT OR REPLACE INTO injections (session_id, node_id, via, seq, used_seq, used_how, at, "
                     "used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     [(session, r["node_id"], r["via"], r["seq"], r.get("used_seq"), r.get("used_how") or "", r["at"],
                       r.get("used_at")) for r in rows])
    used = [r["node_id"] for r in rows if r.get("used_seq") is not None]
    conn.execute("INSERT OR REPLACE INTO session_payoff (session_id, injected, used, words, at) VALUES (?, ?, ?, ?, ?)",
                 (session, len(rows), len(used), int(words), at))
    resum(conn, set(old) | {r["node_id"] for r in rows}, fade_after)
    return used


def resum(conn: Any, ids: Iterable[str], fade_after: int) -> None:
    """Each item's injected / used counts and last times from its rows; faded when shown
    `fade_after` times (0: never) where its use could be seen and never used, unless it is of
    a kind that never fades."""
    ids = sorted(ids)
    for i in range(0, len(ids), CHUNK):
        part = ids[i : i + CHUNK]
        conn.execute(f"INSERT OR IGNORE INTO item_state (node_id) SELECT id FROM nodes WHERE id IN ({_marks(len(part))})",
                     part)
        conn.execute(
            "UPDATE item_state SET "
            "injected = (SELECT count(*) FROM injections j WHERE j.node_id = item_state.node_id), "
            "used = (SELECT count(*) FROM injections j WHERE j.node_id = item_state.node_id "
            "AND j.used_seq IS NOT NULL), "
            "last_injected = (SELECT max(at) FROM injections j WHERE j.node_id = item_state.node_id), "
            "last_used = (SELECT max(coalesce(used_at, at)) FROM injections j WHERE j.node_id = item_state.node_id "
            "AND j.used_seq IS NOT NULL) "
            f"WHERE node_id IN ({_marks(len(part))})", part)
        conn.execute(f"UPDATE item_state SET faded = CASE WHEN ? > 0 AND used = 0 AND {_SEEN} >= ? AND {_FADES} "
                     f"THEN 1 ELSE 0 END WHERE node_id IN ({_marks(len(part))})", (fade_after, fade_after, *part))


def session_items(conn: Any, session: str, kinds: tuple[str, ...]) -> list[str]:
    """Live nodes of these kinds with a source episode of this session."""
    return [r[0] for r in conn.execute(
        "SELECT DISTINCT n.id FROM nodes n, json_each(n.source_episodes) j WHERE n.status = 'active' "
        f"AND json_extract(n.data, '$.kind') IN ({_marks(len(kinds))}) "
        "AND j.value IN (SELECT id FROM episodes WHERE session_id = ?)", (*kinds, session))]


def set_evidence(conn: Any, evidence: dict[str, dict[str, Any]]) -> None:
    """Store each item's evidence (graph/items/evidence.py), replacing what it had."""
    for nid, ev in evidence.items():
        conn.execute("INSERT INTO item_state (node_id, evidence) VALUES (?, ?) "
                     "ON CONFLICT(node_id) DO UPDATE SET evidence = excluded.evidence", (nid, jsonio.dumps(ev)))


# -- the CLI's writes and reads ------------------------------------------------------------


def set_pinned(conn: Any, node_id: str, pinned: bool) -> bool:
    """Pin or unpin an item; False when it already was so. A pinned item never fades."""
    conn.execute("INSERT OR IGNORE INTO item_state (node_id) VALUES (?)", (node_id,))
    return conn.execute("UPDATE item_state SET pinned = ?, faded = CASE WHEN ? THEN 0 ELSE faded END "
                        "WHERE node_id = ? AND pinned != ?",
                        (int(pinned), int(pinned), node_id, int(pinned))).rowcount > 0


def log_change(conn: Any, node_id: str, action: str, detail: dict[str, Any], at: str) -> None:
    conn.execute("INSERT INTO curation_log (at, node_id, action, detail) VALUES (?, ?, ?, ?)",
                 (at, node_id, action, jsonio.dumps(detail)))


def changes(conn: Any, node_id: str) -> list[dict[str, Any]]:
    """The curation log of one item, oldest first."""
    try:
        rows = conn.execute("SELECT at, action, detail FROM curation_log WHERE node_id = ? ORDER BY at, rowid",
                            (node_id,)).fetchall()
    except Exception as exc:
        if _missing(exc):
            return []
        raise
    return [{"at": at, "action": action, "detail": _json(detail, {})} for at, action, detail in rows]


def injections_of(conn: Any, session: str | None = None, limit: int = 2000) -> list[dict[str, Any]]:
    """Injection rows (with the item's name), newest session first; one session's with `session`."""
    where, args = ("WHERE j.session_id = ?", [session]) if session else ("", [])
    try:
        cur = conn.execute("SELECT j.session_id, j.node_id, j.via, j.seq, j.used_seq, j.used_how, j.at, n.name, n.data "
                           f"FROM injections j LEFT JOIN nodes n ON n.id = j.node_id {where} "
                           "ORDER BY j.at DESC, j.seq, j.node_id LIMIT ?", (*args, int(limit)))
    except Exception as exc:
        if _missing(exc):
            return []
        raise
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur]


def payoff(conn: Any, sessions: int) -> dict[str, int]:
    """{"sessions", "injected", "used", "words"} over the last `sessions` sessions shown anything."""
    try:
        row = conn.execute("SELECT count(*), coalesce(sum(injected), 0), coalesce(sum(used), 0), "
                           "coalesce(sum(words), 0) FROM (SELECT * FROM session_payoff ORDER BY at DESC LIMIT ?)",
                           (int(sessions),)).fetchone()
    except Exception as exc:
        if _missing(exc):
            row = (0, 0, 0, 0)
        else:
            raise
    return dict(zip(("sessions", "injected", "used", "words"), (int(v) for v in row)))


def sessions(conn: Any, limit: int = 200) -> list[dict[str, Any]]:
    """Per-session payoff rows, newest first."""
    try:
        cur = conn.execute("SELECT session_id, injected, used, words, at FROM session_payoff ORDER BY at DESC LIMIT ?",
                           (int(limit),))
    except Exception as exc:
        if _missing(exc):
            return []
        raise
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur]
