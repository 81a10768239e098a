"""A command sent to the background carries its task's ending once TaskOutput told it."""

from __future__ import annotations

from engram.consolidate import background
from engram.consolidate.knowledge import commands


def _bg(seq: int, command: str, task: str) -> dict:
    return {"seq": seq, "type": "command", "command": command, "exit_code": None, "ok": None, "output": "",
            "task_id": task}


def _result(seq: int, task: str, code: int | None, output: str = "") -> dict:
    return {"seq": seq, "type": "background_result", "task_id": task, "status": "failed" if code else "completed",
            "exit_code": code, "output": output}


def test_a_background_command_takes_the_exit_status_its_task_reported():
    deploy = _bg(1, "./deploy.sh appstore --release", "b1")
    events = [deploy, _bg(2, "npm run build", "b2"), _result(3, "b1", 1, "xcodebuild: error: Unable to find a device"),
              _result(4, "b2", None)]  # still running: nothing known yet
    got = background.resolved(events)
    assert got[0]["exit_code"] == 1 and got[0]["ok"] is False and got[0]["output"].startswith("xcodebuild: error")
    assert got[1]["exit_code"] is None and deploy["exit_code"] is None  # the stream's own events are not changed
    assert commands.failed(got[0]) and not commands.ran(got[0]) and not commands.quiet(got[0])


def test_a_result_before_its_command_or_for_another_task_changes_nothing():
    events = [_result(1, "b1", 0), _bg(2, "make deploy", "b1"), _bg(3, "make docs", "b9")]
    assert background.resolved(events) == events
    tests = [dict(_bg(1, "npm test", "b3"), type="test_run", outcome="unknown"), _result(2, "b3", 0, "12 passed")]
    assert background.resolved(tests)[0]["outcome"] == "pass"
