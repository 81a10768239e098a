"""`engram doctor` and other tools called engram (issue 24, item 11): a command of that name
first on PATH, a database of theirs in engram's data folder."""

from __future__ import annotations

import os
import sys

import pytest
from testing.helpers import payload, run_hook

from engram.cli import main
from engram.commands import engram_command

OWN = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), "engram")  # this checkout's .venv/bin/engram


def doctor_lines(capsys, name: str) -> list[str]:
    main(["doctor"])
    return [line for line in capsys.readouterr().out.splitlines() if line[6:].startswith(name + " ")]


def on_path(monkeypatch, tmp_path, body: bytes | None = None, link: bool = False) -> str:
    """An `engram` in a folder put first on PATH: `body` written there, or a link to this one."""
    folder = tmp_path / "first-on-path"
    folder.mkdir()
    path = folder / "engram"
    if link:
        path.symlink_to(OWN)
    else:
        path.write_bytes(body or b"")
        os.chmod(path, 0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}/usr/bin:/bin")
    return str(path)


@pytest.mark.parametrize("body, said", [
    (b"\x7fELF\x02\x01\x01" + b"\0" * 64, "a program, not a script of engram's"),  # the Go binary brew installs
    (b"#!/usr/bin/env node\nrequire('engram-mcp')\n", "a script run by /usr/bin/env node"),
    (b"#!/opt/other/venv/bin/python3\nfrom engram.cli import run\nrun()\n",  # another Python package called engram
     "a script run by /opt/other/venv/bin/python3"),
])
def test_another_engram_first_on_path_is_named_and_hints_use_this_ones_path(monkeypatch, tmp_path, capsys, body, said):
    found = on_path(monkeypatch, tmp_path, body)
    (line,) = doctor_lines(capsys, "command")
    assert line.startswith("WARN") and f"the `engram` first on PATH, {found}, is {said}" in line
    assert f"not this installation ({OWN})" in line
    assert engram_command() == OWN  # so every hint engram prints runs this installation, not that one


@pytest.mark.parametrize("how", ["link", "script"])
def test_this_installation_on_path_is_ok(monkeypatch, tmp_path, capsys, how):
    """A pipx-style link to this installation's script, or a script this interpreter runs."""
    body = f"#!{os.path.abspath(sys.executable)}\nfrom engram.cli import main\nmain()\n".encode()
    found = on_path(monkeypatch, tmp_path, body, link=how == "link")
    (line,) = doctor_lines(capsys, "command")
    assert line.startswith("OK") and f"`engram` on PATH is this installation ({found})" in line
    assert engram_command() == "engram"


def test_no_engram_on_path_is_ok(monkeypatch, capsys):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    (line,) = doctor_lines(capsys, "command")
    assert line.startswith("OK") and f"not on PATH; engram's hints name {OWN}" in line


def test_another_tools_database_in_the_data_dir_is_said(engram_home, capsys):
    main(["install", "--plugin"])
    capsys.readouterr()
    assert not any("another tool" in x for x in doctor_lines(capsys, "data dir"))
    (engram_home / "engram.db").write_bytes(b"SQLite format 3\0" + b"\0" * 84)
    (shared,) = [x for x in doctor_lines(capsys, "data dir") if "another tool" in x]
    assert shared.startswith("WARN") and f"{engram_home / 'engram.db'} is not engram's" in shared


def test_engram_never_writes_a_database_at_the_top_of_its_data_dir(engram_home, tmp_path):
    """So one there is another tool's: engram's are per project, under projects/."""
    proj = tmp_path / "p"
    (proj / ".git").mkdir(parents=True)
    assert main(["install", "--plugin"]) == 0
    assert main(["decide", "Use SQLite for the job queue", "--project", str(proj)]) == 0
    run_hook("UserPromptSubmit", payload("UserPromptSubmit", "s1", proj, prompt="hello"))
    assert list(engram_home.glob("projects/*/engram.db")) and not (engram_home / "engram.db").exists()
