"""A locked database never serialises a session's hooks (issue 18, finding 5).

The hooks used to read the database (the write check's linked decisions, the first-read
note, prompt retrieval) while holding the session lock, with a 2 s busy wait: six parallel
hooks of one session against a locked database took 2, 4, ... 12 s, past the harness's
10 s hook timeout. Now the lock covers only the state and the append, and a hook gives up
on a locked database after a short wait, so each hook's time is its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from testing.helpers import events, payload
from testing.reliability import db_path

LOCKER = """
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA locking_mode=EXCLUSIVE")
c.execute("BEGIN EXCLUSIVE")
c.execute("INSERT INTO meta (key, value) VALUES ('locker', 'x')")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
c.execute("ROLLBACK")
"""


def _timed_hook(event: str, body: dict) -> float:
    t = time.monotonic()
    res = subprocess.run([sys.executable, "-m", "engram.hook", event], input=json.dumps(body).encode(),
                         capture_output=True, timeout=60)
    assert res.returncode == 0
    return time.monotonic() - t


def test_parallel_hooks_of_one_session_do_not_queue_behind_a_locked_database(proj_s0, figures):
    src = proj_s0 / "src" / "mod0.py"
    edit = payload("PostToolUse", "live", proj_s0, tool_name="Edit",
                   tool_input={"file_path": str(src), "old_string": "+ 1", "new_string": "+ 2"},
                   tool_response={"filePath": str(src), "structuredPatch": [
                       {"oldStart": 2, "oldLines": 1, "newStart": 2, "newLines": 1,
                        "lines": ["-    return 0 + 1", "+    return 0 + 2"]}]})
    read = payload("PostToolUse", "live", proj_s0, tool_name="Read", tool_input={"file_path": str(src)},
                   tool_response={"type": "text", "file": {"filePath": str(src), "content": src.read_text()}})
    bodies = [("PostToolUse", edit)] * 3 + [("PostToolUse", read)] * 3
    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(db_path(proj_s0)), "60"], stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout.readline().strip() == "locked"
        t = time.monotonic()
        with ThreadPoolExecutor(len(bodies)) as pool:
            times = list(pool.map(lambda b: _timed_hook(*b), bodies))
        wall = time.monotonic() - t
    finally:
        locker.kill()
        locker.wait()
    # before: 2, 4, 6, 8, 10, 12 s (each hook's 2 s busy wait inside the session lock)
    assert max(times) < 4.0, f"hook times {sorted(round(x, 2) for x in times)}"
    assert wall < 6.0
    types = [e["type"] for e in events(proj_s0, "live")]
    assert types.count("file_write") == 3 and types.count("file_read") == 3
    figures.add("locked_db", parallel_hooks=len(bodies), slowest_ms=int(max(times) * 1000))
