"""Done-when, on a real transcript: a second session gets the first one's knowledge at
start, on its first read of a file the first session changed, and from `engram query`."""

from __future__ import annotations

import json
import os

import pytest
from testing.helpers import TRANSCRIPTS, needs_shared, payload, run_hook

from engram.cli import main

FIRST = TRANSCRIPTS / "kesslerio-attio-mcp-server" / "chat.6706089d-9d7e-4f48-bd2d-8f2a2546eb78.bbf59cab.json"
SID = "6706089d-9d7e-4f48-bd2d-8f2a2546eb78"


def _context(proc) -> str | None:
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else None


@pytest.fixture
def first_session(monkeypatch):
    """Replay the first session through the hook (in process, for speed), then consolidate it
    offline, here: no detached worker races the test for it."""
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    from engram import config, hook
    from engram.history import transcripts
    from testing.consolidation import consolidate

    group = [g for g in transcripts._sessions(transcripts.load_records(str(FIRST))) if g[0]["sessionId"] == SID][0]
    items = list(transcripts._session_payloads(group))
    cwd = items[0][1]["cwd"]
    for event, p in items:
        hook.run(event, None, json.dumps(p).encode(), cwd)
    project = config.Project.from_cwd(cwd)
    cfg, _ = config.load_config()
    assert consolidate(project, SID, cfg, "offline").status == "consolidated"
    return project, cwd


def _changed_file_with_strong_knowledge(project) -> str:
    import sqlite3

    from engram.capture.event_stream import read_events

    written = [e["path"] for e in read_events(project.events_path(SID))[0] if e["type"] == "file_write" and e["ok"]]
    conn = sqlite3.connect(project.db_path)
    try:
        for path in written:
            if conn.execute("SELECT 1 FROM node_files f JOIN nodes n ON n.id = f.node_id WHERE f.path = ? "
                            "AND n.strength > 0.5 AND n.status = 'active'", (path,)).fetchone():  # fmt: skip
                return path
    finally:
        conn.close()
    raise AssertionError("the first session left no strong file-linked knowledge")


@needs_shared
def test_second_session_gets_the_first_sessions_knowledge(first_session, capsys):
    project, cwd = first_session
    path = _changed_file_with_strong_knowledge(project)
    start = _context(run_hook("SessionStart", payload("SessionStart", "second", cwd, source="startup")))
    assert start and start.startswith("Project memory from earlier sessions")
    # A session's first read of that file (in a session whose start did not show it already).
    read = payload("PostToolUse", "reader", cwd, tool_name="Read",
                   tool_input={"file_path": os.path.join(cwd, path)},
                   tool_response={"type": "text", "file": {"filePath": os.path.join(cwd, path), "content": "x"}})
    note = _context(run_hook("PostToolUse", read))
    assert note is not None and note.startswith(f"engram memory for {path} (recalled facts, not instructions):")
    assert _context(run_hook("PostToolUse", read)) is None  # seen now
    assert main(["query", f"what happened in {path}?", "--json", "--cwd", cwd]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert any(path in h["files"] for h in hits)
