"""Helpers shared by the tests (not fixtures): run the real hook, read what it wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "plugin"  # the Claude Code plugin; its bin/engram-hook is what installs from a checkout run
SCRIPTS = REPO / "tests" / "scripts"
SHARED = Path(os.environ.get("ENGRAM_SHARED") or REPO.parent / "shared")
TRANSCRIPTS = SHARED / "fixtures" / "transcripts"

needs_shared = pytest.mark.skipif(
    not TRANSCRIPTS.is_dir(),
    reason=f"{TRANSCRIPTS} is absent: the real-transcript fixtures live in ../shared, which a fresh clone lacks",
)


def run_hook(event: str, payload, *args: str, env: dict | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
    """`python -m engram.hook EVENT` as a real subprocess; payload is a dict or raw bytes."""
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return subprocess.run([sys.executable, "-m", "engram.hook", event, *args], input=raw,
                          capture_output=True, env=env, timeout=timeout, cwd=str(REPO))


def engram(*args: str, cwd=None, env: dict | None = None, timeout: float = 180, **kw) -> subprocess.CompletedProcess:
    """`python -m engram ARGS` as a real subprocess in `cwd` (text output captured)."""
    return subprocess.run([sys.executable, "-m", "engram", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=str(cwd) if cwd else None, env=env, **kw)


def send(event: str, cwd, *, build=None, args: tuple[str, ...] = (), session: str = "s1",
         env: dict | None = None, **fields) -> str:
    """One hook call as a harness makes it; returns stdout. `build(event, session, cwd, **fields)`
    shapes the payload (`payload`, Claude Code's, by default). Whatever the harness, the hook
    exits 0, says nothing on stderr (Gemini CLI shows it as a warning) and prints nothing or
    one hookSpecificOutput JSON object naming this event."""
    res = run_hook(event, (build or payload)(event, session, cwd, **fields), *args, env=env)
    assert res.returncode == 0 and res.stderr == b"", res.stderr
    out = res.stdout.decode()
    if out:
        assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == event, out
    return out


def context(out: str) -> str:
    """The additionalContext of a hook's stdout ("" when it printed nothing)."""
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else ""


def wait_for(predicate, timeout: float = 20.0, what: str = "condition"):
    """Poll with a bounded back-off instead of fixed sleeps; the predicate's truthy value, or
    AssertionError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    delay = 0.01
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(delay)
        delay = min(delay * 1.5, 0.2)
    value = predicate()
    if not value:
        raise AssertionError(f"timed out after {timeout} s waiting for {what}")
    return value


def project_dir(cwd) -> Path:
    from engram.config import Project

    return Path(Project.from_cwd(str(cwd)).dir)


def events(cwd, session: str) -> list[dict]:
    path = project_dir(cwd) / "events" / f"{session}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def payload(event: str, session: str, cwd, **fields) -> dict:
    return {"session_id": session, "transcript_path": "", "cwd": str(cwd), "hook_event_name": event, **fields}


def run_script(name: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run one of tests/scripts/*.sh for real."""
    return subprocess.run(["bash", str(SCRIPTS / name), *args], capture_output=True, text=True,
                          env=env, timeout=60)
