"""Real agent transcripts (../shared/fixtures) replayed through the real hook subprocess.

The expected counts were checked by hand against each transcript (see the comments);
the tests skip, with the reason, when ../shared is absent (a fresh clone).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from testing.helpers import TRANSCRIPTS, needs_shared, run_hook

from engram.history.replay import replay_as_processes
from engram.history.transcripts import load_records, payloads

pytestmark = needs_shared


def replayed_types(engram_home, name) -> Counter:
    replay_as_processes(payloads(load_records(str(TRANSCRIPTS / name))))
    files = list(engram_home.glob("projects/*/events/*.jsonl"))
    return Counter(json.loads(l)["type"] for f in files for l in f.read_text().splitlines() if l.strip())


# coverage-test-fix: Glob x2 (search), Read x3 of 3 distinct files (file_read + exploration),
# Edit x3 (file_write), Bash x5: git status x2, git add/commit x2 (one is_error), one pytest
# run that passed (test_run); the .gitignore edit follows that pass and is the first write to
# it (progression); 3 Stops (one typed prompt, two Stop-hook re-entries).
COVERAGE = {"user_prompt": 1, "search": 2, "file_read": 3, "exploration": 3, "file_write": 3,
            "command": 4, "test_run": 1, "progression": 1, "turn_complete": 3,
            "session_start": 1, "session_end": 1}
# hello-world: Write hello.sh, Bash chmod + run (command), 2 Stops.
HELLO = {"user_prompt": 1, "file_write": 1, "command": 1, "turn_complete": 2,
         "session_start": 1, "session_end": 1}
# chat.8664 (JSON-array layout): 30 tool calls = TodoWrite x5 + 19 MCP calls (tool_call: 24)
# + Write x1 + Edit x5 (file_write: 6) on one file; the 5th edit rewrites lines 3-55, over
# 4 earlier ranges (one repeated_revision); 2 prompts, 2 Stops.
CHAT_8664 = {"user_prompt": 2, "tool_call": 19, "todos": 5, "file_write": 6, "repeated_revision": 1,
             "turn_complete": 2, "session_start": 1, "session_end": 1}


@pytest.mark.parametrize("name,expected", [
    ("drmaciver-claude-reliability/coverage-test-fix.transcript.jsonl", COVERAGE),
    ("drmaciver-claude-reliability/hello-world-script.transcript.jsonl", HELLO),
    ("kesslerio-attio-mcp-server/chat.8664c04e-75fa-497d-ac11-57d69997e3ec.829b67b1.json", CHAT_8664),
])
def test_replayed_event_counts(engram_home, name, expected):
    assert replayed_types(engram_home, name) == expected


@pytest.mark.parametrize("name,tool_calls,errors,prompts", [
    ("kesslerio-attio-mcp-server/chat.c7428042-d9a9-4e9e-a71c-4433a8d202c0.816b68aa.json", 312, 23, 4),
    ("kesslerio-attio-mcp-server/chat.278a2245-9881-4e57-8176-beb93e3d7fd3.aa5474ad.json", 172, 19, 11),
    ("obra-episodic-memory/large-conversation.jsonl", 152, 22, 21),
    ("obra-episodic-memory/long-conversation.jsonl", 98, 4, 15),
])
def test_converter_matches_provenance(name, tool_calls, errors, prompts):
    """Tool calls and errors per PROVENANCE.md; a failed call is PostToolUseFailure (live behaviour)."""
    c = Counter(e for e, _ in payloads(load_records(str(TRANSCRIPTS / name))))
    assert c["PostToolUse"] + c["PostToolUseFailure"] == tool_calls
    assert c["PostToolUseFailure"] == errors
    assert c["UserPromptSubmit"] == prompts


def test_converter_reproduces_live_post_tool_use_stream():
    live = json.loads((TRANSCRIPTS / "kesslerio-attio-mcp-server/live_hook_logs.bbf59cab/post_tool_use.json").read_text())
    ours = [p for e, p in payloads(load_records(str(TRANSCRIPTS / "kesslerio-attio-mcp-server/chat.6706089d-9d7e-4f48-bd2d-8f2a2546eb78.bbf59cab.json")))
            if e == "PostToolUse"]
    live = [p for p in live if p["session_id"].startswith("6706089d")]
    key = lambda p: (p["tool_name"], json.dumps(p["tool_input"], sort_keys=True),
                     json.dumps(p["tool_response"], sort_keys=True))
    assert len(ours) == len(live) == 123
    assert [key(p) for p in ours] == [key(p) for p in live]


@pytest.mark.parametrize("log", ["session_start", "user_prompt_submit", "post_tool_use", "stop",
                                 "pre_compact", "pre_tool_use", "notification", "subagent_stop"])
def test_live_payloads_as_they_are(engram_home, log):
    """Byte-for-byte live payloads: exit 0, contract-valid stdout, one direct event per tool call."""
    items = json.loads((TRANSCRIPTS / f"kesslerio-attio-mcp-server/live_hook_logs.bbf59cab/{log}.json").read_text())
    for item in items[:60]:
        res = run_hook(item["hook_event_name"], item)
        assert res.returncode == 0
        assert res.stdout == b"" or "hookSpecificOutput" in json.loads(res.stdout)
    files = list(engram_home.glob("projects/*/events/*.jsonl"))
    evs = [json.loads(l) for f in files for l in f.read_text().splitlines()]
    if log == "post_tool_use":
        assert sum(1 for e in evs if "tool" in e) == min(60, len(items))
    logs = "".join(p.read_text() for p in engram_home.glob("projects/*/logs/engram.log"))
    assert " ERROR " not in logs  # workers may log INFO lines; no hook fault
