"""Bad input never fails the agent: exit 0, nothing outside ENGRAM_HOME, one log line."""

from __future__ import annotations

import os
import sys

import pytest
from testing.helpers import events, payload, project_dir, run_hook


@pytest.fixture
def proj(tmp_path):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


def files_under(path):
    return sorted(str(p) for p in path.rglob("*"))


@pytest.mark.parametrize("raw", [
    b"", b"   \n", b"not json", b"[1, 2, 3]", b'"a string"', b"{", b"\xff\xfe\x00garbage",
])
def test_unparseable_stdin(proj, raw, tmp_path):
    before = files_under(tmp_path)
    res = run_hook("PostToolUse", raw)
    assert res.returncode == 0 and res.stdout == b""
    assert b"engram" not in res.stdout
    assert "hook ERROR PostToolUse" in res.stderr.decode()  # no project known: the line goes to stderr
    assert files_under(tmp_path) == before


def test_missing_fields_and_unknown_tool(proj):
    assert run_hook("PostToolUse", {"session_id": "s", "cwd": str(proj)}).returncode == 0
    assert run_hook("PostToolUse", payload("PostToolUse", "s", proj, tool_name="Frobnicate",
                                           tool_input={"x": 1}, tool_response=None)).returncode == 0
    assert run_hook("PostToolUse", payload("PostToolUse", "s", proj, tool_name="Read",
                                           tool_input="oops", tool_response=[1, 2])).returncode == 0
    evs = events(proj, "s")
    assert [e["type"] for e in evs] == ["tool_call", "tool_call", "file_read"]
    assert evs[1]["tool"] == "Frobnicate"


def test_wrong_types_everywhere(proj):
    p = {"session_id": "s", "cwd": str(proj), "tool_name": 7, "tool_input": {"file_path": 3,
         "command": ["x"]}, "tool_response": {"stdout": 5, "file": "x"}, "prompt": {"a": 1},
         "last_assistant_message": 9}
    for event in ("PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SessionStart",
                  "SessionEnd", "PreCompact", "Nonsense"):
        res = run_hook(event, p)
        assert res.returncode == 0, event


@pytest.mark.parametrize("sid", ["../escape", "a/b", "/abs", "..", "", "x" * 300, "a\x00b", 42, None])
def test_hostile_session_ids_write_nothing(proj, sid, engram_home, tmp_path):
    res = run_hook("UserPromptSubmit", {"session_id": sid, "cwd": str(proj), "prompt": "hi"})
    assert res.returncode == 0
    assert not list(engram_home.glob("projects/*/events/*"))
    assert not (tmp_path / "escape").exists()
    log = project_dir(proj) / "logs" / "engram.log"
    assert "session id" in log.read_text()


def test_huge_tool_response_is_bounded(proj):
    big = "x" * (20 * 1024 * 1024)
    res = run_hook("PostToolUse", payload("PostToolUse", "s", proj, tool_name="Bash",
                                          tool_input={"command": "cat big.log"},
                                          tool_response={"stdout": big, "stderr": ""}), timeout=60)
    assert res.returncode == 0
    path = project_dir(proj) / "events" / "s.jsonl"
    assert path.stat().st_size < 10_000


def test_huge_output_of_a_test_run_is_cut_and_says_so(proj):
    out = "line\n" * 100000 + "1 failed, 2 passed in 0.1s"
    run_hook("PostToolUseFailure", payload("PostToolUseFailure", "s", proj, tool_name="Bash",
                                           tool_input={"command": "pytest"}, error="Exit code 1\n" + out))
    ev = events(proj, "s")[0]
    assert ev["failed"] == 1 and ev["truncated"]["output"] > 100000 and len(ev["output"]) < 3000


def test_binary_content(proj):
    raw = payload("PostToolUse", "s", proj, tool_name="Read", tool_input={"file_path": str(proj / "a.bin")},
                  tool_response={"type": "text", "file": {"filePath": "a.bin", "content": "\x00\x01\ufffd\udcff"}})
    import json

    res = run_hook("PostToolUse", json.dumps(raw).encode())
    assert res.returncode == 0
    assert events(proj, "s")[0]["type"] == "file_read"


@pytest.mark.skipif(os.geteuid() == 0 and sys.platform != "linux", reason="needs permission checks")
def test_unwritable_data_dir(proj, engram_home, monkeypatch, tmp_path):
    ro = tmp_path / "ro-home"
    ro.mkdir()
    (ro / "projects").write_text("a file where a directory should be")
    monkeypatch.setenv("ENGRAM_HOME", str(ro))
    res = run_hook("UserPromptSubmit", payload("UserPromptSubmit", "s", proj, prompt="hi"))
    assert res.returncode == 0 and res.stdout == b""
    assert "hook ERROR" in res.stderr.decode()
    assert (ro / "projects").read_text().startswith("a file")
