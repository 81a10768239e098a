"""The capture building blocks, called directly (fast, table-driven)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from testing.helpers import payload

from engram import config, jsonio
from engram.capture import classify as derive
from engram.capture import commandline, diffs, event_stream, session_state, shellcmd, testparse
from engram import redact
from engram.errors import ConfigError, UnsafeIdentifier


@pytest.mark.parametrize("command,kind", [
    ("pytest -q", "test"), ("cd api && python -m pytest tests/", "test"), ("uv run pytest", "test"),
    ("npm test", "test"), ("npm run test:unit", "test"), ("yarn test", "test"), ("npx vitest run", "test"),
    ("go test ./...", "test"), ("cargo test", "test"), ("FOO=1 timeout 60 pytest", "test"),
    ("python -m unittest discover", "test"), ("node --test", "test"), ("make test", "test"),
    ("./gradlew test", "test"), ("bash tests/scripts/test-exit-1.sh", "test"),
    # actions and tasks wherever they stand, a runner by its path, meson's tests
    ("xcodebuild -scheme App -destination 'platform=iOS Simulator,name=iPhone 17' test", "test"),
    ("xcodebuild -scheme App build", "build"), ("xcodebuild -showdestinations -scheme App", "command"),
    ("./gradlew :app:testDebugUnitTest", "test"), ("./gradlew assembleDebug", "build"), ("./gradlew clean", "command"),
    ("./vendor/bin/phpunit", "test"), ("meson test -C build", "test"),
    # a task runner's task anywhere among its words; Django's and Laravel's test commands
    ("make -C build test", "test"), ("pnpm --filter web test", "test"), ("mise run test", "test"),
    ("./mvnw -B verify", "test"), ("./gradlew check", "test"), ("bazel test //...", "test"), ("flutter test", "test"),
    ("python manage.py test accounts", "test"), ("php artisan test", "test"), ("npm run typecheck", "build"),
    ("cmake --build build", "build"), ("mvn clean install", "build"), ("npm install", "command"),
    ("mise run lint", "command"), ("bun install", "command"),
    # a package.json's "check" script lints or type-checks; make's runs the tests
    ("bun run check", "command"), ("npm run check", "command"), ("make check", "test"),
    ("make test-race", "test"), ("just test_unit", "test"),
    ("make", "build"), ("cargo build --release", "build"), ("npm run build", "build"), ("tsc --noEmit", "build"),
    ("python -m build", "build"), ("pip install -e .", "build"), ("go build ./cmd/x", "build"),
    ('engram decide "Use X" --rationale y', "decision"),
    ("cat src/a.py", "read"), ("sed -n 1,20p a.py", "read"), ("head -50 README.md", "read"),
    ("rg TODO", "search"), ("ls -la", "search"), ("find . -name '*.py'", "search"),
    ("git status", "command"), ("pip install requests", "command"), ("echo hi", "command"),
    ("git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\"", "command"), ("", "command"),
])
def test_shell_classifier(command, kind):
    assert shellcmd.classify(command) == kind


def test_decision_args_and_read_targets():
    assert shellcmd.decision_args('engram decide "Use X" -r "because" -f a.py,b/c.py') == {
        "content": "Use X", "rationale": "because", "files": ["a.py", "b/c.py"]}
    assert shellcmd.decision_args("engram decide") is None
    assert shellcmd.read_targets("sed -n 1,20p a.py && cat b.py") == ["a.py", "b.py"]


@pytest.mark.parametrize("output,framework,passed,failed,names", [
    ("F.\nFAILED t.py::test_a - x\n=== 1 failed, 1 passed in 0.1s ===", "pytest", 1, 1, ["t.py::test_a"]),
    ("....\n4 passed in 0.01s", "pytest", 4, 0, []),
    ("FAIL: test_b (m.T.test_b)\nRan 3 tests in 0.0s\n\nFAILED (failures=1)", "unittest", 2, 1, ["m.T.test_b"]),
    ("not ok 2 - adds\n# pass 2\n# fail 1", "node:test", 2, 1, ["adds"]),
    ("  ● Math › adds\nTests:       1 failed, 4 passed, 5 total", "jest", 4, 1, ["Math › adds"]),
    (" FAIL  a.test.ts > adds\n      Tests  1 failed | 4 passed (5)", "vitest", 4, 1, ["a.test.ts > adds"]),
    ("--- FAIL: TestAdd (0.00s)\n--- PASS: TestSub (0.00s)\nFAIL\tm\t0.1s", "go test", 1, 1, ["TestAdd"]),
    ("test t::b ... FAILED\ntest result: FAILED. 1 passed; 1 failed; 0 ignored", "cargo test", 1, 1, ["t::b"]),
    # bun test ("Ran N tests across" is no unittest summary), also behind turbo's task prefixes
    ("(fail) sum > adds [0.2ms]\n 4 pass\n 1 fail\nRan 5 tests across 2 files. [12.0ms]", "bun test", 4, 1,
     ["sum > adds"]),
    ("@a/cli:test: (fail) drift > check --strict [11.2ms]\n@a/cli:test:  79 pass\n@a/cli:test:  1 fail\n"
     "@a/cli:test: Ran 80 tests across 13 files. [30.4s]\n Tasks:    9 successful, 10 total", "bun test", 79, 1,
     ["drift > check --strict"]),
    # the JVM, .NET, Elixir, Ruby, mocha, Xcode, PHP, CTest and meson: summaries with no exit status
    # (an export that records none) still say how a run ended
    ("[ERROR]   MathTest.testAdd:12 expected:<3>\n[ERROR] Tests run: 12, Failures: 1, Errors: 1, Skipped: 2",
     "surefire", 8, 2, ["MathTest.testAdd"]),
    ("MathTest > testAdd() FAILED\n\n12 tests completed, 1 failed, 1 skipped", "gradle", 10, 1, ["MathTest > testAdd()"]),
    ("  Failed Shop.CartTests.Adds [12 ms]\nFailed!  - Failed:     1, Passed:    11, Skipped:     0, Total:    12",
     "dotnet test", 11, 1, ["Shop.CartTests.Adds"]),
    ("  1) test adds (MathTest)\n\n3 doctests, 12 tests, 1 failure, 2 excluded", "exunit", 12, 1, ["test adds (MathTest)"]),
    ("12 examples, 1 failure, 2 pending\n\nrspec ./spec/math_spec.rb:5 # Math adds", "rspec", 9, 1, ["Math adds"]),
    ("  11 passing (30ms)\n  1 failing\n", "mocha", 11, 1, []),
    ("  1) [chromium] › tests/nav.spec.ts:12:3 › opens ────\n\n  1 failed\n    [chromium] › tests/nav.spec.ts:12:3 › "
     "opens ────\n  11 passed (14.2s)", "playwright", 11, 1, ["tests/nav.spec.ts:12:3 › opens"]),
    ("Test Case '-[AppTests.CartTests testAdds]' failed (0.01 seconds).\n"
     "Executed 12 tests, with 1 failure (0 unexpected) in 0.5 (0.6) seconds", "xctest", 11, 1, ["AppTests.CartTests.testAdds"]),
    ("FAILURES!\nTests: 12, Assertions: 30, Failures: 1, Errors: 1.", "phpunit", 10, 2, []),
    ("OK (12 tests, 30 assertions)", "phpunit", 12, 0, []),
    ("    3 - parser_test (Failed)\n92% tests passed, 1 tests failed out of 12", "ctest", 11, 1, ["parser_test"]),
    (" 3/12 json_test   FAIL   0.02s\n\nOk:                 11\nFail:               1\nSkipped:            0\n",
     "meson test", 11, 1, ["json_test"]),
])
def test_test_output_parsers(output, framework, passed, failed, names):
    r = testparse.parse(output)
    assert (r["framework"], r["passed"], r["failed"], r["failing_tests"]) == (framework, passed, failed, names)


def test_unrecognised_output_says_so():
    r = testparse.parse("all good")
    assert r["recognized"] is False and r["passed"] is None


@pytest.mark.parametrize("text,kept", [
    ("x = compute(token)", True), ("password = get_password()", True), ("api_key=None", True),
    ("DB_PASSWORD=$DB_PASS", True), ("hello world", True),
    ("export OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234", False),
    ('{"password": "abc12345"}', False), ("curl https://u:hunter22@h/x", False),
    # a value in a Markdown code span, as an agent's reply lists a database's settings
    ("- Password: `diHwuLPimwutIwcvMUyvTnAqimEzKFZR`", False), ("All tests pass: `npm test`", True),
])
def test_redaction(text, kept):
    assert (redact.redact(text) == text) is kept


def test_a_masked_value_ends_the_spoken_password():
    """Once `Password: `…`` is masked, the next field's value ("SSL Mode: Require") is not taken for it."""
    out = redact.redact("- Password: `diHwuLPimwutIwcvMUyvTnAqimEzKFZR` - SSL Mode: Require")
    assert out == "- Password: `[REDACTED]` - SSL Mode: Require"


def test_redact_without_anchor_does_not_import_re():
    code = "import sys; from engram.redact import redact; redact('plain text ' * 100); print('re' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip()
    assert out == "False"


def test_diff_from_edits_and_content(tmp_path):
    f = tmp_path / "a.py"
    f.write_text("a\nb\nc\nd\ne\nf\ng\n")
    hunks = diffs.hunks_from_edits([("c", "C")], f.read_text().replace("c", "C"))
    s = diffs.summarize("a.py", hunks, 4000)
    assert s["ranges"] == [[3, 3]] and s["lines_added"] == 1
    whole = diffs.summarize("a.py", diffs.hunks_from_content("a\nb\n", "a\nB\n"), 4000)
    assert "-b\n+B\n" in whole["diff"] and whole["ranges"] == [[2, 2]]
    cut = diffs.summarize("a.py", diffs.hunks_from_content(None, "x\n" * 5000), 100)
    assert len(cut["diff"]) == 100 and cut["truncated"]["diff"] > 100
    snip = diffs.snippet(str(f), str(tmp_path), hunks, [[3, 3]])
    assert 5 <= len(snip["text"].split("\n")) <= 10


def test_dir_distance():
    assert derive.dir_distance("a/b/x.py", "a/b/y.py") == 0
    assert derive.dir_distance("a/b/x.py", "a/c/y.py") == 2
    assert derive.dir_distance("a/b/c/x.py", "x/y/z/y.py") == 6


def test_jsonio_roundtrip():
    obj = {"a": [1, 2.5, "é\n\x00", None, True, False], "b": {"c": -1}}
    assert jsonio.loads(jsonio.dumps(obj)) == obj == json.loads(jsonio.dumps(obj))
    for bad in ("", "{", "[1] x", "nope"):
        with pytest.raises(ValueError):
            jsonio.loads(bad)


def test_config_unknown_key_warns_wrong_type_names_key(engram_home):
    (engram_home / "config.json").write_text('{"decayFactor": 0.5, "bogus": 1}')
    cfg, warnings = config.load_config()
    assert cfg["decayFactor"] == 0.5 and cfg["windowSize"] == 10
    assert any("bogus" in w for w in warnings)
    (engram_home / "config.json").write_text('{"windowSize": "ten"}')
    with pytest.raises(ConfigError, match="'windowSize' must be int"):
        config.load_config()
    (engram_home / "config.json").write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        config.load_config()


@pytest.mark.parametrize("sid", ["../x", "a/b", "", ".", "..", "a b", "x" * 129])
def test_unsafe_session_ids(sid):
    with pytest.raises(UnsafeIdentifier):
        config.safe_name(sid)


def test_torn_line_is_skipped_and_seq_recovered_without_state(tmp_path):
    events = tmp_path / "s.jsonl"
    state = tmp_path / "s.state.json"
    with session_state.Locked(str(state), str(events)) as st:
        event_stream.append(str(events), st, "s", [{"type": "a"}, {"type": "b"}])
    with open(events, "ab") as f:
        f.write(b'{"type":"c","seq":3,"ts')  # a writer killed mid-line
    state.unlink()  # and the state cache lost
    with session_state.Locked(str(state), str(events)) as st:
        event_stream.append(str(events), st, "s", [{"type": "d"}])
    evs, bad = event_stream.read_events(str(events))
    assert [e["type"] for e in evs] == ["a", "b", "d"] and [e["seq"] for e in evs] == [1, 2, 3]
    assert bad == 1


def test_hook_hot_path_imports_no_third_party(tmp_path):
    p = payload("PostToolUse", "s", tmp_path, tool_name="Bash", tool_input={"command": "pytest"},
                tool_response={"stdout": "1 passed in 0.1s", "stderr": ""})
    res = subprocess.run([sys.executable, "-X", "importtime", "-m", "engram.hook", "PostToolUse"],
                         input=json.dumps(p).encode(), capture_output=True)
    modules = {line.split("|")[-1].strip() for line in res.stderr.decode().splitlines() if "|" in line}
    heavy = {"anthropic", "openai", "orjson", "filelock", "httpx", "sqlean", "sqlite_vec", "json", "hashlib"}
    assert not (modules & heavy)


@pytest.mark.parametrize("output, first", [
    # a warning on the way holds an error word; the line that opens with its verdict is the error
    ("$ changeset --version\nOpening `/dev/tty` failed (6): Device not configured\n"
     "ERROR: Working tree is not clean. Commit or stash changes.\nerror: script \"release\" exited with code 1",
     "ERROR: Working tree is not clean. Commit or stash changes."),
    ("Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\nModuleNotFoundError: No module named 'yaml'",
     "ModuleNotFoundError: No module named 'yaml'"),
    ("src/x.ts(9,8): error TS2307: Cannot find module '@a/core'", "src/x.ts(9,8): error TS2307: Cannot find module '@a/core'"),
    ("make: *** [Makefile:3: test] Error 2", ""),  # a runner's exit status alone says nothing
])
def test_the_first_error_is_the_line_that_opens_with_its_verdict(output, first):
    assert commandline.first_error(output) == first


@pytest.mark.parametrize("line, parts", [
    ("cat > /tmp/t.go << 'GOEOF'\npackage main\nimport (\n  \"fmt\"\n)\nGOEOF\ngo run /tmp/t.go && echo ok",
     ["cat > /tmp/t.go << 'GOEOF'", "go run /tmp/t.go", "echo ok"]),  # a here-document is a file's text
    ("cat <<-EOF > a.txt\n\trm -rf build\n\tEOF\nls", ["cat <<-EOF > a.txt", "ls"]),
    ("grep x <<< \"$s\"\nls", ["grep x <<< \"$s\"", "ls"]),  # a here-string: the next line is a command
    ("git commit -m \"$(cat <<'EOF'\nfix: a\n\nbody\nEOF\n)\" && git push",
     ["git commit -m \"$(cat <<'EOF'\nfix: a\n\nbody\nEOF\n)\"", "git push"]),
])
def test_a_here_documents_body_is_no_command(line, parts):
    assert commandline.parts(line) == parts


def test_a_failure_that_prints_only_passing_checks_is_not_said_to_fail_on_them():
    out = ("gitleaks.............................................Passed\n"
           "bug: pre-commit's script is installed in migration mode\n"
           "Please report this bug at https://github.com/pre-commit/pre-commit/issues\n"
           "commitizen check.....................................Passed")
    assert commandline.error_signature(out) == "bug: pre-commit's script is installed in migration mode"
    assert commandline.error_signature("lint.....Passed\ntypes.....Passed") == ""


@pytest.mark.parametrize("command, purpose", [
    ("pre-commit install -f --hook-type commit-msg", "setup"), ("pre-commit run --all-files", "lint"),
    ("git log --format=%H v1..HEAD", ""), ("npm run format", "format"),
    # nor the files it names, nor the subset it selects; a script in a scratch folder is no project's
    ("git add internal/format/format.go", ""), ("bun run --filter @chkit/codegen typecheck", "lint"),
    ("go run /tmp/urlcheck.go", ""), ("python3 /private/tmp/check_links.py", ""), ("go run ./cmd/repiq --json", "run")])
def test_a_commands_purpose_reads_its_words_not_its_options(command, purpose):
    assert commandline.purpose(command) == purpose


def test_an_exit_status_alone_is_no_error_signature():
    """`git config --get x` exits 1 when x is unset: with nothing else said, no error to key a gotcha on."""
    assert commandline.error_signature("Exit code 1") == ""
    assert commandline.error_signature("Exit code 1\nfatal: not a git repository") == "fatal: not a git repository"
    # the status a line's own `; echo "EXIT: $?"` printed is no error either
    assert commandline.error_signature("** BUILD FAILED **\nEXIT: 65") == "** BUILD FAILED **"
    assert commandline.error_signature("EXIT: 65") == commandline.error_signature("exit_code=2") == ""


@pytest.mark.parametrize("command, family", [
    ("gh pr create --title x", ("gh", "pr", "create")), ("gh pr merge 8 --squash", ("gh", "pr", "merge")),
    ("git worktree remove --force /tmp/x", ("git", "worktree", "remove")),
    ("dotnet ef database drop --force", ("dotnet", "ef", "database", "drop")),
    ("git push origin main", ("git", "push")), ("git stash", ("git", "stash")),
    ("git -C /home/u/app commit -m x", ("git", "commit")), ("pnpm --dir /home/u/app lint", ("pnpm", "lint"))])
def test_a_subcommand_that_groups_actions_takes_its_action_into_the_family(command, family):
    """`gh pr merge` is no way round a failed `gh pr create`, nor `git worktree add` one of `remove`."""
    assert commandline.family(command) == family


def test_an_exception_named_with_its_module_is_the_verdict():
    """A Python trace ends in `sqlalchemy.exc.ProgrammingError: …`: that line, not the trace's opening."""
    out = ("Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n    rows = q.all()\n"
           "sqlalchemy.exc.ProgrammingError: (psycopg2.errors.UndefinedColumn) column x.unit does not exist\n[SQL: SELECT]")
    assert commandline.first_error(out).startswith("sqlalchemy.exc.ProgrammingError: (psycopg2.errors.UndefinedColumn)")
