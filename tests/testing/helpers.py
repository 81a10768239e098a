"""Helpers shared by the tests (not fixtures): run the real hook, read what it wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
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
