"""`engram install` / `uninstall` into a home holding other tools' settings (issue 7, part 3)."""

from __future__ import annotations

import json
import os
import stat
import subprocess

import pytest
from testing.helpers import REPO, events

from engram.cli import main
from engram.harnesses.registry import get as harness
from engram.install import jsonedit, merge

ALL = ["claude-code", "codex", "gemini", "gsd"]


def engram(*argv) -> int:
    return main(list(argv))


def doc(path) -> dict:
    return jsonedit.loads(path.read_text(), allow_comments=True)


def ours(hooks, nested=True) -> dict[str, list]:
    return {e: [i for i in items if merge._has_ours(i, nested)] for e, items in hooks.items()
            if any(merge._has_ours(i, nested) for i in items)}


@pytest.mark.parametrize("name", ALL)
def test_install_twice_then_uninstall_is_byte_identical(home, name, capsys, snapshot, files, settings):
    before = snapshot(home)
    assert engram("install", "--harness", name) == 0
    path = home / settings[name]
    once = path.read_bytes()
    assert engram("install", "--harness", name) == 0
    assert path.read_bytes() == once, "a second install changed the file"
    assert "already installed" in capsys.readouterr().out
    mod = harness(name)
    got = ours(doc(path)["hooks"], mod.NESTED)
    assert sorted(got) == sorted(mod.EVENTS)
    for rel, text in files[name].items():  # every other tool's entry is still there, unchanged
        if rel == settings[name]:
            original = jsonedit.loads(text, allow_comments=True)
            now = doc(path)
            now.get("mcpServers", {}).pop("engram", None)  # Gemini's MCP server sits in the same file
            assert {k: v for k, v in now.items() if k != "hooks"} == {k: v for k, v in original.items() if k != "hooks"}
            for event, items in original["hooks"].items():
                assert [i for i in now["hooks"][event] if not merge._has_ours(i, mod.NESTED)] == items
    assert engram("uninstall", "--harness", name) == 0
    assert snapshot(home) == before


def test_other_text_is_kept_byte_for_byte_while_installed(home, files, settings):
    engram("install", "--harness", "gemini")
    text = (home / settings["gemini"]).read_text()
    for line in ("  // Gemini CLI allows comments here", '  "theme": "GitHub",', "  /* another tool's hook */",
                 '    "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"name": "guard", "type": '
                 '"command", "command": "guard.sh", "timeout": 2000}]}]'):
        assert line + "\n" in text or line + ",\n" in text  # a member may gain its separating comma
    engram("install", "--harness", "codex")
    toml = (home / ".codex" / "config.toml").read_text()  # the MCP server's table is appended, nothing rewritten
    assert toml.startswith(files["codex"][".codex/config.toml"])
    assert toml[len(files["codex"][".codex/config.toml"]):].startswith("\n# engram's MCP server")


def test_contract_details_per_harness(home, settings):
    engram("install", "--harness", "all")
    claude = doc(home / settings["claude-code"])["hooks"]
    assert ours(claude)["PostToolUse"] == [{"matcher": "*", "hooks": [
        {"type": "command", "command": ours(claude)["PostToolUse"][0]["hooks"][0]["command"], "timeout": 10}]}]
    codex = ours(doc(home / settings["codex"])["hooks"])
    assert "SessionEnd" in codex and "matcher" not in codex["PostToolUse"][0]  # Codex 0.171.0 fires SessionEnd
    gemini = ours(doc(home / settings["gemini"])["hooks"])
    assert all(h["timeout"] >= 1000 and h["name"].startswith("engram-") for g in sum(gemini.values(), [])
               for h in g["hooks"])
    assert "BeforeAgent" in gemini and "UserPromptSubmit" not in gemini
    gsd = ours(doc(home / settings["gsd"])["hooks"], nested=False)
    assert all(h["blocking"] is False and h["timeout"] == 5000 for h in sum(gsd.values(), []))
    for cmd in merge.commands(claude, True) + merge.commands(gsd, False):
        assert "--harness" in cmd and ("engram-hook" in cmd or "-m engram.hook" in cmd)


@pytest.mark.parametrize("name, event, make_payload", [
    ("claude-code", "PostToolUse", lambda p: {"session_id": "cc1", "cwd": str(p), "hook_event_name": "PostToolUse",
                                               "tool_name": "Read", "tool_input": {"file_path": str(p / "a.py")},
                                               "tool_response": {"type": "text", "file": {"content": "x = 1\n"}}}),
    ("codex", "PostToolUse", lambda p: {"session_id": "cx1", "cwd": str(p), "hook_event_name": "PostToolUse",
                                         "turn_id": "t", "tool_name": "Bash", "tool_input": {"command": "cat a.py"},
                                         "tool_response": "Exit code: 0\nWall time: 0 seconds\nOutput:\nx = 1\n"}),
    ("gemini", "AfterTool", lambda p: {"session_id": "gm1", "cwd": str(p), "hook_event_name": "AfterTool",
                                        "timestamp": "2026-01-01T00:00:00Z", "tool_name": "read_file",
                                        "tool_input": {"file_path": "a.py"}, "tool_response": {"llmContent": "x = 1"}}),
    ("gsd", "PostToolUse", lambda p: {"toolCallId": "1", "toolName": "read", "input": {"path": "a.py"},
                                       "content": [{"type": "text", "text": "x = 1"}], "isError": False}),
])
def test_the_registered_command_captures(home, tmp_path, name, event, make_payload, settings):
    """Run the command exactly as written into the settings, through a shell, as the harness does."""
    engram("install", "--harness", name)
    mod = harness(name)
    (cmd,) = merge.commands({event: doc(home / settings[name])["hooks"][event]}, mod.NESTED)
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    (proj / "a.py").write_text("x = 1\n")
    env = dict(os.environ, ENGRAM_NO_WORKER="1", ENGRAM_SESSION="gsd-run")
    res = subprocess.run(["sh", "-c", cmd], input=json.dumps(make_payload(proj)).encode(), cwd=str(proj),
                         capture_output=True, env=env, timeout=30)
    assert res.returncode == 0 and res.stdout == b"", res.stderr
    session = {"claude-code": "cc1", "codex": "cx1", "gemini": "gm1", "gsd": "gsd-run"}[name]
    assert [e["type"] for e in events(proj, session)][:1] == ["file_read"]


def test_interpreter_and_data_dir(home, engram_home):
    assert engram("install") == 0
    recorded = (engram_home / "python").read_text().strip()
    assert os.path.isabs(recorded) and os.access(recorded, os.X_OK)
    assert stat.S_IMODE(os.stat(engram_home).st_mode) == 0o700


def test_backup_holds_the_previous_file(home, engram_home, capsys, files):
    engram("install", "--harness", "claude-code")
    out = capsys.readouterr().out
    (backup,) = (engram_home / "backups" / "claude-code").iterdir()
    assert backup.read_text() == files["claude-code"][".claude/settings.json"] and backup.name in out
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600


def test_malformed_settings_are_reported_and_left_alone(home, capsys, settings):
    bad = '{\n  "hooks": {"Stop": [}\n}\n'
    (home / settings["claude-code"]).write_text(bad)
    assert engram("install", "--harness", "claude-code", "--harness", "codex") == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(home / settings["claude-code"]) in err[0] and "not valid JSON" in err[0]
    assert (home / settings["claude-code"]).read_text() == bad
    assert merge.commands(doc(home / settings["codex"])["hooks"], True)  # the other harness was installed


def test_wrong_shape_is_reported(home, capsys, settings):
    (home / settings["gsd"]).write_text('{"hooks": {"Stop": {"command": "x"}}}')
    assert engram("install", "--harness", "gsd") == 1
    assert "'hooks.Stop' is not a list" in capsys.readouterr().err


def test_dry_run_shows_a_diff_and_writes_nothing(home, engram_home, capsys, snapshot, settings):
    before = snapshot(home)
    assert engram("install", "--harness", "all", "--dry-run") == 0
    out = capsys.readouterr().out
    assert f"+++ {home / settings['gemini']}" in out and "+      {" in out and "engram-hook" in out
    assert snapshot(home) == before and not (engram_home / "python").exists()


def test_uninstall_keeps_edits_made_since_install(home, files, settings):
    engram("install", "--harness", "claude-code")
    path = home / settings["claude-code"]
    path.write_text(path.read_text().replace('"Read(~/.zshrc)"', '"Read(~/.zshrc)", "WebSearch"'))
    engram("uninstall", "--harness", "claude-code")
    assert path.read_text() == files["claude-code"][".claude/settings.json"].replace(
        '"Read(~/.zshrc)"', '"Read(~/.zshrc)", "WebSearch"')


def test_project_level_creates_and_removes_its_files(home, tmp_path):
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    assert engram("install", "--harness", "all", "--project", str(proj)) == 0
    made = {".claude/settings.local.json", ".codex/hooks.json", ".gemini/settings.json", ".gsd/settings.json"}
    assert {str(p.relative_to(proj)) for p in proj.rglob("*.json")} == made
    assert stat.S_IMODE((proj / ".claude" / "settings.local.json").stat().st_mode) == 0o600
    from engram.config import Project

    assert os.path.exists(Project.from_cwd(str(proj)).db_path)
    assert engram("uninstall", "--project", str(proj)) == 0
    assert sorted(p.name for p in proj.iterdir()) == [".git"]


def test_an_old_engram_entry_is_replaced_not_duplicated(home, settings):
    path = home / settings["claude-code"]
    old = {"type": "command", "command": "/old/checkout/bin/engram-hook Stop --harness claude-code", "timeout": 10}
    d = doc(path)
    d["hooks"]["Stop"] = [{"hooks": [old]}, {"hooks": [{"type": "command", "command": "say done"}]}]
    path.write_text(json.dumps(d, indent=2))
    engram("install", "--harness", "claude-code")
    stop = doc(path)["hooks"]["Stop"]
    assert len(stop) == 2 and "/old/checkout" not in json.dumps(stop) and stop[1]["hooks"][0]["command"] == "say done"
    assert merge.is_ours(stop[0]["hooks"][0])


# Other memory tools' hook commands that hold engram's words (issue 24, item 11): a launcher
# called engram-hook of their own, a Python package called engram with a `hooks` module.
FOREIGN_HOOKS = ["~/.lore/bin/engram-hook beforeSubmitPrompt", "python3 -m engram.hooks.pre_tool_use",
                 "python3 -m piia_engram.hooks.auto_save_on_stop", "engram hook session-start",
                 "${CLAUDE_PLUGIN_ROOT}/scripts/session-stop.sh  # engram"]


@pytest.mark.parametrize("command", FOREIGN_HOOKS)
def test_another_tools_engram_hook_is_never_taken_for_engrams(home, settings, command):
    path = home / settings["claude-code"]
    d = doc(path)
    d["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": command}]}]
    path.write_text(json.dumps(d, indent=2))
    before = path.read_text()
    assert not merge.is_ours({"command": command})
    engram("install", "--harness", "claude-code")
    assert doc(path)["hooks"]["Stop"][0] == {"hooks": [{"type": "command", "command": command}]}
    engram("uninstall", "--harness", "claude-code")
    assert path.read_text() == before


@pytest.mark.parametrize("command", ["/src/engram/plugin/bin/engram-hook Stop --harness claude-code",
                                     "ENGRAM_HOME=/data/e /v/bin/python -P -c 'from engram.hook import entry; entry()' "
                                     "Stop --harness codex",
                                     "/v/bin/python -m engram.hook Stop --harness gemini",
                                     "/v/bin/python -S -P -c 'import sys; sys.path.append(sys.argv.pop(1)); "
                                     "from engram.hook import entry; entry()' /elsewhere/site-packages Stop --harness codex",
                                     '"${CLAUDE_PLUGIN_ROOT:-${ENGRAM_HOME:-$HOME/.engram}}"/bin/engram-hook Stop '
                                     "--harness claude-code"])
def test_every_command_engram_writes_or_wrote_is_engrams(command):
    assert merge.is_ours({"command": command})


def test_plugin_mode_writes_no_settings(home, engram_home, capsys, snapshot):
    before = snapshot(home)
    assert engram("install", "--plugin") == 0
    assert snapshot(home) == before and (engram_home / "python").exists()
    out = capsys.readouterr().out
    assert "claude plugin marketplace add" in out and "claude plugin install engram@engram" in out
    assert "--plugin-dir" in out


def test_uninstall_when_nothing_is_installed(home, capsys, snapshot):
    before = snapshot(home)
    assert engram("uninstall") == 0
    assert snapshot(home) == before and "were not installed" in capsys.readouterr().out


def test_commands_use_an_absolute_runner(home, settings):
    engram("install", "--harness", "claude-code")
    for cmd in merge.commands(doc(home / settings["claude-code"])["hooks"], True):
        runner = [w for w in cmd.split() if "=" not in w][0]
        assert os.path.isabs(runner) and runner.startswith(str(REPO))


def test_a_symlinked_settings_file_stays_a_symlink(home, tmp_path, settings, files):
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    path = home / settings["claude-code"]
    dotfiles.write_text(path.read_text())
    path.unlink()
    path.symlink_to(dotfiles)
    engram("install", "--harness", "claude-code")
    assert path.is_symlink() and "engram-hook" in dotfiles.read_text()
    engram("uninstall", "--harness", "claude-code")
    assert path.is_symlink() and dotfiles.read_text() == files["claude-code"][".claude/settings.json"]


def test_install_provider_records_the_users_choice_in_config_json(home, engram_home, capsys):
    """Issue 24: naming a provider at install is consent to spend with it (providers/consent.py)."""
    from engram.config import load_config, user_keys

    (engram_home).mkdir(exist_ok=True)
    (engram_home / "config.json").write_text('{"dailyTokenBudget": 1000}')
    assert engram("install", "--provider", "anthropic") == 0
    assert "llmProvider = anthropic" in capsys.readouterr().out
    cfg, _ = load_config(str(engram_home))
    assert cfg["llmProvider"] == "anthropic" and cfg["dailyTokenBudget"] == 1000  # the user's other keys kept
    assert user_keys(str(engram_home)) == {"llmProvider", "dailyTokenBudget"}
    assert stat.S_IMODE((engram_home / "config.json").stat().st_mode) == 0o600


def test_install_provider_rejects_a_bad_name_in_one_line_and_changes_nothing(home, engram_home, capsys, snapshot):
    before = snapshot(home)
    assert engram("install", "--provider", "antropic") == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'antropic' is not one of auto, anthropic, openai" in err[0]
    assert snapshot(home) == before and not (engram_home / "config.json").exists()


def test_install_provider_dry_run_says_it_and_writes_nothing(home, engram_home, capsys):
    assert engram("install", "--provider", "openai", "--dry-run") == 0
    assert "would set llmProvider to openai" in capsys.readouterr().out
    assert not (engram_home / "config.json").exists()
