"""From inside the PostToolUse hook: should this write be checked, and start the checker.

Standard library only, and cheap, because it runs on every file_write:

1. Which decisions are linked to the written file with strength > the threshold?
   Answered from `decision_files.json` in the project directory, a map
   path -> [decision ids] stamped with the graph's signature (size and mtime of
   engram.db and its WAL, two stats). It is rebuilt with ONE query (decision nodes
   joined to `node_files`, strength > threshold) only when the graph has changed since,
   i.e. once after each consolidation. Importing `sqlite3` and opening the database
   on every write would cost ~3 ms, a third of the interpreter's own start-up.
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
# One pass over node_files against the (indexed) set of strong decisions: node_files is keyed
# (path, node_id), so a join driven by node id would scan node_files once per decision.
_QUERY = (
    "SELECT f.path, f.node_id FROM node_files f WHERE f.node_id IN "
    "(SELECT id FROM nodes WHERE type = 'decision' AND status = 'active' AND strength > ?)"
)
_spawned: list[int] = []  # our own children, reaped later by a long-lived host process


def linked_decisions(project_dir: str, db_path: str, path: str, threshold: float) -> list[str]:
    """Ids of live decision nodes linked to `path` with strength > threshold (strongest first)."""
    if not os.path.exists(db_path):
        return []
    from engram.core.graphread import signature

    sig = signature(db_path)
    cache_path = os.path.join(project_dir, CACHE)
    cache = _read(cache_path)
    if cache.get("sig") != sig or cache.get("threshold") != threshold or not isinstance(cache.get("paths"), dict):
        cache = rebuild(db_path, cache_path, sig, threshold)
    ids = cache["paths"].get(path)
    return ids if isinstance(ids, list) else []


def rebuild(db_path: str, cache_path: str, sig: list[int], threshold: float) -> dict:
    """One query over the graph; the signature is taken BEFORE it, so a racing write only makes it stale."""
    from engram.core.graphread import open_ro

    conn = open_ro(db_path)
    try:
        rows = conn.execute(_QUERY, (threshold,)).fetchall() if conn is not None else []
    finally:
        if conn is not None:
            conn.close()
    paths: dict[str, list[str]] = {}
    for p, node_id in sorted(rows):
        paths.setdefault(p, []).append(node_id)
    cache = {"sig": sig, "threshold": threshold, "paths": paths}
    write_atomic(cache_path, jsonio.dumps(cache).encode(), durable=False)
    return cache


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
    """Start the detached checker: new session (setsid), stdin /dev/null, output to the project log."""
    _reap()
    argv = [sys.executable, "-m", "engram.core.contradiction_worker", project.dir, session]
    log = project.log_path
    os.makedirs(os.path.dirname(log), mode=0o700, exist_ok=True)
    actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600),
               (os.POSIX_SPAWN_DUP2, 1, 2)]
    try:
        # posix_spawn costs ~0.4 ms here; subprocess would cost its ~10 ms import on every checked write.
        pid = os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions, setsid=True)
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
