"""The contradiction checker: run queued write checks, deliver the verdicts.

`python -m engram worker --checks --project DIR` (commands/worker.py), started detached by
the PostToolUse hook (monitor/trigger.py), chooses the checker and calls `drain`: it holds
the project's checker slot, takes the jobs from `checks/` oldest first, checks each write
against its linked decisions, and exits when the queue is empty - after one more look, so
a job queued while it was finishing is never stranded (engram.workers).

Results go where the next hook finds them, under the same session lock the hooks use
(`session_state.Locked`), so nothing races:

* a verdict other than NO_CONTRADICTION: a `contradiction_warning` event, and the
  advisory text queued in `st["contradiction"]["queue"]`, which the next PostToolUse
  (else UserPromptSubmit) delivers exactly once (`trigger.after_tool_calls`);
* a failure (timeout, API error, malformed answer): a `contradiction_check_failed`
  event and one more consecutive failure; at `maxContradictionFailures` the checker
  is off for the session: a `contradiction_checker_disabled` event, one log line and
  one queued notice. A success resets the count.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from engram import config, workers
from engram.capture import event_stream, session_state
from engram.errors import UnsafeIdentifier
from engram.log import log
from engram.monitor import contradiction, trigger
from engram.monitor.contradiction import CheckFailed, Verdict

STALE_JOB_SECONDS = 3600  # a job older than this (a crashed worker's leftover) is dropped
MAX_JOB_BYTES = 16 * 1024 * 1024


def session_of(job: str) -> str | None:
    """The session a queued job belongs to (`<session>.<seq>.json`), or None for a foreign file."""
    head, _, rest = job[: -len(".json")].rpartition(".")
    if not head or not rest.isdigit():
        return None
    try:
        return config.safe_name(head)
    except UnsafeIdentifier:
        return None


def drain(project: config.Project, cfg: dict[str, Any], checker: contradiction.Checker,
          slot_fd: int | None = None) -> int:
    """Check every queued write, oldest first, while holding the checker slot; how many."""
    q = trigger.queue(project)
    done = []

    def one(job: str) -> None:
        session = session_of(job)
        if session is None:
            _log(project, f"dropped a check job with a foreign name: {job!r}", "WARN")
            q.done(job)
        else:
            process(project, session, q.path(job), cfg, checker)
        done.append(job)

    workers.drain(trigger.pool(project), q.jobs, one, slot_fd)
    return len(done)


def process(project: config.Project, session: str, job_path: str, cfg: dict[str, Any],
            checker: contradiction.Checker) -> None:
    """Check one queued write and deliver the outcome; the job file is removed either way."""
    try:
        from engram.fsio import read_file

        job = json.loads(read_file(job_path, MAX_JOB_BYTES))  # never a FIFO: NotRegular is an OSError
        if time.time() - os.stat(job_path).st_mtime > STALE_JOB_SECONDS:
            _log(project, f"session={session} dropped a stale check of {job.get('path')}", "WARN")
            return
        if contradiction.disabled(session_state.read(project.state_path(session))):
            return
        decisions = load_decisions(project.db_path, job.get("decisions") or [],
                                   float(cfg["contradictionStrengthThreshold"]))
        if decisions:
            _check_and_deliver(project, session, job, decisions, cfg, checker)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        _log(project, f"session={session} check job {os.path.basename(job_path)} unusable: {type(exc).__name__}: {exc}")
    finally:
        workers.Queue(os.path.dirname(job_path)).done(os.path.basename(job_path))


def load_decisions(db_path: str, ids: list[str], threshold: float) -> list[dict[str, Any]]:
    """The live decision nodes among `ids` still above the threshold (the graph may have moved on)."""
    from engram.graph import readonly

    conn = readonly.open_ro(db_path)
    if conn is None:
        return []
    try:
        rows = readonly.nodes(conn, [i for i in ids if isinstance(i, str)])
    finally:
        conn.close()
    out = []
    for node_id in ids:
        row = rows.get(node_id)
        if row and row["type"] == "decision" and float(row["strength"]) > threshold:
            try:
                row["data"] = json.loads(row.get("data") or "{}")
            except ValueError:
                row["data"] = {}
            out.append(row)
    return out


def _check_and_deliver(project: config.Project, session: str, job: dict[str, Any], decisions: list[dict[str, Any]],
                       cfg: dict[str, Any], checker: contradiction.Checker) -> None:
    t0 = time.monotonic()
    verdict: Verdict | None = None
    failure: CheckFailed | None = None
    try:
        verdict = checker.check(decisions, str(job["path"]), str(job["diff"]))
    except CheckFailed as exc:
        failure = exc
    except Exception as exc:  # a checker bug counts like an API failure: the session must not loop on it
        failure = CheckFailed("client", f"{type(exc).__name__}: {exc}")
    ms = int((time.monotonic() - t0) * 1000)
    if failure is not None:
        _deliver_failure(project, session, job, cfg, checker, failure, ms)
    else:
        assert verdict is not None
        _deliver_verdict(project, session, job, decisions, verdict, ms)


def _locked(project: config.Project, session: str) -> session_state.Locked:
    return session_state.Locked(project.state_path(session), project.events_path(session))


def _deliver_verdict(project: config.Project, session: str, job: dict[str, Any], decisions: list[dict[str, Any]],
                     verdict: Verdict, ms: int) -> None:
    texts = {d["id"]: d.get("name") or d.get("description") or "" for d in decisions}
    with _locked(project, session) as st:
        contradiction.note_success(st)
        if verdict.warns:
            ev = {"type": "contradiction_warning", "ref": job.get("ref"), "path": job["path"], **verdict.to_dict(),
                  "decisions": verdict.decisions or list(texts)[:1], "ms": ms}
            event_stream.append(project.events_path(session), st, session, [ev])
            text = contradiction.advisory(verdict, str(job["path"]), texts, int(job.get("ref") or 0))
            st["contradiction"]["queue"].append({"ref": ev["seq"], "kind": "warning", "text": text})
    _log(project, f"session={session} checked {job['path']} (event {job.get('ref')}) against {len(decisions)} "
                  f"decision(s): {verdict.verdict} ({verdict.checker}, {ms} ms)", "INFO")


def _deliver_failure(project: config.Project, session: str, job: dict[str, Any], cfg: dict[str, Any],
                     checker: contradiction.Checker, failure: CheckFailed, ms: int) -> None:
    with _locked(project, session) as st:
        now_off = contradiction.note_failure(st, cfg, failure, checker.name)
        cs = st["contradiction"]
        events = [{"type": "contradiction_check_failed", "ref": job.get("ref"), "path": job["path"],
                   "checker": checker.name, "kind": failure.kind, "message": str(failure)[:300],
                   "failures": cs["failures"], "ms": ms}]
        if now_off:
            events.append({"type": "contradiction_checker_disabled", "checker": checker.name,
                           "failures": cs["failures"], "last": cs["disabled"]["last"]})
        event_stream.append(project.events_path(session), st, session, events)
        if now_off:
            notice = contradiction.disabled_notice(checker.name, cs["failures"], cs["disabled"]["last"],
                                                   project.log_path)
            cs["queue"].append({"ref": events[-1]["seq"], "kind": "notice", "text": notice})
    _log(project, f"session={session} contradiction check of {job['path']} failed ({failure.kind}, {ms} ms): "
                  f"{failure}", "WARN")
    if now_off:
        _log(project, f"session={session} contradiction checker {checker.name} disabled for this session after "
                      f"{cs['failures']} consecutive failures (last: {failure.kind})", "ERROR")


def _log(project: config.Project, message: str, level: str = "ERROR") -> None:
    log(project.log_path, "contradiction", message, level)
