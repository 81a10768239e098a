"""GSD 2 shell-hook payloads (harness-contracts §4.4): camelCase, no session id, unit tags."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from testing.helpers import REPO, project_dir

KNOWLEDGE = "# Knowledge\n\n## Rules\n\n- Keep the API stable.\n"


def gsd(event, payload, proj, env=None):
    """Run the hook the way GSD does: shell command in the project dir, GSD_HOOK_EVENT set."""
    env = dict(os.environ, GSD_HOOK_EVENT=event, GSD_HOOK_SCOPE="global", **(env or {}))
    res = subprocess.run([sys.executable, "-m", "engram.hook", event, "--harness", "gsd"],
                         input=json.dumps(payload).encode(), capture_output=True, cwd=str(proj), env=env,
                         timeout=30)
    assert res.returncode == 0 and res.stdout == b"", (res.stdout, res.stderr)
    return res


def gsd_events(proj) -> dict[str, list[dict]]:
    folder = project_dir(proj) / "events"
    return {p.stem: [json.loads(x) for x in p.read_text().splitlines()] for p in sorted(folder.glob("*.jsonl"))}


def unit_run(proj, unit="M001/S01/T01"):
    gsd("SessionStart", {"cwd": str(proj), "type": "session_start"}, proj)
    gsd("UserPromptSubmit", {"text": "build the calculator", "source": "interactive"}, proj)
    gsd("PreUnit", {"unitType": "execute-task", "unitId": unit, "milestoneId": "M001", "cwd": str(proj)}, proj)
    gsd("PostToolUse", {"toolCallId": "a", "toolName": "read", "input": {"path": "src/calc.py"},
                        "content": [{"type": "text", "text": "def add(a, b):"}], "isError": False}, proj)
    gsd("PostToolUse", {"toolCallId": "b", "toolName": "bash", "input": {"command": "pytest -q"},
                        "content": [{"type": "text", "text": "1 failed\n\nCommand exited with code 1"}],
                        "isError": True}, proj)
    gsd("PostToolUse", {"toolCallId": "c", "toolName": "edit",
                        "input": {"path": "src/calc.py", "oldText": "a + b", "newText": "b + a"},
                        "content": [{"type": "text", "text": "Successfully replaced text"}], "isError": False}, proj)
    gsd("PostToolUse", {"toolCallId": "d", "toolName": "ls", "input": {"path": "."}, "content": [],
                        "isError": False}, proj)
    gsd("PostUnit", {"unitType": "execute-task", "unitId": unit, "milestoneId": "M001", "status": "completed",
                     "cwd": str(proj)}, proj)
    gsd("PostVerify", {"passed": False, "failures": ["lint"], "unitType": "execute-task", "unitId": unit,
                       "cwd": str(proj)}, proj)
    gsd("PostToolUse", {"toolCallId": "e", "toolName": "grep", "input": {"pattern": "add"}, "content": [],
                        "isError": False}, proj)
    gsd("Stop", {"reason": "idle"}, proj)
    gsd("SessionEnd", {"reason": "quit"}, proj)


def test_one_session_and_unit_tags(proj):
    unit_run(proj)
    streams = gsd_events(proj)
    assert len(streams) == 1
    (session, evs), = streams.items()
    assert session.startswith("gsd-")
    assert [e["type"] for e in evs] == ["session_start", "user_prompt", "unit_start", "file_read", "exploration",
                                        "test_run", "file_write", "fix_attempt", "unit_end", "unit_verify",
                                        "search", "turn_complete", "session_end"]
    tagged = [e for e in evs if e.get("task") == "T01"]
    assert [e["type"] for e in tagged] == [
        "unit_start", "file_read", "exploration", "test_run", "file_write", "fix_attempt", "unit_end", "unit_verify"]
    assert all(e["milestone"] == "M001" and e["slice"] == "S01" and e["unit"] == "M001/S01/T01" for e in tagged)
    assert evs[5]["exit_code"] == 1 and evs[8]["status"] == "completed"
    assert "task" not in evs[10]  # after PostUnit: untagged


def test_session_id_from_env_wins(proj):
    gsd("PostToolUse", {"toolName": "read", "input": {"path": "src/calc.py"}, "content": [], "isError": False},
        proj, env={"ENGRAM_SESSION": "my-run-7"})
    assert list(gsd_events(proj)) == ["my-run-7"]


def test_without_a_session_start_events_go_to_the_day_session(proj):
    gsd("PostToolUse", {"toolName": "bash", "input": {"command": "make"}, "content": [], "isError": False}, proj)
    (name,) = gsd_events(proj)
    assert name.startswith("gsd-") and len(name) == len("gsd-20260101")


@pytest.fixture
def gsd_proj(proj):
    (proj / ".gsd").mkdir()
    (proj / ".gsd" / "KNOWLEDGE.md").write_text(KNOWLEDGE)
    (proj / ".gsd" / "STATE.md").write_text("Active: M001/S01/T02 - caching for src/calc.py\n")
    return proj


def test_knowledge_section_is_regenerated_after_units_and_the_rest_kept(gsd_proj):
    from engram.harnesses import gsd_knowledge

    unit_run(gsd_proj)
    assert (gsd_proj / ".gsd" / "KNOWLEDGE.md").read_text() == KNOWLEDGE  # no graph yet: untouched
    res = subprocess.run([sys.executable, "-m", "engram", "consolidate", "--all", "--project", str(gsd_proj)],
                         capture_output=True, text=True, cwd=str(REPO), timeout=120)
    assert res.returncode == 0, res.stderr
    unit_run(gsd_proj, "M001/S01/T02")
    text = (gsd_proj / ".gsd" / "KNOWLEDGE.md").read_text()
    assert text.startswith(KNOWLEDGE) and text.count(gsd_knowledge.BEGIN) == 1 and text.endswith(gsd_knowledge.END + "\n")
    section = text[text.index(gsd_knowledge.BEGIN):]
    assert "src/calc.py" in section and gsd_knowledge.HEADING in section
    again = gsd_knowledge.splice(text, "- new fact")
    assert again.startswith(KNOWLEDGE) and "- new fact" in again and "src/calc.py" not in again[len(KNOWLEDGE):]


def test_splice_appends_and_replaces():
    from engram.harnesses.gsd_knowledge import BEGIN, END, splice

    first = splice("# K\n", "one")
    assert first == f"# K\n\n{BEGIN}\n## Project memory (engram)\n\none\n{END}\n"
    assert splice(first + "\nafter\n", "two") == first.replace("one", "two") + "\nafter\n"
    assert splice("", "x").startswith(BEGIN)
