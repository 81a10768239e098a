"""engram as a Claude Code plugin with the real `claude` (pinned in tests/testing/real_clis.py),
installed from a checkout through the repository's marketplace (issue 24, item 8).

Observed before: the plugin was the repository root, so `claude plugin install` copied the
checkout's .venv, build/ and caches (351 MB) into the plugin cache; `claude plugin details`
showed "MCP servers (0)"; and with the plugin enabled `engram doctor` advised `engram
install`, which would register every hook a second time.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from testing import real_clis
from testing.helpers import REPO

MB = 1024 * 1024
PLUGIN_FILES = {".claude-plugin/plugin.json", "hooks/hooks.json", ".mcp.json", "bin/engram-hook", "bin/engram-mcp"}


def checkout(root: Path) -> Path:
    """A copy of the checkout as a user has it: the tracked files, plus a 24 MB .venv, a build/
    folder and caches (what filled the plugin cache)."""
    files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, root / rel)
    for rel, size in ((".venv/lib/python3.11/site-packages/big.so", 16 * MB), ("build/lib/engram.tar", 8 * MB),
                      (".pytest_cache/v/cache/nodeids", MB)):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(b"\0" * size)
    return root


def size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


@pytest.fixture
def plugged(sandbox, tmp_path):
    """A sandbox whose Claude Code installed engram's plugin from a checkout's marketplace."""
    sb = sandbox("claude-code", ENGRAM_OFFLINE="1")  # the worker consolidates offline, not against the fake API
    source = checkout(tmp_path / "engram-checkout")
    assert size(source) > 25 * MB
    added = sb.cli("plugin", "marketplace", "add", str(source))
    assert added.returncode == 0, added.stdout + added.stderr
    installed = sb.cli("plugin", "install", "engram@engram")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return sb


def test_the_plugin_cache_holds_the_plugin_folder_only(plugged):
    record = json.loads((plugged.home / ".claude" / "plugins" / "installed_plugins.json").read_text())
    ((install,),) = record["plugins"].values()
    copy = Path(install["installPath"])
    cache = plugged.home / ".claude" / "plugins" / "cache"
    assert copy.is_relative_to(cache)
    assert {str(p.relative_to(copy)) for p in copy.rglob("*") if p.is_file()} == PLUGIN_FILES
    assert size(cache) < 64 * 1024, size(cache)
    assert not [p for p in cache.rglob("*") if p.name in (".venv", "build", ".pytest_cache") or p.suffix == ".py"]


def test_claude_plugin_details_lists_the_mcp_server(plugged):
    details = plugged.cli("plugin", "details", "engram@engram")
    assert details.returncode == 0, details.stderr
    assert "MCP servers (1)  engram" in details.stdout
    assert "Hooks (7)  SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure, Stop, PreCompact, SessionEnd" \
        in details.stdout


def test_a_session_with_the_plugin_runs_engrams_hooks_and_its_mcp_tool(plugged):
    plugged.engram("install", "--plugin")  # records the interpreter; writes no settings
    run = plugged.run("fix the build please", real_clis.first_session(plugged.proj))
    assert run.returncode == 0, run.stderr[-2000:]
    (sid, events), = plugged.sessions().items()
    kinds = [e["type"] for e in events]
    assert {"session_start", "user_prompt", "file_read", "file_write", "turn_complete", "session_end"} <= set(kinds)
    assert real_clis.by_command(events)["make build"]["exit_code"] == 2
    answered = [m for r in run.requests for m in (r["body"] or {}).get("messages", []) if m.get("role") == "user"
                for b in m["content"] if isinstance(m["content"], list) and b.get("type") == "tool_result"
                and "engram has no stored knowledge" in json.dumps(b)]
    assert answered  # the plugin's MCP server answered query_knowledge
    assert not [e for e in events if "query_knowledge" in json.dumps(e)]  # engram's own query is not captured


def test_engram_doctor_recognises_the_plugin_and_install_writes_no_hooks_beside_it(plugged):
    said = plugged.engram("install", "--plugin").stdout
    assert "Next (Claude Code plugin): engram@engram (user scope) is enabled: start a new session" in said
    doctor = plugged.engram("doctor", check=False).stdout
    (line,) = [x for x in doctor.splitlines() if x.startswith(("OK    Claude Code", "WARN  Claude Code"))]
    assert line.startswith("OK") and "runs as the Claude Code plugin engram@engram (user scope)" in line, doctor
    assert "engram install --harness claude-code" not in doctor and "runs twice" not in doctor
    assert "the plugin engram@engram (user scope) declares engram's MCP server" in doctor
    said = plugged.engram("install").stdout  # what doctor advised before
    assert "engram's plugin engram@engram (user scope) is enabled" in said and "nothing written" in said
    assert "hooks" not in json.loads((plugged.home / ".claude" / "settings.json").read_text())


def test_engram_doctor_warns_when_settings_hooks_run_beside_the_plugin(sandbox, tmp_path):
    sb = sandbox("claude-code", ENGRAM_OFFLINE="1")
    sb.install()  # engram install first: hooks in ~/.claude/settings.json
    source = checkout(tmp_path / "engram-checkout")
    assert sb.cli("plugin", "marketplace", "add", str(source)).returncode == 0
    assert sb.cli("plugin", "install", "engram@engram").returncode == 0
    doctor = sb.engram("doctor", check=False).stdout
    assert any(x.startswith("WARN  Claude Code") and "runs twice" in x for x in doctor.splitlines()), doctor
    assert "engram uninstall --harness claude-code" in doctor
