"""The generic Python API, and the runnable example that uses it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from testing.helpers import REPO, events

from engram.harnesses import generic


def test_api_captures_a_session(proj):
    cwd = str(proj)
    assert generic.on_session_start("g1", cwd) is None  # no memory yet
    generic.on_prompt("g1", cwd, "make add() commutative-safe")
    generic.on_tool_call("g1", cwd, generic.read("src/calc.py", content=(proj / "src" / "calc.py").read_text()))
    generic.on_tool_call("g1", cwd, generic.shell("pytest -q", "1 failed in 0.1s", exit_code=1))
    old = (proj / "src" / "calc.py").read_text()
    (proj / "src" / "calc.py").write_text(old.replace("a + b", "b + a"))
    generic.on_tool_call("g1", cwd, generic.edit("src/calc.py", "return a + b", "return b + a"))
    generic.on_tool_call("g1", cwd, generic.decision("add() stays pure", "callers cache it", ["src/calc.py"]))
    generic.on_stop("g1", cwd, last_message="Done.")
    generic.on_session_end("g1", cwd, "exit")
    types = [e["type"] for e in events(proj, "g1")]
    assert types == ["session_start", "user_prompt", "file_read", "exploration", "test_run", "file_write",
                     "fix_attempt", "decision", "turn_complete", "session_end"]
    assert events(proj, "g1")[0]["harness"] == "generic"


def test_bad_arguments_raise_value_error(proj):
    with pytest.raises(ValueError):
        generic.on_prompt("../escape", str(proj), "x")
    with pytest.raises(ValueError):
        generic.on_tool_call("g1", str(proj), {"action": "teleport"})
    with pytest.raises(ValueError):
        generic.on_session_start("g1", "")


def test_runtime_faults_are_logged_not_raised(proj, engram_home):
    os.chmod(engram_home, 0o500)  # the data dir cannot be written
    try:
        assert generic.on_prompt("g2", str(proj), "hello") is None
    finally:
        os.chmod(engram_home, 0o700)


def test_example_runs(tmp_path):
    """examples/generic_harness.py is documented as runnable: run it."""
    env = dict(os.environ, ENGRAM_NO_WORKER="")
    res = subprocess.run([sys.executable, str(REPO / "examples" / "generic_harness.py"), str(tmp_path / "demo")],
                         capture_output=True, text=True, timeout=120, env=env, cwd=str(REPO))
    assert res.returncode == 0, res.stderr
    assert "session 1" in res.stdout and "session 2" in res.stdout
    assert "context at session start" in res.stdout and "calc.py" in res.stdout.split("session 2", 1)[1]
