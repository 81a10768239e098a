"""Gemini CLI payloads (harness-contracts §3.3) through `python -m engram.hook ... --harness gemini`."""

from __future__ import annotations

import json
from functools import partial

import pytest
from testing import helpers
from testing.helpers import events

from engram.harnesses import gemini

SESSION = "8f2c-gem"


def gem_payload(event: str, session: str, proj, **fields) -> dict:
    return {"session_id": session, "cwd": str(proj), "hook_event_name": event,
            "transcript_path": "/home/u/.gemini/tmp/ab12/chats/session-1.json",
            "timestamp": "2026-08-21T10:00:00.000Z", **fields}


send = partial(helpers.send, build=gem_payload, args=("--harness", "gemini"), session=SESSION)


def tool(proj, name, tool_input, llm="", error=None, **kw):
    resp = {"llmContent": llm, "returnDisplay": llm}
    if error:
        resp["error"] = {"message": error, "type": "execution_failed"}
    return send("AfterTool", proj, tool_name=name, tool_input=tool_input, tool_response=resp, **kw)


def test_a_turn_of_gemini_tools(proj):
    send("SessionStart", proj, source="startup")
    send("BeforeAgent", proj, prompt="add caching to add()")
    tool(proj, "read_file", {"file_path": "src/calc.py"}, llm=(proj / "src" / "calc.py").read_text())
    tool(proj, "search_file_content", {"pattern": "add", "path": "src"}, llm="Found 2 matches")
    tool(proj, "run_shell_command", {"command": "pytest -q"},
         llm="Output: F\nFAILED tests/test_calc.py::test_add\n1 failed in 0.01s\nExit Code: 1\nProcess Group PGID: 41")
    (proj / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    tool(proj, "replace", {"file_path": str(proj / "src" / "calc.py"), "old_string": "return a + b",
                           "new_string": "return b + a", "instruction": "swap"}, llm="Successfully modified file")
    tool(proj, "run_shell_command", {"command": "pytest -q"},
         llm="Output: .\n1 passed in 0.01s\nProcess Group PGID: 42")
    tool(proj, "google_web_search", {"query": "functools lru_cache"}, llm="Search results ...")
    tool(proj, "web_fetch", {"prompt": "Summarise https://docs.python.org/3/library/functools.html please"})
    tool(proj, "write_file", {"file_path": "src/cache.py", "content": "CACHE = {}\n"},
         llm="Successfully created and wrote to new file: src/cache.py")
    tool(proj, "list_directory", {"dir_path": "src"}, llm="Directory listing")
    send("AfterAgent", proj, prompt="add caching", prompt_response="Added an LRU cache.", stop_hook_active=False)
    send("PreCompress", proj, trigger="auto")  # fired before every model call: not a compaction
    send("PreCompress", proj, trigger="manual")  # /compress
    send("PreCompress", proj, trigger="manual")  # twice in one turn: recorded once
    send("SessionEnd", proj, reason="exit")
    evs = events(proj, SESSION)
    kinds = [e["type"] for e in evs if e["type"] not in ("exploration", "fix_attempt", "progression")]
    assert kinds == ["session_start", "user_prompt", "file_read", "search", "test_run", "file_write", "test_run",
                     "research", "research", "file_write", "search", "learned", "learned", "turn_complete",
                     "compact", "session_end"]
    runs = [e for e in evs if e["type"] == "test_run"]
    assert [(r["exit_code"], r["outcome"]) for r in runs] == [(1, "fail"), (0, "pass")]
    assert "fix_attempt" in [e["type"] for e in evs]  # the replace after the failing run
    fetch = [e for e in evs if e.get("source") == "web_fetch"][0]
    assert fetch["url"] == "https://docs.python.org/3/library/functools.html"
    write = [e for e in evs if e["type"] == "file_write"][-1]
    assert write["path"] == "src/cache.py" and write["op"] == "create"
    assert evs[-3]["agent_summary"] == "Added an LRU cache."


def test_failed_tool_is_captured_from_tool_response_error(proj):
    tool(proj, "write_file", {"file_path": "src/x.py", "content": "x"}, error="Permission denied")
    (ev,) = [e for e in events(proj, SESSION) if e["type"] == "file_write"]
    assert ev["ok"] is False and ev["error"] == "Permission denied"


def test_mcp_tool_names_have_single_underscores(proj):
    tool(proj, "mcp_engram_query_knowledge", {"question": "cache"})
    tool(proj, "mcp_github_list_issues", {"repo": "a/b"})
    assert [(e["type"], e["tool"]) for e in events(proj, SESSION)] == [("tool_call", "mcp_github_list_issues")]


def test_without_harness_flag_gemini_event_names_are_recognised(proj):
    tool(proj, "read_file", {"file_path": "src/calc.py"}, llm="def add", args=())
    assert events(proj, SESSION)[0]["type"] == "file_read"


@pytest.mark.parametrize("event, ok", [("SessionStart", True), ("BeforeAgent", True), ("AfterTool", True),
                                       ("AfterAgent", False), ("SessionEnd", False), ("PreCompress", False)])
def test_render_json_only_where_gemini_takes_context(event, ok):
    out = gemini.render(event, "memory")
    assert bool(out) == ok
    if ok:
        assert json.loads(out)["hookSpecificOutput"] == {"hookEventName": event, "additionalContext": "memory"}


# llmContent as Gemini CLI 0.61.0 sends it (captured in tests/realclis): framed, "Exit Code" only when not 0.
FAILED = "<untrusted_context>\nOutput: error: x\nmake: *** Error 2\nExit Code: 2\nProcess Group PGID: 7\n</untrusted_context>"


@pytest.mark.parametrize("text, want", [
    ("Output: (empty)\nProcess Group PGID: 5", (True, 0, "")),
    ("Output: a\nb\nError: spawn\nExit Code: 127\nSignal: 0", (False, 127, "a\nb")),
    (FAILED, (False, 2, "error: x\nmake: *** Error 2")),
    ("<untrusted_context>\nOutput: ok\nProcess Group PGID: 9\n</untrusted_context>", (True, 0, "ok")),
    ("Output: Exit Code: 3 is printed by the tool itself\nProcess Group PGID: 9", (True, 0, "Exit Code: 3 is printed by the tool itself")),
    ("Output: partial\nSignal: 9\nProcess Group PGID: 9", (False, None, "partial")),
    ("Command moved to background (PID: 12). Output hidden. Press Ctrl+B to view.", (None, None, "Command moved to background (PID: 12). Output hidden. Press Ctrl+B to view.")),
    ("Command was cancelled by user before it could complete. There was no output before it was cancelled.", (None, None, "Command was cancelled by user before it could complete. There was no output before it was cancelled.")),
    ("Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output.", (False, None, "Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output.")),
])
def test_shell_result_reads_the_exit_status_or_says_it_is_unknown(text, want):
    assert gemini.shell_result(text) == want


def test_write_todos_is_the_agents_task_list(proj):
    send("SessionStart", proj, source="startup")
    tool(proj, "write_todos", {"todos": [{"description": "Initialise the project", "status": "completed"},
                                         {"description": "Add a cache", "status": "cancelled"},
                                         {"description": "Write the docs", "status": "weird"}]}, llm="ok")
    (ev,) = [e for e in events(proj, SESSION) if e["type"] == "todos"]
    assert [i["status"] for i in ev["items"]] == ["completed", "cancelled", "pending"]  # unknown: pending
