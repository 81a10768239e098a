"""Opening engram.db: which SQLite driver, which pragmas, and why.

Two kinds of process open the database:

* Workers and the CLI call `connect()`. sqlite-vec is a loadable extension, and this
  machine's Python (like macOS's system Python) is built without extension loading, so
  `connect()` prefers `sqlean` (sqlean.py: a drop-in `sqlite3` with its own SQLite that can
  load extensions) and loads sqlite-vec into it. When either is missing it falls back to
  the standard library with vectors off and records why; `vector_status()` and
  `engram.graph.embeddings.vector_path()` report it, so vectors are never skipped silently.
* Readers (the hook's hot path first) call `engram.graph.readonly.open_ro()`: standard library
  only (importing sqlean or sqlite_vec would cost more than the whole PostToolUse budget);
  `connect(readonly=True)` opens through it with its own driver. Every plain table is
  readable without the extension; only `node_embeddings` (vec0) is not.

Every connection gets WAL (readers never block the writer and vice versa) and a busy
timeout, so a hook reading while a worker writes waits briefly instead of failing.
Connections are in autocommit mode (`isolation_level=None`): transactions are explicit,
through `engram.graph.store.transaction()`.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # `typing` costs ~3 ms of import (engram query, the hooks); annotations only
if TYPE_CHECKING:
    from typing import Any

BUSY_TIMEOUT_MS = 5000


_CLASSES: dict[str, type] = {}
_STATUS: tuple[str | None, str] | None = None  # (vec_version, reason), probed once


def db_errors() -> tuple[type[BaseException], ...]:
    """The database exception classes in play: sqlite3.Error, plus sqlean's Error once
    sqlean is loaded (its classes are not subclasses of sqlite3's). Use it in an
    `except db_errors():` clause, which evaluates it when an exception arrives."""
    import sqlite3

    mod = sys.modules.get("sqlean")
    return (sqlite3.Error, mod.Error) if mod is not None else (sqlite3.Error,)


def _connection_class(module: Any) -> type:
    """A Connection subclass of the driver that can carry the vector status."""
    cls = _CLASSES.get(module.__name__)
    if cls is None:

        class EngramConnection(module.Connection):  # type: ignore[name-defined,misc]
            driver = module.__name__
            vec_version: str | None = None
            vector_reason = "sqlite-vec not loaded"
            vec_loadable: str | None = None  # connect(..., load_vectors=False): add_vectors() loads it

        cls = _CLASSES[module.__name__] = EngramConnection
    return cls


def _vec_loadable() -> str | None:
    """The path of sqlite-vec's loadable extension, found without importing the package:
    its __init__ imports numpy when numpy is installed (~100 ms of every CLI command)."""
    from importlib.util import find_spec

    spec = find_spec("sqlite_vec")
    if spec is None or not spec.origin:
        return None
    return os.path.join(os.path.dirname(spec.origin), "vec0")


def _vector_driver() -> tuple[Any, str | None, str]:
    """(driver module, sqlite-vec's loadable path or None, reason when None)."""
    if os.environ.get("ENGRAM_NO_VECTORS"):
        import sqlite3

        return sqlite3, None, "disabled by ENGRAM_NO_VECTORS"
    try:
        import sqlean
    except ImportError:
        sqlean = None
    if sqlean is None:
        import sqlite3
    driver: Any = sqlean if sqlean is not None else sqlite3
    if sqlean is None and not hasattr(sqlite3.Connection, "enable_load_extension"):
        return sqlite3, None, "this Python's sqlite3 cannot load extensions and sqlean.py is not installed"
    loadable = _vec_loadable()
    if loadable is None:
        return driver, None, "the sqlite-vec package is not installed"
    return driver, loadable, ""


def _open(module: Any, path: str, **kw: Any) -> Any:
    return module.connect(
        path, factory=_connection_class(module), isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000, **kw
    )


def _load_vec(conn: Any, loadable: str) -> None:
    try:
        conn.enable_load_extension(True)
        conn.load_extension(loadable)
        conn.enable_load_extension(False)
        conn.vec_version = conn.execute("SELECT vec_version()").fetchone()[0]
        conn.vector_reason = ""
    except Exception as exc:  # any driver's error: record it, never hide it
        conn.vec_version = None
        conn.vector_reason = f"sqlite-vec failed to load: {exc}"


def _pragmas(conn: Any, *, write: bool) -> None:
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    if write:
        conn.execute("PRAGMA journal_mode = WAL")
        # NORMAL is durable against crashes in WAL mode; a power cut may lose the last
        # commit, which the next consolidation redoes from the JSONL events.
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")


def connect(path: str, *, vectors: bool = True, migrate: bool = True, readonly: bool = False,
            load_vectors: bool = True) -> Any:
    """Open (creating if needed) a read-write connection to engram.db at `path`.

    With `vectors`, sqlite-vec is loaded when possible; check `conn.vec_version` or
    `vector_path(conn)`; with `load_vectors=False` too, the connection is opened by the
    driver that can load it, and `add_vectors(conn)` loads it once it is known to be needed
    (a reader that finds no vectors pays for neither a second connection nor a second
    driver). With `migrate`, pending schema migrations are applied. With
    `readonly` (a reader that needs the vector extension: `engram query`, the MCP tool) the
    file is opened read-only and never created, so a read-only home still answers.
    Raises the driver's OperationalError (catch `db_errors()`) when the file cannot be opened.
    """
    if path != ":memory:":
        from engram.errors import EngramError
        from engram.fsio import private_dir
        from engram.graph.readonly import check_files

        check_files(path, EngramError)
        if not readonly:
            private_dir(os.path.dirname(os.path.abspath(path)))
            if not os.path.exists(path):
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    if vectors:
        module, loadable, reason = _vector_driver()
    else:
        import sqlite3

        module, loadable, reason = sqlite3, None, "vectors=False"
    conn = _open_ro(module, path) if readonly else _open(module, path, check_same_thread=False)
    conn.vector_reason = reason
    if loadable is not None and load_vectors:
        _load_vec(conn, loadable)
    else:
        conn.vec_loadable = loadable
    _pragmas(conn, write=not readonly)
    if migrate and not readonly:
        from engram.graph.migrations import migrate as _migrate

        _migrate(conn)
    return conn


def add_vectors(conn: Any) -> None:
    """Load sqlite-vec into a connection opened with `load_vectors=False` (a no-op otherwise)."""
    if conn.vec_loadable and not conn.vec_version:
        _load_vec(conn, conn.vec_loadable)


def _open_ro(module: Any, path: str) -> Any:
    """`readonly.open_ro` through this driver; in a read-only directory without the WAL's
    shared-memory file SQLite cannot use the WAL, and the main file alone is read."""
    from engram.graph.readonly import open_ro

    kw = {"factory": _connection_class(module), "timeout": BUSY_TIMEOUT_MS / 1000}
    try:
        conn = open_ro(path, module, **kw)
        if conn is None:
            raise module.OperationalError(f"unable to open database file: {path} does not exist")
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return conn
    except module.OperationalError:
        if not os.path.exists(path) or os.access(os.path.dirname(os.path.abspath(path)), os.W_OK):
            raise  # missing, locked or damaged, not read-only: the caller says so
        return open_ro(path, module, immutable=True, **kw)


def vector_status() -> tuple[str | None, str]:
    """(sqlite-vec version, "") when a worker here can load it, else (None, reason).

    Probed once per process on an in-memory database: `engram status` and `doctor`
    report what a worker would use without opening the project's database for writing.
    """
    global _STATUS
    if _STATUS is None:
        conn = connect(":memory:", migrate=False)
        _STATUS = (conn.vec_version, conn.vector_reason)
        conn.close()
    return _STATUS
