"""A harness CLI that leaves a child behind holding its output (issue 29, finding 1).

The CLI starts a grandchild in its own session (`setsid`), which outlives the kill of the
CLI's process group and keeps stdout open. `communicate()` waited for end of output forever:
`engram consolidate` with a 3 s `cliTimeoutMs` was still running after 120 s, with no ledger
row and no notice. Now the deadline covers the reading (engram/workers.py, run_child): the call is
killed, its ledger row says `timeout`, and the user gets one notice.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time

from testing.consolidation import fix_session, make_root
from testing.helpers import engram
from testing.monitor import env

from engram import notices

# the fake `claude`: reads its prompt, leaves a grandchild in its own session holding stdout, waits
FAKE_CLAUDE = """#!/bin/sh
cat >/dev/null
setsid sh -c 'echo $$ > "$GRANDCHILD_PID"; exec sleep 300' &
sleep 300
"""


def test_consolidate_returns_when_the_cli_leaves_a_grandchild_holding_its_output(tmp_path, monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    s = fix_session(make_root(tmp_path))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text(FAKE_CLAUDE)
    (bin_dir / "claude").chmod(0o755)
    (tmp_path / "engram-home" / "config.json").write_text(json.dumps({"llmProvider": "claude-code",
                                                                      "cliTimeoutMs": 2000}))
    pid_file = tmp_path / "grandchild.pid"
    run_env = env(PATH=f"{bin_dir}:{os.environ['PATH']}", ENGRAM_OFFLINE="", GRANDCHILD_PID=str(pid_file))
    t0 = time.monotonic()
    try:
        done = engram("consolidate", "--project", str(s.root), env=run_env, timeout=60)
        took = time.monotonic() - t0
    finally:
        if pid_file.exists():
            try:
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
    assert took < 20, f"consolidate took {took:.1f}s"
    assert pid_file.exists()  # the grandchild did start and hold the pipe
    assert "Traceback" not in done.stdout + done.stderr
    with sqlite3.connect(s.project.db_path) as conn:
        rows = conn.execute("SELECT provider, ok, error FROM model_calls").fetchall()
    assert rows and all(r == ("claude-code", 0, "timeout") for r in rows), rows
    said = notices.take(s.project.home)
    assert len(said) == 1 and "cliTimeoutMs" in said[0] and "claude" in said[0], said


def test_run_child_reads_with_one_deadline_and_kills_the_group(tmp_path):
    """The helper itself (engram/workers.py run_child), on real children."""
    from engram.workers import run_child

    pid_file = tmp_path / "left.pid"
    t0 = time.monotonic()  # exits at once, a grandchild in another session keeps stdout open
    done = run_child(["sh", "-c", f"echo out; echo err >&2; setsid sh -c 'echo $$ > {pid_file}; exec sleep 60' & exit 3"],
                     timeout=30)
    try:
        assert (done.code, done.out, done.err, done.timed_out) == (3, b"out\n", b"err\n", False)
        assert time.monotonic() - t0 < 5
    finally:
        os.kill(int(pid_file.read_text()), signal.SIGKILL)
    big = os.urandom(1 << 20)
    assert run_child(["cat"], input=big, timeout=30).out == big  # stdin and stdout both past a pipe's buffer
    t0 = time.monotonic()  # endless output, and a grandchild in the same group: cut, killed, reaped
    done = run_child(["sh", "-c", f"sleep 60 & echo $! > {pid_file}; yes"], timeout=1, limit=1000)
    assert done.timed_out and done.code is None and len(done.out) == 1000 and time.monotonic() - t0 < 5
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # killed with the group (a zombie until init reaps it)
        try:
            os.kill(grandchild, 0)
            if open(f"/proc/{grandchild}/stat").read().rsplit(")", 1)[1].split()[0] == "Z":
                break
        except (ProcessLookupError, FileNotFoundError):
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the child's process group outlived the deadline")
