"""Command lines as knowledge: normalised, canonical, by purpose; commands that work; gotchas."""

from __future__ import annotations

import pytest

from engram.capture import commandline as cl
from engram.consolidate.knowledge import commands


@pytest.mark.parametrize("line,parts", [
    ("cd app && npm run build 2>&1 | tail -5", ["npm run build"]),
    ('git commit -m "a && b" && git push', ["git commit -m …", "git push"]),
    ("API_TOKEN=abc123 make deploy > out.log", ["make deploy"]),
    ("echo start; pytest -q -k retry; sleep 1", ["pytest -q -k retry"]),
    ("npm run lint && npm test -- --run | grep FAIL", ["npm run lint", "npm test -- --run"]),
    ("git add \\\n  src/a.ts \\\n  src/b.ts && git status", ["git add src/a.ts src/b.ts", "git status"]),  # continued lines
    ('$env:DOTNET_ENVIRONMENT="Development"; dotnet run --yes', ["DOTNET_ENVIRONMENT=Development dotnet run --yes"]),
    ("export RUST_LOG=debug && cargo run && cargo test", ["RUST_LOG=debug cargo run", "RUST_LOG=debug cargo test"]),
    ("export API_KEY=abc123 && make deploy", ["make deploy"]),  # a secret-looking variable is dropped
    ("dotnet build -c Release | Select-Object -First 50", ["dotnet build -c Release"]),  # PowerShell's filters
])
def test_normalise_keeps_the_meaningful_parts(line, parts):
    assert cl.normalise(line) == parts


@pytest.mark.parametrize("part,canon,purpose", [
    ('npm run test:offline -- test/a.test.ts -t "creates a record"', "npm run test:offline", "test"),
    ("python -m pytest tests/test_x.py -q -k empty", "python -m pytest -q", "test"),
    ("npx vitest run src/a.test.ts --reporter=verbose", "npx vitest run", "test"),
    ("npm run build", "npm run build", "build"),
    ("npx tsc --noEmit", "npx tsc --noEmit", "lint"),
    ("npm run check:format", "npm run check:format", "format"),
    ("ruff check src/", "ruff check", "lint"),
    ("npm install", "npm install", "setup"),
    ("./scripts/deploy.sh --dry-run", "./scripts/deploy.sh --dry-run", "run"),
    ("git status", "git status", ""),
    ("node scratch.js", "node scratch.js", ""),  # the file an interpreter runs is what it runs
    ("bun run src/cli.ts git pr --path .", "bun run src/cli.ts git pr --path .", "run"),  # not `bun run git pr`
    ("go run ./cmd/app npm:react", "go run ./cmd/app npm:react", "run"),
    ("pnpm --dir /home/u/app lint -- src/a.test.tsx", "pnpm lint", "lint"),  # the place goes with its option
    ("docker compose -f deploy/compose.yml up", "docker compose up", "run"),
    ("pytest -x tests/test_a.py", "pytest -x", "test"),  # a flag stays: only a place option takes the path
    ("go build -o /tmp/app ./cmd/app", "go build", "build"),
    ("rg -n ParseGameFormatTags", "rg -n ParseGameFormatTags", ""),  # a word holding "Format" formats nothing
    ("Get-ChildItem", "Get-ChildItem", ""),  # a PowerShell cmdlet is the shell's
    ("npx oxlint src", "npx oxlint src", "lint"),
    ("dotnet ef database update --connection \"Host=db;Port=5432\"", "dotnet ef database update", "run"),
    ("dotnet ef database update --startup-project ../Api", "dotnet ef database update", "run"),
    # a single-dash option with a quoted value goes with it: `-destination build` would run on "build"
    ("xcodebuild -scheme App -destination 'platform=iOS Simulator,name=iPhone 17' build",
     "xcodebuild -scheme App build", "build"),
])
def test_canonical_form_and_purpose(part, canon, purpose):
    assert cl.canonical(part) == canon
    assert cl.purpose(part) == purpose


def test_error_signature_takes_the_first_error_line_and_the_list_it_opens():
    out = ("Already on 'main'\nerror: Your local changes to the following files would be overwritten by checkout:\n"
           "\tlogs/a.json\n\tlogs/b.json\nPlease commit your changes or stash them.\nAborting")
    assert cl.error_signature(out).startswith(
        "error: Your local changes to the following files would be overwritten by checkout: logs/a.json logs/b.json")
    assert cl.error_signature("all good\nlast line") == "last line"


def test_pytests_e_lines_say_what_failed_and_its_location_line_does_not():
    out = ("    def run(self):\n>       raise OperationalError\n"
           "E               sqlite3.OperationalError: table user_profiles has no column named first_name\n\n"
           ".venv/lib/python3.13/site-packages/aiosqlite/core.py:105: OperationalError")
    assert cl.first_error(out) == "sqlite3.OperationalError: table user_profiles has no column named first_name"


@pytest.mark.parametrize("output,line", [
    # biome: the code it quotes ("Files identical (no conflict)") is not what failed
    ("$ biome check\n at src/x.ts format ━━━━\n  × Formatter would have printed the following content:\n"
     "    203 189 │   log(`Files identical (no conflict)`),\n  > 60 │ useEffect(\nFound 4 errors.", "Found 4 errors."),
    # ruff, both layouts: the rule and its message
    ("E501 Line too long (99 > 88)\n  --> src/graph.py:47:89\n   |\n46 | # Error routing:\n   |\nFound 9 errors.",
     "E501 Line too long (99 > 88)"),
    ("src/graph.py:47:89: E501 Line too long (99 > 88)\nFound 9 errors (2 fixed, 7 remaining).",
     "src/graph.py:47:89: E501 Line too long (99 > 88)"),
    # turbo's closing line says only the exit status
    ("$ doppler run -- turbo run test\nDoppler Error: Could not find requested project 'chkit'\n"
     " ERROR  run failed: command  exited (1)", "Doppler Error: Could not find requested project 'chkit'"),
    # rustc: the verdict, not the source line under its gutter
    ("error[E0425]: cannot find value `x`\n --> src/main.rs:2:5\n  |\n2 |     x + 1 // error here", "error[E0425]: cannot find value `x`"),
])
def test_the_first_error_line_is_the_verdict_not_the_code_a_diagnostic_quotes(output, line):
    assert cl.first_error(output) == line


def _shell(seq: int, command: str, code: int = 0, output: str = "", type: str = "command", **kw) -> dict:
    return {"seq": seq, "type": type, "command": command, "exit_code": code, "output": output,
            "ts": "2026-11-30T10:00:00Z", **kw}


def test_project_commands_that_ran_with_their_narrower_example():
    events = [_shell(1, "cd app && npm run build 2>&1 | tail -3", type="build"),
              _shell(2, "npm run test:offline -- test/a.test.ts", type="test_run", recognized=True, passed=3, failed=1,
                     outcome="fail"),
              _shell(3, "npm test x.test.ts", 1, "sh: vitest: command not found", type="test_run", recognized=False),
              _shell(4, "git status"), _shell(5, "npm run build --help", type="build")]
    found = commands.project_commands(events)
    assert set(found) == {"npm run build", "npm run test:offline"}  # failing tests: the command still works
    assert found["npm run test:offline"]["example"] == "npm run test:offline -- test/a.test.ts"
    assert found["npm run build"]["purpose"] == "build" and found["npm run build"]["last_ts"] == "2026-11-30"


def test_a_filtered_zero_exit_with_errors_in_its_output_did_not_work():
    events = [_shell(1, "npm run build 2>&1 | tail -2", 0, "src/a.ts(3,1): error TS2307: Cannot find module", type="build")]
    assert commands.project_commands(events) == {}


def test_a_command_that_stopped_working_is_retired_by_the_variant_that_works():
    events = [_shell(1, "npm test a.test.ts", 1, "sh: vitest: command not found", type="test_run", recognized=False),
              _shell(2, "npx vitest run a.test.ts", type="test_run", recognized=True, passed=2, failed=0)]
    working = commands.project_commands(events)
    assert commands.retired_commands(events, working) == {"npm test": "npx vitest run"}


def test_a_task_that_stopped_working_is_retired_only_by_the_same_task():
    """"run" is any task: `./deploy.sh` failing is not undone by `go run ./cmd/app` working."""
    events = [_shell(1, "./deploy.sh release", 0, "deployed"), _shell(2, "./deploy.sh release", 1, "bash: xcrun: command not found"),
              _shell(3, "go run ./cmd/app", 0, "ok"), _shell(4, "./deploy.sh release --no-upload", 0, "ok")]
    working = commands.project_commands(events[:3])
    assert commands.retired_commands(events[:3], working) == {}
    working = commands.project_commands(events)
    assert commands.retired_commands(events, working) == {"./deploy.sh release": "./deploy.sh release --no-upload"}


def test_a_gotcha_is_a_failure_and_the_variant_that_worked_after_the_last_repeat():
    blocked = "error: Your local changes to the following files would be overwritten by checkout:\n\tlogs/a.json"
    events = [_shell(1, "git checkout main", 1, blocked), _shell(2, "git stash"),
              _shell(3, "git checkout main", 1, blocked), _shell(4, "git checkout -- logs/a.json"),
              _shell(5, "git checkout main", 1, blocked), _shell(6, "git checkout -f main")]
    (g,) = commands.gotchas(events)
    assert g["command"] == "git checkout main" and g["times"] == 3 and g["worked"] == "git checkout -f main"
    assert "would be overwritten by checkout: logs/a.json" in g["error"]


def test_a_repeated_failure_without_a_fix_is_a_gotcha_a_single_one_is_not():
    hook = "Bash operation blocked by hook:\n- BLOCKED: Dangerous rm command detected"
    assert commands.gotchas([_shell(1, "rm a.js", 1, hook)]) == []
    (g,) = commands.gotchas([_shell(1, "rm a.js", 1, hook), _shell(2, "rm -f a.js", 1, hook)])
    assert g["times"] == 2 and not g["worked"] and "blocked by hook" in g["error"]


def test_failing_tests_and_compile_errors_are_the_codes_problems_not_gotchas():
    events = [_shell(1, "pytest -q", 1, "1 failed", type="test_run", recognized=True, passed=0, failed=1),
              _shell(2, "make", 2, "src/a.c:3: error: expected ';'\nsrc/a.ts(1,1): error TS1005", type="build"),
              _shell(3, "pytest -q -x", 0, "2 passed", type="test_run", recognized=True, passed=2, failed=0)]
    assert commands.gotchas(events) == []


@pytest.mark.parametrize("command,output", [
    ("go build ./...", "# example.com/app\n./main.go:12:5: undefined: foo"),  # no error word: its place says it
    ("./mvnw compile", "[ERROR] COMPILATION ERROR :\n[ERROR] /src/App.java:[12,5] cannot find symbol"),
    ("./gradlew assembleDebug", "e: file:///app/Main.kt:12:5 Unresolved reference: foo\nCompilation failed"),
    ("npm run build", "Failed to compile.\n./app/page.tsx:3:1\nType error: Cannot find name 'x'."),
    ("dotnet build", "Program.cs(3,4): error CS1002: ; expected\n\nBuild FAILED."),
])
def test_a_compiler_reporting_what_it_found_in_the_code_failed_on_the_code(command, output):
    assert commands.code_failure(_shell(1, command, 1, output, type="build"))


LONG_STATUS = ("On branch main\nChanges to be committed:\n\tnew file:   src/a.ts\n\nUntracked files:\n"
               '  (use "git add <file>..." to include in what will be committed)\n\t.claude/settings.json\n'
               "\t.entire/.gitignore\n\t.entire/settings.json\n\tsrc/a.ts\n\tnotes.md\n\n")


def test_paths_seen_untracked_before_a_commit_that_went_through_without_them_are_kept_out():
    events = [_shell(1, "git status", 0, LONG_STATUS), _shell(2, "git add src/a.ts"),
              _shell(3, 'git commit -m "a"', 0, "[main 1a2b3c4] a"), _shell(4, "git add notes.md"),
              _shell(5, 'git commit -m "notes"', 0, "[main 5d6e7f8] notes")]
    kept = commands.left_untracked(events)
    assert [k["path"] for k in kept] == [".claude/settings.json", ".entire/"]  # notes.md was committed after
    assert kept[0]["evidence"] == [1, 3]
    porcelain = [_shell(1, "git status --short", 0, "?? baseline.ci_check.json\n M src/a.ts\n"),
                 _shell(2, "git commit -am wip", 0, "[main 1a2b3c4] wip")]
    assert [k["path"] for k in commands.left_untracked(porcelain)] == ["baseline.ci_check.json"]


@pytest.mark.parametrize("later", [
    _shell(2, "git add ."),  # staged in bulk
    _shell(2, "git add src/a.ts .claude .entire/ notes.md"),  # each named
    _shell(2, "git add src/a.ts [...] notes.md", truncated={"command": 4000}),  # what it named is not all known
    _shell(2, 'git commit -m "a"', 1, "pre-commit hook failed"),  # the commit did not go through
])
def test_untracked_paths_a_commit_may_have_taken_are_not_kept_out(later):
    events = [_shell(1, "git status", 0, LONG_STATUS), later]
    if later["command"].startswith("git add"):
        events.append(_shell(3, 'git commit -m "a"', 0, "[main 1a2b3c4] a"))
    assert commands.left_untracked(events) == []


def test_paths_unstaged_after_a_bulk_add_are_kept_out_of_commits():
    events = [_shell(1, "git add -A"), _shell(2, "git restore --staged logs/ src/feature.ts"),
              _shell(3, 'git commit -m "x"'), _shell(4, "git reset dist/")]
    assert [k["path"] for k in commands.kept_out_of_commits(events)] == ["logs/"]


@pytest.mark.parametrize("command, ops", [
    ("git mv src/a.py src/b.py", [("mv", "src/a.py", "src/b.py")]),
    ("rm -f a.py b.py && cd sub", [("rm", "a.py", ""), ("rm", "b.py", ""), ("cd", "sub", "")]),
    ("mv a.py b.py lib", [("mv", "a.py", "lib/"), ("mv", "b.py", "lib/")]),  # several sources: a directory
    ('mv "my file.py" docs/', [("mv", "my file.py", "docs/")]),
    ("sudo git rm -r old/ > /dev/null", [("rm", "old/", "")]),
    ("git rm --cached secrets.env", []),  # the file stays on disk
    ("rm *.pyc", []), ("rm $TMP/x", []), ("find . -name x | xargs rm", []), ("mv -t dir a b", []),
    ("cd $HOME && rm a.py", [("cd", "$HOME", ""), ("rm", "a.py", "")]),  # the caller cannot place a.py
])
def test_what_a_command_line_does_to_files(command, ops):
    assert cl.file_ops(command) == ops


VITEST = """
> attio-mcp@0.2.0 test:offline
> vitest --config vitest.config.offline.ts test/utils/error-sanitizer.test.ts

 RUN  v3.2.4 /repo

 \u2713 test/utils/error-sanitizer.test.ts > Error Sanitizer > sanitizeErrorMessage > should remove file paths 2ms
 \u00d7 test/utils/error-sanitizer.test.ts > Error Sanitizer > sanitizeErrorMessage > should keep codes 6ms
   \u2192 expected 'x' to be 'y'

 Test Files  1 failed (1)
      Tests  1 failed | 11 passed (12)
"""
JEST = """PASS src/errors/api-errors.test.ts
FAIL src/utils/error-sanitizer.test.ts
  \u25cf sanitize \u203a keeps codes

    expect(received).toBe(expected) // Object.is equality

Tests:       1 failed, 11 passed, 12 total
"""


@pytest.mark.parametrize("output,signature", [
    (VITEST, "\u00d7 test/utils/error-sanitizer.test.ts > Error Sanitizer > sanitizeErrorMessage > should keep codes"),
    (JEST, "Tests: 1 failed, 11 passed, 12 total"),
    ("ok 1 - error paths are handled\nnot ok 2 - totals\n  TypeError: total is not a function", "TypeError: total"),
    ("\u221a handles the errors/ folder\nsrc/ApiError.ts compiled\nfatal: not a git repository", "fatal: not a git"),
])
def test_error_signature_skips_passing_lines_and_error_words_inside_paths_or_names(output, signature):
    assert cl.error_signature(output).startswith(signature)


def test_failing_tests_behind_a_chained_build_are_the_codes_problem_not_a_gotcha():
    events = [_shell(1, "npm run build && npm run test:offline -- test/utils/error-sanitizer.test.ts", 1, VITEST,
                     type="build"),
              _shell(2, "npm test test/utils/batch-validation.test.ts", type="test_run", recognized=True, passed=3,
                     failed=0)]
    assert commands.gotchas(events) == []


@pytest.mark.parametrize("failed,error,worked,advertised", [
    ("git checkout -b fix/x", "fatal: a branch named 'fix/x' already exists", "git checkout fix/x", True),
    ("git checkout -b fix/x", "fatal: a branch named 'fix/x' already exists",
     "git branch -D fix/x && git checkout -b fix/x", False),  # deletes a branch: not a way round to advertise
    ("git stash pop", "error: Your local changes would be overwritten by merge", "git add -A && git stash drop",
     False),  # another command, and it drops the stash
    ("npm test test/a.test.ts", "sh: vitest: command not found", "npm run test:offline -- test/a.test.ts", True),
    ("npm run lint", "error: 3 problems", "npx prettier --write src/a.ts", False),  # another tool
    ("make test", "make: *** No rule to make target 'test'.  Stop.", "python -m unittest test_calc",
     True),  # make could not run the tests at all: the project's test command is the way round
    ("make test", "make: *** No rule to make target 'test'.  Stop.", "git status", False),
    ('git commit -m "x"', "husky - pre-commit script failed (code 1)", 'git commit --no-verify -m "x"', False),
    ("git checkout main", "error: Your local changes to logs/a.json would be overwritten",
     "git checkout -- logs/a.json && git checkout main", True),
    ("minsky git pr --path .", "bash: minsky: command not found", "bun run src/cli.ts git pr --path .",
     True),  # its program not found: the same arguments through another launcher
    ("minsky git pr --path .", "bash: minsky: command not found", "bun run src/cli.ts tasks list", False),
    ("git pr --path .", "error: unknown command pr", "hub pr --path .", False),  # git ran: not a missing program
    ("dotnet ef database drop --force --connection x", "Unrecognized option '--connection'", "dotnet run",
     False),  # "run" is any project task: another one is not a way round
    ("railway service create web", "error: unexpected argument 'web' found", "railway service --help",
     False),  # asking for help is not a way round
    ("gh pr create --repo o/shared --title x", 'head branch "main" is the same as base branch "main"',
     "gh pr create --title y", False),  # a PR in another repository: not a way round
    ("gh pr create -R o/shared --title x", "could not find any commits", "gh pr create -R o/shared --fill",
     True),
    ("uv run python scripts/e2e.py", "psycopg2.errors.UndefinedColumn: column \"x\" does not exist",
     "uv run python -c \"import sqlalchemy\"", False),  # inline code is not the script
    ("nix run nixpkgs#goreleaser -- check", "error=configuration is valid, but uses deprecated properties",
     "nix run nixpkgs#goreleaser -- release --snapshot", False),  # the program's other subcommand
    ("git -C /home/u/app add a.md", "bug: pre-commit's script is installed in migration mode",
     "git -C /home/u/dotfiles add b.md", False),  # another checkout
    ("git -C /home/u/app commit -m x", "bug: pre-commit's script is installed in migration mode",
     "git -C /home/u/app status", False),  # another subcommand: the folder is no subcommand
    ("git -C /home/u/app push", "error: failed to push some refs", "git -C /home/u/app/sub push --force-with-lease",
     True),
])
def test_a_gotchas_way_round_is_a_safe_variant_of_the_same_command_line(failed, error, worked, advertised):
    gs = commands.gotchas([_shell(1, failed, 1, error), _shell(2, worked)])
    assert [g["worked"] for g in gs] == ([" && ".join(cl.normalise(worked))] if advertised else [])


def test_failing_tests_a_filter_pipe_left_without_a_summary_are_the_codes_problem():
    out = (" \u2713 test/a.test.ts > totals > adds 1ms\n FAIL  test/a.test.ts > totals > rounds\n"
           " \u00d7 test/a.test.ts > totals > rounds 6ms")
    ev = _shell(1, 'npm run test:offline -- test/a.test.ts 2>&1 | grep -E "(FAIL|\u00d7)"', 0, out, type="test_run",
                recognized=False, outcome="fail")
    assert commands.code_failure(ev) and commands.gotchas([ev, dict(ev, seq=2)]) == []


def test_a_tool_refusing_an_option_inside_a_pipeline_is_the_gotcha_and_its_later_form_the_way_round():
    # the pipeline's status is sed's (0): cat's refusal shows only in the output
    events = [_shell(1, "cat -A src/app.tsx | sed -n '151,176p'", 0, "cat: illegal option -- A\nusage: cat [-belnstuv]"),
              _shell(2, "sed -n '151,176p' src/app.tsx | cat -v", 0, "\tconst x = 1;$")]
    [g] = commands.gotchas(events)
    assert (g["command"], g["worked"]) == ("cat -A src/app.tsx", "cat -v")
    assert g["error"].startswith("cat: illegal option -- A")
    # an option error naming a program the command line does not run: the command as a whole
    assert cl.blamed("npm run build", "tsc: unknown option --foo") == ""


def test_a_line_the_shell_could_not_parse_is_told_with_the_same_line_rewritten():
    sep = "The token '&&' is not a valid statement separator in this version."
    events = [_shell(1, 'cd tools/Drop && dotnet run', None, f"At line:1 char:15\n{sep}"),
              _shell(2, 'cd tools/Seed && dotnet ef database update', None, sep),
              _shell(3, 'cd tools/Seed/Seed ; dotnet ef database update', None, "Done."),
              _shell(4, 'cd tools/Drop/Drop ; dotnet run', None, "Dropped 12 tables.")]
    (g,) = commands.gotchas(events)
    # one gotcha for the shell's error, told with a failure and the rewrite of that same line
    assert (g["command"], g["worked"], g["times"]) == (
        "cd tools/Seed && dotnet ef database update", "cd tools/Seed/Seed ; dotnet ef database update", 2)


def test_a_command_that_works_keeps_the_folder_the_line_moved_to():
    root = "/home/u/shop"
    events = [_shell(1, f"cd {root}/services/api && uv run pytest tests/ -v", type="test_run", recognized=True,
                     passed=4, failed=0),
              _shell(2, "cd services/web && npm run build", type="build"),
              _shell(3, "cd ~/elsewhere && make lint")]
    found = commands.project_commands(events, root)
    assert {c: r["folder"] for c, r in found.items()} == {
        "uv run pytest -v": "services/api", "npm run build": "services/web", "make lint": ""}


def test_claude_codes_bash_keeps_its_folder_from_call_to_call():
    events = [dict(_shell(1, "cd services/api"), tool="Bash"),
              dict(_shell(2, "uv run pytest -q", type="test_run", recognized=True, passed=2, failed=0), tool="Bash")]
    assert commands.project_commands(events, "/r")["uv run pytest -q"]["folder"] == "services/api"
    other = [dict(e, tool="exec_command") for e in events]  # a fresh shell each call (Codex)
    assert commands.project_commands(other, "/r")["uv run pytest -q"]["folder"] == ""


def test_a_call_the_harness_cancelled_never_ran():
    sibling = "<tool_use_error>Sibling tool call errored</tool_use_error>"
    events = [dict(_shell(1, "uv run mypy src/app.py", 1, sibling), ok=False, error=sibling),
              dict(_shell(2, "uv run mypy src/app.py", 1, sibling), ok=False, error=sibling)]
    assert commands.shell_events(events) == [] and commands.gotchas(events) == []


def test_a_missing_filter_is_told_with_the_whole_line():
    events = [_shell(1, "go run claude_web.go 2>&1 | head -20", 127, "/bin/bash: line 1: head: command not found"),
              _shell(2, "go run claude_web.go 2>&1", 0, "listening on :8080")]
    (g,) = commands.gotchas(events)
    assert (g["command"], g["worked"]) == ("go run claude_web.go 2>&1 | head -20", "go run claude_web.go 2>&1")


def test_a_command_sent_to_the_background_is_not_known_to_work():
    """`cmd &` exits 0 when it is launched, whatever it does then: no way round, no working command."""
    events = [_shell(1, "go run claude_web.go 2>&1 | head -20", 127, "/bin/bash: line 1: head: command not found"),
              _shell(2, "go run claude_web.go & sleep 2", 0, "listening on :8080"),
              _shell(3, "npm run dev &", 0, "")]
    assert commands.gotchas(events) == []
    assert commands.project_commands(events) == {}


def test_the_failed_command_rerun_unchanged_with_more_after_it_is_no_way_round():
    """`ruff check .` failing, then `ruff check . && pytest` passing after code edits: the line
    did not change what passed; a step before it (`npm ci && npm test`) would be a way round."""
    events = [_shell(1, "uv run ruff check .", 1, "Found 2 errors."),
              _shell(2, "uv run ruff check . && uv run pytest -q", 0, "All checks passed!\n3 passed")]
    assert [g["worked"] for g in commands.gotchas(events)] == []
    events = [_shell(1, "npm test", 1, "Error: Cannot find module 'vitest'"),
              _shell(2, "npm ci && npm test", 0, "added 200 packages\n3 passed")]
    assert [g["worked"] for g in commands.gotchas(events)] == ["npm ci && npm test"]


def test_powershells_call_operator_is_not_a_background_job():
    assert cl.parts('& "C:/Tools/SqlPackage.exe" /Action:Import') == ['& "C:/Tools/SqlPackage.exe" /Action:Import']
    assert cl.parts("npm run dev & sleep 2") == ["npm run dev &", "sleep 2"]


def test_a_tool_failing_behind_a_filter_pipe_is_the_gotcha_and_its_later_form_the_way_round():
    """`xcodebuild … | tail -5` exits with tail's 0: the tool's own "xcodebuild: error:" line says it failed."""
    dest = "xcodebuild: error: Unable to find a device matching the provided destination specifier:\n\t{ platform:iOS"
    events = [_shell(1, "xcodebuild -scheme App -destination 'platform=iOS Simulator,name=iPhone 16' build | tail -5",
                     0, dest, type="build"),
              _shell(2, "xcodebuild -scheme App -destination 'platform=iOS Simulator,name=iPhone 17 Pro' build | tail -5",
                     0, "** BUILD SUCCEEDED **", type="build")]
    assert commands.failed(events[0]) and not commands.ran(events[0]) and commands.ran(events[1])
    [g] = commands.gotchas(events)
    assert "name=iPhone 16" in g["command"] and "name=iPhone 17 Pro" in g["worked"]
    assert g["error"].startswith("xcodebuild: error: Unable to find a device")
    # a log read through a filter holds error lines of another program: no failure of the command
    log = [_shell(1, "cat build.log | grep -n error", 0, "12:clang: error: linker command failed")]
    assert not commands.failed(log[0]) and commands.gotchas(log) == []


@pytest.mark.parametrize("command,output", [
    ("uv run ruff check --fix .", "Found 17 errors (13 fixed, 4 remaining)."),
    ("npx eslint src", "/app/src/a.ts\n  3:7  error  'x' is unused\n\n\u2716 1 problem (1 error, 0 warnings)"),
    ("flake8 app", "app/models.py:12:80: E501 line too long (88 > 79 characters)"),
    ("uv run ruff check --fix src/g.py", "E501 Line too long (99 > 88)\n --> src/g.py:47:89"),
])
def test_a_checker_reporting_findings_is_the_codes_failure_not_a_gotcha(command, output):
    events = [_shell(1, command, 1, output), _shell(2, "uv run ruff check .", 0, "All checks passed!")]
    assert commands.code_failure(events[0]) and commands.gotchas(events) == []


def test_a_filter_that_broke_the_line_is_gone_round_by_the_line_written_otherwise():
    """A hook appended `2>> log` to every xcodebuild, so `… 2>&1 | tail -20` made tail read a file
    named 2; redirecting to a file and grepping it worked."""
    events = [_shell(1, "xcodebuild test -scheme App 2>&1 | tail -20", 1, "tail: 2: No such file or directory"),
              _shell(2, "xcodebuild test -scheme App > /tmp/test.log 2>&1; grep -E 'error|Test Case' /tmp/test.log", 0,
                     "Test Case '-[AppTests testA]' passed")]
    assert cl.filter_failed(events[0]["command"], "tail: 2: No such file or directory") == "tail"
    assert cl.filter_failed("tail -20 build.log", "tail: build.log: No such file or directory") == ""  # no pipe
    [g] = commands.gotchas(events)
    assert (g["command"], g["worked"]) == (events[0]["command"], events[1]["command"])



def test_a_gotchas_name_keeps_the_error_and_shortens_the_paths_in_it():
    from engram.consolidate.knowledge import nodes

    hook = ("error: [/Users/me/.claude/hooks/safety/block-dangerous-commands.sh]: BLOCKED: "
            "Dangerous command detected matching 'curl .* | sh'.")
    (p,) = nodes.gotcha_nodes([_shell(1, 'gh pr create --title "x" --body "y"', 1, hook),
                               _shell(2, "gh pr create --title x --body-file /tmp/pr.md")])
    assert "[…/block-dangerous-commands.sh]: BLOCKED: Dangerous command" in p["name"]  # not a 60-character path
    assert "/Users/me/.claude/hooks/safety/block-dangerous-commands.sh" in p["description"]  # said whole there


def test_a_line_the_shell_refused_a_part_of_failed_whatever_its_status():
    """zsh skips a command whose glob matched nothing and runs the next: the line exits with
    `git status`'s 0, and the rm never ran."""
    ev = _shell(1, "rm -f /tmp/frame_*.png ; git status", 0, "(eval):1: no matches found: /tmp/frame_*.png\nOn branch main")
    assert commands.failed(ev) and not commands.ran(ev)
    assert commands.ran(_shell(2, "rm -f /tmp/out.png ; git status", 0, "On branch main"))


def test_a_dry_run_is_no_evidence_a_command_works():
    events = [_shell(1, "make -n watch", 0, "go tool air -c .air.toml", type="build"),
              _shell(2, "npm publish --dry-run", 0, "npm notice Tarball Contents"),
              _shell(3, "make build", 0, "go build -o bbs ./cmd/bbs", type="build")]
    assert list(commands.project_commands(events)) == ["make build"]


def test_a_build_that_failed_behind_a_filter_pipe_does_not_work():
    """`make docker-build 2>&1 | tail -30` exits with tail's 0; what it printed says it failed."""
    out = ('#3 DONE 0.0s\nERROR: failed to build: failed to solve: failed to fetch oauth token: TLS handshake timeout\n'
           'make: *** [docker-build] Error 1')
    ev = _shell(1, "make docker-build 2>&1 | tail -30", 0, out, type="build")
    assert not commands.ran(ev) and commands.project_commands([ev]) == {}
