"""The offline consolidator: deterministic episodes and a graph retrieval can use."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest
from testing.consolidation import Session, cfg, consolidate, episode_file, fix_session, rows, wait_for
from testing.helpers import TRANSCRIPTS, needs_shared

from engram import cli
from engram.consolidate import offline_episode as oe
from engram.consolidate import worker, schema, offline, trigger
from engram.language import decision_text
from engram.graph import store
from engram.graph.connect import connect


def _offline(s: Session):
    return consolidate(s.project, s.ctx.session, cfg(s.project))


def test_fail_fix_pass_becomes_an_error_with_its_resolution(root):
    s = fix_session(root)
    assert _offline(s).status == "consolidated"
    ep = episode_file(s.project, "s1")["episodes"][0]
    assert ep["goal"] == "Make the parser handle empty input."
    assert ep["outcome"] == "success"
    (err,) = ep["errors"]
    assert "tests/test_parser.py::test_empty" in err["text"]
    assert err["resolution"].startswith("Fixed by changing src/parser.py")
    seqs = {e["seq"]: e["type"] for e in s.events()}
    assert [seqs[x] for x in err["evidence"]] == ["test_run", "file_write", "test_run"]


def test_a_check_passing_after_another_command_says_that_command_not_a_flaky_rerun():
    def run(seq: int, command: str, code: int) -> dict:
        return {"seq": seq, "type": "command", "command": command, "exit_code": code,
                "output": "src/a.ts:3:7 lint/style: format" if code else ""}

    (err,) = oe.errors([run(1, "bun run lint", 1), run(2, "bun run lint:fix", 0), run(3, "bun run lint", 0)])
    assert err["resolution"] == "`bun run lint` passed after `bun run lint:fix`" and err["evidence"] == [1, 3, 2]
    (again,) = oe.errors([run(1, "bun run lint", 1), run(2, "bun run lint", 0)])
    assert "without a file change" in again["resolution"]


def test_decisions_explicit_and_implicit(root):
    s = fix_session(root)
    _offline(s)
    decisions = {d["text"]: d for d in episode_file(s.project, "s1")["episodes"][0]["decisions"]}
    explicit = decisions["Let's use orjson instead of json in the parser."]
    assert explicit["kind"] == "explicit" and explicit["files"] == ["src/parser.py"]
    implicit = decisions["Use guard clause rather than try/except"]
    assert implicit["kind"] == "implicit" and implicit["alternatives"] == ["try/except"]
    strengths = dict(rows(s.project, "SELECT name, strength FROM nodes WHERE type='decision'"))
    assert strengths["Let's use orjson instead of json in the parser."] == 0.85
    assert strengths["Use guard clause rather than try/except"] == 0.35


def test_graph_is_usable_by_retrieval(root):
    s = fix_session(root)
    _offline(s)
    conn = connect(s.project.db_path)
    try:
        linked = {n["type"] for n in store.find_by_file(conn, "src/parser.py")}
        assert linked == {"concept", "decision", "error", "episode"}
        error = store.list_nodes(conn, type="error")[0]
        file_node = store.find_by_name(conn, "src/parser.py")[0]
        assert store.find_edge(conn, error["id"], file_node["id"], "resolved_by")
        episode = store.list_nodes(conn, type="episode")[0]
        for n in store.list_nodes(conn):
            if n["type"] != "episode":
                assert store.find_edge(conn, n["id"], episode["id"], "discovered_during"), n["name"]
        orjson = store.find_by_name(conn, "orjson")[0]
        decision = store.list_nodes(conn, type="decision", min_strength=0.8)[0]
        assert store.find_edge(conn, decision["id"], orjson["id"], "requires")
        assert decision["data"]["requires"] == ["orjson"] and decision["data"]["forbids"] == ["json"]
    finally:
        conn.close()


def test_regression_gets_caused_by_the_file_changed_after_the_last_pass(root):
    s = Session(root, "s1").start().prompt("Refactor the lexer")
    s.test(5, 0).write("src/lexer.py", "x = 1\n").test(4, 1, ("t::a",)).write("src/lexer.py", "x = 2\n")
    s.test(5, 0).stop()
    _offline(s)
    err = episode_file(s.project, "s1")["episodes"][0]["errors"][0]
    assert err["root_cause"].startswith("Regression") and "src/lexer.py" in err["root_cause"]
    assert rows(s.project, "SELECT count(*) FROM edges WHERE type='caused_by'") == [(1,)]


def test_outcome_from_the_last_verdict(root):
    s = Session(root, "s1").start().prompt("x").test(1, 1, ("t::a",)).write("a.py", "1\n").test(1, 1, ("t::a",))
    s.stop()
    _offline(s)
    ep = episode_file(s.project, "s1")["episodes"][0]
    assert ep["outcome"] == "failure" and ep["errors"][0]["resolution"] == ""


def test_deterministic(root):
    s = fix_session(root)
    events = s.events()
    assert offline.consolidate(events) == offline.consolidate(events)


def test_output_always_validates(root):
    s = fix_session(root)
    out = offline.consolidate(s.events())
    assert schema.pass2(out, {e["seq"] for e in s.events()})


@pytest.mark.parametrize("text, requires, forbids", [
    ("Let's use SQLite for storage because it is embedded.", ["SQLite"], []),
    ("We should never call the API from hooks.", [], ["API from hooks"]),
    ("Use orjson instead of json in workers.", ["orjson"], ["json"]),
    ("Always run the tests before committing.", ["run the tests before committing"], []),
    ("Prefer httpx over requests.", ["httpx"], ["requests"]),
    ("We will go with Postgres rather than MySQL", ["Postgres"], ["MySQL"]),
    ("From now on use tabs.", ["tabs"], []),
])
def test_decision_sentences(text, requires, forbids):
    (d,) = decision_text.decision_sentences(text)
    assert (d["requires"], d["forbids"]) == (requires, forbids)


@pytest.mark.parametrize("text", [
    "Should we use Redis?", "Please fix the bug in foo.py", "158.5 npm error Exit handler never called!",
    "I don't know if we want this", "removeEventListener inside the handler) and do not await it",
])
def test_not_decisions(text):
    assert decision_text.decision_sentences(text) == []


# -- real transcripts ------------------------------------------------------------------------

COVERAGE = "drmaciver-claude-reliability/coverage-test-fix.transcript.jsonl"
LONG = "obra-episodic-memory/long-conversation.jsonl"


def _replay(name: str) -> None:
    from engram.history.replay import replay
    from engram.history.transcripts import load_records, payloads

    replay(payloads(load_records(str(TRANSCRIPTS / name))))


def _project_of(engram_home):
    from engram.config import all_projects

    (p,) = all_projects(str(engram_home))
    return p


@needs_shared
def test_real_transcript_consolidated_through_the_cli(engram_home):
    _replay(COVERAGE)
    p = _project_of(engram_home)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert cli.main(["consolidate", "--all", "--project", p.dir]) == 0
    assert "consolidated seq 1-" in out.getvalue() and "[1/1]" in err.getvalue()
    assert trigger.pending_sessions(p) == []
    (sid,) = [f[:-6] for f in __import__("os").listdir(p.dir + "/events")]
    ep = json.loads(open(p.episode_path(sid)).read())["episodes"][0]
    assert "multiply_numbers" in ep["goal"] and ep["outcome"] == "success"
    conn = connect(p.db_path)
    try:
        for path in ep["files_modified"]:
            assert {n["type"] for n in store.find_by_file(conn, path)} >= {"concept", "episode"}
        commands = conn.execute("SELECT name FROM nodes WHERE json_extract(data, '$.kind') = 'command'").fetchall()
        assert any("pytest" in name for (name,) in commands), commands  # the test command that worked
    finally:
        conn.close()


@needs_shared
def test_real_long_session_decisions_and_errors(engram_home):
    _replay(LONG)
    p = _project_of(engram_home)
    (sid,) = trigger.pending_sessions(p)
    o = consolidate(p, sid, cfg(p))
    assert o.status == "consolidated" and o.counts["created"] <= 41
    conn = connect(p.db_path)
    try:
        decision = store.find_by_name(conn, "let's use apple container instead of docker proper.")[0]
        assert decision["data"]["forbids"] == ["docker proper"] and decision["strength"] == 0.85
        build = [n for n in store.list_nodes(conn, type="error") if "npm run build" in n["name"]][0]
        fixes = store.edges_of(conn, build["id"], direction="out", types=["resolved_by"])
        assert fixes and all(store.get_node(conn, e["to_node"])["data"]["kind"] == "file" for e in fixes)
    finally:
        conn.close()


@needs_shared
def test_replayed_session_ends_consolidated_by_the_hooks_own_worker(engram_home, monkeypatch):
    from engram.history.replay import replay_as_processes
    from engram.history.transcripts import load_records, payloads

    monkeypatch.delenv("ENGRAM_NO_WORKER")
    replay_as_processes(payloads(load_records(str(TRANSCRIPTS / "drmaciver-claude-reliability/hello-world-script.transcript.jsonl"))))
    p = _project_of(engram_home)
    assert wait_for(lambda: not trigger.pending_sessions(p) and not trigger.queued(p), timeout=30)
    assert rows(p, "SELECT count(*) FROM episodes")[0][0] >= 1
    assert rows(p, "SELECT count(*) FROM node_files")[0][0] >= 1


def test_a_file_deleted_or_moved_in_a_session_retires_its_node(root):
    """Issue 14, finding 4 on the offline path: a file concept is superseded when its file goes."""
    from engram import lifecycle
    from testing.consolidation import Session, cfg, consolidate, rows

    s1 = Session(root, "s1").start().prompt("Add the helpers.")
    s1.write("src/old_name.py", "x = 1\n").write("src/doomed.py", "y = 2\n").stop()
    consolidate(s1.project, "s1", cfg(s1.project))
    s2 = Session(root, "s2").start().prompt("Rename old_name and drop doomed.")
    for path in ("src/old_name.py", "src/doomed.py"):
        (root / path).unlink()
    (root / "src" / "new_name.py").write_text("x = 1\n")
    lifecycle.tool_calls(s2.ctx, [
        {"action": "write", "tool": "apply_patch", "path": str(root / "src/old_name.py"), "op": "delete"},
        {"action": "write", "tool": "apply_patch", "path": str(root / "src/new_name.py"), "op": "edit",
         "content": "x = 1\n", "old_content": "x = 1\n"},
        {"action": "write", "tool": "apply_patch", "path": str(root / "src/doomed.py"), "op": "delete"}])
    s2.stop()
    consolidate(s2.project, "s2", cfg(s2.project))
    got = {name: (status, by) for name, status, by in rows(
        s2.project, "SELECT n.name, n.status, s.name FROM nodes n LEFT JOIN nodes s ON s.id = n.superseded_by "
                    "WHERE json_extract(n.data, '$.kind') = 'file'")}
    assert got == {"src/old_name.py": ("superseded", "src/new_name.py"), "src/doomed.py": ("superseded", None),
                   "src/new_name.py": ("active", None)}
    (reason,) = rows(s2.project, "SELECT json_extract(data, '$.history[0].reason') FROM nodes WHERE name = ?",
                     "src/doomed.py")
    assert reason[0] == "deleted in this session"


def _claude(root, session: str, event: str, **fields) -> None:
    from testing.helpers import payload, run_hook

    done = run_hook(event, payload(event, session, root, **fields), "--harness", "claude-code")
    assert done.returncode == 0 and not done.stderr, done.stderr


def _claude_session(root, session: str, steps: list[tuple[str, str]], run: bool = True) -> None:
    """A Claude Code session through the real hook processes: ("write", path) writes the file
    with the Write tool, ("bash", command) runs the command here (unless not `run`: each
    command here gets a new shell, Claude Code's keeps its directory) and reports it."""
    import subprocess

    _claude(root, session, "SessionStart", source="startup")
    _claude(root, session, "UserPromptSubmit", prompt="Reorganise the helpers.")
    for kind, arg in steps:
        if kind == "write":
            path = root / arg
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"# {arg}\n")
            _claude(root, session, "PostToolUse", tool_name="Write",
                    tool_input={"file_path": str(path), "content": f"# {arg}\n"},
                    tool_response={"filePath": str(path), "success": True})
        else:
            done = subprocess.run(arg if run else "true", shell=True, cwd=root, capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            _claude(root, session, "PostToolUse", tool_name="Bash", tool_input={"command": arg},
                    tool_response={"stdout": done.stdout, "stderr": "", "interrupted": False})
    _claude(root, session, "Stop", stop_hook_active=False, last_assistant_message="Done.")


def _file_nodes(project) -> dict[str, tuple]:
    return {name: (status, by, reason) for name, status, by, reason in rows(
        project, "SELECT n.name, n.status, s.name, json_extract(n.data, '$.history[#-1].reason') FROM nodes n "
                 "LEFT JOIN nodes s ON s.id = n.superseded_by WHERE json_extract(n.data, '$.kind') = 'file'")}


def test_files_the_shell_moved_or_removed_retire_their_nodes(root):
    """Issue 14, finding 4 for any harness's shell: `git mv` and `rm` through Bash, consolidated
    offline by the worker the Stop hook queued, as apply_patch's delete and move are."""
    import subprocess
    import sys

    from engram.config import Project

    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    _claude_session(root, "s1", [("write", "src/a.py"), ("write", "src/c.py"), ("write", "src/keep.py"),
                                 ("bash", "git add -A")])
    _claude_session(root, "s2", [("bash", "git mv src/a.py src/b.py"), ("bash", "rm src/c.py")])
    for _ in range(2):  # the worker takes the queue in order
        worker_run = subprocess.run([sys.executable, "-m", "engram", "worker", "--project", str(root)],
                                    capture_output=True, text=True, timeout=120)
        assert worker_run.returncode == 0, worker_run.stderr
    got = _file_nodes(Project.from_cwd(str(root)))
    assert got == {"src/a.py": ("superseded", "src/b.py", "renamed to src/b.py in this session"),
                   "src/c.py": ("superseded", None, "deleted in this session"),
                   "src/b.py": ("active", None, None), "src/keep.py": ("active", None, None)}


def test_the_shell_s_working_directory_places_what_it_removed(root):
    """`cd` is followed (Claude Code's shell keeps it between calls); a path it cannot place,
    or a word that is not a file path, retires nothing."""
    from engram.config import Project

    _claude_session(root, "s1", [("write", "src/util.py"), ("write", "util.py"), ("write", "lib/x.py"),
                                 ("write", "docs/notes.md")])
    _claude_session(root, "s2", [("bash", "cd src"), ("bash", "rm util.py"), ("bash", "cd $OLDPWD"),
                                 ("bash", "rm ../lib/x.py || true"), ("bash", f"mv {root}/docs/notes.md {root}/src/")],
                    run=False)
    project = Project.from_cwd(str(root))
    for s in ("s1", "s2"):
        consolidate(project, s, cfg(project))
    got = _file_nodes(project)
    assert got["src/util.py"][:2] == ("superseded", None) and got["util.py"][0] == "active"
    assert got["lib/x.py"][0] == "active"  # after `cd $OLDPWD` the directory is unknown
    assert got["docs/notes.md"][:2] == ("superseded", "src/notes.md") and got["src/notes.md"][0] == "active"


@pytest.mark.parametrize("prompts,written,title", [
    (["continue with the @agent-debug-specialist"], ["src/a.py"], "Continue work on src/a.py"),
    (["continue with the @agent-debug-specialist", "ok"], [], "Continue the session"),
    (["ok continue with @agent-debug-specialist on the flaky test"], [], "flaky test"),
    (["yes", "Fix the flaky retry test in src/a.py"], [], "Fix the flaky retry test in src/a.py"),
])
def test_an_episode_is_titled_by_what_was_asked_never_by_a_continue_or_a_mention(prompts, written, title):
    events = [{"seq": i, "type": "user_prompt", "prompt": p} for i, p in enumerate(prompts, 1)]
    events += [{"seq": 10 + i, "type": "file_write", "path": p, "ok": True} for i, p in enumerate(written)]
    assert oe.goal(events, []) == title


def test_a_failed_test_run_whose_counts_are_unknown_says_its_error_not_some_failing_tests():
    fail = {"seq": 1, "type": "test_run", "command": "npm run lint && npm test", "exit_code": 1, "recognized": False,
            "output": "\u2716 3 problems (3 errors, 0 warnings)"}
    (err,) = oe.errors([fail])
    assert err["text"] == "`npm run lint && npm test` failed (exit 1): \u2716 3 problems (3 errors, 0 warnings)"


def test_a_failed_test_run_whose_output_says_only_its_status_says_no_error():
    """`…; echo "EXIT: $?"` printed the status the event already holds: no ": EXIT: 65" after it."""
    fail = {"seq": 1, "type": "test_run", "command": "xcodebuild test -scheme App > /tmp/t.log 2>&1; echo \"EXIT: $?\"",
            "exit_code": 65, "recognized": False, "output": "EXIT: 65"}
    (err,) = oe.errors([fail])
    assert err["text"].endswith("failed (exit 65)")


def test_a_file_of_the_projects_rules_read_once_is_known_and_another_file_read_once_is_not(root):
    (root / ".github").mkdir()
    (root / ".github" / "copilot-instructions.md").write_text("# Rules\nDocument new features here.\n")
    (root / "notes.md").write_text("# Notes\n")
    s = Session(root, "s1").start().prompt("Add the payment export.")
    s.read(".github/copilot-instructions.md").read("notes.md").stop("Done.")
    assert _offline(s).status == "consolidated"
    files = rows(s.project, "SELECT name, json_extract(data, '$.rules') FROM nodes "
                            "WHERE json_extract(data, '$.kind') = 'file'")
    assert files == [(".github/copilot-instructions.md", 1)]


def test_a_decided_choice_is_a_technology_node_only_when_it_names_a_thing(root):
    s = Session(root, "s1").start().prompt("Let's keep all we have as an admin dashboard.")
    s.write("src/admin.py", "DASHBOARD = True\n")
    s.prompt("Let's use Zorblat for the job queue.").write("src/jobs.py", "QUEUE = 'zorblat'\n")
    s.stop()
    _offline(s)
    techs = {n for (n,) in rows(s.project, "SELECT name FROM nodes WHERE json_extract(data, '$.kind') = 'technology'")}
    decisions = {n for (n,) in rows(s.project, "SELECT name FROM nodes WHERE type = 'decision'")}
    assert "Let's keep all we have as an admin dashboard." in decisions
    assert techs == {"Zorblat"}  # not "all we have"


def test_a_file_edited_shows_the_signatures_the_session_wrote(root):
    s = Session(root, "s1").start().prompt("Return the shell name too.")
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / "setup.go").write_text("package cli\n\nfunc target() (rc string) {\n\treturn \"\"\n}\n")
    s.read("src/setup.go")
    s.write("src/setup.go", "package cli\n\nfunc target() (shell, rc string, err error) {\n\treturn \"\", \"\", nil\n}\n")
    s.stop()
    _offline(s)
    (desc,) = rows(s.project, "SELECT description FROM nodes WHERE name = 'src/setup.go'")[0]
    assert desc.endswith("; changed: `func target() (shell, rc string, err error)`.")


def test_a_package_of_the_monorepo_is_not_a_third_party_library(tmp_path):
    (tmp_path / "libs" / "shared" / "src" / "shared").mkdir(parents=True)
    diff = "+from shared.models import Criterion\n+import sqlalchemy\n+from api_service.db import engine\n"
    events = [{"type": "file_write", "seq": 2, "ok": True, "path": "services/api/tests/test_a.py", "diff": diff}]
    prior = [{"type": "file_read", "seq": 1, "path": "services/api-service/src/api_service/db.py"}]
    assert oe.libraries(events, str(tmp_path), prior) == {"sqlalchemy": ["services/api/tests/test_a.py"]}
    assert set(oe.libraries(events)) == {"shared", "sqlalchemy", "api_service"}  # nothing tells otherwise


def test_a_run_the_harness_cancelled_is_no_error():
    sibling = "<tool_use_error>Sibling tool call errored</tool_use_error>"
    ev = {"type": "test_run", "seq": 1, "command": "uv run pytest tests/ -x", "ok": False, "exit_code": 1,
          "error": sibling, "output": sibling, "recognized": False}
    assert oe.errors([ev]) == []
    assert len(oe.errors([dict(ev, error="", output="1 failed", failed=1, recognized=True)])) == 1


def test_a_javascript_import_names_its_module_not_its_binding():
    """`import React from "react"` imports react; `import type {…}` names no library "type"; a
    path alias (`@/lib/utils`) is the project's own."""
    diff = ('+import React from "react"\n+import type { Route } from "@tanstack/react-start"\n'
            '+import { cn } from "@/lib/utils"\n+import "./styles.css"\n+import numpy as np\n+from flask import Flask')
    write = {"seq": 1, "type": "file_write", "path": "src/a.tsx", "ok": True, "diff": diff}
    assert list(oe.libraries([write])) == ["react", "@tanstack/react-start", "numpy", "flask"]


def test_retire_entries_past_the_bounds_are_cut_not_a_failed_session():
    """The knowledge rules' retire entries are made from command lines: a long reason is
    clipped, and past MAX_RETIRE the last are cut."""
    entries = [{"key": "check:make test", "by": None, "reason": "y " * 300}]
    entries += [{"key": f"refused:tool{i} -a", "by": None, "reason": "ran"} for i in range(60)]
    kept = offline.bounded_retire(entries)
    assert len(kept) == offline.MAX_RETIRE and kept[0]["key"] == "check:make test"
    assert len(kept[0]["reason"]) <= schema.TEXT_MAX
    assert schema.change_request({"nodes": [], "edges": [], "retire": kept}, None)["retire"] == kept


def test_a_command_line_longer_than_a_key_still_consolidates_and_is_remembered(root):
    """A working command of 500 characters (flags of a build) is kept, its key cut to the
    change request's bound, not a session failed as invalid and its memory never made."""
    long = "npm run build -- " + " ".join(f"--flag{i}=value{i}" for i in range(30))
    s = Session(root, "s1").start().prompt("Build it with all the flags.")
    s.command(long, 0, "built").stop("Built.")
    o = _offline(s)
    assert o.status == "consolidated", o.error
    (key,) = [k for (k,) in rows(s.project, "SELECT json_extract(data, '$.key') FROM nodes "
                                           "WHERE json_extract(data, '$.kind') = 'command'")]
    assert key.startswith("command:npm run build") and len(key) <= schema.KEY_MAX


def test_our_own_rules_output_out_of_bounds_is_left_out_and_said_not_raised():
    """A model's answer that breaks the schema is refused whole (it is repaired or the session
    goes offline); the offline rules' own output leaves out only the items that break it."""
    good = {"key": "c1", "op": "create", "name": "make test", "type": "concept", "description": "runs the tests",
            "files": [], "evidence": [], "data": {"kind": "command", "key": "command:make test"}}
    bad = {**good, "key": "c2", "name": "x", "data": {"kind": "command", "key": "command:" + "y" * 300}}
    graph = {"nodes": [good, bad], "edges": [{"from": "c2", "to": "c1", "type": "relates_to"}],
             "retire": [{"key": "missing:z", "by": "command:" + "y" * 300, "reason": "ran"}]}
    with pytest.raises(schema.Invalid, match=r"graph.nodes\[1\].data.key: 308 characters"):
        schema.change_request(graph, None)
    dropped: list[str] = []
    out = schema.change_request(graph, None, dropped)
    assert [n["key"] for n in out["nodes"]] == ["c1"] and out["edges"] == [] and out["retire"] == []
    assert len(dropped) == 3 and dropped[0].startswith("graph.nodes[1].data.key")


def test_a_failure_fixed_across_fifty_files_still_consolidates(root):
    """An error record lists at most the schema's 20 files (one held-out session had 51
    written between a failure and its pass, and had never been consolidated)."""
    s = Session(root, "s1").start().prompt("Rename the module everywhere.")
    s.test(3, 1, ("tests/test_app.py::test_x",))
    for i in range(51):
        s.write(f"src/m{i}.py", f"x = {i}\n")
    s.test(4, 0).stop("Renamed.")
    o = _offline(s)
    assert o.status == "consolidated", o.error
    (err,) = episode_file(s.project, "s1")["episodes"][0]["errors"]
    assert len(err["files"]) == 20 and err["resolution"].startswith("Fixed by changing src/m0.py")


def test_an_episode_item_of_our_own_out_of_bounds_is_left_out_and_said():
    ep = {"goal": "g", "outcome": "success", "errors": [
        {"text": "tests failed", "files": [f"f{i}.py" for i in range(21)], "evidence": [1]},
        {"text": "build failed", "files": ["a.py"], "evidence": [1]}]}
    with pytest.raises(schema.Invalid, match=r"episode.errors\[0\].files: 21 items"):
        schema.episode(ep, {1})
    dropped: list[str] = []
    assert [e["text"] for e in schema.episode(ep, {1}, dropped)["errors"]] == ["build failed"]
    assert dropped == ["episode.errors[0].files: 21 items, at most 20 allowed"]
