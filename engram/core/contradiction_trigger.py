"""From inside the PostToolUse hook: should this write be checked, and start the checker.

Standard library only, and cheap, because it runs on every file_write:

1. Which decisions are linked to the written file with strength > the threshold?
   ONE indexed query (`node_files` by path, then the nodes by id), asked once per file
   per graph version: the answer is remembered in `decision_files.json` in the project
   directory, stamped with the graph's signature (size and mtime of engram.db and its
   WAL: two stats). So a file written again before the next consolidation costs a small
   JSON read; opening SQLite on every write would cost ~2-3 ms, a quarter of the
   interpreter's own start-up.
2. None -> nothing: no file, no process, no cost.
3. Otherwise the job (session, the write's seq, path, redacted bounded diff, decision
   ids) goes to `checks/<session>.<seq>.json`, and a detached checker
   (`python -m engram.core.contradiction_worker PROJECT_DIR SESSION`, new session,
   stdio to the project log) is started unless one already runs for this session (its
   flock is held); the running one drains the queue and looks once more before it exits.
   ENGRAM_NO_WORKER=1 queues without spawning, as it does for consolidation.

The hook returns at once; the verdict reaches the agent on a later hook (`drain`).
"""

from __future__ import annotations

import fcntl
import os
import sys

from engram import jsonio
from engram.config import write_atomic

CACHE = "decision_files.json"
CHECKS = "checks"
MAX_CACHED_PATHS = 2000
# ONE indexed query per file: node_files is keyed (path, node_id), so driving the join from
# node_files (CROSS JOIN fixes the order) is a primary-key prefix search, then nodes by id.
_QUERY = (
    "SELECT n.id FROM node_files f CROSS JOIN nodes n ON n.id = f.node_id WHERE f.path = ? "
    "AND n.type = 'decision' AND n.status = 'active' AND n.strength > ? ORDER BY n.strength DESC, n.id"
)
_spawned: list[int] = []  # our own children, reaped later by a long-lived host process
# The checker's interpreter start-up (~25 ms of CPU) must not compete with the hook's own last
# milliseconds, nor with the agent's next tool call: it starts a little later, at lower priority.
# Its verdict is only needed at a later hook anyway.
SHELL = "/bin/sh"
START_DELAY = "0.05"
_LAUNCH = 'sleep "$0" 2>/dev/null; command -v nice >/dev/null 2>&1 && exec nice -n 10 "$@"; exec "$@"'


def linked_decisions(project_dir: str, db_path: str, path: str, threshold: float) -> list[str]:
    """Ids of live decision nodes linked to `path` with strength > threshold (strongest first).

    Answers come from `decision_files.json` while the graph is unchanged (its signature:
    size and mtime of engram.db and its WAL, two stats); a file not asked about since
    the graph last changed costs one indexed query, and its answer is remembered.
    """
    if not os.path.exists(db_path):
        return []
    from engram.core.graphread import signature

    sig = signature(db_path)  # taken BEFORE the query: a racing consolidation only makes the entry stale
    cache_path = os.path.join(project_dir, CACHE)
    cache = _read(cache_path)
    paths = cache.get("paths")
    if cache.get("sig") != sig or cache.get("threshold") != threshold or not isinstance(paths, dict) \
            or len(paths) >= MAX_CACHED_PATHS:
        cache = {"sig": sig, "threshold": threshold, "paths": {}}
    ids = cache["paths"].get(path)
    if not isinstance(ids, list):
        ids = cache["paths"][path] = query(db_path, path, threshold)
        write_atomic(cache_path, jsonio.dumps(cache).encode(), durable=False)
    return ids


def _open_ro(db_path: str):
    """A read-only connection through the C module itself.

    `import sqlite3` also loads `sqlite3.dbapi2` and `datetime` for adapters this query
    never uses: ~2 ms of the cold path (the same reasoning as `engram.jsonio` and `_json`).
    """
    try:
        import _sqlite3 as driver
    except ImportError:  # pragma: no cover - CPython ships it wherever sqlite3 exists
        import sqlite3 as driver
    quoted = os.path.abspath(db_path).replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    conn = driver.connect("file:" + quoted + "?mode=ro", uri=True, isolation_level=None, timeout=2.0)
    conn.execute("PRAGMA busy_timeout = 2000")
    return conn


def query(db_path: str, path: str, threshold: float) -> list[str]:
    """The one indexed query: decision ids linked to `path` above the threshold."""
    conn = _open_ro(db_path)
    try:
        return [r[0] for r in conn.execute(_QUERY, (path, threshold)).fetchall()]
    finally:
        conn.close()


def _read(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            data = jsonio.loads(f.read().decode("utf-8", "replace"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def request_check(project, session: str, st: dict, ev: dict, cfg: dict) -> bool:
    """Queue a check of one file_write event and start the checker; True when a check was queued."""
    cs = st.get("contradiction")
    if isinstance(cs, dict) and cs.get("disabled"):
        return False
    path, diff = ev.get("path"), ev.get("diff")
    if not ev.get("ok") or not path or not diff:
        return False
    ids = linked_decisions(project.dir, project.db_path, path, float(cfg["contradictionStrengthThreshold"]))
    if not ids:
        return False
    job = {"session": session, "ref": ev.get("seq"), "turn": ev.get("turn"), "path": path, "diff": diff,
           "decisions": ids, "queued_at": ev.get("ts")}
    jobs = os.path.join(project.dir, CHECKS)
    os.makedirs(jobs, mode=0o700, exist_ok=True)
    write_atomic(os.path.join(jobs, "%s.%010d.json" % (session, int(ev.get("seq") or 0))),
                 jsonio.dumps(job).encode(), durable=False)
    if os.environ.get("ENGRAM_NO_WORKER", "") in ("", "0") and not running(project, session):
        spawn(project, session)
    return True


def lock_path(project, session: str) -> str:
    return os.path.join(project.dir, "sessions", session + ".checker.lock")


def running(project, session: str) -> bool:
    """Whether a checker holds this session's lock (probed without keeping it)."""
    fd = os.open(lock_path(project, session), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # releases a probe that succeeded
    return False


def spawn(project, session: str) -> int:
    """Start the detached checker: new session (setsid), stdin /dev/null, output to the project log.

    Through `/bin/sh -c 'sleep 0.05; exec nice -n 10 python -m ...'` when there is a shell.
    """
    _reap()
    argv = [sys.executable, "-m", "engram.core.contradiction_worker", project.dir, session]
    if os.path.exists(SHELL):
        argv = [SHELL, "-c", _LAUNCH, START_DELAY] + argv
    log = project.log_path
    os.makedirs(os.path.dirname(log), mode=0o700, exist_ok=True)
    actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600),
               (os.POSIX_SPAWN_DUP2, 1, 2)]
    try:
        # posix_spawn costs ~0.4 ms here; subprocess would cost its ~10 ms import on every checked write.
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions, setsid=True)
    except (AttributeError, NotImplementedError):  # no posix_spawn, or no POSIX_SPAWN_SETSID
        import subprocess

        with open(log, "ab") as out:
            pid = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                   start_new_session=True, close_fds=True).pid
    _spawned.append(pid)
    return pid


def _reap() -> None:
    """Collect our own finished children, so a long-lived host (the Python API) keeps no zombies."""
    for pid in list(_spawned):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _spawned.remove(pid)


def drain(st: dict) -> list[dict]:
    """Warnings and notices queued by the checker for this session, removed from the queue."""
    cs = st.get("contradiction")
    if not isinstance(cs, dict) or not cs.get("queue"):
        return []
    queue, cs["queue"] = cs["queue"], []
    return [q for q in queue if isinstance(q, dict) and isinstance(q.get("text"), str)]
