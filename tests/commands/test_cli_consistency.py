"""One CLI (issue 15, finding 7): one --project option, an example in every --help, human
output with --json where the output is data, one-line errors for unknown sessions and bad paths."""

from __future__ import annotations

import argparse
import json
import os

import pytest
from testing.evaluation import shop_history

from engram import config
from engram.cli import build_parser, main

NO_PROJECT = {"demo", "eval"}  # the demo builds its own project; eval replays transcripts into a temporary home


def verbs() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


@pytest.mark.parametrize("verb", sorted(verbs()))
def test_every_verb_has_an_example_and_the_one_project_option(verb):
    parser = verbs()[verb]
    text = parser.format_help()
    assert "example" in text.lower(), f"engram {verb} --help has no example"
    nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for p in [q for a in nested for q in a.choices.values()] or [parser]:  # `engram memory list`: on each action
        options = {s for a in p._actions for s in a.option_strings}
        if verb not in NO_PROJECT:
            assert "--project" in options and "--cwd" in options  # --cwd: the hidden alias of earlier versions
        assert "--cwd" not in p.format_help()
    assert "--cwd" not in text


@pytest.mark.parametrize("argv", [["query", "x"], ["status"], ["show", "x"], ["maintain"], ["consolidate"],
                                  ["decide", "Use X"], ["forget", "something"], ["export"], ["import", "x"],
                                  ["backfill"], ["doctor"], ["install"], ["uninstall"], ["mcp"], ["worker"],
                                  ["memory", "list"], ["view"], ["export", "--to", "CLAUDE.md"]])
def test_a_project_that_does_not_exist_is_a_one_line_error(argv, tmp_path, capsys, engram_home):
    missing = str(tmp_path / "no-such-dir")
    assert main([*argv, "--project", missing]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"Error: --project {missing}: no such directory, and engram has no memory of it"]
    assert not os.path.exists(engram_home / "projects")  # nothing filed under the mistyped path


def test_consolidate_an_unknown_session_is_an_error(tmp_path, capsys):
    root = tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    assert main(["consolidate", "--session", "nope", "--project", str(root)]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("Error: no session 'nope' in ") and "does not exist" in line


@pytest.fixture
def shop(tmp_path):
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    history = tmp_path / "history"
    shop_history(str(history), str(root))
    return str(root), str(history)


def test_consolidate_and_backfill_print_sentences_not_dicts(shop, capsys, monkeypatch):
    root, history = shop
    assert main(["backfill", history, "--wait"]) == 0
    out = capsys.readouterr()
    assert "{" not in out.out + out.err and "created" in out.err
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    from testing.helpers import payload, run_hook

    run_hook("UserPromptSubmit", payload("UserPromptSubmit", "more", root, prompt="add a cart total"))
    assert main(["consolidate", "--project", root, "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["session"] == "more" and row["status"] == "consolidated"


def test_backfill_progress_reports_on_the_projects_of_dir(shop, tmp_path, capsys):
    root, history = shop
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    config.Project.from_cwd(str(other)).ensure()
    main(["backfill", history])
    capsys.readouterr()
    assert main(["backfill", history, "--progress"]) == 0
    out = capsys.readouterr().out
    assert config.Project.from_cwd(root).root in out and str(other) not in out


def test_export_defaults_under_engram_home_and_refuses_a_file(shop, tmp_path, capsys, engram_home, monkeypatch):
    root, history = shop
    main(["backfill", history])
    monkeypatch.chdir(root)
    capsys.readouterr()
    assert main(["export"]) == 0
    assert os.listdir(root) == [".git"]  # nothing written into the user's repository
    (made,) = os.listdir(engram_home / "exports")
    assert made.startswith("shop-") and (engram_home / "exports" / made / "graph.json").is_file()
    a_file = tmp_path / "passwd"
    a_file.write_text("root:x:0:0\n")
    assert main(["export", str(a_file)]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        f"Error: {a_file}: exists and is not a directory; name a new or empty directory"]
    assert main(["export", str(tmp_path / "nowhere" / "deeper")]) == 1
    assert "does not exist; create it first" in capsys.readouterr().err


def test_hidden_cwd_alias_still_works(shop, capsys):
    root, history = shop
    assert main(["backfill", history]) == 0
    capsys.readouterr()
    assert main(["status", "--cwd", root, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["projects"][0]["root"] == config.Project.from_cwd(root).root



def test_a_verb_imports_its_own_module_and_help_lists_every_verb(tmp_path, engram_home, capsys):
    """`engram query` paid ~45 ms for every command module, their parsers and the provider registry."""
    import subprocess
    import sys

    from engram.cli import VERBS

    root = tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    code = ("import sys; from engram.cli import main; main(sys.argv[1:]); "
            "sys.stderr.write(' '.join(sorted(sys.modules)))")
    run = subprocess.run([sys.executable, "-c", code, "query", "retry", "--project", str(root)],
                         capture_output=True, text=True, check=True)  # fmt: skip
    imported = set(run.stderr.split())
    assert {m for m in imported if m.startswith("engram.commands.")} == {"engram.commands.query"}
    assert "engram.providers.registry" not in imported and "engram.graph.vectors" not in imported
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = capsys.readouterr().out
    assert all(f"    {verb} " in listed or f"    {verb}\n" in listed for verb in VERBS)


@pytest.mark.parametrize("extra", [[], ["--json"]])
@pytest.mark.parametrize("session", ["nope", "../etc"])
def test_status_of_an_unknown_session_is_one_line_on_stderr(extra, session, tmp_path, capsys, engram_home):
    root = tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    assert main(["status", "--session", session, "--project", str(root), *extra]) == 1
    out = capsys.readouterr()
    assert out.out == ""
    (line,) = out.err.strip().splitlines()
    assert line.startswith("Error: ") and session in line


@pytest.mark.parametrize("kind", ["file", "empty folder", "folder of other files"])
def test_backfill_of_something_that_is_not_transcripts_is_an_error(kind, tmp_path, capsys, engram_home):
    target = tmp_path / "target"
    if kind == "file":
        target.write_text("root:x:0:0:root:/root:/bin/bash\n")  # /etc/passwd
    else:
        target.mkdir()
        if kind == "folder of other files":
            (target / "notes.txt").write_text("hello\n")
    assert main(["backfill", str(target)]) == 1
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.strip().splitlines() == [
        f"Error: {target}: not a Claude Code transcript (.jsonl) or a folder of them; pass "
        f"{os.path.join('~', '.claude', 'projects', '<project>')} or one of its .jsonl files"]
    assert not os.path.exists(engram_home / "projects")


@pytest.mark.parametrize("failure", ["os error", "database error"])
def test_os_and_database_errors_name_engram_doctor_runnably(failure, tmp_path, engram_home):
    """With engram off PATH (after `make`), a bare `engram doctor` hint is a command that does not run."""
    import subprocess
    import sys

    root = tmp_path / "p"
    (root / ".git").mkdir(parents=True)
    env = dict(os.environ, PATH="/usr/bin:/bin")
    if failure == "os error":  # ENGRAM_HOME below a regular file: ENOTDIR on the first write
        (tmp_path / "a-file").write_text("")
        env["ENGRAM_HOME"] = str(tmp_path / "a-file" / "home")
        argv = ["decide", "Use SQLite", "--project", str(root)]
    else:
        db = config.Project.from_cwd(str(root)).ensure().db_path
        with open(db, "w") as f:
            f.write("not a database, " * 64)
        argv = ["query", "anything", "--project", str(root)]
    run = subprocess.run([sys.executable, "-m", "engram", *argv], env=env, capture_output=True, text=True)
    assert run.returncode == 1 and run.stdout == ""
    (line,) = run.stderr.strip().splitlines()
    command = subprocess.run([sys.executable, "-c", "from engram.commands import engram_command as c; print(c())"],
                             env=env, capture_output=True, text=True).stdout.strip()  # fmt: skip
    assert command != "engram" and f"`{command} doctor`" in line


@pytest.mark.parametrize("columns", [None, "10", "57", "200", "x", "-3"])
def test_the_help_is_argparse_s_own_at_every_width(monkeypatch, columns):
    """engram.cli.Parser gives the help formatter the width argparse's default measures with
    shutil (issue 28): every verb's help and usage are the same text as a plain parser's."""
    import argparse

    from engram import cli

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    ours, parser_class = cli.build_parser([]), cli.Parser
    monkeypatch.setattr(cli, "Parser", argparse.ArgumentParser)
    plain = cli.build_parser([])
    assert ours.format_help() == plain.format_help() and ours.format_usage() == plain.format_usage()
    for verb in cli.VERBS:
        a, b = (next(act for act in p._actions if isinstance(act, argparse._SubParsersAction)).choices[verb]
                for p in (ours, plain))
        assert type(a) is parser_class and a.format_help() == b.format_help()
