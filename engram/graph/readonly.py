"""Read-only graph queries: the hooks' (standard library only) and every other reader's.

`open_ro` is engram's one read-only opener, the hooks' and `connect(readonly=True)`'s:
a `file:` URI opened read-only, so a missing file is never created and nothing can be
written. The hooks open it through `_sqlite3` (they pay for every import:
`engram.graph.connect` imports `typing`, `sqlite3` adds `datetime`); `connect` passes
its own driver (sqlean, for the vector extension).
Every query reads only "live" nodes: status 'active' and strength > 0 (the spec's
"retrieval ignores strength-0 nodes"; a superseded node is never entered or passed
through). Queries take lists of ids / paths / names and run as one statement each.
"""

from __future__ import annotations

import os

from engram.graph import signature  # noqa: F401  (the graph's stamp; its readers ask here too)

TYPE_CHECKING = False  # `typing` costs every hook ~20 ms: annotations only
if TYPE_CHECKING:
    from types import ModuleType

# The unary "+" keeps SQLite from driving a query off the low-selectivity nodes_status /
# nodes_strength indexes (it picked them without ANALYZE statistics, and a 1,000-id
# frontier took 2 s instead of 15 ms): lookups must start from the id / path / name index.
LIVE = "+n.status = 'active' AND +n.strength > 0"
BUSY_MS = 250  # a hook gives up on a locked database quickly (no context) rather than stall its agent
MMAP_BYTES = 256 * 1024 * 1024
CHUNK = 30000  # stay under SQLite's host-parameter limit (32,766 before 3.32)
NODE_COLS = "n.id, n.name, n.type, n.description, n.summary, n.strength, n.data, n.affected_files, n.updated_at"


def _driver():
    """`_sqlite3`, the C module behind `sqlite3`: `sqlite3/dbapi2.py` adds only the date
    adapters, and its import (datetime, collections.abc) costs ~2 ms a hook does not need.
    Same classes, same exceptions; the public module is the fallback."""
    try:
        return _import_sqlite3()
    except ImportError:  # pragma: no cover - every CPython build with sqlite3 has it
        import sqlite3

        return sqlite3


def _import_sqlite3():
    """`_sqlite3`'s module init takes `functools.lru_cache` (its statement cache), and importing
    `functools` brings `collections` and five more modules: ~2.8 ms of every hook that reads
    the graph, for one function. When nothing has imported `functools` yet, the init is given
    that function alone, built on the same C type (`_functools._lru_cache_wrapper`), and the
    stand-in leaves `sys.modules` at once: whoever imports `functools` next gets the real one."""
    import sys

    if "_sqlite3" in sys.modules or "functools" in sys.modules:
        import _sqlite3

        return _sqlite3
    import _functools

    stand_in = type(sys)("functools")
    stand_in.lru_cache = lambda maxsize=128, typed=False: (  # type: ignore[attr-defined]
        lambda fn: _functools._lru_cache_wrapper(fn, maxsize, typed, tuple))
    sys.modules["functools"] = stand_in
    try:
        import _sqlite3
    except Exception:  # an init that wants more of functools: the real one
        sys.modules.pop("functools", None)
        import _sqlite3
    finally:
        if sys.modules.get("functools") is stand_in:
            del sys.modules["functools"]
    return _sqlite3


def open_ro(path: str, driver: ModuleType | None = None, *, immutable: bool = False, **kw: object):
    """A read-only connection, or None when the database file does not exist.

    `driver` is the SQLite module (`_sqlite3` by default); `kw` goes to its `connect`
    (a `factory`, a longer `timeout`). `immutable` reads the main file alone, what was
    checkpointed: in a read-only directory without the WAL's shared-memory file SQLite
    cannot use the WAL (`connect` falls back to it there). mmap lets SQLite read pages
    straight from the OS page cache instead of copying them in: a fresh connection's
    first queries (every hook's are) run about twice as fast.
    """
    if not path or not os.path.exists(path):
        return None
    module = driver or _driver()
    check_files(path, module.OperationalError)
    quoted = os.path.abspath(path).replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    options = {"uri": True, "isolation_level": None, "timeout": BUSY_MS / 1000, "check_same_thread": False, **kw}
    conn = module.connect("file:" + quoted + ("?immutable=1" if immutable else "?mode=ro"), **options)
    conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")  # `timeout` above is the busy timeout
    return conn


def check_files(path: str, error: type[Exception]) -> None:
    """Raise `error` when the database, its WAL or its shared-memory file is something other
    than a regular file: SQLite would block on a FIFO or read /dev/zero forever."""
    from engram.fsio import regular_or_missing

    for p in (path, path + "-wal", path + "-shm"):
        if not regular_or_missing(p):
            raise error(f"{p} is not a regular file (a FIFO, a device, a directory or a symlink); "
                        "move it aside (`engram doctor` says how)")


# ONE indexed query per file: node_files is keyed (path, node_id), so driving the join from
# node_files (CROSS JOIN fixes the order) is a primary-key prefix search, then nodes by id.
_LINKED_DECISIONS = (
    "SELECT n.id FROM node_files f CROSS JOIN nodes n ON n.id = f.node_id WHERE f.path = ? "
    "AND n.type = 'decision' AND n.status = 'active' AND n.strength > ? ORDER BY n.strength DESC, n.id"
)


def decisions_linked(path: str, file: str, threshold: float) -> list[str]:
    """Ids of live decisions linked to `file` with strength > threshold, strongest first
    (the PostToolUse hook's one query on a write); [] when there is no database."""
    conn = open_ro(path)
    if conn is None:
        return []
    try:
        return [r[0] for r in conn.execute(_LINKED_DECISIONS, (file, threshold)).fetchall()]
    finally:
        conn.close()


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


_PUNCT = ".,;:!?()\"`"  # spaces in a name where phrases are looked for


# The live decisions, strongest first, from the covering partial index nodes_live_decisions
# (schema.sql, m006): its WHERE must appear here as written, without LIVE's unary "+", for
# SQLite to use it; a database from before it gets the same rows, read and sorted.
_DECISIONS = ("SELECT n.id, n.strength, n.name_key, json_extract(n.data, '$.statement.subject') FROM nodes n "
              "WHERE n.type = 'decision' AND n.status = 'active' AND n.strength > 0 "
              "ORDER BY n.strength DESC, n.id LIMIT ?")


def decisions_about(conn, phrases: list[str], words: "set[str] | frozenset[str]" = frozenset(),
                    limit: int = 2000) -> list[tuple[str, float, str]]:
    """[(node id, strength, what matched)] of the `limit` strongest live decisions a prompt is about.

    A decision is named by its whole sentence ("use redis for the job queue"), so a prompt
    that names only its topic ("the job queue") never equals it: multi-word phrases are
    matched inside the names, on word boundaries, and a decision whose subject (the thing
    decided, `data.statement.subject`: stemmed words, decision_text.statement) lies wholly
    among the prompt's `words` (stemmed too) matches as well ("what do we use for the ORM?").
    """
    rows = conn.execute(_DECISIONS, (limit,)).fetchall()
    hits = _phrase_hits(rows, phrases) if phrases else {}
    out = []
    for i, (nid, strength, _, subject) in enumerate(rows):
        hit = hits.get(i)
        if hit is None and subject and words and subject != "[]":
            hit = _subject_hit(subject, words)
        if hit:
            out.append((nid, strength, hit))
    return out


def _phrase_hits(rows: list[tuple], phrases: list[str]) -> dict[int, str]:
    """{row index: the first of `phrases` its name holds on word boundaries}. The names are
    searched as one text (each ` name `, its punctuation made spaces, after a newline, which
    a whitespace-collapsed name never holds): a search per phrase, not a test per name and
    phrase (~0.7 ms of a prompt's 2,000 decisions)."""
    at: dict[int, int] = {}
    parts, n = [], 0
    for i, row in enumerate(rows):
        at[n] = i
        part = f"\n {row[2]} "
        parts.append(part)
        n += len(part)
    text = "".join(parts)
    for ch in _PUNCT:  # one character for another: every name keeps its offset
        if ch in text:
            text = text.replace(ch, " ")
    hits: dict[int, str] = {}
    for p in phrases:
        if "\n" in p:
            continue
        w = f" {p} "
        pos = text.find(w)
        while pos >= 0:
            hits.setdefault(at[text.rfind("\n", 0, pos + 1)], p)
            pos = text.find(w, pos + 1)
    return hits


def _subject_hit(subject: str, words: "set[str] | frozenset[str]") -> str | None:
    """"subject:<stems>" when every stem of a decision's subject ('["job","queue"]': plain
    words, split without a JSON parse unless escaped) is among `words`."""
    if "\\" in subject:
        from engram import jsonio

        stems = jsonio.loads(subject)
    else:
        if subject[2 : subject.find('"', 2)] not in words:  # the first stem decides most
            return None
        stems = subject[2:-2].split('","')
    return "subject:" + " ".join(stems) if set(stems) <= words else None


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


def related_links(conn, ids: list[str]) -> list[tuple[str, str]]:
    """[(from, to)] of the `similar_to` edges touching any of the ids that mark two decisions
    as related (graph/supersession.py: data.reason "related decision..."), indexed both ways."""
    out: list[tuple[str, str]] = []
    related = "type = 'similar_to' AND json_valid(data) AND json_extract(data, '$.reason') GLOB 'related decision*'"
    for part in _chunks(sorted(ids), CHUNK // 2):
        marks = _marks(len(part))
        out += conn.execute(f"SELECT id, from_node, to_node FROM edges WHERE from_node IN ({marks}) AND {related} "
                            f"UNION SELECT id, from_node, to_node FROM edges WHERE to_node IN ({marks}) AND {related}",
                            part + part).fetchall()
    return [(a, b) for _, a, b in out]


def possible_replacements(conn, ids: list[str]) -> list[tuple[str, str]]:
    """[(newer, older)] of the `similar_to` links touching any of the ids from a live decision
    to a live decision it may replace (graph/supersession.py: data.reason "possibly replaces...",
    the edge from the newer), for retrieval to serve the newer (retrieve/screens/conflicts.py)."""
    out: list[tuple[str, str]] = []
    may = ("e.type = 'similar_to' AND json_valid(e.data) AND json_extract(e.data, '$.reason') GLOB 'possibly replaces*'"
           " AND EXISTS (SELECT 1 FROM nodes n WHERE n.id = e.from_node AND " + LIVE + ")"
           " AND EXISTS (SELECT 1 FROM nodes n WHERE n.id = e.to_node AND " + LIVE + ")")
    for part in _chunks(sorted(ids), CHUNK // 2):
        marks = _marks(len(part))
        out += conn.execute(f"SELECT e.from_node, e.to_node FROM edges e WHERE e.from_node IN ({marks}) AND {may} "
                            f"UNION SELECT e.from_node, e.to_node FROM edges e WHERE e.to_node IN ({marks}) AND {may}",
                            part + part).fetchall()
    return sorted((a, b) for a, b in out)


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


_KIND_ORDER = {"strength": "n.strength DESC, n.updated_at DESC", "recent": "n.updated_at DESC, n.strength DESC"}


def of_kind(conn, kind: str, limit: int, order: str = "strength") -> list[dict]:
    """Live nodes whose data.kind is `kind` (index nodes_kind): strongest, then newest, first;
    with order="recent", most recently updated first."""
    cur = conn.execute(
        f"SELECT {NODE_COLS} FROM nodes n WHERE json_extract(n.data, '$.kind') = ? AND n.status = 'active' "
        f"AND +n.strength > 0 ORDER BY {_KIND_ORDER[order]}, n.name, n.id LIMIT ?", (kind, int(limit)))
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row)) for row in cur]


def rules_files(conn, limit: int) -> list[dict]:
    """Live file nodes of the project's rules for the agent (data.rules; index nodes_kind),
    strongest, then newest, first."""
    cur = conn.execute(
        f"SELECT {NODE_COLS} FROM nodes n WHERE json_extract(n.data, '$.kind') = 'file' AND n.status = 'active' "
        f"AND +n.strength > 0 AND json_extract(n.data, '$.rules') ORDER BY {_KIND_ORDER['strength']}, n.name, n.id "
        f"LIMIT ?", (int(limit),))
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row)) for row in cur]


def latest_episodes(conn, limit: int) -> list[dict]:
    """The newest live episode nodes (the partial index nodes_live_episodes, in its order)."""
    cur = conn.execute(f"SELECT {NODE_COLS} FROM nodes n WHERE n.type = 'episode' AND n.status = 'active' "
                       f"AND +n.strength > 0 ORDER BY n.created_at DESC, n.id LIMIT ?", (int(limit),))
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


def strengths(conn, ids: list[str]) -> dict[str, float]:
    """{node id: strength} for the ids."""
    out: dict[str, float] = {}
    for part in _chunks(list(ids)):
        out.update(conn.execute(f"SELECT id, strength FROM nodes WHERE id IN ({_marks(len(part))})", part).fetchall())
    return out


def live_texts(conn) -> list[tuple]:
    """[(id, name, summary, description, affected_files JSON)] of every live node (a full scan)."""
    return conn.execute(f"SELECT n.id, n.name, n.summary, n.description, n.affected_files FROM nodes n WHERE {LIVE}"
                        ).fetchall()


def files_of(conn, ids: list[str]) -> dict[str, list[str]]:
    """{node id: its linked paths} for the ids that have any."""
    out: dict[str, list[str]] = {}
    for part in _chunks(list(ids)):
        for nid, path in conn.execute(f"SELECT node_id, path FROM node_files WHERE node_id IN ({_marks(len(part))})",
                                      part):
            out.setdefault(nid, []).append(path)
    return out


def stats(conn) -> dict:
    """Node counts (all, by type, live, superseded) and the edge count."""
    by_type = dict(conn.execute("SELECT type, count(*) FROM nodes GROUP BY type").fetchall())
    return {"nodes": sum(by_type.values()), "by_type": by_type,
            "live": conn.execute(f"SELECT count(*) FROM nodes n WHERE {LIVE}").fetchone()[0],
            "superseded": conn.execute("SELECT count(*) FROM nodes WHERE status = 'superseded'").fetchone()[0],
            "edges": conn.execute("SELECT count(*) FROM edges").fetchone()[0]}


def applied_by_session(conn) -> dict[str, int]:
    """{session: the highest event seq the graph holds for it} (the `consolidations` records)."""
    return dict(conn.execute("SELECT session_id, max(to_seq) FROM consolidations GROUP BY session_id").fetchall())


REQUIRED_TABLES = ("nodes", "edges", "episodes", "consolidations", "node_files", "meta", "tombstones")


def missing_tables(conn) -> list[str]:
    """The tables engram needs that the file lacks (an empty or foreign SQLite file lacks all)."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return [t for t in REQUIRED_TABLES if t not in have]


def integrity(path: str) -> str:
    """SQLite's own check of the file: "ok", or its first problems."""
    conn = open_ro(path)
    if conn is None:
        return "no database file"
    try:
        rows = conn.execute("PRAGMA integrity_check").fetchall()
    finally:
        conn.close()
    return "; ".join(str(r[0]) for r in rows[:3])
