"""Another memory tool's MCP server called `engram`, with the real CLIs (pinned in
tests/testing/real_clis.py; issue 24, item 11).

Several memory tools for coding agents register an MCP server named `engram`. The other
tool's server is added here by the harness's own CLI, as its installer would; `engram install`
must leave it as it is, register engram's as `engram-memory`, and `engram uninstall` must
take out engram's only.
"""

from __future__ import annotations

import json
import re
import tomllib

import pytest

THEIRS = ["/opt/homebrew/bin/engram", "mcp"]  # the other tool's server: not on this machine, so it never connects
ADD = {"claude-code": ["mcp", "add", "--scope", "user", "engram", "--", *THEIRS],
       "codex": ["mcp", "add", "engram", "--", *THEIRS],
       "gemini": ["mcp", "add", "-s", "user", "engram", *THEIRS]}
CONFIG = {"claude-code": ".claude.json", "codex": ".codex/config.toml", "gemini": ".gemini/settings.json"}
HARNESSES = sorted(ADD)


def servers(sb) -> dict:
    text = (sb.home / CONFIG[sb.harness]).read_text()
    return tomllib.loads(text)["mcp_servers"] if sb.harness == "codex" else json.loads(text)["mcpServers"]


def listed(sb) -> set[str]:
    """The servers `<cli> mcp list` shows, of engram's two names (each line starts with a name;
    Gemini CLI prints the list on stderr)."""
    res = sb.cli("mcp", "list")
    assert res.returncode == 0, res.stdout + res.stderr
    return {n for n in ("engram", "engram-memory") if re.search(rf"^\W*{n}[:\s]", res.stdout + res.stderr, re.M)}


@pytest.fixture
def theirs_first(sandbox):
    """`sandbox(harness)` whose harness already has the other tool's `engram` server."""

    def make(harness: str):
        sb = sandbox(harness, ENGRAM_OFFLINE="1", GEMINI_CLI_TRUST_WORKSPACE="true")
        added = sb.cli(*ADD[harness])
        assert added.returncode == 0, added.stdout + added.stderr
        return sb

    return make


@pytest.mark.parametrize("harness", HARNESSES)
def test_another_tools_engram_server_is_kept_and_engrams_is_engram_memory(theirs_first, harness):
    sb = theirs_first(harness)
    config = sb.home / CONFIG[harness]
    before, other = config.read_text(), servers(sb)["engram"]
    out = sb.install()
    assert "an MCP server called 'engram' that engram did not write" in out, out
    now = servers(sb)
    assert now["engram"] == other and now["engram-memory"]["args"][-3:] == ["-m", "engram", "mcp"]
    if harness == "codex":  # a table appended: every byte of the file before it is as it was
        assert config.read_text().startswith(before)
    assert json.loads((sb.engram_home / "mcp.json").read_text()) == {harness: "engram-memory"}
    assert listed(sb) == {"engram", "engram-memory"}
    sb.engram("uninstall")
    assert servers(sb) == {"engram": other} and listed(sb) == {"engram"}
    if harness != "claude-code":  # ~/.claude.json is Claude Code's to rewrite (its counters change)
        assert config.read_text() == before


@pytest.mark.parametrize("harness", ["claude-code", "gemini", "codex"])
def test_the_agent_gets_engrams_tools_under_the_new_name_and_the_hooks_know_them(theirs_first, harness):
    sb = theirs_first(harness)
    sb.install()
    steps = [{"mcp": "save_decision", "args": {"decision": "Use SQLite for the job queue", "rationale": "no server"}},
             {"mcp": "query_knowledge", "args": {"question": "what does the job queue use?"}}, {"say": "Noted."}]
    run = sb.run("record the decision", steps)
    assert run.returncode == 0, run.stderr[-2000:]
    assert ("engram_memory" if harness == "codex" else "engram-memory") in run.bodies()  # Codex: "-" -> "_"
    assert "SQLite" in run.bodies()
    events = [e for sid, evs in sb.sessions().items() if sid != "mcp" for e in evs]  # "mcp": the server's own saves
    decisions = [e for e in events if e["type"] == "decision"]
    assert any("Use SQLite for the job queue" in json.dumps(e) for e in decisions), events
    assert not [e for e in events if e["type"] == "tool_call" and "engram" in e.get("tool", "")]
