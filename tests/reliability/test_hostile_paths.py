"""Paths a harness hands the hook that could make it hang or balloon: FIFOs, devices, huge stdin.

The hook opens a few harness-supplied paths (the transcript to find the agent's last
message, a written file to take a snippet from). A FIFO would block `open()` forever and
/dev/zero would feed an unbounded `read()`; both must be refused quickly (exit 0 within
seconds, and the event still captured).
"""

from __future__ import annotations

import os
import time

import pytest
from testing.helpers import events, payload, run_hook


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return str(path)


def _specials(fifo: str, tmp_path) -> list[str]:
    return [fifo, "/dev/zero", "/dev/urandom", str(tmp_path), "/proc/self/mem"]


@pytest.mark.parametrize("which", range(5))
def test_transcript_path_that_never_ends(proj, fifo, tmp_path, which):
    target = _specials(fifo, tmp_path)[which]
    t = time.monotonic()
    res = run_hook("Stop", payload("Stop", "s", proj, transcript_path=target), timeout=20)
    assert res.returncode == 0 and res.stdout == b""
    assert time.monotonic() - t < 10, f"Stop took {time.monotonic() - t:.1f}s on {target}"
    assert [e["type"] for e in events(proj, "s")] == ["turn_complete"]


@pytest.mark.parametrize("which", range(5))
@pytest.mark.parametrize("tool", ["Edit", "Write"])
def test_written_path_that_never_ends(proj, fifo, tmp_path, which, tool):
    target = _specials(fifo, tmp_path)[which]
    tin = {"file_path": target, "old_string": "a", "new_string": "b", "content": "b\n"}
    t = time.monotonic()
    res = run_hook("PostToolUse", payload("PostToolUse", "s", proj, tool_name=tool, tool_input=tin,
                                          tool_response={"filePath": target}), timeout=20)
    assert res.returncode == 0 and res.stdout == b""
    assert time.monotonic() - t < 10, f"{tool} took {time.monotonic() - t:.1f}s on {target}"
    assert [e["type"] for e in events(proj, "s")] == ["file_write"]


def test_stdin_over_the_cap_is_refused_and_logged(proj):
    from engram.hook import MAX_STDIN

    body = b'{"session_id":"s","cwd":"' + str(proj).encode() + b'","prompt":"' + b"x" * (MAX_STDIN + 10) + b'"}'
    res = run_hook("UserPromptSubmit", body, timeout=60)
    assert res.returncode == 0 and res.stdout == b""
    assert b"larger than" in res.stderr
    assert events(proj, "s") == []


def test_symlinked_events_dir_is_not_followed_out_of_home(proj, tmp_path, engram_home):
    """A data dir whose events/ was replaced by a symlink elsewhere: the hook may write there
    (the user did it), but a session id can never steer a write outside events/."""
    res = run_hook("UserPromptSubmit", payload("UserPromptSubmit", "../../../../outside", proj, prompt="hi"))
    assert res.returncode == 0
    assert not (tmp_path / "outside.jsonl").exists()
    assert not list(tmp_path.glob("**/outside.jsonl"))
