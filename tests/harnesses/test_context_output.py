"""With a real graph, each harness gets its context in its own output shape (contracts §7)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from testing.helpers import REPO, payload, run_hook

START = {  # harness: (event name, extra payload fields)
    "claude-code": ("SessionStart", {}),
    "codex": ("SessionStart", {"model": "gpt-5.5"}),
    "gemini": ("SessionStart", {"timestamp": "2026-08-21T10:00:00.000Z"}),
}


@pytest.fixture
def remembered(proj):
    """One Claude Code session (fail, fix, pass, decision), consolidated in the foreground."""
    calc = proj / "src" / "calc.py"

    def send(event, **fields):
        assert run_hook(event, payload(event, "first", proj, **fields), "--harness", "claude-code").returncode == 0

    send("UserPromptSubmit", prompt="fix add() in src/calc.py")
    send("PostToolUseFailure", tool_name="Bash", tool_input={"command": "pytest -q"},
         error="Exit code 1\nFAILED tests/test_calc.py::test_add\n1 failed in 0.02s")
    calc.write_text("def add(a, b):\n    return int(a) + int(b)\n")
    send("PostToolUse", tool_name="Edit", tool_input={"file_path": str(calc), "old_string": "return a + b",
                                                      "new_string": "return int(a) + int(b)"},
         tool_response={"filePath": str(calc)})
    send("PostToolUse", tool_name="Bash", tool_input={"command": "pytest -q"},
         tool_response={"stdout": "1 passed in 0.01s", "stderr": ""})
    send("Stop", last_assistant_message="add() now coerces to int; tests pass.")
    res = subprocess.run([sys.executable, "-m", "engram", "consolidate", "--all", "--project", str(proj)],
                         capture_output=True, text=True, cwd=str(REPO), timeout=120)
    assert res.returncode == 0, res.stderr
    return proj


@pytest.mark.parametrize("harness", sorted(START))
def test_session_start_context_is_hook_specific_output(remembered, harness):
    event, extra = START[harness]
    res = run_hook(event, payload(event, f"second-{harness}", remembered, source="startup", **extra),
                   "--harness", harness)
    assert res.returncode == 0 and res.stderr == b""
    out = json.loads(res.stdout)  # the whole stdout is one JSON object
    assert out["hookSpecificOutput"]["hookEventName"] == event
    assert "src/calc.py" in out["hookSpecificOutput"]["additionalContext"]


def test_gsd_prints_nothing_even_with_memory(remembered):
    res = run_hook("SessionStart", {"cwd": str(remembered), "type": "session_start"}, "--harness", "gsd")
    assert res.returncode == 0 and res.stdout == b""


NOTICE = "engram: today's model token budget for anthropic is spent; consolidating offline until midnight."


@pytest.mark.parametrize("harness", sorted(START))
def test_a_notice_for_the_user_is_a_system_message_never_the_agents_context(remembered, harness, engram_home):
    """Issue 24: what engram tells the user reaches the user's channel (systemMessage: shown to
    the user, not to the model, §1.6, §2.4, §3.4), beside the context, and only once."""
    from engram import notices

    notices.post(str(engram_home), "budget-anthropic-test", NOTICE)
    event, extra = START[harness]
    first, second = (json.loads(run_hook(event, payload(event, f"{sid}-{harness}", remembered, source="startup",
                                                        **extra), "--harness", harness).stdout)
                     for sid in ("one", "two"))
    assert first["systemMessage"] == NOTICE and "src/calc.py" in first["hookSpecificOutput"]["additionalContext"]
    assert "token budget" not in first["hookSpecificOutput"]["additionalContext"]
    assert "systemMessage" not in second


@pytest.mark.parametrize("harness", sorted(START))
def test_a_notice_alone_is_printed_without_context(proj, harness, engram_home):
    from engram import notices

    notices.post(str(engram_home), "budget-anthropic-test", NOTICE)
    event, extra = START[harness]
    out = json.loads(run_hook(event, payload(event, "s", proj, source="startup", **extra), "--harness", harness).stdout)
    assert out == {"systemMessage": NOTICE}


def test_without_a_user_channel_the_notice_leads_the_context(proj, engram_home):
    """The Python API (and GSD's KNOWLEDGE.md section) show the context where the user sees it:
    the notice stays in front of it, as before."""
    from engram import notices
    from engram.harnesses import generic

    notices.post(str(engram_home), "budget-anthropic-test", NOTICE)
    assert generic.on_session_start("py-1", str(proj)) == NOTICE
    assert generic.on_session_start("py-2", str(proj)) is None
