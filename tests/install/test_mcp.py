"""`engram install` registers the MCP server (query_knowledge) the harness's own way (issue 15, finding 1)."""

from __future__ import annotations

import json
import os
import shlex
import sys
import tomllib

import pytest

from engram.cli import main
from engram.config import MODULE_ARGS, mcp_registered, mcp_server_name
from engram.install import jsonedit

SERVER = [os.path.abspath(sys.executable), *MODULE_ARGS, "mcp"]

# A stand-in for Claude Code's CLI: logs its argv and keeps MCP servers in ~/.claude.json as
# the real one does (2.1.197: user scope in `mcpServers`, local scope under `projects[cwd]`;
# tests/realclis/test_names.py runs the real one).
FAKE_CLAUDE = """#!{python}
import json, os, sys
args = sys.argv[1:]
with open(os.path.join(os.environ["FAKE_CLAUDE_DIR"], "calls"), "a") as f:
    f.write(" ".join(args) + "\\n")
path = os.path.join(os.environ["HOME"], ".claude.json")
doc = json.load(open(path)) if os.path.exists(path) else {{}}
scope = args[args.index("--scope") + 1] if "--scope" in args else "local"
holder = doc if scope == "user" else doc.setdefault("projects", {{}}).setdefault(os.getcwd(), {{}})
servers = holder.setdefault("mcpServers", {{}})
if args[:2] == ["mcp", "add"]:
    cut = args.index("--")
    env = dict(args[i + 1].split("=", 1) for i in range(cut) if args[i] == "--env")
    name = args[cut - 1]
    if name in servers:
        sys.exit(f"MCP server {{name}} already exists in {{scope}} config")
    servers[name] = {{"type": "stdio", "command": args[cut + 1], "args": args[cut + 2:], "env": env}}
    print(f"Added stdio MCP server {{name}}")
elif args[:2] == ["mcp", "remove"]:
    if servers.pop(args[-1], None) is None:
        sys.exit(f"No MCP server found with name: {{args[-1]}}")
json.dump(doc, open(path, "w"), indent=2)
"""


@pytest.fixture
def fake_claude(tmp_path, monkeypatch):
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text(FAKE_CLAUDE.format(python=sys.executable))
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
    assert main(["install"]) == 0  # already there (~/.claude.json says so): nothing is added twice
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


FOREIGN = {"command": "/opt/homebrew/bin/engram", "args": ["mcp"]}  # another memory tool's server, called engram


def test_another_tools_engram_server_in_config_toml_stays_and_ours_is_engram_memory(home, capsys):
    toml = home / ".codex" / "config.toml"
    toml.write_text(toml.read_text() + '\n[mcp_servers.engram]\ncommand = "/opt/homebrew/bin/engram"\nargs = ["mcp"]\n')
    before = toml.read_text()
    assert main(["install", "--harness", "codex"]) == 0
    out = capsys.readouterr().out
    assert "an MCP server called 'engram' that engram did not write" in out and "registered as 'engram-memory'" in out
    text = toml.read_text()
    assert text.startswith(before)  # every byte of it, ours appended
    servers = tomllib.loads(text)["mcp_servers"]
    assert servers["engram"] == FOREIGN and servers["engram-memory"]["args"] == SERVER[1:]
    assert mcp_server_name("codex") == "engram-memory"
    assert main(["install", "--harness", "codex"]) == 0 and toml.read_text() == text  # idempotent
    assert main(["uninstall", "--harness", "codex"]) == 0
    assert toml.read_text() == before and mcp_server_name("codex") is None


def test_another_tools_engram_server_in_gemini_settings_stays_and_ours_is_engram_memory(home, settings, capsys):
    path = home / settings["gemini"]
    path.write_text(path.read_text().replace('"mcpServers": {', '"mcpServers": {\n    "engram": '
                                                                + json.dumps(FOREIGN) + ","))
    before = path.read_text()
    assert main(["install", "--harness", "gemini"]) == 0
    servers = jsonedit.loads(path.read_text(), allow_comments=True)["mcpServers"]
    assert servers["engram"] == FOREIGN and servers["engram-memory"]["args"] == SERVER[1:]
    assert json.dumps(FOREIGN) in path.read_text()  # the other tool's entry, as it was written
    assert mcp_server_name("gemini") == "engram-memory"
    assert main(["uninstall", "--harness", "gemini"]) == 0
    assert path.read_text() == before and mcp_server_name("gemini") is None


def test_another_tools_engram_server_in_claude_json_stays_and_ours_is_engram_memory(home, fake_claude, capsys):
    claude_json = home / ".claude.json"
    claude_json.write_text(json.dumps({"mcpServers": {"engram": dict(FOREIGN, type="stdio", env={})}}, indent=2))
    assert main(["install"]) == 0
    out = capsys.readouterr().out
    assert "an MCP server called 'engram' that engram did not write" in out
    assert "MCP server 'engram-memory' registered" in out and mcp_server_name("claude-code") == "engram-memory"
    servers = json.loads(claude_json.read_text())["mcpServers"]
    assert servers["engram"] == dict(FOREIGN, type="stdio", env={}) and servers["engram-memory"]["args"] == SERVER[1:]
    assert not any(c.startswith("mcp remove") for c in calls(fake_claude))
    assert main(["uninstall", "--harness", "claude-code"]) == 0
    assert calls(fake_claude)[-1] == "mcp remove --scope user engram-memory"
    assert set(json.loads(claude_json.read_text())["mcpServers"]) == {"engram"}


def test_when_other_tools_hold_both_names_nothing_is_added(home, capsys):
    toml = home / ".codex" / "config.toml"
    taken = "".join(f'\n[mcp_servers.{n}]\ncommand = "x"\n' for n in ("engram", "engram-memory"))
    toml.write_text(toml.read_text() + taken)
    before = toml.read_text()
    assert main(["install", "--harness", "codex"]) == 0
    assert toml.read_text() == before and "engram's MCP server was not added" in capsys.readouterr().out
    assert not mcp_registered("codex")


def test_an_install_before_the_second_name_is_read_as_engram(engram_home):
    (engram_home / "mcp.json").write_text('{"codex": true}')
    assert mcp_server_name("codex") == "engram" and mcp_registered("codex")


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
