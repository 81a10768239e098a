"""Rules files for the agent, and the ones an agent's reply says it made (consolidate/knowledge/rules_files.py)."""

from __future__ import annotations

from engram.consolidate.knowledge import rules_files


def _reply(seq: int, text: str) -> dict:
    return {"type": "turn_complete", "seq": seq, "agent_summary": text}


def test_a_rules_file_a_reply_says_it_made_is_recorded_with_its_sentence():
    events = [_reply(3, "I've created a new global rule file at `.cursor/rules/json-parsing.mdc` that establishes "
                        "using jq instead of grep for JSON data. Anything else?"),
              _reply(5, "I read CLAUDE.md and src/app.md; nothing to change."),  # read, not made
              _reply(7, "Updated **AGENTS.md** with the release steps.")]
    assert rules_files.said_made(events) == {
        ".cursor/rules/json-parsing.mdc": (3, "I've created a new global rule file at .cursor/rules/json-parsing.mdc "
                                              "that establishes using jq instead of grep for JSON data."),
        "AGENTS.md": (7, "Updated AGENTS.md with the release steps.")}


def test_rules_files_by_name_and_folder():
    assert rules_files.rules_file("docs/CLAUDE.md") and rules_files.rules_file(".cursor/rules/a.mdc")
    assert not rules_files.rules_file("docs/README.md")
    assert rules_files.tool_file(".specstory/history/x.md") and not rules_files.tool_file("src/x.md")
    # the system's scratch folders hold no project's files (a PR body, a background task's output)
    assert rules_files.tool_file("/tmp/pr-body.md") and rules_files.tool_file("/private/tmp/claude-501/tasks/b1.output")
    assert not rules_files.tool_file("src/tmp/cache.py") and not rules_files.tool_file("/home/me/app/tmp/x.md")
