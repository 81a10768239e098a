"""Codex CLI payloads (harness-contracts §2.3) through `python -m engram.hook ... --harness codex`."""

from __future__ import annotations

import json
from functools import partial

import pytest
from testing import helpers
from testing.helpers import events

from engram.harnesses import apply_patch, codex


def codex_payload(event: str, session: str, proj, **fields) -> dict:
    base = {"session_id": session, "cwd": str(proj), "hook_event_name": event, "model": "gpt-5.5",
            "permission_mode": "default",
            "transcript_path": f"/home/u/.codex/sessions/2026/05/20/rollout-2026-05-20T10-00-00-{session}.jsonl"}
    if event != "SessionStart":
        base["turn_id"] = "019d036d-turn"
    return {**base, **fields}


send = partial(helpers.send, build=codex_payload, args=("--harness", "codex"), session="019d-a1")


def bash(proj, command, exit_code=0, output="", **kw):
    resp = f"Exit code: {exit_code}\nWall time: 0.4 seconds\nOutput:\n{output}"
    return send("PostToolUse", proj, tool_name="Bash", tool_use_id="call_1", tool_input={"command": command},
                tool_response=resp, **kw)


def patch(proj, text, ok=True):
    resp = ("Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\n" if ok
            else "Exit code: 1\nWall time: 0 seconds\nOutput:\nerror: Failed to find expected lines\n")
    return send("PostToolUse", proj, tool_name="apply_patch", tool_use_id="call_2",
                tool_input={"command": text}, tool_response=resp)


def test_a_turn_captures_prompt_reads_tests_and_turn_end(proj):
    send("SessionStart", proj, source="startup")
    send("UserPromptSubmit", proj, prompt="fix the flaky test")
    bash(proj, "sed -n '1,40p' src/calc.py", output=(proj / "src" / "calc.py").read_text())
    bash(proj, "nl -ba tests/test_calc.py", output="1 from src.calc import add")
    bash(proj, "pytest -q", exit_code=1, output="F\nFAILED tests/test_calc.py::test_add - assert 4 == 3\n1 failed in 0.02s\n")
    assert send("Stop", proj, stop_hook_active=False, last_assistant_message="Fixed; tests pass.") == ""
    evs = events(proj, "019d-a1")
    assert [e["type"] for e in evs] == ["session_start", "user_prompt", "file_read", "exploration", "file_read",
                                        "exploration", "test_run", "turn_complete"]
    assert evs[0]["harness"] == "codex"
    assert [e["path"] for e in evs if e["type"] == "file_read"] == ["src/calc.py", "tests/test_calc.py"]
    run = evs[6]
    assert run["exit_code"] == 1 and run["outcome"] == "fail" and "test_add" in json.dumps(run)
    assert evs[-1]["agent_summary"] == "Fixed; tests pass."


def test_apply_patch_is_one_write_per_file_with_hunks(proj):
    (proj / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    (proj / "src" / "old.py").write_text("x = 1\n")
    (proj / "src" / "moved.py").write_text("y = 2\n")
    text = ("*** Begin Patch\n*** Update File: src/calc.py\n@@ def add(a, b):\n def add(a, b):\n-    return a + b\n"
            "+    return b + a\n*** Add File: src/util.py\n+def twice(x):\n+    return 2 * x\n"
            "*** Delete File: src/gone.py\n*** Update File: src/old.py\n*** Move to: src/moved.py\n@@\n-x = 1\n+y = 2\n"
            "*** End Patch")
    patch(proj, text)
    writes = [e for e in events(proj, "019d-a1") if e["type"] == "file_write"]
    assert [(w["path"], w["op"]) for w in writes] == [("src/calc.py", "edit"), ("src/util.py", "create"),
                                                      ("src/gone.py", "delete"), ("src/old.py", "delete"),
                                                      ("src/moved.py", "edit")]
    calc = writes[0]
    assert calc["ranges"] == [[2, 2]] and "-    return a + b" in calc["diff"] and "+    return b + a" in calc["diff"]
    assert writes[1]["lines_added"] == 2 and all(w["ok"] for w in writes)


def test_failed_patch_is_recorded_as_failed(proj):
    patch(proj, "*** Begin Patch\n*** Update File: src/calc.py\n@@\n-nope\n+yes\n*** End Patch", ok=False)
    (w,) = [e for e in events(proj, "019d-a1") if e["type"] == "file_write"]
    assert w["ok"] is False and "Failed to find" in w["error"]


def test_a_patch_with_neither_exit_code_nor_output_is_unknown(proj):
    """A converted transcript's patch whose result the export did not keep (engram/history)."""
    send("PostToolUse", proj, tool_name="apply_patch", tool_use_id="call_3", tool_response="",
         tool_input={"command": "*** Begin Patch\n*** Update File: src/calc.py\n@@\n-a\n+b\n*** End Patch"})
    (w,) = [e for e in events(proj, "019d-a1") if e["type"] == "file_write"]
    assert w["ok"] is None and "error" not in w and w["path"] == "src/calc.py"


def test_mcp_tools_and_own_query_tool(proj):
    send("PostToolUse", proj, tool_name="mcp__github__create_issue", tool_input={"title": "x"},
         tool_response={"content": [{"type": "text", "text": "ok"}]})
    send("PostToolUse", proj, tool_name="mcp__engram__query_knowledge", tool_input={"question": "retry"},
         tool_response={"content": []})
    evs = events(proj, "019d-a1")
    assert [e["type"] for e in evs] == ["tool_call"] and evs[0]["tool"] == "mcp__github__create_issue"


def test_without_harness_flag_turn_id_means_codex(proj):
    bash(proj, "cat src/calc.py", output="def add", args=())
    (ev, _) = events(proj, "019d-a1")
    assert ev["type"] == "file_read" and ev["via"] == "shell"


def test_render_only_where_codex_takes_context():
    out = json.loads(codex.render("UserPromptSubmit", "D12: retries live in src/net/retry.py"))
    assert out == {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                          "additionalContext": "D12: retries live in src/net/retry.py"}}
    assert codex.render("Stop", "anything") == "" and codex.render("PreCompact", "x") == ""


@pytest.mark.parametrize("resp, code, output", [
    ("Exit code: 2\nWall time: 1 seconds\nOutput:\nboom\n", 2, "boom\n"),
    ("Exit code: 0\nWall time: 0 seconds\nTotal output lines: 1\nOutput:\nok", 0, "ok"),
    ({"exit_code": 3, "output": "bad"}, 3, "bad"),
    ("plain text", None, "plain text"),
])
def test_tool_response_shapes(resp, code, output):
    assert codex.result(resp) == (code, output)


def test_patch_grammar_edge_cases():
    files = apply_patch.parse("*** Begin Patch\n*** Update File: a.py\n@@ class A\n ctx\n-a\n+b\n@@\n-c\n+d\n"
                              "*** End of File\n*** End Patch\n")
    assert files == [{"op": "update", "path": "a.py", "lines": [], "chunks": [[" ctx", "-a", "+b"], ["-c", "+d"]]}]
    hunks = apply_patch.hunks(files[0]["chunks"], ["x", "ctx", "b", "y", "d"])
    assert [(h["old_start"], h["new_start"], h["old_lines"], h["new_lines"]) for h in hunks] == [(2, 2, 2, 2), (5, 5, 1, 1)]
    assert codex.command_text(["bash", "-lc", "pytest -q"]) == "pytest -q"


def test_update_plan_is_the_agents_task_list(proj):
    send("SessionStart", proj, source="startup")
    send("PostToolUse", proj, tool_name="update_plan", tool_use_id="call_2",
         tool_input={"explanation": "two steps", "plan": [{"step": "Write the parser", "status": "completed"},
                                                          {"step": "Add tests", "status": "in_progress"}]},
         tool_response="Plan updated")
    (ev,) = [e for e in events(proj, "019d-a1") if e["type"] == "todos"]
    assert ev["items"] == [{"text": "Write the parser", "status": "completed"},
                           {"text": "Add tests", "status": "in_progress"}]
