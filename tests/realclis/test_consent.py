"""Spend only with consent (issue 24), with the real Claude Code CLI (pinned in
tests/testing/real_clis.py) headless against a fake Messages API.

Claude Code runs with ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL set for itself, and its hooks,
engram's detached worker among them, inherit both. That key is the harness's, not engram's:
engram must not make one request with it, must consolidate the session offline, and must say
why in `engram status`; and a notice meant for the user must reach the user's channel
(systemMessage), never the model's context."""

from __future__ import annotations

import json

from testing import real_clis

from engram import notices

NOTICE = "engram: today's model token budget for anthropic is spent; consolidating offline until midnight."
WHY = "auto: no ENGRAM_* key; ANTHROPIC_API_KEY ignored: not chosen"


def test_the_harness_key_spends_nothing_and_the_notice_goes_to_the_user(sandbox):
    sb = sandbox("claude-code")
    sb.install()
    notices.post(str(sb.engram_home), "budget-anthropic-test", NOTICE)
    run = sb.run("fix the build please", real_clis.first_session(sb.proj))
    assert run.returncode == 0, run.stderr[-2000:]

    assert real_clis.engram_requests(run) == []  # the worker ran with the CLI's key and asked nothing
    assert "make build" in run.bodies()  # the session did reach the fake API (the CLI's own requests)
    (sid, events), = sb.sessions().items()
    assert any(e["type"] == "turn_complete" for e in events)
    episodes = json.loads((sb.project_dir() / "episodes" / f"{sid}.episode.json").read_text())["episodes"]
    assert [e["provider"] for e in episodes] == ["offline"] * len(episodes) and episodes

    status = json.loads(sb.engram("status", "--json").stdout)
    assert status["models"]["worker"]["provider"] == "offline" and status["models"]["worker"]["why"] == WHY
    assert status["projects"][0]["episodes_total"] >= 1
    # the user's shell (no key at all) agrees on the provider, and `status` shows both reasons
    assert status["models"]["provider"] == "offline"
    text = sb.engram("status").stdout
    assert f"worker       last used offline ({WHY})" in text, text

    assert NOTICE not in run.bodies()  # never in the model's context
    assert list(sb.engram_home.glob("notices/*.pending")) == []  # taken by the SessionStart hook, shown once
    # Claude Code took it as the hook's systemMessage (its transcript records what it showed the user)
    (transcript,) = sb.home.glob(f".claude/projects/*/{sid}.jsonl")
    shown = [json.loads(line).get("attachment") or {} for line in transcript.read_text().splitlines()]
    assert [a["content"] for a in shown if a.get("type") == "hook_system_message"] == [NOTICE]


def test_a_key_given_to_engram_is_used_and_unusable_answers_cost_one_repair(sandbox):
    """ENGRAM_ANTHROPIC_API_KEY is consent: the worker asks the model. The fake API answers
    engram's prompts with text that is no JSON: one call, one repair, then the session is
    consolidated offline and the worker's record says why."""
    sb = sandbox("claude-code", ENGRAM_ANTHROPIC_API_KEY="sk-engram-test")
    sb.install()
    run = sb.run("fix the build please", real_clis.first_session(sb.proj))
    assert run.returncode == 0, run.stderr[-2000:]
    asked = real_clis.engram_requests(run)
    assert len(asked) == 2 and "could not be used" in json.dumps(asked[1]["body"])  # the first call and its repair
    worker = json.loads(sb.engram("status", "--json").stdout)["models"]["worker"]
    assert worker["provider"] == "offline" and worker["why"].startswith("anthropic's answers were unusable")
