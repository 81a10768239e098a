"""The repository is a Claude Code plugin: manifest, root hooks.json, bin/ executables."""

from __future__ import annotations

import json
import os
import subprocess

from testing.helpers import REPO, events, payload

from engram.harnesses import claude_code


def manifest() -> dict:
    return json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())


def test_manifest_points_at_the_root_hooks_file():
    m = manifest()
    assert m["name"] == "engram" and m["hooks"] == "./hooks.json"
    assert (REPO / m["hooks"]).is_file()
    mcp = m["mcpServers"]["engram"]["command"]
    assert mcp.startswith("${CLAUDE_PLUGIN_ROOT}/") and os.access(REPO / mcp.split("/", 1)[1], os.X_OK)


def test_hooks_json_registers_what_install_registers():
    hooks = json.loads((REPO / "hooks.json").read_text())["hooks"]
    assert set(hooks) == set(claude_code.EVENTS)
    for event, groups in hooks.items():
        (group,) = groups
        matcher, _ = claude_code.EVENTS[event]
        assert group.get("matcher") == matcher
        (handler,) = group["hooks"]
        assert handler["command"] == f'"${{CLAUDE_PLUGIN_ROOT}}"/bin/engram-hook {event} --harness claude-code'


def test_the_plugin_command_runs_with_state_outside_the_plugin(tmp_path, engram_home):
    """Expand ${CLAUDE_PLUGIN_ROOT} as Claude Code does and run the hook through a shell."""
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    hooks = json.loads((REPO / "hooks.json").read_text())["hooks"]
    cmd = hooks["UserPromptSubmit"][0]["hooks"][0]["command"]
    env = dict(os.environ, CLAUDE_PLUGIN_ROOT=str(REPO), ENGRAM_NO_WORKER="1")
    before = sorted(p.name for p in REPO.iterdir())
    res = subprocess.run(["sh", "-c", cmd], input=json.dumps(payload("UserPromptSubmit", "pl1", proj, prompt="hi")).encode(),
                         capture_output=True, env=env, cwd=str(proj), timeout=30)
    assert res.returncode == 0 and res.stdout == b"", res.stderr
    assert [e["type"] for e in events(proj, "pl1")] == ["user_prompt"]
    assert sorted(p.name for p in REPO.iterdir()) == before  # nothing written into the plugin dir


def test_engram_hook_without_any_interpreter_exits_zero(tmp_path):
    """Copied without a venv and without `engram install`: say so on stderr, never fail the agent."""
    plugin = tmp_path / "plugin"
    (plugin / "bin").mkdir(parents=True)
    script = (REPO / "bin" / "engram-hook").read_text()
    (plugin / "bin" / "engram-hook").write_text(script)
    os.chmod(plugin / "bin" / "engram-hook", 0o755)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "ENGRAM_HOME": str(tmp_path / "none")}
    res = subprocess.run([str(plugin / "bin" / "engram-hook"), "Stop"], input=b"{}", capture_output=True, env=env)
    assert res.returncode == 0 and res.stdout == b"" and b"engram install" in res.stderr
