"""Programs the shell could not find (consolidate/knowledge/environment.py)."""

from __future__ import annotations

import pytest

from engram.consolidate.knowledge import environment


def _shell(seq: int, command: str, code: int | None = 1, output: str = "") -> dict:
    return {"seq": seq, "type": "command", "command": command, "exit_code": code, "output": output}


@pytest.mark.parametrize("command,output,program", [
    ("psql -h db -c 'select 1'", "bash: psql: command not found", "psql"),
    ("cat a.log | head -5", "/bin/bash: line 1: head: command not found", "head"),
    ("timeout 5 ./run.sh", "zsh: command not found: timeout", "timeout"),
    ("docker-compose up -d", "sh: 1: docker-compose: not found", "docker-compose"),
    ("choco --version", "choco : The term 'choco' is not recognized as the name of a cmdlet, function", "choco"),
    ("psql -f x.sql", "'psql' is not recognized as an internal or external command,\noperable program", "psql"),
    ("./build.sh", "./build.sh: line 3: protoc: command not found", ""),  # the script looked for it, not the line
    ("make test", "make: *** No rule to make target 'test'.  Stop.", ""),
    # a script run by its path that is not there (zsh, bash); a file a command reads is not the line's program
    ("scripts/todo-kanban.sh --validate-only TODO.md 2>&1", "(eval):1: no such file or directory: scripts/todo-kanban.sh",
     "scripts/todo-kanban.sh"),
    ("./gen.sh && make", "bash: ./gen.sh: No such file or directory", "./gen.sh"),
    ("cat docs/a.md", "cat: docs/a.md: No such file or directory", ""),
])
def test_the_program_the_command_line_ran_and_its_shell_missed(command, output, program):
    assert environment.not_found(_shell(1, command, 127, output)) == program


def test_a_program_that_runs_later_in_the_range_is_no_fact():
    events = [_shell(1, "psql -c 'select 1'", 127, "bash: psql: command not found"),
              _shell(2, "export PATH=/usr/lib/postgresql/16/bin:$PATH && psql -c 'select 1'", 0, " 1")]
    assert environment.missing_programs(events) == []


def test_an_unknown_status_without_the_error_counts_as_run():
    events = [_shell(1, "psql -c 'select 1'", None, "'psql' is not recognized as an internal or external command"),
              _shell(2, "psql -c 'select 1'", None, " ?column? \n 1")]
    assert environment.missing_programs(events) == []


def test_a_failure_a_gotcha_explains_is_left_to_it():
    events = [_shell(1, "minsky git pr", 127, "bash: minsky: command not found")]
    assert [m["program"] for m in environment.missing_programs(events)] == ["minsky"]
    assert environment.missing_programs(events, explained={1}) == []


def test_found_programs_leaves_out_one_whose_shell_missed_it():
    events = [_shell(1, "psql -c 'select 1' | head -1", 0, "bash: psql: command not found"),
              _shell(2, "git status", 0, "clean")]
    assert environment.found_programs(events) == {"head", "git"}


@pytest.mark.parametrize("command,output,hit", [
    ("sed -n '1,9p' a.go | cat -A", "cat: illegal option -- A\nusage: cat [-belnstuv] [file ...]", ("cat", "-A")),
    ("grep -P 'x+' a.txt", "grep: invalid option -- 'P'\nusage: grep [-abcdDEFGHhIiJLlMmnOopqRSsUVvwXxZz]", ("grep", "-P")),
    ("ls --color=auto", "/bin/ls: unrecognized option '--color=auto'", ("ls", "--color")),
    ("./run.sh", "sed: illegal option -- r", None),  # a script's sed, not the line's
])
def test_an_option_the_line_gave_its_program_and_the_program_refused(command, output, hit):
    assert environment.refused_option(_shell(1, command, 1, output)) == hit


def test_a_refused_option_is_a_fact_until_the_option_runs():
    refused = _shell(1, "sed -n '637,640p' view.go | cat -A", 1, "cat: illegal option -- A")
    (fact,) = environment.refused_options([refused])
    assert (fact["program"], fact["option"], fact["error"]) == ("cat", "-A", "cat: illegal option -- A")
    assert environment.refused_options([refused, _shell(2, "cat -A view.go", 0, "x$")]) == []
    assert environment.refused_options([refused], explained={1}) == []
    assert ("cat", "-A") in environment.options_that_ran([_shell(3, "cat -A view.go", 0, "x$")])


def test_a_line_the_parser_cannot_split_names_no_program_and_no_option():
    """Pieces of a line the parser cannot split (a sed script with `;` and `{}` inside a shell
    function, a grep pattern of escaped quotes) are no program a `missing:` or `refused:` fact
    could name (sshbbs: a 580-character "program" failed its session's change request)."""
    function = ("render() {\n  local file=$1\n  uvx --quiet pyfiglet -f standard \"$w\" | "
                "sed -e ':a;/^[[:space:]]*$/{$d;N;ba}' > \"$file\"\n  printf \"\\n%s\\n\" \"$t\" >> \"$file\"\n"
                "  cat -An \"$file\"\n}\nrender Welcome")
    grep = 'grep -rn "\\"推\\\\|\\"\\\\[箭\\\\|\\"\\\\[M\\\\]" internal/tui/ internal/store/ 2>/dev/null'
    events = [_shell(1, function, 0, "ok"), _shell(2, grep, 0, "")]
    from engram.capture import commandline as cl
    assert any(" " in p for c in (function, grep) for p in cl.programs(c))  # what the parser yields
    assert all(" " not in p and len(p) <= 100 for p in environment.found_programs(events))
    assert all(" " not in p + o for p, o in environment.options_that_ran(events))
