"""How a command sent to the background ended, put back on the command.

Claude Code answers a backgrounded Bash call at once with the task's id (its exit status is then
unknown: harnesses/claude_code.py); when the agent later reads the task with TaskOutput, that
call's result says how it ended (`status`, `exitCode`, its output), captured as a
`background_result` event naming the task. Consolidation reads the session's events with each
such result put on the command it belongs to, so a deploy that ran in the background and failed
is a failure, not a command of unknown status, and never one that works.
"""

from __future__ import annotations

from typing import Any


def resolved(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events with each backgrounded command carrying its task's known ending (the latest
    result with an exit code); the stream itself is never rewritten."""
    ended = {e["task_id"]: e for e in events if e.get("type") == "background_result" and e.get("task_id")
             and type(e.get("exit_code")) is int}
    if not ended:
        return events
    out = []
    for e in events:
        result = ended.get(e.get("task_id")) if e.get("type") != "background_result" else None
        if result is not None and e.get("exit_code") is None and result["seq"] > e["seq"]:
            e = {**e, "exit_code": result["exit_code"], "ok": result["exit_code"] == 0,
                 "output": result.get("output") or e.get("output") or ""}
            if e.get("type") == "test_run":
                e["outcome"] = "pass" if result["exit_code"] == 0 else "fail"
        out.append(e)
    return out
