"""When to consolidate, and starting the worker that does it, from inside a hook.

Standard library only and fast: the hook pays a few stats and at most one process spawn.

The queue is a directory, `queue/<session>`, one empty file per session waiting for a
worker. A hook that has something to consolidate touches the session's file, then starts
a worker only if one of the project's `maxConcurrentWorkers` slots is free
(`workers/slot-N.lock`, held with flock by a running worker; the hook takes the flock
itself and passes the descriptor to the worker it starts). A worker drains the queue,
releases its slot, and looks at the queue once more; a hook that saw every slot busy
queued its session before looking, so either that last look or the hook's own spawn
picks it up. 300 pending sessions therefore start at most `maxConcurrentWorkers`
processes, never 300.

Set ENGRAM_NO_WORKER=1 to queue without spawning (tests of other parts use it; the
queue is drained by the next worker or `engram consolidate --all`).
"""

from __future__ import annotations

import fcntl
import os
import sys

TYPE_CHECKING = False  # `typing` costs ~9 ms on the hook; annotations only
if TYPE_CHECKING:
    from typing import Any

from engram.core import episode_file

QUEUE = "queue"
WORKERS = "workers"
FAULTS = "faults"
# Events a hook appends on its own; a tail made only of these does not need a worker.
MARKERS = ("session_start", "session_end", "compact")


def _dir(project: Any, name: str) -> str:
    path = os.path.join(project.dir, name)
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def slot_path(project: Any, i: int) -> str:
    return os.path.join(_dir(project, WORKERS), f"slot-{i}.lock")


def session_lock_path(project: Any, session: str) -> str:
    return project.episode_path(session)[: -len(".episode.json")] + ".lock"


# -- the queue --------------------------------------------------------------------------


def enqueue(project: Any, sessions: list[str]) -> None:
    qdir = _dir(project, QUEUE)
    for s in sessions:
        os.close(os.open(os.path.join(qdir, s), os.O_WRONLY | os.O_CREAT, 0o600))


def dequeue(project: Any, session: str) -> None:
    try:
        os.unlink(os.path.join(project.dir, QUEUE, session))
    except FileNotFoundError:
        pass


def queued(project: Any) -> list[str]:
    """Queued sessions, oldest first."""
    qdir = os.path.join(project.dir, QUEUE)
    try:
        entries = list(os.scandir(qdir))
    except FileNotFoundError:
        return []
    found = []
    for e in entries:
        try:  # a worker may dequeue it meanwhile
            found.append((e.stat().st_mtime_ns, e.name))
        except FileNotFoundError:
            continue
    return [name for _, name in sorted(found) if _valid(name)]


def _valid(name: str) -> bool:
    from engram.config import safe_name
    from engram.errors import UnsafeIdentifier

    try:
        return bool(safe_name(name)) and not name.startswith(".")
    except UnsafeIdentifier:
        return False


# -- the state machine, from files -------------------------------------------------------


def needs_consolidation(project: Any, session: str) -> bool:
    """Cheap test: the JSONL's size differs from the size recorded when it was consolidated.

    A false positive (only a torn line, or events already applied) costs one worker
    that finds nothing and updates the mark; a false negative cannot happen, because
    every append grows the file.
    """
    try:
        size = os.stat(project.events_path(session)).st_size
    except FileNotFoundError:
        return False
    return size > 0 and size != episode_file.read_mark(project.episode_path(session)).events_size


def pending_sessions(project: Any, exclude: str | None = None) -> list[str]:
    """Every session of the project in state NEEDS_CONSOLIDATION (cheap check)."""
    try:
        names = os.listdir(os.path.join(project.dir, "events"))
    except FileNotFoundError:
        return []
    sessions = sorted(n[: -len(".jsonl")] for n in names if n.endswith(".jsonl"))
    return [s for s in sessions if s != exclude and needs_consolidation(project, s)]


def pending_beyond_markers(project: Any, session: str, last_seq: int, appended_markers: int) -> bool:
    """True when the session has events past the mark other than the markers just appended."""
    mark = episode_file.read_mark(project.episode_path(session))
    return last_seq - appended_markers > mark.consolidated_to


# -- workers ---------------------------------------------------------------------------


def claim_slot(project: Any, cfg: dict[str, Any]) -> int | None:
    """A descriptor holding a free worker slot's flock, or None when every slot is busy.

    The hook claims the slot itself and hands the descriptor to the worker it spawns, so
    the slot is taken the moment it is seen free: a burst of hooks cannot all see it free
    while the first worker is still starting.
    """
    for i in range(max(1, int(cfg.get("maxConcurrentWorkers", 2)))):
        fd = os.open(slot_path(project, i), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except OSError:
            os.close(fd)
    return None


def spawn_worker(project: Any, slot_fd: int) -> int:
    """Start `python -m engram worker` in its own session, holding `slot_fd`, output to the log.

    os.posix_spawn(setsid=True) is `subprocess.Popen(start_new_session=True)` without
    importing subprocess (~12 ms, as much as the rest of the hook). The child gets
    /dev/null as stdin, the project log as stdout/stderr, and the slot descriptor; every
    other descriptor is close-on-exec (PEP 446), so the harness's pipes are not held open.
    """
    os.makedirs(os.path.dirname(project.log_path), mode=0o700, exist_ok=True)
    log_fd = os.open(project.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.set_inheritable(slot_fd, True)
        return os.posix_spawn(
            sys.executable,
            [sys.executable, "-m", "engram", "worker", "--project", project.dir, "--slot-fd", str(slot_fd)],
            os.environ,
            file_actions=[(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                          (os.POSIX_SPAWN_DUP2, log_fd, 1), (os.POSIX_SPAWN_DUP2, log_fd, 2)],
            setsid=True,
        )  # fmt: skip
    finally:
        os.close(log_fd)


def kick(project: Any, cfg: dict[str, Any], sessions: list[str]) -> int | None:
    """Queue sessions and start a worker if a slot is free; the worker's pid or None."""
    if sessions:
        enqueue(project, sessions)
    if os.environ.get("ENGRAM_NO_WORKER", "") not in ("", "0") or not queued(project):
        return None
    fd = claim_slot(project, cfg)
    if fd is None:
        return None
    try:
        return spawn_worker(project, fd)
    finally:
        os.close(fd)  # the worker's inherited copy keeps the flock


# -- what each hook calls -------------------------------------------------------------------


def after(ctx: Any, event: str) -> int | None:
    """Called by lifecycle after `event` appended its events; never raises (the hook must not fail)."""
    try:
        if event == "stop":  # the turn's events always need consolidating
            return kick(ctx.project, ctx.cfg, [ctx.session])
        if event == "session_start":  # crash recovery: every other session still pending
            return kick(ctx.project, ctx.cfg, pending_sessions(ctx.project, exclude=ctx.session))
        # session_end / compact: queue unless the marker just appended is all that is new
        from engram.core.session_state import read

        seq = read(ctx.project.state_path(ctx.session)).get("seq", 0)
        if pending_beyond_markers(ctx.project, ctx.session, int(seq or 0), 1):
            return kick(ctx.project, ctx.cfg, [ctx.session])
        return None
    except Exception as exc:
        ctx.log(f"consolidation trigger after {event} failed: {type(exc).__name__}: {exc}")
        return None


# -- faults --------------------------------------------------------------------------------


def consolidation_notice(project: Any) -> str | None:
    """One line for SessionStart when consolidations failed and wait for a retry, else None."""
    fdir = os.path.join(project.dir, FAULTS)
    try:
        names = sorted((n for n in os.listdir(fdir) if n.endswith(".json")),
                       key=lambda n: os.stat(os.path.join(fdir, n)).st_mtime_ns)
    except (FileNotFoundError, OSError):
        return None
    if not names:
        return None
    from engram import jsonio

    last: dict[str, Any] = {}
    try:
        with open(os.path.join(fdir, names[-1]), "rb") as f:
            last = jsonio.loads(f.read().decode("utf-8", "replace"))
    except (OSError, ValueError):
        pass
    what = f"{last.get('kind', 'error')}: {str(last.get('message', ''))[:160]}" if last else "see the log"
    return (f"engram: consolidation failed for {len(names)} session(s) (last: {what}). "
            f"They stay queued and are retried; details in {project.log_path}")
