"""What the hook calls for monitoring: deliver warnings, fold metrics, queue write checks.

Called by lifecycle inside the session lock, after the hook appended its own events, so
everything here reads and writes `st` race-free and appends its events with gap-free seqs:

* `after_tool_calls`: deliver the contradiction warnings and notices queued by a
  checker since the last hook (each exactly once, recorded as `contradiction_delivered`),
  and fold the tool call into the metacognitive metrics (a new flag becomes a note and a
  `metacog_flag` event);
* `queue_checks`, called after the lock is released (it reads the database, which may be
  locked for a while): queue a check for each file_write with linked decisions;
* `before_prompt`: deliver queued warnings when no tool call came first (the agent's
  turn ended), and record the session's size for the "typical session" estimate.

Queuing a check is cheap, because it runs on every file_write:

1. Which decisions are linked to the written file with strength > the threshold?
   ONE indexed query (engram.graph.readonly.decisions_linked), asked once per file per
   graph version: the answer is remembered in `decision_files.json` in the project
   directory, stamped with the graph's signature (size and mtime of engram.db and its
   WAL: two stats). So a file written again before the next consolidation costs a small
   JSON read; opening SQLite on every write would cost ~2-3 ms, a quarter of the
   interpreter's own start-up.
2. None -> nothing: no file, no process, no cost.
3. Otherwise the job (session, the write's seq, path, redacted bounded diff, decision
   ids) goes to the `checks/` queue as `<session>.<seq>.json`, and a checker
   (`python -m engram worker --checks`) is started in the project's one checker slot
   unless a checker already holds it; that one drains the queue and looks once more
   before it exits (engram.workers: the same queue, slots and start as consolidation).
   The checker starts 50 ms later and at lower priority: its interpreter start-up must
   not compete with this hook's last milliseconds, nor with the agent's next tool call,
   and its verdict is only needed at a later hook anyway.

Standard library only (the hook's hot path).
"""

from __future__ import annotations

import os

from engram import jsonio
from engram.fsio import write_atomic

TYPE_CHECKING = False  # `typing` costs every hook ~20 ms
if TYPE_CHECKING:
    from engram import workers

CACHE = "decision_files.json"
CHECKS = "checks"
MAX_CACHED_PATHS = 2000
START_DELAY = 0.05
START_NICE = 10


def queue(project) -> workers.Queue:
    """The write checks waiting for a checker, `<session>.<seq:010d>.json`."""
    from engram import workers

    return workers.Queue(os.path.join(project.dir, CHECKS), suffix=".json")


def pool(project) -> workers.Pool:
    """One checker per project: verdicts of one session reach it in the order of its writes."""
    from engram import workers

    return workers.Pool(os.path.join(project.dir, "workers"), "checker", 1)


def _deliver(ctx, st: dict, via: str) -> list[str]:
    items = drain(st)
    if not items:
        return []
    ctx.append(st, [{"type": "contradiction_delivered", "ref": q.get("ref"), "kind": q.get("kind", "warning"),
                     "via": via} for q in items])
    return [q["text"] for q in items]


def after_tool_calls(ctx, st: dict, batch: list[dict]) -> list[str]:
    from engram.monitor import metacognitive

    notes = _deliver(ctx, st, "tool_calls")
    try:
        flags, events = metacognitive.observe(st, batch, ctx.project.dir)
        if events:
            ctx.append(st, events)
        notes += flags
    except Exception as exc:  # a metrics fault must not cost the warnings already drained
        ctx.log(f"metacognitive metrics failed: {type(exc).__name__}: {exc}")
    return notes


def checks_off(st: dict) -> bool:
    """The checker failed too often this session (engram.monitor.contradiction.note_failure)."""
    cs = st.get("contradiction")
    return isinstance(cs, dict) and bool(cs.get("disabled"))


def queue_checks(ctx, disabled: bool, batch: list[dict]) -> None:
    """Queue a check of each write in `batch` (outside the session lock); never raises."""
    for ev in batch:
        if ev.get("type") == "file_write" and not disabled:
            try:
                request_check(ctx.project, ctx.session, ev, ctx.cfg)
            except Exception as exc:
                ctx.log(f"contradiction check of {ev.get('path')} not started: {type(exc).__name__}: {exc}")


def before_prompt(ctx, st: dict) -> list[str]:
    notes = _deliver(ctx, st, "prompt")
    m = st.get("metacog")
    if not isinstance(m, dict) or not m.get("calls"):
        return notes  # no tool call yet (a session's first prompt): no size to record, no metrics to load
    from engram.monitor import metacognitive

    try:
        metacognitive.record_session(ctx.project.dir, ctx.session, st)
    except Exception as exc:
        ctx.log(f"metacognitive session record failed: {type(exc).__name__}: {exc}")
    return notes


def linked_decisions(project_dir: str, db_path: str, path: str, threshold: float) -> list[str]:
    """Ids of live decision nodes linked to `path` with strength > threshold (strongest first).

    Answers come from `decision_files.json` while the graph is unchanged (its signature:
    size and mtime of engram.db and its WAL, two stats); a file not asked about since
    the graph last changed costs one indexed query, and its answer is remembered.
    """
    if not os.path.exists(db_path):
        return []
    from engram.graph import readonly  # only once a write lands in a project with a graph

    sig = readonly.signature(db_path)  # taken BEFORE the query: a racing consolidation only makes the entry stale
    cache_path = os.path.join(project_dir, CACHE)
    cache = jsonio.read_object(cache_path)
    paths = cache.get("paths")
    if cache.get("sig") != sig or cache.get("threshold") != threshold or not isinstance(paths, dict) \
            or len(paths) >= MAX_CACHED_PATHS:
        cache = {"sig": sig, "threshold": threshold, "paths": {}}
    ids = cache["paths"].get(path)
    if not isinstance(ids, list):
        ids = cache["paths"][path] = readonly.decisions_linked(db_path, path, threshold)
        write_atomic(cache_path, jsonio.dumps(cache).encode(), durable=False)
    return ids


def request_check(project, session: str, ev: dict, cfg: dict) -> bool:
    """Queue a check of one file_write event and start a checker; True when a check was queued."""
    path, diff = ev.get("path"), ev.get("diff")
    if not ev.get("ok") or not path or not diff:
        return False
    ids = linked_decisions(project.dir, project.db_path, path, float(cfg["contradictionStrengthThreshold"]))
    if not ids:
        return False
    job = {"session": session, "ref": ev.get("seq"), "turn": ev.get("turn"), "path": path, "diff": diff,
           "decisions": ids, "queued_at": ev.get("ts")}
    from engram import workers

    queue(project).put("%s.%010d.json" % (session, int(ev.get("seq") or 0)), jsonio.dumps(job).encode())
    if not workers.disabled():
        fd = pool(project).claim()
        if fd is not None:
            try:
                workers.start(["worker", "--checks", "--project", project.dir, "--slot-fd", str(fd)],
                              project.log_path, slot_fd=fd, delay=START_DELAY, nice=START_NICE)
            finally:
                os.close(fd)  # the checker's inherited copy keeps the flock
    return True


def drain(st: dict) -> list[dict]:
    """Warnings and notices queued by the checker for this session, removed from the queue."""
    cs = st.get("contradiction")
    if not isinstance(cs, dict) or not cs.get("queue"):
        return []
    queue, cs["queue"] = cs["queue"], []
    return [q for q in queue if isinstance(q, dict) and isinstance(q.get("text"), str)]
