"""Claude Code (pinned in tests/testing/real_clis.py), headless, against a fake Messages API."""

from __future__ import annotations

import json
import subprocess

from testing import real_clis


def test_a_session_end_to_end(sandbox):
    sb = sandbox("claude-code")
    sb.install()
    first = sb.run("fix the build please", real_clis.first_session(sb.proj))
    real_clis.assert_first_session(sb, first)

    second = sb.run("add a feature", [{"say": "ok"}])
    assert "Project memory from earlier sessions" in second.bodies()
    assert "make test" in second.bodies()
    assert real_clis.working_commands(second.bodies()) == []


def test_subcommands_that_start_no_session_leave_none(sandbox):
    """`claude mcp list` fires SessionEnd alone; it is no session, and status counts none."""
    sb = sandbox("claude-code")
    sb.install()
    for args in (["mcp", "list"], ["--version"], ["plugin", "list"], ["mcp", "get", "engram"]):
        res = subprocess.run(["claude", *args], cwd=sb.proj, env=sb.env(), capture_output=True, text=True,
                             stdin=subprocess.DEVNULL, timeout=60)
        assert res.returncode == 0, (args, res.stderr)
    assert sb.sessions() == {}
    status = json.loads(sb.engram("status", "--json").stdout)
    assert sum(p.get("sessions", 0) for p in status.get("projects", [])) == 0, status


def test_a_command_sent_to_the_background_is_known_only_once_its_task_is_read(sandbox):
    """The real client answers a backgrounded Bash call at once with the task's id, and TaskOutput
    later with its exit code: the command is recorded unknown, then consolidated as the failure it was."""
    sb = sandbox("claude-code")
    sb.install()
    run = sb.run("deploy it", [{"shell": "sh -c 'sleep 1; echo deploy: error: no device; exit 3'", "background": True},
                               {"task_output": True}, {"say": "The deploy failed."}])
    assert run.returncode == 0, run.stderr[-3000:]
    ((_, events),) = sb.sessions().items()
    started = next(e for e in events if str(e.get("command", "")).startswith("sh -c"))
    assert started["exit_code"] is None and started["task_id"], started
    ended = next(e for e in events if e["type"] == "background_result")
    assert (ended["task_id"], ended["exit_code"]) == (started["task_id"], 3), ended
    assert "deploy: error: no device" in ended["output"]
    assert real_clis.working_commands(sb.run("go on", [{"say": "ok"}]).bodies()) == []


def test_a_background_tasks_notification_fires_no_prompt_hook(sandbox):
    """The client tells the model a background task ended (`<task-notification>`) without a
    UserPromptSubmit: the transcript converter must not make a prompt of it either."""
    sb = sandbox("claude-code")
    sb.install()
    run = sb.run("deploy it", [{"shell": "sh -c 'sleep 1; exit 3'", "background": True}, {"shell": "sleep 4"},
                               {"shell": "echo hi"}, {"say": "done"}])
    assert run.returncode == 0, run.stderr[-3000:]
    assert "task-notification" in run.bodies()
    ((_, events),) = sb.sessions().items()
    assert [e["prompt"] for e in events if e["type"] == "user_prompt"] == ["deploy it"]
