"""Nodes, edges, episodes and consolidation records: plain functions over a connection.

Design:
* Every function takes an open connection (stdlib `sqlite3` or `sqlean`; see connect.py)
  and returns plain dicts with JSON columns decoded, so callers never see driver rows.
* Every multi-row change runs inside `transaction(conn)`, which begins IMMEDIATE (a writer
  takes the lock up front instead of failing on upgrade) and nests with SAVEPOINT, so a
  caller can wrap several of these functions in one atomic unit.
* Lists are merged, never overwritten: `source_episodes` and `affected_files` passed to an
  update or upsert are unioned with what is stored (first-seen order).
* An edge observed again keeps the MAXIMUM of its strengths: an averaging rule would let a
  weak re-observation erode a well-established link, and the mechanical strength of nodes
  already carries the decay.
* `affected_files` is kept as the spec's JSON column and mirrored into `node_files`
  (indexed on path) in the same transaction: find_by_file is one index lookup.

Standard library only (no `json`, no third-party imports): the hook may import this.
"""

from __future__ import annotations

import os

from engram import jsonio
from engram.clock import utc_iso
from engram.graph.strength import RECENCY_RATE, compute_strength

TYPE_CHECKING = False  # `typing` costs ~3 ms of import (engram query, the hooks); annotations only
if TYPE_CHECKING:
    from typing import Any, Iterable

NODE_TYPES = ("concept", "episode", "decision", "finding", "error", "pattern")
EDGE_TYPES = (
    "requires", "interacts_with", "discovered_during", "caused_by", "resolved_by",
    "similar_to", "contradicts", "version_of", "supersedes",
)  # fmt: skip
OUTCOMES = ("success", "partial", "failure")
NODE_JSON = ("affected_files", "source_episodes", "data")
NODE_COLUMNS = (
    "id", "name", "name_key", "type", "description", "summary", "strength", "status",
    "superseded_by", "affected_files", "source_episodes", "data", "episode_count",
    "sessions_without_reinforcement", "outcome_success", "outcome_total", "causal",
    "last_reinforced_session", "created_at", "updated_at", "asserted", "decay_rate",
)  # fmt: skip
_NODE_UPDATABLE = frozenset(NODE_COLUMNS) - {"id", "name_key", "created_at", "updated_at"}

Node = dict  # dict[str, Any]: a row as a dict, column -> value
Edge = dict  # dict[str, Any]
Episode = dict  # dict[str, Any]


class NotFound(LookupError):
    """A node, edge or episode id that is not in the database."""


# -- helpers ------------------------------------------------------------------


def now() -> str:
    """UTC ISO-8601 with microseconds: sorts as text, and orders same-second writes."""
    return utc_iso(6)


def new_id(prefix: str) -> str:
    return f"{prefix}_{os.urandom(8).hex()}"


def normalise_name(name: str) -> str:
    """Casefolded, whitespace-collapsed: "  SQLite   WAL " and "sqlite wal" are one key."""
    return " ".join(str(name).casefold().split())


def normalise_path(path: str) -> str:
    """A path as events record it, minus noise: no leading "./", no doubled slashes."""
    p = str(path).strip()
    while "//" in p:
        p = p.replace("//", "/")
    while p.startswith("./"):
        p = p[2:]
    return p


def _merge(old: Iterable[Any], new: Iterable[Any]) -> list[Any]:
    out = list(old)
    seen = set(out)
    for item in new:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def _rows(cur: Any) -> list[dict[str, Any]]:
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def _decode(row: dict[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    for k in keys:
        if k in row and isinstance(row[k], str):
            try:
                row[k] = jsonio.loads(row[k])
            except ValueError:
                row[k] = [] if k != "data" and k != "episode_data" else {}
    return row


# -- transactions ---------------------------------------------------------------


class transaction:
    """`with transaction(conn):` BEGIN IMMEDIATE ... COMMIT, or a SAVEPOINT when nested.

    An exception rolls back (to the savepoint when nested) and propagates.
    """

    _counter = 0

    def __init__(self, conn: Any):
        self.conn = conn
        self.savepoint: str | None = None

    def __enter__(self) -> Any:
        if self.conn.in_transaction:
            transaction._counter += 1
            self.savepoint = f"engram_sp{transaction._counter}"
            self.conn.execute(f"SAVEPOINT {self.savepoint}")
        else:
            self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        sp = self.savepoint
        if sp:
            if exc_type is not None:
                self.conn.execute(f"ROLLBACK TO {sp}")
            self.conn.execute(f"RELEASE {sp}")
        elif exc_type is None:
            try:
                self.conn.execute("COMMIT")
            except BaseException:
                # e.g. a deferred foreign key: SQLite keeps the transaction open
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise
        elif self.conn.in_transaction:
            self.conn.execute("ROLLBACK")
        return False


# -- nodes --------------------------------------------------------------------


def _node_params(fields: dict[str, Any], stamp: str) -> dict[str, Any]:
    name = str(fields["name"])
    ntype = fields["type"]
    if ntype not in NODE_TYPES:
        raise ValueError(f"node type {ntype!r} is not one of {', '.join(NODE_TYPES)}")
    files = _merge([], (normalise_path(p) for p in fields.get("affected_files") or ()))
    episodes = _merge([], fields.get("source_episodes") or ())
    count = fields.get("episode_count")
    return {
        "id": fields.get("id") or new_id("n"),
        "name": name,
        "name_key": normalise_name(name),
        "type": ntype,
        "description": fields.get("description") or "",
        "summary": fields.get("summary") or "",
        "strength": _initial_strength(fields, len(episodes) if count is None else int(count)),
        "status": fields.get("status", "active"),
        "superseded_by": fields.get("superseded_by"),
        "affected_files": jsonio.dumps(files),
        "source_episodes": jsonio.dumps(episodes),
        "data": jsonio.dumps(fields.get("data") or {}),
        "episode_count": len(episodes) if count is None else int(count),
        "sessions_without_reinforcement": int(fields.get("sessions_without_reinforcement", 0)),
        "outcome_success": int(fields.get("outcome_success", 0)),
        "outcome_total": int(fields.get("outcome_total", 0)),
        "causal": 1 if fields.get("causal") else 0,
        "last_reinforced_session": fields.get("last_reinforced_session"),
        "asserted": float(fields.get("asserted") or 0.0),
        "decay_rate": float(fields["decay_rate"] if fields.get("decay_rate") is not None else RECENCY_RATE),
        "created_at": fields.get("created_at") or stamp,
        "updated_at": fields.get("updated_at") or fields.get("created_at") or stamp,
        "_files": files,
    }


def _initial_strength(fields: dict[str, Any], episode_count: int) -> float:
    """The given strength, else the mechanical formula's value for the given inputs."""
    if fields.get("strength") is not None:
        return float(fields["strength"])
    asserted = float(fields.get("asserted") or 0.0)
    if (episode_count <= 0 and asserted <= 0) or fields.get("status", "active") != "active":
        return 0.0
    return compute_strength(
        episode_count,
        int(fields.get("sessions_without_reinforcement", 0)),
        int(fields.get("outcome_success", 0)),
        int(fields.get("outcome_total", 0)),
        bool(fields.get("causal")),
        asserted,
        float(fields["decay_rate"] if fields.get("decay_rate") is not None else RECENCY_RATE),
    )


_INSERT_NODE = "INSERT INTO nodes (%s) VALUES (%s)" % (
    ", ".join(NODE_COLUMNS),
    ", ".join(":" + c for c in NODE_COLUMNS),
)


def insert_nodes(conn: Any, nodes: Iterable[dict[str, Any]]) -> list[str]:
    """Insert many nodes in one transaction (the bulk path); return their ids.

    Each dict takes create_node's keyword arguments. Raises ValueError for an unknown
    type and the driver's IntegrityError for a duplicate id.
    """
    stamp = now()
    params = [_node_params(n, stamp) for n in nodes]
    with transaction(conn):
        conn.executemany(_INSERT_NODE, params)
        conn.executemany(
            "INSERT OR IGNORE INTO node_files (node_id, path) VALUES (?, ?)",
            [(p["id"], f) for p in params for f in p["_files"]],
        )
    return [p["id"] for p in params]


def create_node(conn: Any, *, name: str, type: str, **fields: Any) -> str:
    """Insert one node and return its id (generated unless `id=` is given).

    Optional fields: description, summary, strength (default: the strength formula's
    value for the given inputs, 0 without episodes), status, affected_files,
    source_episodes, data (dict), episode_count (default: len(source_episodes)),
    sessions_without_reinforcement, outcome_success, outcome_total, causal (bool),
    last_reinforced_session, created_at, id.
    """
    unknown = set(fields) - set(NODE_COLUMNS)
    if unknown:
        raise TypeError(f"create_node() got unknown fields: {', '.join(sorted(unknown))}")
    return insert_nodes(conn, [{"name": name, "type": type, **fields}])[0]


def get_node(conn: Any, node_id: str) -> Node | None:
    rows = _rows(conn.execute("SELECT * FROM nodes WHERE id = ?", (node_id,)))
    return _decode(rows[0], NODE_JSON) if rows else None


def get_nodes(conn: Any, ids: Iterable[str]) -> dict[str, Node]:
    """{id: node} for the ids that exist (one query per 500 ids)."""
    ids = list(dict.fromkeys(ids))
    out: dict[str, Node] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        q = "SELECT * FROM nodes WHERE id IN (%s)" % ",".join("?" * len(chunk))
        for row in _rows(conn.execute(q, chunk)):
            out[row["id"]] = _decode(row, NODE_JSON)
    return out


def update_node(conn: Any, node_id: str, **fields: Any) -> Node:
    """Change the given fields of a node and return the updated node.

    `source_episodes` and `affected_files` are merged into the stored lists, and `data` is
    merged key by key (a key set to None is removed). `episode_count` follows the merged
    episode list unless given. Raises NotFound, ValueError for a bad type.
    """
    unknown = set(fields) - _NODE_UPDATABLE
    if unknown:
        raise TypeError(f"update_node() got unknown fields: {', '.join(sorted(unknown))}")
    with transaction(conn):
        node = get_node(conn, node_id)
        if node is None:
            raise NotFound(f"no node {node_id!r}")
        sets = _update_sets(node, fields)
        new_files = [f for f in sets.pop("_files", []) if f not in node["affected_files"]]
        sets["updated_at"] = now()
        conn.execute(
            "UPDATE nodes SET %s WHERE id = :id" % ", ".join(f"{k} = :{k}" for k in sets),
            {**sets, "id": node_id},
        )
        conn.executemany(
            "INSERT OR IGNORE INTO node_files (node_id, path) VALUES (?, ?)",
            [(node_id, f) for f in new_files],
        )
        return get_node(conn, node_id)  # type: ignore[return-value]


def _update_sets(node: Node, fields: dict[str, Any]) -> dict[str, Any]:
    sets = {k: v for k, v in fields.items() if k not in NODE_JSON}
    if "type" in sets and sets["type"] not in NODE_TYPES:
        raise ValueError(f"node type {sets['type']!r} is not one of {', '.join(NODE_TYPES)}")
    if "name" in sets:
        sets["name_key"] = normalise_name(sets["name"])
    if "causal" in sets:
        sets["causal"] = 1 if sets["causal"] else 0
    if fields.get("source_episodes") is not None:
        merged = _merge(node["source_episodes"], fields["source_episodes"])
        sets["source_episodes"] = jsonio.dumps(merged)
        if "episode_count" not in fields:
            sets["episode_count"] = max(node["episode_count"], len(merged))
    if fields.get("affected_files") is not None:
        files = [normalise_path(p) for p in fields["affected_files"]]
        sets["affected_files"] = jsonio.dumps(_merge(node["affected_files"], files))
        sets["_files"] = files
    if fields.get("data") is not None:
        data = dict(node["data"]) if isinstance(node["data"], dict) else {}
        for k, v in fields["data"].items():
            if v is None:
                data.pop(k, None)
            else:
                data[k] = v
        sets["data"] = jsonio.dumps(data)
    return sets


def delete_node(conn: Any, node_id: str) -> bool:
    """Remove a node with its edges and file links (for `engram forget`; supersede otherwise)."""
    with transaction(conn):
        conn.execute("DELETE FROM edges WHERE from_node = ? OR to_node = ?", (node_id, node_id))
        conn.execute("DELETE FROM node_files WHERE node_id = ?", (node_id,))
        conn.execute("UPDATE nodes SET superseded_by = NULL WHERE superseded_by = ?", (node_id,))
        return conn.execute("DELETE FROM nodes WHERE id = ?", (node_id,)).rowcount > 0


def find_by_name(
    conn: Any, name: str, *, type: str | None = None, include_superseded: bool = True, limit: int = 20
) -> list[Node]:
    """Nodes whose name matches exactly or after casefolding and collapsing whitespace.

    Exact matches come first, then active before superseded, then by strength.
    """
    # unary "+": the lookup must start from the name_key index, never from a status or
    # strength index the planner may prefer without ANALYZE statistics
    q = "SELECT * FROM nodes WHERE name_key = ?"
    args: list[Any] = [normalise_name(name)]
    if type:
        q += " AND +type = ?"
        args.append(type)
    if not include_superseded:
        q += " AND +status = 'active'"
    q += " ORDER BY (name = ?) DESC, (status = 'active') DESC, strength DESC, rowid LIMIT ?"
    args += [name, limit]
    return [_decode(r, NODE_JSON) for r in _rows(conn.execute(q, args))]


def active_with_key(conn: Any, key: str) -> list[str]:
    """Ids of the active nodes whose data.key or data.alias is `key` (indexes nodes_data_key, _alias)."""
    rows = conn.execute("SELECT id FROM nodes WHERE json_extract(data, '$.key') = ? AND status = 'active' "
                        "UNION SELECT id FROM nodes WHERE json_extract(data, '$.alias') = ? AND status = 'active'",
                        (key, key))
    return sorted(r[0] for r in rows.fetchall())


def names_starting(conn: Any, prefix: str, type: str, limit: int = 500) -> list[tuple[str, str, str]]:
    """[(id, name, status)] of nodes of `type` whose name key starts with `prefix` (indexed),
    active before superseded, then strongest first."""
    return conn.execute(
        "SELECT id, name, status FROM nodes WHERE type = ? AND name_key >= ? AND name_key < ?"
        " ORDER BY (status = 'active') DESC, strength DESC LIMIT ?",
        (type, prefix, prefix + "\uffff", limit),
    ).fetchall()


def find_by_file(
    conn: Any,
    path: str,
    *,
    min_strength: float = 0.0,
    type: str | None = None,
    include_superseded: bool = False,
    limit: int | None = None,
) -> list[Node]:
    """Nodes linked to `path` (as events record it), strongest first; one index lookup."""
    q = (
        "SELECT n.* FROM node_files f JOIN nodes n ON n.id = f.node_id"
        " WHERE f.path = ? AND +n.strength >= ?"
    )
    args: list[Any] = [normalise_path(path), min_strength]
    if type:
        q += " AND +n.type = ?"
        args.append(type)
    if not include_superseded:
        q += " AND +n.status = 'active'"
    q += " ORDER BY n.strength DESC, n.rowid LIMIT ?"
    args.append(-1 if limit is None else limit)
    return [_decode(r, NODE_JSON) for r in _rows(conn.execute(q, args))]


def list_nodes(
    conn: Any,
    *,
    type: str | None = None,
    status: str | None = None,
    min_strength: float | None = None,
    limit: int | None = None,
) -> list[Node]:
    """Nodes filtered by type / status / minimum strength, strongest first."""
    q, args = "SELECT * FROM nodes WHERE 1", []  # type: ignore[var-annotated]
    for col, op, val in (("type", "=", type), ("status", "=", status), ("strength", ">=", min_strength)):
        if val is not None:
            q += f" AND {col} {op} ?"
            args.append(val)
    q += " ORDER BY strength DESC, rowid LIMIT ?"
    args.append(-1 if limit is None else limit)
    return [_decode(r, NODE_JSON) for r in _rows(conn.execute(q, args))]


def paths_written(conn: Any, paths: list[str]) -> set[str]:
    """The paths, among these, that a consolidated episode wrote (its `files_modified`)."""
    out: set[str] = set()
    for i in range(0, len(paths), 500):
        chunk = paths[i : i + 500]
        out.update(r[0] for r in conn.execute(
            "SELECT DISTINCT j.value FROM episodes e, json_each(e.episode_data, '$.files_modified') j"
            " WHERE json_valid(e.episode_data) AND j.value IN (%s)" % ",".join("?" * len(chunk)), chunk))
    return out


def replace_file(conn: Any, node_id: str, old: str, new: str) -> None:
    """Move a node's link from `old` to `new` (a rename), keeping the list order."""
    old, new = normalise_path(old), normalise_path(new)
    with transaction(conn):
        node = get_node(conn, node_id)
        if node is None:
            raise NotFound(f"no node {node_id!r}")
        files = _merge([], (new if f == old else f for f in node["affected_files"]))
        conn.execute(
            "UPDATE nodes SET affected_files = ?, updated_at = ? WHERE id = ?",
            (jsonio.dumps(files), now(), node_id),
        )
        conn.execute("DELETE FROM node_files WHERE node_id = ? AND path = ?", (node_id, old))
        conn.execute("INSERT OR IGNORE INTO node_files (node_id, path) VALUES (?, ?)", (node_id, new))


# -- edges --------------------------------------------------------------------

EDGE_JSON = ("source_episodes", "data")


def _check_edge_type(type: str) -> None:
    if type not in EDGE_TYPES:
        raise ValueError(f"edge type {type!r} is not one of {', '.join(EDGE_TYPES)}")


def find_edge(conn: Any, from_node: str, to_node: str, type: str) -> Edge | None:
    rows = _rows(
        conn.execute(
            "SELECT * FROM edges WHERE from_node = ? AND to_node = ? AND type = ?",
            (from_node, to_node, type),
        )
    )
    return _decode(rows[0], EDGE_JSON) if rows else None


def get_edge(conn: Any, edge_id: str) -> Edge | None:
    rows = _rows(conn.execute("SELECT * FROM edges WHERE id = ?", (edge_id,)))
    return _decode(rows[0], EDGE_JSON) if rows else None


def upsert_edge(
    conn: Any,
    from_node: str,
    to_node: str,
    type: str,
    *,
    strength: float = 0.5,
    source_episodes: Iterable[str] = (),
    data: dict[str, Any] | None = None,
    id: str | None = None,
) -> str:
    """Create the (from, to, type) edge, or reinforce it: strength max'ed, episodes and data merged.

    Returns the edge id. Both nodes must exist by commit time (foreign keys are deferred).
    """
    _check_edge_type(type)
    stamp = now()
    with transaction(conn):
        old = find_edge(conn, from_node, to_node, type)
        if old is None:
            eid = id or new_id("e")
            conn.execute(
                "INSERT INTO edges (id, from_node, to_node, type, strength, source_episodes, data,"
                " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (eid, from_node, to_node, type, float(strength),
                 jsonio.dumps(_merge([], source_episodes)), jsonio.dumps(data or {}), stamp, stamp),
            )  # fmt: skip
            return eid
        merged = {**(old["data"] if isinstance(old["data"], dict) else {}), **(data or {})}
        conn.execute(
            "UPDATE edges SET strength = ?, source_episodes = ?, data = ?, updated_at = ? WHERE id = ?",
            (max(old["strength"], float(strength)),
             jsonio.dumps(_merge(old["source_episodes"], source_episodes)),
             jsonio.dumps(merged), stamp, old["id"]),
        )  # fmt: skip
        return old["id"]


create_edge = upsert_edge


def insert_edges(conn: Any, edges: Iterable[dict[str, Any]]) -> int:
    """Bulk path for new edges (one transaction); existing (from, to, type) triples are skipped."""
    stamp = now()
    rows = []
    for e in edges:
        _check_edge_type(e["type"])
        rows.append((
            e.get("id") or new_id("e"), e["from_node"], e["to_node"], e["type"],
            float(e.get("strength", 0.5)), jsonio.dumps(list(e.get("source_episodes") or [])),
            jsonio.dumps(e.get("data") or {}), e.get("created_at") or stamp,
            e.get("created_at") or stamp,
        ))  # fmt: skip
    with transaction(conn):
        before = conn.total_changes
        conn.executemany(
            "INSERT OR IGNORE INTO edges (id, from_node, to_node, type, strength, source_episodes,"
            " data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        return conn.total_changes - before


def edges_of(
    conn: Any, node_id: str, *, direction: str = "both", types: Iterable[str] | None = None
) -> list[Edge]:
    """Edges leaving ("out"), entering ("in") or touching ("both") a node, oldest first."""
    if direction not in ("out", "in", "both"):
        raise ValueError("direction must be 'out', 'in' or 'both'")
    where = {"out": "from_node = ?", "in": "to_node = ?"}.get(
        direction, "id IN (SELECT id FROM edges WHERE from_node = ? UNION SELECT id FROM edges WHERE to_node = ?)"
    )
    args: list[Any] = [node_id] * (2 if direction == "both" else 1)
    q = f"SELECT * FROM edges WHERE {where}"
    types = list(types or ())
    if types:
        q += " AND type IN (%s)" % ",".join("?" * len(types))
        args += types
    q += " ORDER BY created_at, id"
    return [_decode(r, EDGE_JSON) for r in _rows(conn.execute(q, args))]


def delete_edge(conn: Any, edge_id: str) -> bool:
    return conn.execute("DELETE FROM edges WHERE id = ?", (edge_id,)).rowcount > 0


# -- episodes -----------------------------------------------------------------


def insert_episode(
    conn: Any,
    *,
    session_id: str,
    outcome: str,
    goal: str = "",
    approach: str = "",
    episode_data: dict[str, Any] | None = None,
    id: str | None = None,
    created_at: str | None = None,
) -> str:
    """Store an episode and return its id. Raises ValueError for an unknown outcome."""
    if outcome not in OUTCOMES:
        raise ValueError(f"episode outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
    eid = id or new_id("ep")
    conn.execute(
        "INSERT INTO episodes (id, session_id, goal, approach, outcome, episode_data, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (eid, session_id, goal or "", approach or "", outcome,
         jsonio.dumps(episode_data or {}), created_at or now()),
    )  # fmt: skip
    return eid


def insert_passages(conn: Any, session_id: str, rows: list[tuple[int, str, str]]) -> int:
    """Store a session's passages [(seq, ts, text)] (retrieve/replies.py); a seq stored before
    (a range consolidated again) is kept as it was. Returns how many were new."""
    return sum(conn.execute("INSERT OR IGNORE INTO passages (session_id, seq, ts, text) VALUES (?, ?, ?, ?)",
                            (session_id, seq, ts, text)).rowcount for seq, ts, text in rows)


def get_episode(conn: Any, episode_id: str) -> Episode | None:
    rows = _rows(conn.execute("SELECT * FROM episodes WHERE id = ?", (episode_id,)))
    return _decode(rows[0], ("episode_data",)) if rows else None


def episodes_for_session(conn: Any, session_id: str) -> list[Episode]:
    rows = _rows(
        conn.execute("SELECT * FROM episodes WHERE session_id = ? ORDER BY created_at, rowid", (session_id,))
    )
    return [_decode(r, ("episode_data",)) for r in rows]


# -- consolidation records ----------------------------------------------------


def range_applied(conn: Any, session_id: str, to_seq: int) -> bool:
    """True when a consolidation of this session already covered events up to `to_seq`.

    Ranges of one session are applied in order, so any record reaching `to_seq` or
    beyond means these events are already in the graph.
    """
    row = conn.execute(
        "SELECT 1 FROM consolidations WHERE session_id = ? AND to_seq >= ? LIMIT 1", (session_id, to_seq)
    ).fetchone()
    return row is not None


def applied_through(conn: Any, session_id: str) -> int | None:
    """The highest event sequence number of this session already applied, or None."""
    return conn.execute(
        "SELECT max(to_seq) FROM consolidations WHERE session_id = ?", (session_id,)
    ).fetchone()[0]


def drop_ranges_after(conn: Any, session_id: str, seq: int) -> int:
    """Forget the records of this session's events past `seq` (its stream was truncated or
    replaced: those seqs now name other events); the graph's content stays. Returns rows changed."""
    n = conn.execute("DELETE FROM consolidations WHERE session_id = ? AND from_seq > ?", (session_id, seq)).rowcount
    n += conn.execute("UPDATE consolidations SET to_seq = ? WHERE session_id = ? AND to_seq > ?",
                      (seq, session_id, seq)).rowcount
    return n


def record_consolidation(
    conn: Any, session_id: str, from_seq: int, to_seq: int, episode_id: str | None = None
) -> bool:
    """Record that events [from_seq, to_seq] of a session were applied; False if already.

    Call it inside the same transaction as the graph changes it vouches for: then a
    crash leaves both or neither, and a retry sees `range_applied` and skips.
    """
    if range_applied(conn, session_id, to_seq):
        return False
    conn.execute(
        "INSERT INTO consolidations (session_id, from_seq, to_seq, episode_id, applied_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (session_id, int(from_seq), int(to_seq), episode_id, now()),
    )
    return True


# -- meta and tombstones ----------------------------------------------------------


def get_meta(conn: Any, key: str, default: str | None = None) -> str | None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except Exception as exc:  # a database older than the meta table
        if "no such table" in str(exc):
            return default
        raise
    return row[0] if row else default


def set_meta(conn: Any, key: str, value: Any) -> None:
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, str(value)))


def add_tombstone(conn: Any, key: str) -> None:
    conn.execute("INSERT OR IGNORE INTO tombstones (key, created_at) VALUES (?, ?)", (key, now()))


def has_tombstone(conn: Any, key: str) -> bool:
    return conn.execute("SELECT 1 FROM tombstones WHERE key = ?", (key,)).fetchone() is not None


# -- counts -------------------------------------------------------------------


def counts(conn: Any) -> dict[str, Any]:
    """Node counts by type and status, edge counts by type, episodes by outcome."""
    nodes: dict[str, dict[str, int]] = {}
    for t, s, n in conn.execute("SELECT type, status, count(*) FROM nodes GROUP BY type, status"):
        nodes.setdefault(t, {})[s] = n
    edges = dict(conn.execute("SELECT type, count(*) FROM edges GROUP BY type").fetchall())
    episodes = dict(conn.execute("SELECT outcome, count(*) FROM episodes GROUP BY outcome").fetchall())
    return {
        "nodes": nodes,
        "nodes_total": sum(sum(v.values()) for v in nodes.values()),
        "edges": edges,
        "edges_total": sum(edges.values()),
        "episodes": episodes,
        "episodes_total": sum(episodes.values()),
    }
