"""A project's own files never stand in for the standard library's (found in this audit).

The harness runs engram's hooks in the project. Started as `python -m engram.hook`, the
project's root came first on sys.path, so a cloned repository with a `fcntl.py` (or
`json.py`, `contextlib.py`, ...) at its root had that file executed on every tool call, by
every hook. engram's processes now start with -P (engram.config.HOOK_ARGS, MODULE_ARGS):
the hook as `engram install` registers it, plugin/bin/engram-hook, the worker a Stop starts, and
the MCP server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from testing.helpers import PLUGIN, events, payload, project_dir, wait_for

from engram.config import HOOK_ARGS, MODULE_ARGS

SHADOWS = ("fcntl", "json", "contextlib", "shlex", "sqlite3", "tempfile")  # what hooks and the worker import


@pytest.fixture
def hostile(tmp_path):
    root = tmp_path / "cloned"
    (root / ".git").mkdir(parents=True)
    marker = tmp_path / "imported-from-the-project"
    for name in SHADOWS:
        (root / f"{name}.py").write_text(f"open({str(marker)!r}, 'a').write({name!r} + '\\n')\n")
    return root, marker


def _hook(argv: list[str], event: str, root, **fields) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("ENGRAM_NO_WORKER", "PYTHONPATH")}
    done = subprocess.run(argv + [event, "--harness", "claude-code"], input=json.dumps(payload(event, "s1", root, **fields)),
                          capture_output=True, text=True, cwd=str(root), env=env, timeout=60)
    assert done.returncode == 0 and not done.stderr, done.stderr


@pytest.mark.parametrize("launch", ["installed", "checkout"])
def test_no_hook_nor_the_worker_it_starts_imports_the_projects_files(hostile, launch):
    root, marker = hostile
    argv = [sys.executable, *HOOK_ARGS] if launch == "installed" else ["sh", str(PLUGIN / "bin" / "engram-hook")]
    _hook(argv, "SessionStart", root, source="startup")
    _hook(argv, "UserPromptSubmit", root, prompt="Run the tests.")
    _hook(argv, "PostToolUse", root, tool_name="Bash", tool_input={"command": "pytest -q"},
          tool_response={"stdout": "3 passed in 0.1s", "stderr": ""})
    _hook(argv, "Stop", root, stop_hook_active=False, last_assistant_message="Done.")
    episode = project_dir(root) / "episodes" / "s1.episode.json"
    wait_for(episode.exists, 60, "the worker the Stop hook started to consolidate the session")
    assert [e["type"] for e in events(root, "s1")][:2] == ["session_start", "user_prompt"]
    assert not marker.exists(), marker.read_text()


def test_the_mcp_server_imports_no_project_file(hostile):
    root, marker = hostile
    done = subprocess.run([sys.executable, *MODULE_ARGS, "mcp", "--help"], capture_output=True, text=True,
                          cwd=str(root), timeout=60)
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), marker.read_text()


def test_the_module_launch_the_hook_had_before_did_import_them(hostile):
    """The finding itself: `python -m` puts the working directory first on sys.path."""
    root, marker = hostile
    subprocess.run([sys.executable, "-m", "engram.hook", "PostToolUse"], input=json.dumps(payload(
        "PostToolUse", "s0", root, tool_name="Bash", tool_input={"command": "ls"}, tool_response={"stdout": ""})),
        capture_output=True, text=True, cwd=str(root), timeout=60)
    assert marker.exists()
