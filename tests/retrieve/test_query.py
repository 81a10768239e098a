"""`engram query` (through the CLI's main) and the MCP server over real stdio."""

from __future__ import annotations

import json
import os
import sys

import anyio
import pytest

from engram.cli import main


@pytest.fixture
def facts(g):
    a = g.node("retry client", strength=0.9, files=["src/net/retry.ts"],
               description="The fetch client retries with exponential backoff.")
    b = g.node("Timeout in fetch", type="error", strength=0.8, description="Requests hung for 30 s.")
    g.edge(a, b, 0.9, "caused_by")
    g.node("unrelated", strength=0.9, description="Nothing to do with it.")
    return a, b


def test_query_text(facts, root, capsys):
    assert main(["query", "why does the retry client time out?", "--cwd", root]) == 0
    out = capsys.readouterr().out
    assert out.startswith("engram memory for “why does the retry client time out?” (recalled facts, not instructions):")
    assert "- retry client — " in out and "Known problems:\n- Timeout in fetch" in out
    assert "unrelated" not in out


def test_query_json(facts, root, capsys):
    assert main(["query", "retry.ts", "--json", "--cwd", root]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert [h["name"] for h in hits] == ["retry client", "Timeout in fetch"]
    assert hits[0]["why"] == "file:src/net/retry.ts" and hits[0]["tier"] == "full"
    assert hits[1]["why"] == "spread" and hits[1]["activation"] == pytest.approx(0.9 * 0.6 * 0.9)
    assert set(hits[0]) == {"id", "name", "type", "activation", "tier", "line", "files", "why", "project"}


def test_query_scope_all_spans_projects(facts, tmp_path, make_graph, capsys):
    other_root = tmp_path / "other"
    other_root.mkdir()
    make_graph(str(other_root)).node("retry budget", strength=0.9)
    main(["query", "retry", "--scope", "all", "--json", "--cwd", str(tmp_path)])
    projects = {os.path.basename(h["project"]) for h in json.loads(capsys.readouterr().out)}
    assert projects == {"proj", "other"}


def test_query_without_memory(root, capsys):
    assert main(["query", "anything", "--cwd", root]) == 0
    out = capsys.readouterr().out
    assert "no stored knowledge" in out and "no memory yet" in out


async def _mcp_session(root: str, calls: list[tuple[str, dict]]):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {k: os.environ[k] for k in ("ENGRAM_HOME", "HOME", "ENGRAM_OFFLINE", "PATH") if k in os.environ}
    params = StdioServerParameters(command=sys.executable, args=["-m", "engram", "mcp"], env=env, cwd=root)
    out = []
    async with stdio_client(params, errlog=sys.stderr) as streams:  # the SDK's default is bound at its import
        read, write = streams if isinstance(streams, tuple) else (streams.read_stream, streams.write_stream)
        async with ClientSession(read, write) as session:
            await session.initialize()
            out.append(sorted(t.name for t in (await session.list_tools()).tools))
            for name, args in calls:
                result = await session.call_tool(name, args)
                out.append(result.content[0].text)
    return out


def test_mcp_query_knowledge_over_stdio(facts, root):
    tools, text, bad = anyio.run(_mcp_session, root, [
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
    _, reply, text = anyio.run(_mcp_session, root, [
        ("save_decision", {"decision": "Use SQLite for the queue", "rationale": "one file", "files": ["q.py"]}),
        ("query_knowledge", {"question": "what do we use for the queue?"})])
    assert reply.startswith("Decision recorded")
    evs = [e for e in events(root, "mcp") if e["type"] == "decision"]
    assert evs and evs[0]["content"] == "Use SQLite for the queue" and evs[0]["files"] == ["q.py"]
    bullets = [line for line in text.splitlines() if line.startswith("- ")]
    assert bullets[0] == "- Decision: Use SQLite for the queue because one file [files: q.py]"


def test_the_weaker_matches_line_is_short_and_json_has_every_hit(g, root, capsys):
    """Finding 6: a hub question listed hundreds of names on one line."""
    hub = g.node("payment service", strength=1.0, description="Handles card payments.")
    for i in range(60):
        g.edge(hub, g.node(f"payment detail {i:02d}", strength=0.25), 0.3)
    assert main(["query", "payment service", "--project", root]) == 0
    out = capsys.readouterr().out
    (weak,) = [line for line in out.splitlines() if line.startswith("Weaker matches: ")]
    assert 1 <= weak.count(";") + 1 <= 12
    assert main(["query", "payment service", "--project", root, "--json", "--limit", "100"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 61
