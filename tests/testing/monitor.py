"""Helpers for the monitoring tests (contradiction checks, metacognitive metrics); not fixtures."""

from __future__ import annotations

import contextlib
import io
import json
import os
import threading
from pathlib import Path
from typing import Iterator

from testing.helpers import wait_for  # noqa: F401  (the tests import it from here)
from testing.servers.llm_server import LLMServer, _Handler


class RecordingHandler(_Handler):
    """helper-2's handler, plus the raw request body (to check `thinking`, the model and the prompt)."""

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        with self.server.owner.lock:
            self.server.owner.bodies.append(json.loads(raw or b"{}"))
        self.rfile = io.BytesIO(raw)
        super().do_POST()


@contextlib.contextmanager
def recording_server() -> Iterator[LLMServer]:
    """helper-2's scripted server whose requests' raw bodies land in `srv.bodies`.

    Served with a short poll interval, so that stopping it takes milliseconds, not 0.5 s.
    """
    srv = LLMServer()
    srv.bodies = []
    srv._httpd.RequestHandlerClass = RecordingHandler
    threading.Thread(target=srv._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    try:
        yield srv
    finally:
        srv.__exit__(None, None, None)


def answer(verdict: str, severity: str, explanation: str = "line 2 adds Redis", ids=(), recommendation="Use SQLite.") -> dict:
    return {"text": json.dumps({"verdict": verdict, "severity": severity, "decision_ids": list(ids),
                                "explanation": explanation, "recommendation": recommendation})}


class Project:
    """A git project in tmp, its engram data dir, and decision nodes made with the graph API."""

    def __init__(self, root: Path):
        from engram.config import Project as P

        self.root = root
        (root / ".git").mkdir(parents=True, exist_ok=True)
        self.p = P.from_cwd(str(root)).ensure()

    def decision(self, text: str, files: list[str], strength: float = 0.8) -> str:
        from engram.language import decision_text
        from engram.graph import connect, store

        conn = connect.connect(self.p.db_path, vectors=False)
        try:
            return store.create_node(conn, name=text, type="decision", description=text, strength=strength,
                                     affected_files=files, data={"explicit": True, **decision_text.parse(text)})
        finally:
            conn.close()

    def write(self, rel: str, text: str) -> str:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return str(path)

    def config(self, **keys) -> None:
        home = Path(os.environ["ENGRAM_HOME"])
        (home / "config.json").write_text(json.dumps(keys))

    def state(self, session: str) -> dict:
        from engram.capture import session_state

        return session_state.read(self.p.state_path(session))

    def log(self) -> str:
        return Path(self.p.log_path).read_text() if Path(self.p.log_path).exists() else ""


REDIS = "Use SQLite instead of Redis for the job queue."


def edit(root: Path, rel: str, old: str, new: str, session: str = "s1") -> dict:
    """A PostToolUse payload of Claude Code's Edit tool (the file is written first, as the tool would)."""
    path = root / rel
    text = path.read_text() if path.exists() else ""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.replace(old, new, 1) if old and old in text else text + new + "\n")
    old_l, new_l = (old.split("\n") if old else []), new.split("\n")
    return {"session_id": session, "transcript_path": "", "cwd": str(root), "hook_event_name": "PostToolUse",
            "tool_name": "Edit", "tool_input": {"file_path": str(path), "old_string": old, "new_string": new},
            "tool_response": {"filePath": str(path), "structuredPatch": [
                {"oldStart": 1, "oldLines": len(old_l), "newStart": 1, "newLines": len(new_l),
                 "lines": ["-" + x for x in old_l] + ["+" + x for x in new_l]}]}}


def read(root: Path, rel: str, session: str = "s1") -> dict:
    path = root / rel
    return {"session_id": session, "transcript_path": "", "cwd": str(root), "hook_event_name": "PostToolUse",
            "tool_name": "Read", "tool_input": {"file_path": str(path)},
            "tool_response": {"type": "text", "file": {"filePath": str(path), "content": "x\n"}}}


def prompt(root: Path, text: str, session: str = "s1") -> dict:
    return {"session_id": session, "transcript_path": "", "cwd": str(root), "hook_event_name": "UserPromptSubmit",
            "prompt": text}


def context(stdout: bytes) -> str:
    """The additionalContext a hook printed ("" when none)."""
    if not stdout.strip():
        return ""
    return (json.loads(stdout).get("hookSpecificOutput") or {}).get("additionalContext", "")


def notice(stdout: bytes) -> str:
    """The systemMessage a hook printed for the user ("" when none)."""
    return json.loads(stdout).get("systemMessage", "") if stdout.strip() else ""


def env(**extra: str) -> dict:
    """The current (test) environment plus `extra`; a key set to "" is removed."""
    out = dict(os.environ, **extra)
    return {k: v for k, v in out.items() if v != ""}


def pending(project, session: str) -> list[str]:
    """The session's write checks still queued (names `<session>.<seq>.json`, oldest first)."""
    from engram.monitor import trigger, worker

    return [job for job in trigger.queue(project).jobs() if worker.session_of(job) == session]


def run_checks(project) -> int:
    """What a checker started by the hook does: every queued check, with the configured checker."""
    from engram.config import load_config
    from engram.monitor import worker
    from engram.providers import registry

    cfg, _ = load_config(project.home)
    return worker.drain(project, cfg, registry.checker(cfg, project=project))


def checker_running(project) -> bool:
    """Whether a checker holds the project's checker slot."""
    from engram import workers
    from engram.monitor import trigger

    return workers.is_locked(trigger.pool(project).slot_path(0))
