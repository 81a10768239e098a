"""Failures of the API checker: counted, reset by a success, and three in a row turn it off for the session."""

from __future__ import annotations

import pytest

from testing.monitor import answer, checker_running, context, edit, env, pending, read, REDIS, run_checks
from engram.monitor import contradiction, trigger, worker
from engram.monitor.contradiction import CheckFailed
from testing.helpers import events, run_hook


@pytest.fixture
def api(llm, project, monkeypatch):
    """The checker is Anthropic's, at the local server, with a short probe timeout."""
    for k, v in llm.env("anthropic").items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("ENGRAM_OFFLINE")
    project.config(probeTimeoutMs=400)
    project.decision(REDIS, ["jobs/queue.py"])
    return llm


def _queue_writes(project, n: int) -> None:
    """n contradicting writes through the real hook; the checks stay queued (no worker yet)."""
    for i in range(n):
        r = run_hook("PostToolUse", edit(project.root, "jobs/queue.py", "", f"import redis  # {i}"),
                     env=env(ENGRAM_NO_WORKER="1"))
        assert r.returncode == 0
    assert len(pending(project.p, "s1")) == n


def test_three_consecutive_failures_disable_the_checker_for_the_session(api, project):
    api.script("contradiction", {"status": 500}, {"stall": 5}, {"text": "not json"}, answer("DIRECT_CONTRADICTION", "high"))
    _queue_writes(project, 4)
    assert run_checks(project.p) == 4
    assert api.counts["contradiction"] == 3  # the 4th check never reached the API
    cs = project.state("s1")["contradiction"]
    assert cs["failures"] == 3 and cs["disabled"]["checker"] == "anthropic:claude-haiku-4-5"
    assert [q["kind"] for q in cs["queue"]] == ["notice"]
    evs = events(project.root, "s1")
    assert [e["kind"] for e in evs if e["type"] == "contradiction_check_failed"] == ["server", "timeout", "malformed"]
    assert [e["type"] for e in evs].count("contradiction_checker_disabled") == 1
    assert sum("disabled for this session" in line for line in project.log().splitlines()) == 1
    # the notice is delivered once, on the next hook, and the session stops checking
    first = context(run_hook("PostToolUse", read(project.root, "jobs/queue.py")).stdout)
    assert "contradiction checker (anthropic:claude-haiku-4-5) failed 3 times in a row" in first
    assert "off for the rest of this session" in first
    run_hook("PostToolUse", edit(project.root, "jobs/queue.py", "", "import redis  # again"))
    assert "failed 3 times" not in context(run_hook("PostToolUse", read(project.root, "jobs/queue.py")).stdout)
    assert pending(project.p, "s1") == []
    assert not checker_running(project.p)


def test_a_success_resets_the_count(api, project):
    api.script("contradiction", {"status": 500}, {"status": 503}, answer("NO_CONTRADICTION", "none", explanation="ok"),
               {"status": 500}, {"status": 500})
    _queue_writes(project, 5)
    run_checks(project.p)
    cs = project.state("s1")["contradiction"]
    assert cs["failures"] == 2 and not cs["disabled"] and cs["queue"] == []


def test_a_checker_bug_counts_as_a_failure(project, monkeypatch):
    project.decision(REDIS, ["jobs/queue.py"])

    def broken(*args, **kwargs):
        raise ZeroDivisionError("bug")

    monkeypatch.setattr("engram.monitor.offline_checker.check", broken)
    _queue_writes(project, 1)
    run_checks(project.p)
    assert project.state("s1")["contradiction"]["failures"] == 1
    assert "ZeroDivisionError" in project.log()


def test_failure_counting_rules():
    st: dict = {}
    cfg = {"maxContradictionFailures": 2}
    fail = CheckFailed("timeout", "slow")
    assert contradiction.note_failure(st, cfg, fail, "x") is False
    contradiction.note_success(st)
    assert contradiction.note_failure(st, cfg, fail, "x") is False
    assert contradiction.note_failure(st, cfg, fail, "x") is True  # this one disables
    assert contradiction.note_failure(st, cfg, fail, "x") is False  # and only once
    assert contradiction.disabled(st)
