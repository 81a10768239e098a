"""`engram install` registers the MCP server (query_knowledge) the harness's own way (issue 15, finding 1)."""

from __future__ import annotations

import json
import os
import shlex
import sys
import tomllib

import pytest

from engram.cli import main
from engram.config import MODULE_ARGS, mcp_registered
from engram.install import jsonedit

SERVER = [os.path.abspath(sys.executable), *MODULE_ARGS, "mcp"]

FAKE_CLAUDE = """#!/bin/sh
# A stand-in for Claude Code's CLI: logs its argv, keeps one MCP server's state in a file.
echo "$*" >> "$FAKE_CLAUDE_DIR/calls"
case "$1 $2" in
  "mcp get") [ -f "$FAKE_CLAUDE_DIR/engram" ] && exit 0; echo "No MCP server found with name: $3" >&2; exit 1 ;;
  "mcp add") touch "$FAKE_CLAUDE_DIR/engram"; echo "Added stdio MCP server $6" ;;
  "mcp remove") rm -f "$FAKE_CLAUDE_DIR/engram"; echo "Removed MCP server" ;;
esac
"""


@pytest.fixture
def fake_claude(tmp_path, monkeypatch):
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text(FAKE_CLAUDE)
    os.chmod(bin_dir / "claude", 0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_CLAUDE_DIR", str(bin_dir))
    return bin_dir


def calls(fake: "os.PathLike") -> list[str]:
    path = os.path.join(fake, "calls")
    return open(path).read().splitlines() if os.path.exists(path) else []


def test_claude_code_gets_the_server_through_its_cli_once(home, fake_claude, engram_home, capsys):
    assert main(["install"]) == 0
    add = [c for c in calls(fake_claude) if c.startswith("mcp add")]
    assert add == [f"mcp add --scope user --env ENGRAM_HOME={engram_home} engram -- {' '.join(SERVER)}"]
    assert mcp_registered("claude-code")
    assert main(["install"]) == 0  # already there: `claude mcp get` says so, nothing is added twice
    assert len([c for c in calls(fake_claude) if c.startswith("mcp add")]) == 1
    assert main(["uninstall", "--harness", "claude-code"]) == 0
    assert calls(fake_claude)[-1] == "mcp remove --scope user engram" and not mcp_registered("claude-code")


def test_without_the_claude_cli_install_prints_the_exact_command(home, capsys, engram_home, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert main(["install"]) == 0
    out = capsys.readouterr().out
    command = shlex.join(["claude", "mcp", "add", "--scope", "user", "--env", f"ENGRAM_HOME={engram_home}",
                          "engram", "--", *SERVER])
    assert f"to add the query_knowledge tool run: {command}" in out
    assert not mcp_registered("claude-code")


def test_codex_gets_a_table_in_config_toml_and_gemini_an_entry_in_settings(home, settings, engram_home):
    assert main(["install", "--harness", "codex", "--harness", "gemini"]) == 0
    toml = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert toml["mcp_servers"]["engram"] == {"command": SERVER[0], "args": SERVER[1:], "startup_timeout_sec": 20,
                                             "env": {"ENGRAM_HOME": str(engram_home)}}
    assert toml["mcp_servers"]["docs"]["command"] == "npx"  # the user's own server is still there
    gemini = jsonedit.loads((home / settings["gemini"]).read_text(), allow_comments=True)
    assert gemini["mcpServers"]["engram"] == {"command": SERVER[0], "args": SERVER[1:], "timeout": 30000,
                                              "env": {"ENGRAM_HOME": str(engram_home)}}
    assert set(gemini["mcpServers"]) == {"github", "engram"}
    assert mcp_registered("codex") and mcp_registered("gemini") and not mcp_registered("gsd")
    assert main(["uninstall", "--harness", "codex", "--harness", "gemini"]) == 0
    assert "engram" not in tomllib.loads((home / ".codex" / "config.toml").read_text())["mcp_servers"]
    assert not mcp_registered("codex") and not mcp_registered("gemini")


def test_a_server_of_the_users_own_called_engram_is_left_alone(home, settings, capsys):
    toml = home / ".codex" / "config.toml"
    toml.write_text(toml.read_text() + '\n[mcp_servers.engram]\ncommand = "my-engram"\n')
    before = toml.read_text()
    assert main(["install", "--harness", "codex"]) == 0
    assert toml.read_text() == before and "of your own" in capsys.readouterr().out
    assert main(["uninstall", "--harness", "codex"]) == 0
    assert toml.read_text() == before


def test_a_malformed_config_toml_is_one_line_and_left_alone(home, capsys):
    toml = home / ".codex" / "config.toml"
    toml.write_text("model = \n")
    assert main(["install", "--harness", "codex"]) == 1
    err = capsys.readouterr().err
    assert f"{toml}: not valid TOML" in err and toml.read_text() == "model = \n"


def test_dry_run_shows_the_mcp_changes_and_writes_nothing(home, capsys, snapshot):
    before = snapshot(home)
    assert main(["install", "--harness", "all", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "+[mcp_servers.engram]" in out and '"mcpServers"' in out and "would run (when `claude` is on PATH)" in out
    assert snapshot(home) == before


def test_doctor_starts_the_server_and_lists_its_tools(home, capsys):
    main(["install", "--harness", "gemini"])
    capsys.readouterr()
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "OK    MCP server" in out and "lists query_knowledge, save_decision" in out
    assert "MCP Gemini CLI" in out and "is registered (query_knowledge)" in out


def test_doctor_says_when_the_sdk_is_missing(home, tmp_path, capsys, monkeypatch):
    """A plain install without the MCP SDK: `engram mcp` would fail; doctor says so and how to fix it."""
    main(["install", "--harness", "gemini"])
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "mcp", None)  # `import mcp` now raises ImportError
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  MCP server" in out and "-m pip install 'mcp>=1.10,<3'" in out


def test_the_manifest_declares_mcp_and_no_unused_dependency():
    """`mcp` comes with the package (finding 1); every dependency is imported somewhere (finding 11)."""
    from testing.helpers import REPO

    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {d.split(">")[0].split("<")[0].split("=")[0].split("[")[0].strip() for d in deps}
    assert "mcp" in names and "orjson" not in names
    modules = {"sqlean.py": "sqlean", "sqlite-vec": "sqlite_vec"}
    source = "\n".join(p.read_text() for p in (REPO / "engram").rglob("*.py"))
    for name in names:
        module = modules.get(name, name)
        assert f"import {module}" in source or f"from {module}" in source or f'find_spec("{module}")' in source, name
    assert json.loads((REPO / "plugin" / ".mcp.json").read_text())["mcpServers"]["engram"]
