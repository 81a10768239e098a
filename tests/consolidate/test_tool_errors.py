"""Gotchas from the harness's own tools (consolidate/knowledge/tool_errors.py)."""

from __future__ import annotations

from testing.consolidation import cfg, consolidate
from testing.helpers import context, send

from engram.config import Project
from engram.consolidate.knowledge import tool_errors


def call(seq: int, tool: str, ok: bool, error: str = "", **fields) -> dict:
    return {"type": "tool_call", "seq": seq, "tool": tool, "ok": ok, **({"error": error} if error else {}), **fields}


def test_a_failure_that_names_a_missing_thing_is_a_gotcha_with_the_target_that_worked():
    events = [call(1, "Read", False, "<tool_use_error>File does not exist. Did you mean .golangci.yaml?</tool_use_error>",
                   path=".golangci.yml"),
              call(2, "Read", True, path=".golangci.yaml"),
              call(3, "Skill", False, "<tool_use_error>Unknown skill: commit</tool_use_error>")]
    found = {g["tool"]: g for g in tool_errors.gotchas(events)}
    assert tool_errors.describe(found["Read"])[1] == (
        "Read on `.golangci.yml` failed: File does not exist. Did you mean .golangci.yaml?; "
        "Read of `.golangci.yaml` worked next.")
    assert tool_errors.describe(found["Skill"]) == ("Skill fails: Unknown skill: commit",
                                                   "Skill failed: Unknown skill: commit.")


def test_an_edit_that_keeps_missing_says_how_its_text_was_indented():
    miss = "String to replace not found in file.\nString: \t\tswitch (event.type) {\n\t\t\tcase \"a\":"
    events = [call(1, "Edit", False, miss, path="src/tab.ts"), call(2, "Edit", True, path="src/tab.ts"),
              call(3, "Edit", False, miss.replace("switch", "case"), path="src/tab.ts")]
    (g,) = tool_errors.gotchas(events)
    assert g["times"] == 2 and tool_errors.describe(g)[1] == (
        "Edit on `src/tab.ts` failed: String to replace not found in file (the text to replace was indented "
        "with tabs) (seen 2 times).")
    assert tool_errors.gotchas(events[:2]) == []  # once, naming nothing: the agent's slip, not the project's


def test_the_harness_rules_of_play_are_no_gotchas():
    events = [call(i, "Edit", False, e, path="a.py") for i, e in enumerate([
        "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
        "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
        "<tool_use_error>Sibling tool call errored</tool_use_error>",
        "<tool_use_error>Sibling tool call errored</tool_use_error>"])]
    assert tool_errors.gotchas(events) == []


def search(seq: int, pattern: str, path: str, found: int) -> dict:
    return {"type": "search", "seq": seq, "tool": "Grep", "ok": True, "pattern": pattern, "path": path,
            "results_count": found}


def test_a_pattern_found_in_a_folder_but_not_in_the_folder_around_it_is_a_gotcha():
    events = [search(1, r"swagger-theme\.css", "go/cmd/mcp-server", 1), search(2, r"swagger-theme\.css", ".", 0),
              search(3, "DATABASE_URL", "go", 0), search(4, "DATABASE_URL", "docs", 2)]  # not inside: no gap
    (gap,) = tool_errors.search_gaps(events)
    assert tool_errors.describe_gap(gap) == (
        "Grep in . skips go/cmd/mcp-server",
        "Grep for `swagger-theme\\.css` in `.`: No files found; in `go/cmd/mcp-server`: 1 found. "
        "A Grep of `.` skips files in `go/cmd/mcp-server`.")
    assert tool_errors.search_gaps([search(1, "x", ".", 0), search(2, "x", "src", 0)]) == []


def test_a_tool_failure_reaches_the_next_session_through_the_real_hooks(proj, monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    (proj / ".golangci.yaml").write_text("version: 2\n")
    send("SessionStart", proj, source="startup")
    send("UserPromptSubmit", proj, prompt="Check the lint configuration.")
    send("PostToolUseFailure", proj, tool_name="Read", tool_input={"file_path": str(proj / ".golangci.yml")},
         error="File does not exist. Did you mean .golangci.yaml?")
    send("PostToolUse", proj, tool_name="Read", tool_input={"file_path": str(proj / ".golangci.yaml")},
         tool_response={"type": "text", "file": {"filePath": str(proj / ".golangci.yaml"), "content": "version: 2\n",
                                                 "numLines": 1, "startLine": 1, "totalLines": 1}})
    send("Stop", proj, stop_hook_active=False, last_assistant_message="The lint configuration is .golangci.yaml.")
    project = Project.from_cwd(str(proj))
    assert consolidate(project, "s1", cfg(project)).status == "consolidated"
    start = context(send("SessionStart", proj, session="s2", source="startup"))
    assert "Read on `.golangci.yml` failed: File does not exist. Did you mean .golangci.yaml?" in start


def test_a_file_not_found_that_the_session_then_wrote_was_yet_to_be_made():
    missing = "<tool_use_error>File does not exist.</tool_use_error>"
    events = [call(1, "Read", False, missing, path="config/units.yaml"),
              {"type": "file_write", "seq": 2, "tool": "Write", "ok": True, "path": "src/app/config/units.yaml"}]
    assert tool_errors.gotchas(events) == []
    (g,) = tool_errors.gotchas(events[:1])  # not made later: the path was wrong, worth knowing
    assert tool_errors.describe(g)[1] == "Read on `config/units.yaml` failed: File does not exist."


def test_a_read_of_another_file_after_a_missing_one_is_the_next_step_not_a_way_round():
    missing = "<tool_use_error>File does not exist.</tool_use_error>"
    (g,) = tool_errors.gotchas([call(1, "Read", False, missing, path="tools/integrity.py"),
                                call(2, "Read", True, path="src/state.py")])
    assert g["worked"] == ""
    (g,) = tool_errors.gotchas([call(1, "Read", False, missing, path="tools/integrity.py"),
                                call(2, "Read", True, path="src/tools/integrity.py")])  # the same name elsewhere
    assert g["worked"] == "src/tools/integrity.py"
