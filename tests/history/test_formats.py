"""Each transcript format -> the exact hook payloads (engram/history/formats.py and its converters).

The samples in tests/history/data/shop are written by hand, one a format (and one a SpecStory
harness), after the structure the formats' notes document (docs/evaluation.md, "Transcript formats").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engram.harnesses import registry
from engram.history import corpus, formats, rollout, specstory
from engram.history.codex_payloads import exec_result
from engram.hook import REPLAY_TS

SHOP = Path(__file__).parent / "data" / "shop"
ROOT = "/home/u/shop"


def brief(items: list[tuple[str, dict]]) -> list[tuple]:
    """(event, what it says): the prompt, the last message, or (tool, command or input, response)."""
    out: list[tuple] = []
    for event, p in items:
        if event.startswith("PostTool"):
            tin = p["tool_input"]
            what = tin["command"] if set(tin) == {"command"} else tin
            out.append((event, p["tool_name"], what, p.get("tool_response", p.get("error"))))
        elif event in ("UserPromptSubmit", "Stop"):
            out.append((event, p.get("prompt", p.get("last_assistant_message"))))
        else:
            out.append((event,))
    return out


def session(name: str) -> corpus.Session:
    (s,) = [s for s in corpus.load_project(str(SHOP), ROOT).sessions if s.id == name]
    return s


def test_every_sample_is_sniffed_and_converted_to_its_harness():
    sessions = corpus.load_project(str(SHOP), ROOT).sessions
    assert [(s.id, s.harness) for s in sessions] == [
        ("01-claude-code", "claude-code"), ("02-codex-rollout", "codex"), ("03-specstory-codex", "codex"),
        ("04-specstory-claude-code", "codex"), ("05-specstory-gemini", "codex"), ("06-specstory-cursor", "codex"),
        ("07-specstory-copilot", "codex"), ("08-specstory-legacy", "codex")]
    files = sorted(SHOP.glob("[0-9]*"))
    assert [formats.sniff(f.read_text()) for f in files] == [
        "claude-code-jsonl", "codex-rollout-jsonl"] + ["specstory-markdown-v2"] * 5 + ["specstory-cursor-legacy"]
    assert formats.sniff((SHOP / "README.md").read_text()) is None  # not a session: load_project skips it
    for s in sessions:
        items = s.payloads()
        assert {p["session_id"] for _, p in items} == {s.id} and {p["cwd"] for _, p in items} == {ROOT}
        assert items[0][0] == "SessionStart" and items[-1][0] == "SessionEnd"
        if s.harness == "codex":  # every payload says it is Codex's, as a live one would
            assert all("turn_id" in p and registry.detect(p).NAME == "codex" for _, p in items)


def test_claude_code_jsonl_as_the_entire_cli_stores_it():
    """A first line with no session id (file-history-snapshot) is not a record of the session."""
    assert brief(session("01-claude-code").payloads()) == [
        ("SessionStart",), ("UserPromptSubmit", "run the cart tests"),
        ("PostToolUseFailure", "Bash", {"command": "pytest -q tests/test_cart.py", "description": "Run the cart tests"},
         "Exit code 1\nFAILED tests/test_cart.py::test_total - assert 0.30000000000000004 == 0.3\n1 failed in 0.02s"),
        ("PostToolUse", "Edit", {"file_path": "/home/u/shop/src/cart.py", "old_string": "    return a + b",
                                 "new_string": "    return round(a + b, 2)"},
         session("01-claude-code").records[4]["toolUseResult"]),
        ("Stop", "The total is rounded to cents now."), ("SessionEnd",)]


def test_codex_rollout():
    """Exit codes from the outputs; a backgrounded command finishes through its write_stdin poll
    (or stays unknown at its turn's end); web search and image views are not hooked."""
    items = session("02-codex-rollout").payloads()
    assert brief(items) == [
        ("SessionStart",), ("UserPromptSubmit", "fix the cart total"),
        ("PostToolUse", "Bash", "pytest -q",
         "Exit code: 1\nWall time: 0.6197 seconds\nOutput:\nFAILED tests/test_cart.py::test_total\n1 failed in 0.02s\n"),
        ("PostToolUse", "Bash", "npm run build", "Exit code: 0\nWall time: 3.5 seconds\nOutput:\nbuilding\nbuilt in 3s\n"),
        ("PostToolUse", "apply_patch",
         "*** Begin Patch\n*** Update File: src/cart.py\n@@ def total(a, b):\n-    return a + b\n+    return round(a + b, 2)\n"
         "*** End Patch\n",
         "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM src/cart.py\n"),
        ("PostToolUse", "update_plan", {"plan": [{"step": "Round the total", "status": "completed"},
                                                 {"step": "Open a PR", "status": "pending"}]}, "Plan updated"),
        ("PostToolUse", "mcp__codex_apps__github_fetch_pr", {"repo_full_name": "u/shop", "pr_number": 7},
         {"content": [{"type": "text", "text": '{"number": 7, "state": "open"}'}]}),
        ("Stop", "Fixed: the total is rounded to cents."),
        ("UserPromptSubmit", "start the dev server"),
        ("PostToolUse", "Bash", "npm run dev", "listening on 3000\n"),
        ("Stop", "The server is running on port 3000."), ("SessionEnd",)]
    assert [p["turn_id"] for _, p in items] == [""] + ["019ed50c-turn-1"] * 7 + ["019ed50c-turn-2"] * 3 + [""]
    assert [p[REPLAY_TS] for _, p in items[:3]] == ["2026-06-17T10:07:16.815Z", "2026-06-17T10:07:19.533Z",
                                                    "2026-06-17T10:07:32.346Z"]
    assert items[2][1]["tool_use_id"] == "call_1"


def test_specstory_codex_export():
    """A patch whose result the export did not keep has no response (unknown); a heredoc command
    holding its own Markdown fences stays whole."""
    items = session("03-specstory-codex").payloads()
    assert brief(items) == [
        ("SessionStart",), ("UserPromptSubmit", "make the build pass"),
        ("PostToolUse", "Bash", "npm run build",
         "Exit code: 2\nWall time: 0.0510 seconds\nOutput:\nsrc/cart.js:3 SyntaxError: Unexpected end of input"),
        ("PostToolUse", "apply_patch", "*** Begin Patch\n*** Update File: src/cart.js\n@@\n-const total = (a, b) => a +\n"
                                       "+const total = (a, b) => a + b;\n*** End Patch", ""),
        ("PostToolUse", "Bash", "cat > notes.md <<'EOF2'\n# Notes\n```js\ntotal(1, 2)\n```\nEOF2",
         "Exit code: 0\nWall time: 0.0522 seconds\nOutput:\n"),
        ("Stop", "The build passes now."), ("SessionEnd",)]
    assert [p[REPLAY_TS] for _, p in items] == ["2026-02-27T18:12:11Z"] * 2 + ["2026-02-27T18:12:19Z",
                                                "2026-02-27T18:12:25Z", "2026-02-27T18:12:28Z"] + ["2026-02-27T18:12:30Z"] * 2


def test_specstory_claude_code_export():
    """Only a failure prints "Exit code N": a run without it ended with 0; a read that shows the file
    read is exit 0; an Edit shows only that the file changed (an update with no lines); searches
    are `rg`, the task list update_plan (⚡: in progress)."""
    assert brief(session("04-specstory-claude-code").payloads()) == [
        ("SessionStart",), ("UserPromptSubmit", "the cart test fails"),
        ("PostToolUse", "update_plan", {"plan": [{"step": "Find the failing test", "status": "in_progress"},
                                                 {"step": "Fix the total", "status": "pending"}]}, ""),
        ("PostToolUse", "Bash", "rg --files -g '**/*cart*.py'", "/home/u/shop/src/cart.py\n/home/u/shop/tests/test_cart.py"),
        ("PostToolUse", "Bash", "rg -n 'def total'", "Found 1 file\nsrc/cart.py"),
        ("PostToolUse", "Bash", "cat ./src/cart.py", "Exit code: 0\nOutput:\n     1→def total(a, b):\n     2→    return a + b"),
        ("PostToolUse", "Bash", "pytest -q tests/test_cart.py",
         "Exit code: 1\nOutput:\nFAILED tests/test_cart.py::test_total - assert 0.30000000000000004 == 0.3\n1 failed in 0.02s"),
        ("PostToolUse", "apply_patch", "*** Begin Patch\n*** Update File: /home/u/shop/src/cart.py\n*** End Patch",
         "Exit code: 0\nOutput:\nThe file /home/u/shop/src/cart.py has been updated. Here's the result of running `cat -n` "
         "on a snippet of the edited file:\n     1→def total(a, b):\n     2→    return round(a + b, 2)"),
        ("PostToolUse", "Bash", "pytest -q tests/test_cart.py", "Exit code: 0\nOutput:\n1 passed in 0.01s"),
        ("Stop", "The test passes now."), ("SessionEnd",)]


def test_specstory_gemini_export():
    assert brief(session("05-specstory-gemini").payloads()) == [
        ("SessionStart",), ("UserPromptSubmit", "add a README, then build"),
        ("PostToolUse", "apply_patch", "*** Begin Patch\n*** Add File: README.md\n+# Shop\n*** End Patch",
         "Exit code: 0\nOutput:\nSuccessfully created and wrote to new file: /home/u/shop/README.md."),
        ("PostToolUse", "Bash", "make build", "Exit code: 2\nOutput:\nmake: *** No rule to make target 'build'.  Stop."),
        ("PostToolUse", "Bash", "ls .", "Directory listing for /home/u/shop:\nMakefile\nREADME.md"),
        ("PostToolUse", "Bash", "cat Makefile", "Exit code: 0\nOutput:\ntest:\n\tpytest -q"),
        ("PostToolUse", "Bash", "rg -n build", 'No matches found for pattern "build" in path "." (filter: "Makefile").'),
        ("PostToolUse", "apply_patch", "*** Begin Patch\n*** Update File: /home/u/shop/Makefile\n*** End Patch",
         "Exit code: 1\nOutput:\nFailed to edit, Expected 1 occurrence but found 0 for old_string in file: /home/u/shop/Makefile"),
        ("Stop", "The Makefile has no build target yet."), ("SessionEnd",)]


CURSOR = [
    ("SessionStart",), ("UserPromptSubmit", "round the cart total"),
    ("PostToolUse", "Bash", "cat src/cart.ts", ""),
    ("PostToolUse", "apply_patch", "*** Begin Patch\n*** Update File: src/cart.ts\n@@\n"
                                   "-export const total = (a: number, b: number) => a + b;\n"
                                   "+export const total = (a: number, b: number) => Math.round((a + b) * 100) / 100;\n"
                                   " \n*** End Patch", ""),
    ("PostToolUse", "Bash", "npm test && echo ok", "FAIL src/cart.test.ts\nTests:       1 failed, 1 total"),
    ("PostToolUse", "Bash", "rg -n total src",
     "Output mode: content\n\n\n| File | Content | Line |\n|------|------|------|\n| `src/cart.ts` | `export const total` | L1 |"),
    ("Stop", "The total is rounded now."), ("SessionEnd",)]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_specstory_cursor_export(newline):
    """No exit status and no read content: all unknown; HTML entities unescaped; CRLF files read alike."""
    text = (SHOP / "06-specstory-cursor.md").read_text().replace("\n", newline)
    assert brief(specstory.payloads(text, "s")) == CURSOR


def test_specstory_copilot_export():
    """Inputs only: the change is known, no result is (nor any read's content)."""
    assert brief(session("07-specstory-copilot").payloads()) == [
        ("SessionStart",), ("UserPromptSubmit", "create the guests migration and run it"),
        ("PostToolUse", "Bash", "cat /home/u/shop/lib/shop/guest.ex", ""),
        ("PostToolUse", "Bash", "rg -n 'field :name' -g 'lib/**/*.ex'", ""),
        ("PostToolUse", "Bash", "rg --files -g '**/migrations/*.exs'", ""),
        ("PostToolUse", "apply_patch", "*** Begin Patch\n*** Add File: /home/u/shop/priv/repo/migrations/001_create_guests.exs\n"
                                       "+defmodule Shop.Repo.Migrations.CreateGuests do\n+end\n*** End Patch", ""),
        ("PostToolUse", "apply_patch", "*** Begin Patch\n*** Update File: /home/u/shop/lib/shop/guest.ex\n@@\n"
                                       "-    field :name, :string\n+    field :name, :string, null: false\n*** End Patch", ""),
        ("PostToolUse", "Bash", "mix ecto.migrate", ""),
        ("PostToolUse", "update_plan", {"plan": [{"step": "Create the migration", "status": "completed"},
                                                 {"step": "Migrate", "status": "in_progress"}]}, ""),
        ("Stop", "The migration is in place."), ("SessionEnd",)]


def test_specstory_legacy_cursor_export():
    """Tools as text: a command with no terminal fence did not run, a diff names no file (no write),
    "Cancelled" is not the agent's text; the title's time dates every payload."""
    items = session("08-specstory-legacy").payloads()
    assert brief(items) == [
        ("SessionStart",), ("UserPromptSubmit", "rename session cd to session dir"),
        ("PostToolUse", "Bash", "cat src/commands/session/cd.ts", ""),
        ("PostToolUse", "Bash", "ls src/commands/session", "| Name |\n|-------|\n| 📄 `cd.ts` |\n| 📄 `index.ts` |"),
        ("PostToolUse", "Bash", "rg -n sessionCd", "| File | Line | Match |\n|------|------|-------|\n"
                                                  "| `file:///home/u/shop/src/cli.ts` | L3 | "
                                                  '`import { sessionCd } from "./commands/session/cd";` |'),
        ("PostToolUse", "Bash", "bun test", "u@host shop % bun test\n 1 pass\n 1 fail"),
        ("Stop", "Renamed `session cd` to `session dir`."),
        ("UserPromptSubmit", "thanks"), ("Stop", ""), ("SessionEnd",)]
    assert {p[REPLAY_TS] for _, p in items} == {"2025-04-27T16:11:20Z"}


def test_codex_exec_output_header():
    assert exec_result("Chunk ID: a\nWall time: 0.2 seconds\nProcess exited with code 3\nOriginal token count: 1\n"
                       "Output:\nboom\n") == exec_result("Wall time: 0.2 seconds\nProcess exited with code 3\nOutput:\nboom\n")
    res = exec_result("Chunk ID: a\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:")  # empty, cut by the export
    assert (res.code, res.wall, res.output) == (0, "0.0", "")
    assert exec_result("Chunk ID: b\nWall time: 30 seconds\nProcess running with session ID 9\nOutput:\nup\n").running == "9"
    assert exec_result("plain text\nOutput:\nnot a header").code is None


def test_rollout_of_an_older_codex_names_its_shell_tool_shell_with_argv():
    recs = [{"timestamp": "2025-09-01T10:00:00.000Z", "type": "session_meta", "payload": {"id": "old", "cwd": ROOT}},
            {"timestamp": "2025-09-01T10:00:01.000Z", "type": "event_msg", "payload": {"type": "user_message", "message": "ls"}},
            {"timestamp": "2025-09-01T10:00:02.000Z", "type": "response_item", "payload": {
                "type": "function_call", "name": "shell", "call_id": "c1",
                "arguments": '{"command": ["bash", "-lc", "ls -la"], "workdir": "/home/u/shop"}'}},
            {"timestamp": "2025-09-01T10:00:03.000Z", "type": "response_item", "payload": {
                "type": "function_call_output", "call_id": "c1", "output": "total 0"}}]
    assert brief(rollout.payloads(recs)) == [("SessionStart",), ("UserPromptSubmit", "ls"),
                                             ("PostToolUse", "Bash", "ls -la", "total 0"), ("Stop", ""), ("SessionEnd",)]


def test_a_file_in_no_known_format_is_named(tmp_path):
    (tmp_path / "01-notes.md").write_text("# just notes\n")
    with pytest.raises(ValueError, match="01-notes.md: not a transcript"):
        corpus.load_project(str(tmp_path), ROOT)


def _copilot_terminal(result: str) -> str:
    return ('<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n# 2025-10-16 12:28:28Z\n\n'
            '<!-- VS Code Copilot IDE Session 5efac2d4-9a28-49d9-90f1-14d7af6d7480 (2025-10-16 12:28:28Z) -->\n\n'
            '_**User (2025-10-16 12:28:28Z)**_\n\nbuild it\n\n---\n\n_**Agent (copilot/claude-sonnet-4.5)**_\n\n'
            '<tool-use data-tool-type="generic" data-tool-name="run_in_terminal"><details>\n'
            '<summary>Tool use: **run_in_terminal**</summary>\n\n**Input:**\n\n- command: `make build`\n'
            '- mode: `sync`\n\n' + result + '</details></tool-use>\n\nDone.\n\n---\n')


@pytest.mark.parametrize("result, response", [
    ("", ""),  # older exports: the input alone
    ("**Result:**\n\n```\nbuilt 3 targets\n```\n", "built 3 targets"),  # no code line: unknown, not a success
    ("**Result:**\n\n```\n\n\nCommand produced no output\n```\n", ""),
    ("**Result:**\n\n```\nmake: *** No rule to make target 'build'.\n\nCommand exited with code 2\n```\n",
     "Exit code: 2\nOutput:\nmake: *** No rule to make target 'build'.\n")])
def test_specstory_copilot_terminal_result(result, response):
    """A Copilot terminal call's "**Result:**" is its output; only "Command exited with code N" gives a status."""
    shell = [x for x in brief(specstory.payloads(_copilot_terminal(result), "s")) if x[0] == "PostToolUse"]
    assert shell == [("PostToolUse", "Bash", "make build", response)]


@pytest.mark.parametrize("typed", ["<bash-input>git push</bash-input>",
                                   "<bash-stdout>[entire] Pushing session logs to origin...</bash-stdout><bash-stderr></bash-stderr>",
                                   "<local-command-stdout>Compacted</local-command-stdout>",
                                   "<task-notification>\n<task-id>b1</task-id>\n<status>failed</status>\n</task-notification>"])
def test_a_claude_code_record_in_the_users_place_that_no_prompt_carries_is_skipped(typed):
    """Bash mode (`!cmd`) and slash commands write these as user records; no UserPromptSubmit carries them."""
    from engram.history import transcripts

    assert transcripts._prompt_text({"type": "user", "message": {"role": "user", "content": typed}}) is None
    assert transcripts._prompt_text({"type": "user", "message": {"role": "user", "content": "fix it"}}) == "fix it"


def test_a_session_that_opens_with_undated_records_starts_at_its_first_time():
    """Claude Code may write a custom title and an agent name first, with no time: SessionStart is
    dated by the first record that has one, never at the import."""
    from engram.hook import REPLAY_TS
    from engram.history import transcripts

    records = [{"type": "custom-title", "customTitle": "badges", "sessionId": "s"},
               {"type": "user", "sessionId": "s", "cwd": "/p", "timestamp": "2026-03-17T22:38:34.415Z",
                "message": {"role": "user", "content": "add the badges"}}]
    start = next(p for e, p in transcripts.payloads(records) if e == "SessionStart")
    assert start[REPLAY_TS] == "2026-03-17T22:38:34.415Z"


def test_a_background_tasks_notification_ends_the_answer_before_it_and_is_no_prompt():
    """The agent had answered; the task's end wakes it: Stop, then its next answer, then Stop, and
    no UserPromptSubmit (the real client fires none)."""
    from engram.history import transcripts

    def rec(kind, content, ts):
        return {"type": kind, "sessionId": "s", "cwd": "/p", "timestamp": ts,
                "message": {"role": kind, "content": content}}

    records = [rec("user", "deploy it", "2026-03-17T10:00:00Z"),
               rec("assistant", [{"type": "text", "text": "Started the deploy in the background."}], "2026-03-17T10:00:05Z"),
               rec("user", "<task-notification>\n<task-id>b1</task-id>\n<status>failed</status>\n</task-notification>",
                   "2026-03-17T10:09:00Z"),
               rec("assistant", [{"type": "text", "text": "The deploy failed: no device."}], "2026-03-17T10:09:05Z")]
    got = [(e, p.get("prompt") or p.get("last_assistant_message")) for e, p in transcripts.payloads(records)
           if e in ("UserPromptSubmit", "Stop")]
    assert got == [("UserPromptSubmit", "deploy it"), ("Stop", "Started the deploy in the background."),
                   ("Stop", "The deploy failed: no device.")]


def test_an_exports_reasoning_and_empty_fences_are_not_the_agents_words():
    """Copilot exports show a model's reasoning summaries ("**Planning code updates**" and the
    paragraphs under it) and leave an empty fence for each tool call in the agent's text."""
    from engram.history import markdown

    text = ("**Planning code updates**\n\nI need to implement some fixes.\n```\n\n```\n"
            "**Preparing to run tests**\n\nThe user has asked me to run the tests.\n\n"
            "## What I implemented\nFiltering in `context.py`.\n\n**Going forward:**\n\nI will run the CLI first.")
    assert markdown.agent_words(text) == ("## What I implemented\nFiltering in `context.py`.\n\n"
                                          "**Going forward:**\n\nI will run the CLI first.")
    assert markdown.agent_words("**Preparing to use tool**\n\nI must explain the call first.") == ""
    assert markdown.agent_words("```\n\n```\nI've updated `.env.example`.") == "I've updated `.env.example`."
    assert markdown.agent_words("The user is frustrated - the corners are gone.\n\nFixed: the header keeps its sprite.") \
        == "Fixed: the header keeps its sprite."
    assert markdown.agent_words("The user profile page now loads.") == "The user profile page now loads."


def test_a_subagents_turns_in_a_specstory_export_run_its_tools_but_are_not_the_agents_words():
    """SpecStory 2.1 writes a Claude Code subagent's turns in line ("_**Agent - sidechain (…)**_"):
    its commands ran in the session (live hooks see them), its words are not the agent's reply."""
    text = ("<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n# 2026-04-29 08:31:57Z\n\n"
            "<!-- Claude Code Session 72aebeaa (2026-04-29 08:31:57Z) -->\n\n"
            "_**User (2026-04-29 08:31:57Z)**_\n\nplan the next step\n\n---\n\n"
            "_**Agent (claude-opus-4-7 2026-04-29 08:32:09Z)**_\n\nLet me explore first.\n\n"
            "_**Agent - sidechain (claude-haiku-4-5 2026-04-29 08:32:26Z)**_\n\n"
            "<tool-use data-tool-type=\"shell\" data-tool-name=\"Bash\"><details>\n"
            "<summary>Tool use: **Bash**</summary>\n\n`go test ./...`\n\n```text\nok  \tbbs/internal/tui\t0.2s\n```\n"
            "</details></tool-use>\n\n"
            "_**Agent - sidechain (claude-haiku-4-5 2026-04-29 08:32:40Z)**_\n\nThe TUI routes screens in root.go.\n")
    assert brief(specstory.payloads(text, "s")) == [
        ("SessionStart",), ("UserPromptSubmit", "plan the next step"),
        ("PostToolUse", "Bash", "go test ./...", "Exit code: 0\nOutput:\nok  \tbbs/internal/tui\t0.2s"),
        ("Stop", "Let me explore first."), ("SessionEnd",)]


def test_a_slash_command_and_a_skills_body_in_a_specstory_export_are_not_prompts():
    """An export shows in the user's place what a transcript marks as the client's own (`/clear`,
    its caveat, a skill's body): no UserPromptSubmit carries them."""
    turns = ["<command-name>/clear</command-name>\n            <command-message>clear</command-message>",
             "<local-command-caveat>Caveat: The messages below were generated by the user while running local "
             "commands.</local-command-caveat>",
             "Base directory for this skill: /home/u/.claude/skills/hygiene\n\n# hygiene\nKeep transcripts tidy.",
             "add a search box to the board list"]
    text = "<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n# 2026-05-06 09:00:00Z\n\n" + "".join(
        f"_**User (2026-05-06 09:0{i}:00Z)**_\n\n{t}\n\n---\n\n" for i, t in enumerate(turns))
    assert [p["prompt"] for e, p in specstory.payloads(text, "s") if e == "UserPromptSubmit"] == [
        "add a search box to the board list"]


@pytest.mark.parametrize("result,code", [
    ("Exit code 1\nFAIL\tbbs/internal/tui", 1),
    ("(Bash completed with no output)", 0),
    ("ok  \tbbs/internal/tui\t0.2s", 0),
    ("Command timed out after 2m 0.0s", None),
    ("Command running in background with ID: b7x2", None),
    ("The user doesn't want to proceed with this tool use. The tool use was rejected", None),
    ("Permission to use Bash with command rm -rf build has been denied.", None),
])
def test_a_claude_code_exports_bash_result_says_its_status(result, code):
    """Claude Code opens a failed call's result with "Exit code N"; a result without it ended
    with 0, unless it says the command never ran to an end."""
    block = ('<tool-use data-tool-type="shell" data-tool-name="Bash"><details>\n<summary>Tool use: **Bash**</summary>'
             f'\n\n`go test ./...`\n\n```text\n{result}\n```\n</details></tool-use>')
    text = ("<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n# 2026-05-06 09:00:00Z\n\n"
            "_**User (2026-05-06 09:00:00Z)**_\n\nrun the tests\n\n---\n\n"
            f"_**Agent (claude-opus-4-7 2026-05-06 09:00:05Z)**_\n\n{block}\n")
    (shell,) = [p for e, p in specstory.payloads(text, "s") if e == "PostToolUse"]
    assert shell["tool_response"].startswith(f"Exit code: {code}\nOutput:\n") if code is not None \
        else shell["tool_response"] == result
