"""`engram mcp`: the stdio server, through the real MCP SDK's client over real stdio."""

from __future__ import annotations

import os
import subprocess
import sys

import anyio
from testing.mcp_client import mcp_session


def test_mcp_query_knowledge_over_stdio(facts, root):
    tools, text, bad = anyio.run(mcp_session, root, [
        ("query_knowledge", {"question": "retry client timeouts", "scope": "current_project"}),
        ("query_knowledge", {"question": "x", "scope": "galaxy"})])
    assert tools == ["query_knowledge", "save_decision"]
    assert "- retry client — " in text and "Known problems:\n- Timeout in fetch" in text
    assert "scope must be one of" in bad


def test_mcp_save_decision_records_an_event_and_is_queried_at_once(facts, g, root):
    """Issue 14, finding 7: saved, then asked about its subject, before any consolidation."""
    from testing.helpers import events

    for i in range(12):  # a graph where much else is about the queue, most of it stronger
        g.node(f"queue worker {i}", strength=1.0, description="The queue worker drains jobs.")
    _, reply, text = anyio.run(mcp_session, root, [
        ("save_decision", {"decision": "Use SQLite for the queue", "rationale": "one file", "files": ["q.py"]}),
        ("query_knowledge", {"question": "what do we use for the queue?"})])
    assert reply.startswith("Decision recorded")
    evs = [e for e in events(root, "mcp") if e["type"] == "decision"]
    assert evs and evs[0]["content"] == "Use SQLite for the queue" and evs[0]["files"] == ["q.py"]
    bullets = [line for line in text.splitlines() if line.startswith("- ")]
    assert bullets[0] == "- Decision: Use SQLite for the queue because one file [files: q.py]"


def test_engram_mcp_without_the_sdk_is_one_line_with_the_fix(tmp_path):
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "mcp.py").write_text("raise ModuleNotFoundError(\"No module named 'mcp'\", name='mcp')\n")
    env = dict(os.environ, PYTHONPATH=str(shadow))
    res = subprocess.run([sys.executable, "-m", "engram", "mcp"], capture_output=True, text=True, env=env,
                         stdin=subprocess.DEVNULL, timeout=60)
    assert res.returncode == 1 and res.stdout == ""
    (line,) = res.stderr.strip().splitlines()
    assert "No module named 'mcp'" in line and "pip install" in line
