"""When to consolidate, and starting the worker that does it, from inside a hook.

Standard library only and fast: the hook pays a few stats and at most one process spawn.
A session to consolidate is a job in the project's `queue/` (one empty file per session),
drained by `python -m engram worker` processes holding one of `maxConcurrentWorkers`
slots (`workers/slot-N.lock`); the queue, the slots and the start are engram.workers',
shared with the contradiction checker.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # `typing` costs ~20 ms on the hook; annotations only
if TYPE_CHECKING:
    from typing import Any

from engram import workers
from engram.consolidate import episode_file

QUEUE = "queue"
FAULTS = "faults"
# Events a hook appends on its own; a tail made only of these does not need a worker.
MARKERS = ("session_start", "session_end", "compact", "injected")


def queue(project: Any) -> workers.Queue:
    return workers.Queue(os.path.join(project.dir, QUEUE))


def pool(project: Any, cfg: dict[str, Any]) -> workers.Pool:
    return workers.Pool(os.path.join(project.dir, "workers"), "slot", int(cfg.get("maxConcurrentWorkers", 2)))


def session_lock_path(project: Any, session: str) -> str:
    """The lock one consolidation of `session` holds (`engram forget` takes it too)."""
    return project.episode_path(session)[: -len(".episode.json")] + ".lock"


def enqueue(project: Any, sessions: list[str]) -> None:
    """Queue sessions, each job dated like its event stream's last write: the queue is taken
    oldest first by that date, so a backlog (a backfill, a week of crashes) is consolidated
    in the order it happened, however fast the jobs were queued."""
    q = queue(project)
    for s in sessions:
        q.put(s)
        try:
            t = os.stat(project.events_path(s)).st_mtime_ns
            os.utime(q.path(s), ns=(t, t))
        except OSError:  # no stream (yet): the job keeps its queuing time
            pass


def dequeue(project: Any, session: str) -> None:
    queue(project).done(session)


def queued(project: Any) -> list[str]:
    """Queued sessions, oldest first (names that are not a valid session id are ignored)."""
    return [name for name in queue(project).jobs() if _valid(name)]


def _valid(name: str) -> bool:
    from engram.config import safe_name
    from engram.errors import UnsafeIdentifier

    try:
        return bool(safe_name(name))
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
    """Every session of the project in state NEEDS_CONSOLIDATION (cheap check), oldest first
    (by its stream's last write): a backlog is consolidated in the order it happened, so a
    later decision supersedes an earlier one and the day's model budget goes to the oldest."""
    entries = []
    try:
        for e in os.scandir(os.path.join(project.dir, "events")):
            if e.name.endswith(".jsonl"):
                try:
                    entries.append((e.stat().st_mtime_ns, e.name[: -len(".jsonl")]))
                except FileNotFoundError:  # forgotten meanwhile
                    continue
    except FileNotFoundError:
        return []
    return [s for _, s in sorted(entries) if s != exclude and needs_consolidation(project, s)]


def graph_missing(project: Any) -> bool:
    """engram.db is absent or empty (two stats): whatever episode files say is consolidated is not in it."""
    try:
        return os.stat(project.db_path).st_size == 0
    except OSError:
        return True


def lost_sessions(project: Any, applied: dict[str, int] | None = None) -> list[str]:
    """Sessions whose episode file claims events the graph does not hold (engram.db emptied,
    deleted or replaced by an older copy): they must be consolidated again from their streams.

    `applied` is the graph's {session: highest seq applied} (readonly.applied_by_session);
    without it the check is the hooks' cheap one: only a missing or empty database counts.
    """
    if applied is None:
        if not graph_missing(project):
            return []
        applied = {}
    try:
        names = os.listdir(os.path.join(project.dir, "episodes"))
    except OSError:
        return []
    out = []
    for name in sorted(n for n in names if n.endswith(".episode.json")):
        session = name[: -len(".episode.json")]
        if _valid(session) and episode_file.read_mark(project.episode_path(session)).consolidated_to > applied.get(session, 0):
            out.append(session)
    return out


def lost_in_graph(project: Any) -> list[str]:
    """`lost_sessions` checked against the graph itself (CLI and doctor; opens the database)."""
    from engram.graph import readonly

    conn = readonly.open_ro(project.db_path) if not graph_missing(project) else None
    if conn is None:
        return lost_sessions(project, {})
    try:
        return lost_sessions(project, readonly.applied_by_session(conn) if not readonly.missing_tables(conn) else {})
    finally:
        conn.close()


def pending_beyond_markers(project: Any, session: str, last_seq: int, appended_markers: int) -> bool:
    """True when the session has events past the mark other than the markers just appended."""
    mark = episode_file.read_mark(project.episode_path(session))
    return last_seq - appended_markers > mark.consolidated_to


# -- starting a worker -------------------------------------------------------------------


def kick(project: Any, cfg: dict[str, Any], sessions: list[str]) -> int | None:
    """Queue sessions and start a worker if a slot is free; the worker's pid or None."""
    if sessions:
        enqueue(project, sessions)
    if workers.disabled() or not queued(project):
        return None
    fd = pool(project, cfg).claim()
    if fd is None:
        return None
    try:
        return workers.start(["worker", "--project", project.dir, "--slot-fd", str(fd)], project.log_path,
                             slot_fd=fd)
    finally:
        os.close(fd)  # the worker's inherited copy keeps the flock


# -- what each hook calls -------------------------------------------------------------------


def after(ctx: Any, event: str) -> int | None:
    """Called by lifecycle after `event` appended its events; never raises (the hook must not fail)."""
    try:
        if event == "stop":  # the turn's events always need consolidating
            return kick(ctx.project, ctx.cfg, [ctx.session])
        if event == "session_start":  # crash recovery: every other session still pending, and a lost graph
            lost = lost_sessions(ctx.project)
            pending = pending_sessions(ctx.project, exclude=ctx.session)
            return kick(ctx.project, ctx.cfg, pending + [s for s in lost if s not in pending])
        # session_end / compact: queue unless the marker just appended is all that is new
        from engram.capture.session_state import read

        seq = read(ctx.project.state_path(ctx.session)).get("seq", 0)
        if pending_beyond_markers(ctx.project, ctx.session, int(seq or 0), 1):
            return kick(ctx.project, ctx.cfg, [ctx.session])
        return None
    except Exception as exc:
        ctx.log(f"consolidation trigger after {event} failed: {type(exc).__name__}: {exc}")
        return None


# -- faults --------------------------------------------------------------------------------


def consolidation_notice(project: Any) -> str | None:
    """One line for SessionStart when the graph was lost or consolidations failed, else None."""
    lost = lost_sessions(project)
    if lost:
        return (f"engram: the knowledge graph ({project.db_path}) is missing or empty, but {len(lost)} session(s) "
                "had been consolidated into it: it is being rebuilt from their event streams in the background "
                "(`engram consolidate --all` does it now). Until then, memory from those sessions is missing.")
    fdir = os.path.join(project.dir, FAULTS)
    try:
        names = sorted((n for n in os.listdir(fdir) if n.endswith(".json")),
                       key=lambda n: os.stat(os.path.join(fdir, n)).st_mtime_ns)
    except (FileNotFoundError, OSError):
        return None
    if not names:
        return None
    from engram import jsonio

    from engram.text import inert

    last = jsonio.read_object(os.path.join(fdir, names[-1]))
    # the message can quote a model's answer or an event: shown inert
    what = inert(f"{last.get('kind', 'error')}: {last.get('message', '')}", 160) if last else "see the log"
    return (f"engram: consolidation failed for {len(names)} session(s) (last: {what}). "
            f"They stay queued and are retried; details in {project.log_path}")
