"""Codex CLI (pinned in tests/testing/real_clis.py), headless, against a fake Responses API."""

from __future__ import annotations

from testing import real_clis


def test_a_session_end_to_end_and_a_failing_command_is_never_served_as_working(sandbox):
    sb = sandbox("codex")
    sb.install()
    first = sb.run("fix the build please", real_clis.first_session(sb.proj))
    sid, events = real_clis.assert_first_session(sb, first)
    assert events[-1]["type"] == "session_end"  # Codex 0.171.0 fires SessionEnd
    assert not any(n["name"].startswith("make build") and "works" in n["description"] for n in sb.graph())

    second = sb.run("add a feature", [{"say": "ok"}])
    assert "Project memory from earlier sessions" in second.bodies()  # engram's context reached the model
    assert "make test" in second.bodies()
    assert real_clis.working_commands(second.bodies()) == []
