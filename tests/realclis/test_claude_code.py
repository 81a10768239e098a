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
