"""The Claude Code plugin: plugin/ (manifest, hooks/hooks.json, .mcp.json, bin/), the repository its marketplace."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from testing.helpers import PLUGIN, REPO, events, payload

from engram.harnesses import claude_code

# Everything the plugin folder holds: Claude Code copies the whole folder into its plugin cache.
PLUGIN_FILES = {".claude-plugin/plugin.json", "hooks/hooks.json", ".mcp.json", "bin/engram-hook", "bin/engram-mcp"}


def plugin_hooks() -> dict:
    return json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]


def test_the_marketplace_serves_the_plugin_folder_which_holds_only_the_plugin():
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
    (entry,) = market["plugins"]
    assert entry["name"] == "engram" and entry["source"] == "./plugin"
    assert {str(p.relative_to(PLUGIN)) for p in PLUGIN.rglob("*") if p.is_file()} == PLUGIN_FILES
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "engram"
    assert "hooks" not in manifest and "mcpServers" not in manifest  # in hooks/hooks.json and .mcp.json, by default
    assert not (REPO / ".claude-plugin" / "plugin.json").exists() and not (REPO / "bin").exists()  # one copy of each


def test_the_mcp_server_is_declared_in_the_plugins_mcp_json():
    """`claude plugin details` counts a plugin's servers from its .mcp.json (2.1.197 showed 0 for
    servers declared only in plugin.json)."""
    (server,) = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"].values()
    command = server["command"]
    assert command == "${CLAUDE_PLUGIN_ROOT}/bin/engram-mcp" and os.access(PLUGIN / "bin" / "engram-mcp", os.X_OK)


def test_hooks_json_registers_what_install_registers():
    hooks = plugin_hooks()
    assert set(hooks) == set(claude_code.EVENTS)
    for event, groups in hooks.items():
        (group,) = groups
        matcher, _ = claude_code.EVENTS[event]
        assert group.get("matcher") == matcher
        (handler,) = group["hooks"]
        assert handler["command"] == (f'"${{CLAUDE_PLUGIN_ROOT:-${{ENGRAM_HOME:-$HOME/.engram}}}}"/bin/engram-hook '
                                      f'{event} --harness claude-code')


def test_the_plugin_command_runs_with_state_outside_the_plugin(tmp_path, engram_home):
    """Expand ${CLAUDE_PLUGIN_ROOT} as Claude Code does and run the hook through a shell."""
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    cmd = plugin_hooks()["UserPromptSubmit"][0]["hooks"][0]["command"]
    env = dict(os.environ, CLAUDE_PLUGIN_ROOT=str(PLUGIN), ENGRAM_NO_WORKER="1")
    before = sorted(str(p) for p in PLUGIN.rglob("*"))
    res = subprocess.run(["sh", "-c", cmd], input=json.dumps(payload("UserPromptSubmit", "pl1", proj, prompt="hi")).encode(),
                         capture_output=True, env=env, cwd=str(proj), timeout=30)
    assert res.returncode == 0 and res.stdout == b"", res.stderr
    assert [e["type"] for e in events(proj, "pl1")] == ["user_prompt"]
    assert sorted(str(p) for p in PLUGIN.rglob("*")) == before  # nothing written into the plugin dir


def bare_plugin(tmp_path, checkout: bool = False) -> tuple[str, dict]:
    """The plugin as Claude Code installs it (its folder only, no .venv), on a machine where
    `engram install` never ran; with `checkout`, the folder sits in a checkout (--plugin-dir)."""
    plugin = tmp_path / "src" / "plugin"
    (plugin / "bin").mkdir(parents=True)
    if checkout:
        (tmp_path / "src" / "engram").mkdir()
        (tmp_path / "src" / "engram" / "hook.py").write_text("")
    script = (PLUGIN / "bin" / "engram-hook").read_text()
    (plugin / "bin" / "engram-hook").write_text(script)
    os.chmod(plugin / "bin" / "engram-hook", 0o755)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "ENGRAM_HOME": str(tmp_path / "none")}
    return str(plugin / "bin" / "engram-hook"), env


def test_engram_hook_without_any_interpreter_exits_zero(tmp_path):
    """Copied without a venv and without `engram install`: say so on stderr, never fail the agent."""
    hook, env = bare_plugin(tmp_path)
    for event in ("Stop", "PostToolUse", "UserPromptSubmit"):
        res = subprocess.run([hook, event, "--harness", "claude-code"], input=b"{}", capture_output=True, env=env)
        assert res.returncode == 0 and res.stdout == b"" and b"engram install" in res.stderr


@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini"])
@pytest.mark.parametrize("checkout", [False, True])
def test_the_plugin_without_an_interpreter_tells_the_user_at_session_start(tmp_path, harness, checkout):
    """Finding 2: no silent failure. SessionStart prints the harness's user-visible systemMessage
    with the one command that turns memory on (naming the checkout when the plugin sits in
    one; Claude Code's plugin cache holds the plugin folder only); the agent's context gets nothing."""
    hook, env = bare_plugin(tmp_path, checkout)
    res = subprocess.run([hook, "SessionStart", "--harness", harness], input=b"{}", capture_output=True, env=env)
    assert res.returncode == 0
    out = json.loads(res.stdout)
    assert set(out) == {"systemMessage"}
    source = f"'{tmp_path / 'src'}'" if checkout else "/path/to/your/engram/checkout"
    assert f"pipx install {source} && engram install --plugin" in out["systemMessage"]
    gsd = subprocess.run([hook, "SessionStart", "--harness", "gsd"], input=b"{}", capture_output=True, env=env)
    assert gsd.returncode == 0 and gsd.stdout == b""  # GSD 2 shell hooks print nothing


def _copied_settings(tmp_path) -> dict:
    """hooks.json copied into a settings file, which users do (docs/harnesses.md, "Use it with Claude Code")."""
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": plugin_hooks()}, indent=2))
    return json.loads(settings.read_text())["hooks"]


@pytest.mark.parametrize("inside_plugin", [True, False])
def test_copied_hooks_json_runs_inside_and_outside_a_plugin(tmp_path, engram_home, inside_plugin):
    """Finding 5: every command of hooks.json, run through `sh -c` as Claude Code does, with
    CLAUDE_PLUGIN_ROOT (a plugin) and without it (copied into settings, after `engram install`)."""
    from engram.cli import main

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    env = dict(os.environ, ENGRAM_NO_WORKER="1")
    env.pop("CLAUDE_PLUGIN_ROOT", None)
    if inside_plugin:
        env["CLAUDE_PLUGIN_ROOT"] = str(PLUGIN)
    else:
        assert main(["install", "--plugin"]) == 0  # writes $ENGRAM_HOME/bin/engram-hook
    hooks = _copied_settings(tmp_path)
    for event, groups in hooks.items():
        command = groups[0]["hooks"][0]["command"]
        data = payload(event, f"copy-{inside_plugin}", proj, prompt="hi", source="startup", tool_name="Bash",
                       tool_input={"command": "true"}, tool_response={"stdout": "", "stderr": ""})
        res = subprocess.run(["sh", "-c", command], input=json.dumps(data).encode(), capture_output=True, env=env,
                             cwd=str(proj), timeout=60)
        assert res.returncode == 0, (event, res.stderr)
        assert res.stdout == b"" or "hookSpecificOutput" in json.loads(res.stdout), event
        assert not res.stderr, (event, res.stderr)
    types = [e["type"] for e in events(proj, f"copy-{inside_plugin}")]
    assert {"session_start", "user_prompt", "command", "turn_complete", "compact", "session_end"} <= set(types)


def test_outside_a_plugin_before_install_the_command_is_missing(tmp_path):
    """Without `engram install` the fallback path does not exist yet: the shell says so (127),
    which is why the docs say to run `engram install --plugin` first."""
    command = _copied_settings(tmp_path)["Stop"][0]["hooks"][0]["command"]
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "ENGRAM_HOME": str(tmp_path / "h")}
    res = subprocess.run(["sh", "-c", command], input=b"{}", capture_output=True, env=env)
    assert res.returncode == 127 and str(tmp_path / "h" / "bin" / "engram-hook").encode() in res.stderr
