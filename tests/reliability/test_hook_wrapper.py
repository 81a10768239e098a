"""The hook wrapper with an interpreter that cannot run engram (issue 29, finding 3).

plugin/bin/engram-hook only checked that the recorded interpreter was executable. With
ENGRAM_PYTHON or $ENGRAM_HOME/python naming a Python older than 3.11, /bin/sh, a folder or
/bin/false, every event exited 2 / 126 / 1 (in Claude Code exit 2 from UserPromptSubmit
erases the prompt, and from Stop keeps the agent from ending its turn); a hanging
interpreter had no timeout. Now the wrapper checks the interpreter once, within 3 s, keeps
the verdict, and on a failure exits 0 with nothing on stdout, one line in engram's log and
the plugin's user-visible notice at SessionStart.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from testing.helpers import PLUGIN, events, payload

HOOK = str(PLUGIN / "bin" / "engram-hook")


def _interpreter(tmp_path, kind: str) -> str:
    if kind in ("/bin/sh", "/bin/false"):
        return kind
    path = tmp_path / kind
    if kind == "folder":
        path.mkdir()
    else:
        body = {"old": 'echo "Python 3.8.10"\n', "hang": "exec sleep 30\n"}[kind]
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(0o755)
    return str(path)


def _run(event: str, body: dict, env: dict) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.monotonic()
    res = subprocess.run([HOOK, event, "--harness", "claude-code"], input=json.dumps(body).encode(),
                         capture_output=True, env=env, timeout=60)
    return res, time.monotonic() - t0


@pytest.mark.parametrize("route", ["ENGRAM_PYTHON", "recorded"])
@pytest.mark.parametrize("kind", ["old", "/bin/sh", "folder", "/bin/false", "hang"])
def test_a_bad_interpreter_never_fails_the_agent(tmp_path, engram_home, kind, route):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    py = _interpreter(tmp_path, kind)
    env = dict(os.environ, ENGRAM_NO_WORKER="1")
    env.pop("ENGRAM_PYTHON", None)
    if route == "ENGRAM_PYTHON":
        env["ENGRAM_PYTHON"] = py
    else:
        (engram_home / "python").write_text(py + "\n")
    took = []
    for event in ("UserPromptSubmit", "Stop", "PostToolUse", "UserPromptSubmit"):
        res, t = _run(event, payload(event, "w1", proj, prompt="hi", tool_name="Bash",
                                     tool_input={"command": "true"}, tool_response={"stdout": ""}), env)
        assert res.returncode == 0 and res.stdout == b"", (event, res.returncode, res.stdout, res.stderr)
        took.append(t)
    assert took[0] < 5 and max(took[1:]) < 1, took  # checked once (3 s at most), then the verdict is kept
    start, _ = _run("SessionStart", payload("SessionStart", "w1", proj, source="startup"), env)
    said = json.loads(start.stdout)
    assert start.returncode == 0 and set(said) == {"systemMessage"} and py in said["systemMessage"]
    logged = (engram_home / "logs" / "engram.log").read_text().splitlines()
    assert len(logged) == 1 and py in logged[0] and "engram-hook ERROR" in logged[0], logged


def test_a_fixed_interpreter_is_checked_again_and_runs_the_hook(tmp_path, engram_home):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    py = _interpreter(tmp_path, "old")
    env = dict(os.environ, ENGRAM_NO_WORKER="1", ENGRAM_PYTHON=py)
    body = payload("UserPromptSubmit", "w2", proj, prompt="hi")
    assert _run("UserPromptSubmit", body, env)[0].returncode == 0 and events(proj, "w2") == []
    with open(py, "w") as f:  # the same path, now a Python engram runs in
        f.write(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    later = time.time() + 5
    os.utime(py, (later, later))
    res, _ = _run("UserPromptSubmit", body, env)
    assert res.returncode == 0 and [e["type"] for e in events(proj, "w2")] == ["user_prompt"], res.stderr
