"""Metacognitive flags through real hook processes: noted once, recorded as an event, shown by status."""

from __future__ import annotations

from testing.monitor import Project, context, edit
from engram.monitor import metacognitive
from testing.helpers import events, run_hook

FAILURE = ("Exit code 1\n..F\nFAILED tests/test_calc.py::test_add - AssertionError: assert 1 == 2\n"
           "1 failed, 2 passed in 0.05s")


def _test_failure(root) -> dict:
    return {"session_id": "s1", "transcript_path": "", "cwd": str(root), "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash", "tool_input": {"command": "python -m pytest -q"}, "error": FAILURE}


def test_the_third_repeat_of_an_error_after_fixes_is_noted_once(tmp_path):
    project = Project(tmp_path / "proj")
    outs = []
    for i in range(4):
        outs.append(context(run_hook("PostToolUseFailure", _test_failure(project.root)).stdout))
        run_hook("PostToolUse", edit(project.root, "calc.py", "", f"x = {i}"))
    assert [("metacognition" in o) for o in outs] == [False, False, True, False]
    assert "AssertionError in tests/test_calc.py" in outs[2]
    flags = [e for e in events(project.root, "s1") if e["type"] == "metacog_flag"]
    assert len(flags) == 1 and flags[0]["metric"] == "error_repetition" and flags[0]["count"] == 3
    summary = metacognitive.metrics_summary(project.p, "s1")
    assert "error repetition  test:tests/test_calc.py:AssertionError x4" in summary
    assert "contradiction     on; 0 consecutive failure(s)" in summary


def test_engram_status_session_shows_the_metrics(tmp_path):
    import json
    import subprocess
    import sys

    project = Project(tmp_path / "proj")
    run_hook("PostToolUseFailure", _test_failure(project.root))
    cmd = [sys.executable, "-m", "engram", "status", "--project", str(project.root), "--session"]
    out = subprocess.run(cmd + ["s1"], capture_output=True, text=True)
    assert out.returncode == 0 and "error repetition  test:tests/test_calc.py:AssertionError x1" in out.stdout
    data = json.loads(subprocess.run(cmd + ["s1", "--json"], capture_output=True, text=True).stdout)
    assert data["metacog"]["calls"] == 1
    missing = subprocess.run(cmd + ["nope"], capture_output=True, text=True)
    assert missing.returncode == 1 and missing.stdout == "" and "no session 'nope'" in missing.stderr
