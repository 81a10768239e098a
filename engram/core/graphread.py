"""Read-only graph queries for the hooks: the standard-library SQLite driver, imported on first use.

`engram.db.connect.connect_readonly` would do, but it imports `typing` (~6 ms) and the
hook pays for every import; so this module opens the database itself, the same way
(`file:...?mode=ro`, so a missing file is never created and nothing can be written).
Every query reads only "live" nodes: status 'active' and strength > 0 (the spec's
"retrieval ignores strength-0 nodes"; a superseded node is never entered or passed
through). Queries take lists of ids / paths / names and run as one statement each.
"""

from __future__ import annotations

import os

# The unary "+" keeps SQLite from driving a query off the low-selectivity nodes_status /
# nodes_strength indexes (it picked them without ANALYZE statistics, and a 1,000-id
# frontier took 2 s instead of 15 ms): lookups must start from the id / path / name index.
LIVE = "+n.status = 'active' AND +n.strength > 0"
BUSY_MS = 2000
MMAP_BYTES = 256 * 1024 * 1024
CHUNK = 30000  # stay under SQLite's host-parameter limit (32,766 before 3.32)
NODE_COLS = "n.id, n.name, n.type, n.description, n.summary, n.strength, n.data, n.affected_files, n.updated_at"


def _driver():
    """`_sqlite3`, the C module behind `sqlite3`: `sqlite3/dbapi2.py` adds only the date
    adapters, and its import (datetime, collections.abc) costs ~2 ms a hook does not need.
    Same classes, same exceptions; the public module is the fallback."""
    try:
        import _sqlite3

        return _sqlite3
    except ImportError:  # pragma: no cover - every CPython build with sqlite3 has it
        import sqlite3

        return sqlite3


def open_ro(path: str):
    """A read-only connection, or None when the database file does not exist.

    mmap lets SQLite read pages straight from the OS page cache instead of copying them
    in: a fresh connection's first queries (every hook's are) run about twice as fast.
    """
    if not path or not os.path.exists(path):
        return None
    quoted = os.path.abspath(path).replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    conn = _driver().connect("file:" + quoted + "?mode=ro", uri=True, isolation_level=None,
                             timeout=BUSY_MS / 1000, check_same_thread=False)
    conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")  # `timeout` above is the busy timeout
    return conn


def signature(path: str) -> list[int]:
    """A cheap graph-version stamp: size and mtime of the database and its WAL.

    Any committed write (a consolidation) changes it; reading never does. Comparing
    it costs two stats, so an unchanged graph is detected without opening SQLite.
    """
    sig: list[int] = []
    for p in (path, path + "-wal"):
        try:
            st = os.stat(p)
            sig += [st.st_size, st.st_mtime_ns]
        except OSError:
            sig += [0, 0]
    return sig


def _chunks(items: list, size: int = CHUNK):
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _marks(n: int) -> str:
    return ",".join("?" * n)


def by_paths(conn, paths: list[str]) -> list[tuple[str, float, str]]:
    """[(node id, strength, path)] of live nodes linked to any of the paths (indexed)."""
    out = []
    for part in _chunks(list(paths)):
        out += conn.execute(
            f"SELECT n.id, n.strength, f.path FROM node_files f JOIN nodes n ON n.id = f.node_id "
            f"WHERE f.path IN ({_marks(len(part))}) AND {LIVE} ORDER BY n.id",
            part,
        ).fetchall()
    return out


def linked(conn, paths: list[str]) -> set[str]:
    """The paths, among these, that some node links to (primary-key probes)."""
    out: set[str] = set()
    for part in _chunks(list(paths)):
        out.update(r[0] for r in conn.execute(
            f"SELECT DISTINCT path FROM node_files WHERE path IN ({_marks(len(part))})", part))
    return out


def known_paths(conn) -> list[str]:
    """Every distinct linked path (a covering-index scan), for suffix matching."""
    return [r[0] for r in conn.execute("SELECT DISTINCT path FROM node_files")]


def by_names(conn, names: list[str]) -> list[tuple[str, float, str]]:
    """[(node id, strength, name_key)] of live nodes whose name_key is one of `names`."""
    out = []
    for part in _chunks(list(names)):
        out += conn.execute(
            f"SELECT n.id, n.strength, n.name_key FROM nodes n "
            f"WHERE n.name_key IN ({_marks(len(part))}) AND {LIVE} ORDER BY n.id",
            part,
        ).fetchall()
    return out


def decisions_about(conn, phrases: list[str], limit: int = 2000) -> list[tuple[str, float, str]]:
    """[(node id, strength, phrase)] of live decisions whose name holds one of the phrases.

    A decision is named by its whole sentence ("use redis for the job queue"), so a prompt
    that names only its topic ("the job queue") never equals it; multi-word phrases are
    matched inside the names instead, on word boundaries.
    """
    rows = conn.execute(
        f"SELECT n.id, n.strength, n.name_key FROM nodes n WHERE n.type = 'decision' AND {LIVE} "
        f"ORDER BY n.strength DESC, n.id LIMIT ?", (limit,)).fetchall()
    out = []
    for nid, strength, key in rows:
        padded = f" {key} "
        hit = next((p for p in phrases if f" {p} " in padded), None)
        if hit:
            out.append((nid, strength, hit))
    return out


def neighbours(conn, ids: list[str]) -> list[tuple[str, str, float]]:
    """[(parent, neighbour, edge strength)] over edges in both directions, live neighbours only."""
    out = []
    for part in _chunks(sorted(ids), CHUNK // 2):
        marks = _marks(len(part))
        out += conn.execute(
            f"SELECT e.from_node, e.to_node, e.strength FROM edges e JOIN nodes n ON n.id = e.to_node "
            f"WHERE e.from_node IN ({marks}) AND e.strength > 0 AND {LIVE} "
            f"UNION ALL "
            f"SELECT e.to_node, e.from_node, e.strength FROM edges e JOIN nodes n ON n.id = e.from_node "
            f"WHERE e.to_node IN ({marks}) AND e.strength > 0 AND {LIVE}",
            part + part,
        ).fetchall()
    return out


def nodes(conn, ids: list[str]) -> dict[str, dict]:
    """Full rows of live nodes by id (JSON columns left as text; see `decode`)."""
    out: dict[str, dict] = {}
    for part in _chunks(list(ids)):
        cur = conn.execute(f"SELECT {NODE_COLS} FROM nodes n WHERE n.id IN ({_marks(len(part))}) AND {LIVE}", part)
        cols = [d[0] for d in cur.description]
        for row in cur:
            out[row[0]] = dict(zip(cols, row))
    return out


def by_file_top(conn, path: str, min_strength: float, limit: int) -> list[dict]:
    """The strongest live nodes linked to one file: ONE indexed query (node_files_path)."""
    cur = conn.execute(
        f"SELECT {NODE_COLS} FROM node_files f JOIN nodes n ON n.id = f.node_id "
        f"WHERE f.path = ? AND +n.strength > ? AND +n.status = 'active' "
        f"ORDER BY n.strength DESC, n.id LIMIT ?",
        (path, float(min_strength), int(limit)),
    )
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row)) for row in cur]


def session_episode_ids(conn, session: str) -> set[str]:
    """Episode ids consolidated from one session (indexed on episodes.session_id)."""
    return {r[0] for r in conn.execute("SELECT id FROM episodes WHERE session_id = ?", (session,))}


def source_episodes(conn, ids: list[str]) -> list[tuple[str, str]]:
    """[(node id, source_episodes JSON text)] for the ids."""
    out = []
    for part in _chunks(list(ids)):
        q = f"SELECT id, source_episodes FROM nodes WHERE id IN ({_marks(len(part))})"
        out += conn.execute(q, part).fetchall()
    return out
