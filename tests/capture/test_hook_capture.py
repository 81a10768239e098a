"""The capture path end to end: real payloads through `python -m engram.hook` subprocesses."""

from __future__ import annotations

import json
import os
from collections import Counter

import pytest

from testing.helpers import events, payload, project_dir, run_hook, run_script, send


def bash(proj, script, *args, session="s1"):
    """Run a real test script; send its result the way Claude Code does."""
    res = run_script(script, *args)
    command = f"bash tests/scripts/{script} {' '.join(args)}".strip()
    if res.returncode == 0:
        return send("PostToolUse", proj, session=session, tool_name="Bash", tool_input={"command": command},
                    tool_response={"stdout": res.stdout, "stderr": "", "interrupted": False})
    return send("PostToolUseFailure", proj, session=session, tool_name="Bash", tool_input={"command": command},
                error=f"Exit code {res.returncode}\n{res.stdout}")


def read(proj, rel, session="s1"):
    path = str(proj / rel)
    return send("PostToolUse", proj, session=session, tool_name="Read", tool_input={"file_path": path},
                tool_response={"type": "text", "file": {"filePath": path, "content": (proj / rel).read_text()}})


def edit(proj, rel, old, new, session="s1", start=2):
    path = proj / rel
    path.write_text(path.read_text().replace(old, new))
    patch = [{"oldStart": start, "oldLines": 1, "newStart": start, "newLines": 1, "lines": ["-" + old, "+" + new]}]
    return send("PostToolUse", proj, session=session, tool_name="Edit",
                tool_input={"file_path": str(path), "old_string": old, "new_string": new},
                tool_response={"filePath": str(path), "structuredPatch": patch})


def types(proj, session="s1"):
    return [e["type"] for e in events(proj, session)]


def test_read_new_file_is_file_read_plus_exploration(proj):
    read(proj, "src/calc.py")
    evs = events(proj, "s1")
    assert [e["type"] for e in evs] == ["file_read", "exploration"]
    assert evs[0]["path"] == "src/calc.py" and evs[0]["hash"].startswith("sha256:")
    assert evs[1]["ref"] == evs[0]["seq"]
    read(proj, "src/calc.py")
    assert types(proj)[-1] == "file_read"  # a second read explores nothing new


def test_write_records_diff_ranges_and_snippet_not_content(proj):
    edit(proj, "src/calc.py", "    return a + b", "    return a + b  # sum")
    ev = events(proj, "s1")[0]
    assert ev["type"] == "file_write" and ev["op"] == "edit"
    assert "+    return a + b  # sum" in ev["diff"] and ev["lines_added"] == 1 and ev["lines_removed"] == 1
    assert ev["ranges"] == [[2, 2]]
    assert "return a + b  # sum" in ev["snippet"]["text"]


def test_failing_script_is_test_run_fail_then_write_is_fix_attempt(proj):
    bash(proj, "test-exit-1.sh")
    edit(proj, "src/calc.py", "    return a + b", "    return b + a")
    evs = events(proj, "s1")
    assert [e["type"] for e in evs] == ["test_run", "file_write", "fix_attempt"]
    run = evs[0]
    assert run["outcome"] == "fail" and run["exit_code"] == 1
    assert run["failed"] == 1 and run["passed"] == 2
    assert run["failing_tests"] == ["tests/test_calc.py::test_add"]
    assert evs[2]["after_test"] == run["seq"] and evs[2]["ref"] == evs[1]["seq"]


def test_passing_script_then_new_file_is_progression(proj):
    bash(proj, "test-exit-0.sh")
    path = proj / "src" / "new.py"
    path.write_text("X = 1\n")
    send("PostToolUse", proj, tool_name="Write", tool_input={"file_path": str(path), "content": "X = 1\n"},
         tool_response={"type": "create", "filePath": str(path), "content": "X = 1\n", "structuredPatch": [],
                        "originalFile": None})
    evs = events(proj, "s1")
    assert [e["type"] for e in evs] == ["test_run", "file_write", "progression"]
    assert evs[0]["outcome"] == "pass" and evs[1]["op"] == "create" and evs[1]["diff"].endswith("+X = 1\n")


def test_stateful_script_fails_then_passes(proj, tmp_path, monkeypatch):
    monkeypatch.setenv("STATE_FILE", str(tmp_path / "state"))
    bash(proj, "test-stateful.sh")
    bash(proj, "test-stateful.sh")
    runs = [e for e in events(proj, "s1") if e["type"] == "test_run"]
    assert [r["outcome"] for r in runs] == ["fail", "pass"]


def test_slow_script_output_is_captured(proj):
    bash(proj, "test-slow.sh", "0.2")
    ev = events(proj, "s1")[0]
    assert ev["type"] == "test_run" and ev["recognized"] is False and "slept 0.2s" in ev["output"]
    assert ev["note"].startswith("output not recognised")


def test_repeated_revision_after_three_writes_to_one_region(proj):
    for new in ("    return a + b + 0", "    return a + b + 1", "    return a + b + 2"):
        old = (proj / "src" / "calc.py").read_text().split("\n")[1]
        edit(proj, "src/calc.py", old, new)
    revs = [e for e in events(proj, "s1") if e["type"] == "repeated_revision"]
    assert len(revs) == 1 and revs[0]["count"] == 3 and revs[0]["range"] == [2, 2]


def test_expanding_search_on_distant_reads(proj):
    for rel in ("a/b/c/one.py", "x/y/z/two.py"):
        p = proj / rel
        p.parent.mkdir(parents=True)
        p.write_text("pass\n")
        read(proj, rel)
    exp = [e for e in events(proj, "s1") if e["type"] == "expanding_search"]
    assert len(exp) == 1 and exp[0]["path"] == "x/y/z/two.py" and exp[0]["distance"] == 6


def test_pure_discussion_turn_still_gives_turn_complete(proj):
    send("UserPromptSubmit", proj, prompt="What do you think of SQLite for the queue?")
    send("Stop", proj, stop_hook_active=False, last_assistant_message="SQLite is a fine choice here.")
    evs = events(proj, "s1")
    assert [e["type"] for e in evs] == ["user_prompt", "turn_complete"]
    tc = evs[1]
    assert tc["turn"] == 1 and tc["tool_calls"] == 0
    assert tc["user_summary"].startswith("What do you think") and tc["agent_summary"].startswith("SQLite is")


def test_learned_record_points_at_research(proj):
    send("UserPromptSubmit", proj, prompt="look up sqlite WAL")
    send("PostToolUse", proj, tool_name="WebSearch", tool_input={"query": "sqlite wal mode"},
         tool_response={"query": "sqlite wal mode", "results": [{"tool_use_id": "x", "content": [
             {"title": "WAL", "url": "https://sqlite.org/wal.html"}]}]})
    send("Stop", proj, last_assistant_message="WAL lets readers run during a write.")
    evs = events(proj, "s1")
    research = next(e for e in evs if e["type"] == "research")
    learned = next(e for e in evs if e["type"] == "learned")
    assert research["results_count"] == 1 and learned["ref"] == research["seq"]
    assert learned["text"] == "WAL lets readers run during a write."


def test_decision_from_engram_decide_command(proj):
    cmd = 'engram decide "Use SQLite for the queue" --rationale "no server to run" --files src/calc.py'
    send("PostToolUse", proj, tool_name="Bash", tool_input={"command": cmd},
         tool_response={"stdout": "Decision recorded", "stderr": ""})
    ev = events(proj, "s1")[0]
    assert ev["type"] == "decision" and ev["content"] == "Use SQLite for the queue"
    assert ev["rationale"] == "no server to run" and ev["files"] == ["src/calc.py"]


def test_build_and_other_commands(proj):
    send("PostToolUseFailure", proj, tool_name="Bash", tool_input={"command": "make"},
         error="Exit code 2\ncc -c x.c\nx.c:3: error: expected ';'\nmake: *** [x.o] Error 1")
    send("PostToolUse", proj, tool_name="Bash", tool_input={"command": "git status"},
         tool_response={"stdout": "clean", "stderr": ""})
    b, c = events(proj, "s1")
    assert b["type"] == "build" and b["exit_code"] == 2 and "expected ';'" in b["error_summary"]
    assert c["type"] == "command" and c["exit_code"] == 0


def test_a_status_the_command_line_echoed_is_its_status(proj):
    """`…; echo "EXIT: $?"` makes the harness see the echo's 0: the echoed status is how the command ended."""
    for cmd, out in [('xcodebuild build > /tmp/b.log 2>&1; echo "EXIT: $?"', "EXIT: 70"),
                     ('rm -r build 2>&1; echo "exit: $?"', "exit: 0\n\nShell cwd was reset to /p"),
                     ("make; echo 'EXIT: $?'", "EXIT: $?"),  # single quotes print `$?` itself
                     ('for f in a b; do make $f; echo "rc=$?"; done', "rc=2\nrc=0")]:  # the loop's last, not one status
        send("PostToolUse", proj, tool_name="Bash", tool_input={"command": cmd},
             tool_response={"stdout": out, "stderr": ""})
    failed, cleaned, quoted, looped = events(proj, "s1")
    assert (failed["exit_code"], failed["ok"], failed["exit_echoed"]) == (70, False, True)
    assert [(e["exit_code"], e["ok"], "exit_echoed" in e) for e in (cleaned, quoted, looped)] == [(0, True, False)] * 3


def test_a_build_tool_s_printed_verdict_stands_for_a_status_nobody_recorded():
    """What an export shows of a build with no exit status: the tool's own verdict at its end
    ("Build succeeded.", "Build FAILED."); not the "Build succeeded." `dotnet ef` prints before its work."""
    from engram.capture import shellcmd

    def verdict(command: str, output: str) -> int | None:
        return shellcmd.printed_verdict(shellcmd.classify(command), output)

    assert verdict("dotnet build", "Build succeeded.\n    0 Warning(s)\n    0 Error(s)") == 0
    assert verdict("dotnet build", "x.cs(3,4): error CS1002\n\nBuild FAILED.") == 1
    assert verdict("dotnet ef migrations add X", "Build started...\nBuild succeeded.\nDone.") is None
    assert verdict("dotnet build", "Build succeeded.\nUnhandled exception. System.IO") is None
    assert verdict("npm run build", "✓ Compiled successfully\nFailed to type check.") is None


def test_a_coloured_run_is_read_without_its_escapes(proj):
    """vitest, pnpm and cargo colour their output: the failing test and the error line are
    what it said, never "\\x1b[31m"."""
    vitest = ("\x1b[31m\x1b[1m FAIL \x1b[22m\x1b[39m src/Banner.test.tsx\x1b[2m > \x1b[22mBanner\x1b[2m > \x1b[22mhides "
              "the banner before init\n\x1b[2m Test Files \x1b[22m \x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m\x1b[2m | "
              "\x1b[22m\x1b[1m\x1b[32m20 passed\x1b[39m\x1b[22m\x1b[90m (21)\x1b[39m\n\x1b[2m      Tests \x1b[22m "
              "\x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m\x1b[1m\x1b[32m430 passed\x1b[39m\x1b[22m")
    send("PostToolUseFailure", proj, tool_name="Bash", tool_input={"command": "pnpm test -- --run"},
         error="Exit code 1\n" + vitest)
    send("PostToolUseFailure", proj, tool_name="Bash", tool_input={"command": "cargo build"},
         error="Exit code 101\n\x1b[0m\x1b[1m\x1b[31merror[E0425]\x1b[0m\x1b[1m: cannot find value `x` in this scope\x1b[0m")
    run, build = events(proj, "s1")
    assert run["type"] == "test_run" and run["outcome"] == "fail" and run["failed"] == 1 and run["passed"] == 430
    assert build["type"] == "build" and build["error_summary"].startswith("error[E0425]: cannot find value `x`")
    assert not [k for e in (run, build) for k, v in e.items() if "\x1b" in str(v)]


def test_a_command_sent_to_the_background_has_no_known_exit_status(proj):
    """Claude Code answers a backgrounded Bash call (`run_in_background`, or one it backgrounded
    itself after its timeout) at once with the task's id: the command's end is not known, so it
    never counts as one that worked."""
    started = {"stdout": "", "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False,
               "backgroundTaskId": "bi3ggk38e", "assistantAutoBackgrounded": False}
    send("PostToolUse", proj, tool_name="Bash", tool_input={"command": "./deploy.sh appstore --release 2>&1",
                                                           "timeout": 600000, "run_in_background": True},
         tool_response=started)
    send("PostToolUse", proj, tool_name="Bash", tool_input={"command": "npm run build", "timeout": 120000},
         tool_response=dict(started, backgroundTaskId="b2", assistantAutoBackgrounded=True))
    send("PostToolUse", proj, tool_name="Bash", tool_input={"command": "git status", "run_in_background": False},
         tool_response={"stdout": "clean", "stderr": "", "interrupted": False})
    assert [e["exit_code"] for e in events(proj, "s1")] == [None, None, 0]
    assert events(proj, "s1")[0]["task_id"] == "bi3ggk38e"
    # the agent reads the task later: TaskOutput's result says how it ended
    send("PostToolUse", proj, tool_name="TaskOutput", tool_input={"task_id": "bi3ggk38e", "block": True, "timeout": 600000},
         tool_response={"retrieval_status": "success", "task": {
             "task_id": "bi3ggk38e", "task_type": "local_bash", "status": "failed", "description": "Run deploy",
             "output": "\x1b[31mxcodebuild: error: Unable to find a device matching the provided destination specifier\x1b[0m\n",
             "exitCode": 1}})
    ended = events(proj, "s1")[-1]
    assert (ended["type"], ended["task_id"], ended["status"], ended["exit_code"]) == ("background_result", "bi3ggk38e",
                                                                                      "failed", 1)
    assert ended["output"].startswith("xcodebuild: error: Unable to find a device")


def test_a_long_failure_keeps_the_line_that_says_what_failed(proj):
    """The output is kept as its head and tail: a failed command's verdict in the middle (a Python
    trace's exception before a long SQL statement) is kept as its error summary."""
    trace = ("Traceback (most recent call last):\n" + "  File \"x.py\", line 1, in <module>\n" * 60
             + "sqlalchemy.exc.ProgrammingError: (psycopg2.errors.UndefinedColumn) column c.unit does not exist\n"
             + "[SQL: SELECT " + ", ".join(f"c.col{i}" for i in range(400)) + " FROM c]\n")
    send("PostToolUseFailure", proj, tool_name="Bash", tool_input={"command": "uv run python scripts/count.py"},
         error="Exit code 1\n" + trace)
    [ev] = events(proj, "s1")
    assert "ProgrammingError" not in ev["output"]  # cut away with the middle
    assert ev["error_summary"].startswith("sqlalchemy.exc.ProgrammingError: (psycopg2.errors.UndefinedColumn)")


def test_seq_is_gap_free_and_determinism_but_for_ts(proj, tmp_path, monkeypatch):
    # capture alone: a worker consolidating run-a meanwhile would give run-b's first read a
    # note (and its `injected` event) or not, as the race goes
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")

    def session(sid):
        send("UserPromptSubmit", proj, session=sid, prompt="go")
        read(proj, "src/calc.py", sid)
        bash(proj, "test-exit-1.sh", session=sid)
        edit(proj, "src/calc.py", "    return a + b", "    return a + b", sid)
        send("Stop", proj, session=sid, last_assistant_message="done")
        return [{k: v for k, v in e.items() if k not in ("ts", "session")} for e in events(proj, sid)]

    first = session("run-a")
    second = session("run-b")
    assert first == second
    assert [e["seq"] for e in first] == list(range(1, len(first) + 1))


def test_only_contract_output_and_exit_zero(proj):
    res = send("PostToolUse", proj, tool_name="Read", tool_input={"file_path": str(proj / "src/calc.py")},
               tool_response={"type": "text", "file": {"filePath": "x", "content": "y"}})
    assert res == "" or json.loads(res)["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    assert send("Stop", proj, last_assistant_message="ok") == ""  # never inject on Stop: it would keep Claude working


def test_files_and_dirs_are_private(proj, engram_home):
    read(proj, "src/calc.py")
    pdir = project_dir(proj)
    assert os.stat(engram_home).st_mode & 0o777 == 0o700
    assert os.stat(pdir).st_mode & 0o777 == 0o700
    assert os.stat(pdir / "events" / "s1.jsonl").st_mode & 0o777 == 0o600
    meta = json.loads((pdir / "project.json").read_text())
    assert meta["root"] == str(proj)


def test_project_is_git_toplevel_of_cwd(proj):
    send("UserPromptSubmit", proj, prompt="x")
    sub = proj / "src"
    send("UserPromptSubmit", sub, prompt="y")
    assert Counter(types(proj)) == {"user_prompt": 2}


def test_kill_switch(proj, monkeypatch):
    monkeypatch.setenv("ENGRAM_DISABLE", "1")
    send("UserPromptSubmit", proj, prompt="x")
    assert not (project_dir(proj) / "events").exists()


def test_todowrite_is_the_agents_task_list_bounded(proj):
    todos = [{"content": f"step {i}", "status": "pending", "activeForm": f"doing {i}"} for i in range(40)]
    todos[0]["status"] = "in_progress"
    send("PostToolUse", proj, tool_name="TodoWrite", tool_input={"todos": todos},
         tool_response={"oldTodos": [], "newTodos": todos})
    (ev,) = [e for e in events(proj, "s1") if e["type"] == "todos"]
    assert len(ev["items"]) == 30 and ev["items"][0] == {"text": "step 0", "status": "in_progress"}
    assert ev["truncated"] == {"items": 40}


def test_a_read_and_a_whole_file_write_carry_the_files_role(proj):
    read(proj, "src/calc.py")
    path = proj / "src" / "money.py"
    content = '"""Money arithmetic in Decimal, never float."""\n\nfrom decimal import Decimal\n'
    path.write_text(content)
    send("PostToolUse", proj, tool_name="Write", tool_input={"file_path": str(path), "content": content},
         tool_response={"type": "create", "filePath": str(path), "structuredPatch": [], "originalFile": None})
    roles = {e["path"]: e.get("role") for e in events(proj, "s1") if e["type"] in ("file_read", "file_write")}
    assert roles == {"src/calc.py": "defines add()", "src/money.py": "Money arithmetic in Decimal, never float."}


def test_a_read_from_the_middle_of_a_file_gives_no_comment_for_its_role(proj):
    """Its first comment is any comment ("If both exist, compare contents"), not what the file is for."""
    path = proj / "src" / "finder.py"
    path.write_text('"""Find files."""\n\n\ndef find():\n    # if both exist, compare contents\n    return 1\n')
    middle = "    # if both exist, compare contents\n    return 1\n"
    send("PostToolUse", proj, tool_name="Read", tool_input={"file_path": str(path), "offset": 5, "limit": 2},
         tool_response={"type": "text", "file": {"filePath": str(path), "content": middle, "startLine": 5}})
    (ev,) = [e for e in events(proj, "s1") if e["type"] == "file_read"]
    assert "role" not in ev and ev["offset"] == 5
    defs = "def total():\n    return 2\n"  # the definitions it shows are the file's, wherever the read starts
    send("PostToolUse", proj, tool_name="Read", tool_input={"file_path": str(path), "offset": 7, "limit": 2},
         tool_response={"type": "text", "file": {"filePath": str(path), "content": defs, "startLine": 7}})
    assert [e.get("role") for e in events(proj, "s1") if e["type"] == "file_read"] == [None, "defines total()"]


def test_a_replayed_payload_is_dated_by_its_record_only_in_a_replay(proj):
    from engram.hook import REPLAY_TS

    def prompt_ts(session: str, when: str, replay: bool) -> str:
        env = {k: v for k, v in os.environ.items() if k != "ENGRAM_REPLAY"}
        res = run_hook("UserPromptSubmit", payload("UserPromptSubmit", session, proj, prompt="Fix the cart total.",
                                                   **{REPLAY_TS: when}), env=dict(env, **({"ENGRAM_REPLAY": "1"}
                                                                                          if replay else {})))
        assert res.returncode == 0, res.stderr
        return next(e["ts"] for e in events(proj, session) if e["type"] == "user_prompt")

    assert prompt_ts("replayed", "2025-08-06T07:10:20.758123Z", replay=True) == "2025-08-06T07:10:20.758Z"
    for session, when, replay in (("live", "2025-08-06T07:10:20Z", False),  # a live payload's field: ignored
                                  ("future", "2999-01-01T00:00:00Z", True), ("bad", "2025-13-40T99:00:00Z", True),
                                  ("naive", "2025-08-06 07:10:20", True)):
        assert not prompt_ts(session, when, replay).startswith(when[:4]), session  # dated when it happened: now


@pytest.mark.parametrize("text,valid", [
    ("2025-08-06T07:10:20Z", "2025-08-06T07:10:20.000Z"), ("2025-08-06T07:10:20.7Z", "2025-08-06T07:10:20.700Z"),
    ("2025-08-06T07:10:20+00:00", None), ("2025-02-06T24:00:00Z", None), ("2025-08-06T07:10:20.xZ", None),
    (20250806, None), ("", None), ("2999-01-01T00:00:00.000Z", None),
])
def test_valid_iso_takes_past_utc_timestamps_only(text, valid):
    from engram.clock import valid_iso

    assert valid_iso(text) == valid


def test_a_shell_read_keeps_the_refusal_a_pipelines_zero_exit_hides_and_nothing_of_a_files_text(proj):
    """`cat -A f | sed -n 1,5p` exits with sed's 0: cat's "illegal option" is only in the output."""
    for command, out in (("cat -A src/calc.py | sed -n '1,5p'", "cat: illegal option -- A\nusage: cat [-belnstuv]"),
                         ("sed -n '1,5p' src/calc.py | cat -v", "def add(a, b):")):
        send("PostToolUse", proj, tool_name="Bash", tool_input={"command": command},
             tool_response={"stdout": out, "stderr": "", "interrupted": False})
    refused, shown = [e for e in events(proj, "s1") if e["type"] == "file_read"]
    assert refused["output"].startswith("cat: illegal option -- A") and refused["exit_code"] == 0
    assert "output" not in shown  # a read's text is the file's, not the session's knowledge
