"""`engram doctor`: one OK / WARN / FAIL line per check, the fix beside each problem."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest
from testing.helpers import payload, run_hook

from engram.cli import main


def _db(path):
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE t(x); " + "INSERT INTO t VALUES (randomblob(500));" * 100)
    conn.commit()
    conn.close()


@pytest.fixture
def proj_with_db(tmp_path):
    from engram.config import Project

    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    project = Project.from_cwd(str(proj)).ensure()
    _db(project.db_path)
    return project.db_path


def doctor(capsys, *argv) -> tuple[int, dict[str, list[str]]]:
    code = main(["doctor", *argv])
    out = capsys.readouterr().out
    lines: dict[str, list[str]] = {}
    for line in out.splitlines():
        if line[:4] in ("OK  ", "WARN", "FAIL"):
            lines.setdefault(line[:4].strip(), []).append(line)
    return code, lines | {"_all": [out]}


def test_after_install_everything_passes(home, capsys):
    main(["install", "--harness", "all"])
    capsys.readouterr()
    code, lines = doctor(capsys)
    assert code == 0 and "FAIL" not in lines
    text = "\n".join(lines["OK"])
    for label in ("Claude Code", "Codex CLI", "Gemini CLI", "GSD 2"):
        assert f"OK    {label}" in text
    assert "imports engram" in text and "mode 700" in text and "interpreter" in text


def test_a_hook_command_pointing_at_nothing_fails(home, capsys, settings):
    path = home / settings["claude-code"]
    main(["install", "--harness", "claude-code"])
    text = path.read_text()
    runner = json.loads(text)["hooks"]["Stop"][0]["hooks"][0]["command"].split(" Stop")[0].split()[-1]
    path.write_text(text.replace(runner, "/nowhere/bin/engram-hook"))
    capsys.readouterr()
    code, lines = doctor(capsys)
    assert code == 1
    (fail,) = lines["FAIL"]
    assert "/nowhere/bin/engram-hook" in fail and "engram install --harness claude-code" in lines["_all"][0]


def test_malformed_settings_fail_with_the_file_named(home, capsys, settings):
    (home / settings["gemini"]).write_text("{ not json")
    code, lines = doctor(capsys)
    assert code == 1 and str(home / settings["gemini"]) in lines["FAIL"][0]


def test_a_corrupt_database_fails(proj_with_db, capsys):
    db = proj_with_db
    with open(db, "r+b") as f:  # smash pages past the header
        f.seek(4096)
        f.write(b"\xff" * 8192)
    code, lines = doctor(capsys)
    assert code == 1 and any("integrity_check" in x for x in lines["FAIL"])


def test_keys_are_reported_by_presence_never_value(capsys, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-SECRET-do-not-print")
    code, lines = doctor(capsys)
    out = lines["_all"][0]
    assert "SECRET" not in out and "ANTHROPIC_API_KEY set" in out and "OPENAI_API_KEY" not in out  # only keys set


def test_recent_hook_faults_warn(tmp_path, capsys):
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    run_hook("PostToolUse", b'{"cwd": "%s", "session_id": "../x"}' % str(proj).encode())
    code, lines = doctor(capsys)
    assert code == 0 and any("hook faults" in x and "1 in the last 24 h" in x for x in lines["WARN"])


def test_an_idle_unconsolidated_session_warns(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    run_hook("UserPromptSubmit", payload("UserPromptSubmit", "idle1", proj, prompt="hello"))
    from engram.config import Project

    events = Project.from_cwd(str(proj)).events_path("idle1")
    os.utime(events, (1_000_000_000, 1_000_000_000))
    code, lines = doctor(capsys)
    assert any("backlog" in x and "idle1" in x for x in lines["WARN"]) and "engram consolidate" in lines["_all"][0]


def test_world_readable_data_dir_warns(engram_home, capsys):
    os.chmod(engram_home, 0o755)
    code, lines = doctor(capsys)
    assert any("chmod 700" in x for x in lines["_all"]) and any("data dir" in x for x in lines["WARN"])


def test_missing_recorded_interpreter_fails(engram_home, capsys):
    (engram_home / "python").write_text("/nonexistent/python3\n")
    code, lines = doctor(capsys)
    assert code == 1 and any("/nonexistent/python3" in x for x in lines["FAIL"])


def test_plugin_and_settings_together_warn(home, capsys):
    from testing.helpers import PLUGIN
    from testing.settings import claude_plugin

    main(["install", "--harness", "claude-code"])
    claude_plugin(home, PLUGIN)
    capsys.readouterr()
    code, lines = doctor(capsys)
    (twice,) = [x for x in lines["WARN"] if "runs twice" in x]
    assert code == 0 and "engram@engram (user scope)" in twice
    assert "engram uninstall --harness claude-code" in lines["_all"][0]


def test_an_enabled_plugin_is_recognised_and_engram_install_not_advised(home, capsys):
    """Issue 24, item 8: with the plugin on, doctor advised `engram install`, the double install."""
    from testing.helpers import PLUGIN
    from testing.settings import claude_plugin

    claude_plugin(home, PLUGIN)
    main(["install", "--plugin"])
    capsys.readouterr()
    code, lines = doctor(capsys)
    out = lines["_all"][0]
    assert code == 0 and "engram install --harness claude-code" not in out and "runs twice" not in out
    (claude,) = [x for x in lines["OK"] if x.startswith("OK    Claude Code ")]
    assert "runs as the Claude Code plugin engram@engram (user scope)" in claude
    assert any("MCP Claude Code" in x and "declares engram's MCP server" in x for x in lines["OK"])


@pytest.mark.parametrize("case", ["disabled", "another tool's plugin called engram", "another project's"])
def test_a_plugin_that_is_not_engrams_or_not_on_here_is_not_taken_for_it(home, capsys, tmp_path, case):
    from testing.helpers import PLUGIN
    from testing.settings import claude_plugin

    if case == "disabled":
        claude_plugin(home, PLUGIN, enabled=False)
    elif case == "another project's":
        (tmp_path / "other" / ".git").mkdir(parents=True)
        claude_plugin(home, PLUGIN, scope="project", project=tmp_path / "other")
    else:
        other = tmp_path / "other-engram"
        (other / "scripts").mkdir(parents=True)
        (other / "scripts" / "session-start.sh").write_text("#!/bin/sh\n")
        claude_plugin(home, other)
    code, lines = doctor(capsys)
    (claude,) = [x for x in lines["OK"] if x.startswith("OK    Claude Code ")]
    assert "found; engram is not registered" in claude


def test_a_project_scope_plugin_counts_in_its_project(home, capsys, tmp_path):
    from testing.helpers import PLUGIN
    from testing.settings import claude_plugin

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    claude_plugin(home, PLUGIN, scope="project", project=proj)
    code, lines = doctor(capsys, "--project", str(proj))
    assert any("runs as the Claude Code plugin engram@engram (project scope)" in x for x in lines["OK"])


def test_a_default_install_says_nothing_about_keys_it_never_asked_for(home, capsys, engram_home, monkeypatch):
    """Finding 8: the spec's default embeddingProvider without VOYAGE_API_KEY is no warning,
    in doctor or status (no key is set, so nothing can reach a network either way)."""
    monkeypatch.delenv("ENGRAM_OFFLINE")
    main(["install"])  # Claude Code only; ~/.codex, ~/.gemini and ~/.gsd exist in this home, so they are "found"
    capsys.readouterr()
    code, lines = doctor(capsys)
    out = lines["_all"][0]
    assert "VOYAGE_API_KEY" not in out and "needs" not in out
    assert main(["status"]) == 0
    assert "VOYAGE_API_KEY" not in capsys.readouterr().out
    (engram_home / "config.json").write_text('{"embeddingProvider": "voyage"}')  # asked for: now it is said
    assert main(["status"]) == 0
    assert "neither ENGRAM_VOYAGE_API_KEY nor VOYAGE_API_KEY is set" in capsys.readouterr().out
    code, lines = doctor(capsys)
    assert any("VOYAGE_API_KEY" in x for x in lines["WARN"])


def test_doctor_lists_only_harnesses_found_or_installed(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # none of the harness CLIs
    code, lines = doctor(capsys)
    out = lines["_all"][0]
    for label in ("Claude Code", "Codex CLI", "Gemini CLI", "GSD 2"):
        assert label not in out
    assert "fix:" not in "\n".join(lines.get("OK", []))
    (tmp_path / "user-home" / ".codex").mkdir()
    code, lines = doctor(capsys)
    (codex,) = [x for x in lines["OK"] if "Codex CLI" in x]
    assert "found; engram is not registered" in codex
