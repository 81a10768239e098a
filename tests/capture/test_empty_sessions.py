"""A session with no prompt and no tool call is no session (Claude Code's `claude mcp list`
fires SessionEnd alone; a CLI opened and quit fires SessionStart and SessionEnd)."""

from __future__ import annotations

import pytest

from testing.helpers import events, project_dir, send


@pytest.fixture(autouse=True)
def no_worker(monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")


def test_session_end_alone_leaves_nothing(proj):
    send("SessionEnd", proj, session="ghost", reason="other")
    assert events(proj, "ghost") == []
    assert not list((project_dir(proj) / "sessions").glob("ghost.*"))
    assert not any((project_dir(proj) / "queue").glob("*"))


def test_start_then_end_without_work_is_dropped(proj):
    send("SessionStart", proj, session="idle", source="startup")
    assert [e["type"] for e in events(proj, "idle")] == ["session_start"]
    send("SessionEnd", proj, session="idle", reason="exit")
    assert events(proj, "idle") == []
    assert not list((project_dir(proj) / "sessions").glob("idle.*"))


def test_a_session_with_a_prompt_is_kept(proj):
    send("SessionStart", proj, session="real", source="startup")
    send("UserPromptSubmit", proj, session="real", prompt="list the files")
    send("SessionEnd", proj, session="real", reason="exit")
    assert [e["type"] for e in events(proj, "real")] == ["session_start", "user_prompt", "session_end"]
