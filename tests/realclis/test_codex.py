"""Codex CLI (pinned in tests/testing/real_clis.py), headless, against a fake Responses API."""

from __future__ import annotations

from testing import real_clis


def test_a_failing_command_is_recorded_failed_and_never_served_as_working(sandbox):
    sb = sandbox("codex")
    sb.install()
    first = sb.run("fix the build please", real_clis.first_session(sb.proj))
    assert first.returncode == 0, first.stderr[-2000:]
    (sid, events), = sb.sessions().items()
    cmds = real_clis.by_command(events)
    assert cmds["make build"]["ok"] is False and cmds["make build"]["exit_code"] == 2, cmds["make build"]
    assert cmds["make test"]["ok"] is True and cmds["make test"]["exit_code"] == 0
    assert any(e["type"] == "file_write" and e["path"] == "app.py" for e in events)

    second = sb.run("add a feature", [{"say": "ok"}])
    assert "make test" in second.bodies()  # engram's context reached the model
    text = second.bodies()
    assert "`make build` builds" not in text and "make build` works" not in text
