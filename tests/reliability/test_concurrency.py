"""Concurrency: many writers of two sessions in one project; readers while workers write.

Appends go through the per-session flock and one `write(2)` on an O_APPEND descriptor, so
every event must land exactly once, on its own line, with `seq` 1..N and no gap. Hooks that
read the graph while a consolidation worker and `engram maintain` write must neither fail
nor surface `database is locked`.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from testing.helpers import project_dir
from testing.reliability import (consolidate_all, graph_problems, db_path, jsonl_lines, make_project,
                                 output_problem, replay_inproc, run_inproc, session_script)

WRITERS = 8
EVENTS_PER_WRITER = 500
SESSIONS = ("alpha", "beta")


def _writer(root: str, home: str, w: int, n: int, start: multiprocessing.Event) -> None:
    """One writer process: n tool calls through the real lifecycle (as the hook does after parsing)."""
    os.environ["ENGRAM_HOME"] = home
    os.environ["ENGRAM_NO_WORKER"] = "1"
    from engram import lifecycle

    session = SESSIONS[w % 2]
    start.wait()
    for j in range(n):
        ctx = lifecycle.Ctx(session, root)
        if j % 5 == 4:  # a read of a new file also derives an `exploration` event (two lines, one write)
            call = {"tool": "Read", "ok": True, "action": "read", "path": f"{root}/w{w}/f{j}.py", "content": f"w{w}-{j}\n"}
        else:
            call = {"tool": "Bash", "ok": True, "action": "shell", "command": f"echo w{w}-{j}", "output": f"w{w}-{j}"}
        lifecycle.tool_calls(ctx, [call])


def _marker(ev: dict) -> str | None:
    if ev["type"] == "command":
        return ev["command"].split()[-1]
    if ev["type"] == "file_read":
        return Path(ev["path"]).parent.name + "-" + Path(ev["path"]).stem[1:]
    return None


def _check_stream(path: Path) -> tuple[list[dict], Counter]:
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    lines, bad = jsonl_lines(path)
    assert bad == 0, "an interleaved or torn line"
    seqs = [e["seq"] for e in lines]
    assert seqs == list(range(1, len(lines) + 1)), "seq must be 1..N in file order, no gap, no repeat"
    return lines, Counter(m for m in map(_marker, lines) if m)


@pytest.mark.slow
def test_writers_in_parallel_lose_and_duplicate_nothing(tmp_path, engram_home, figures):
    root = make_project(tmp_path)
    ctx = multiprocessing.get_context("fork")
    start = ctx.Event()
    procs = [ctx.Process(target=_writer, args=(str(root), str(engram_home), w, EVENTS_PER_WRITER, start))
             for w in range(WRITERS)]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    expected = {f"w{w}-{j}" for w in range(WRITERS) for j in range(EVENTS_PER_WRITER)}
    seen: Counter = Counter()
    total = 0
    for s in SESSIONS:
        lines, markers = _check_stream(project_dir(root) / "events" / f"{s}.jsonl")
        seen += markers
        total += len(lines)
        assert sum(1 for e in lines if e["type"] == "exploration") == EVENTS_PER_WRITER // 5 * WRITERS // 2
    assert set(seen) == expected, f"lost: {sorted(expected - set(seen))[:5]}"
    dup = [m for m, c in seen.items() if c > 1]
    assert dup == []
    figures.add("concurrency", writers=WRITERS, tool_calls=len(expected), jsonl_lines=total,
                lost=0, duplicated=0, interleaved=0)


@pytest.mark.slow
def test_real_hook_processes_in_parallel(tmp_path, engram_home, figures):
    """Subprocess hooks (8 at a time), Stop hooks among them starting real workers."""
    root = make_project(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "ENGRAM_NO_WORKER"}
    n = 96
    procs = []
    for i in range(n):
        s = SESSIONS[i % 2]
        if i % 24 == 23:
            event, body = "Stop", {"last_assistant_message": f"done {i}"}
        else:
            event, body = "PostToolUse", {"tool_name": "Bash", "tool_input": {"command": f"echo p{i}"},
                                          "tool_response": {"stdout": f"p{i}", "stderr": ""}}
        raw = json.dumps({"session_id": s, "cwd": str(root), **body}).encode()
        p = subprocess.Popen([sys.executable, "-m", "engram.hook", event], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        procs.append((p, raw))
        if len(procs) % 8 == 0:
            for q, r in procs[-8:]:
                out, err = q.communicate(r, timeout=60)
                assert q.returncode == 0 and out == b"", err
    markers: Counter = Counter()
    for s in SESSIONS:
        _, m = _check_stream(project_dir(root) / "events" / f"{s}.jsonl")
        markers += m
    assert set(markers) == {f"p{i}" for i in range(n) if i % 24 != 23}
    assert max(markers.values()) == 1
    _wait_for_workers(root)
    consolidate_all(root)
    assert graph_problems(db_path(root)) == []
    figures.add("concurrency", subprocess_hooks=n, lost=0, duplicated=0)


def _wait_for_workers(root: Path, timeout: float = 60) -> None:
    """Until no worker holds a slot lock (workers are detached: poll the locks they hold)."""
    import fcntl

    wdir = project_dir(root) / "workers"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        busy = False
        for lock in wdir.glob("slot-*.lock") if wdir.exists() else []:
            fd = os.open(lock, os.O_RDWR)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                busy = True
            finally:
                os.close(fd)
        if not busy:
            return
        time.sleep(0.05)
    raise AssertionError("workers still running")


# A writer that keeps taking the write lock for 50 ms at a time, as a long consolidation
# would. It runs in its own process: two copies of SQLite in one process (sqlean for
# writers, the stdlib for hook reads) break each other's POSIX locks and can corrupt the
# file (sqlite.org/howtocorrupt.html §2.2.1); engram never mixes them in one process.
HAMMER = """
import sys, time
from engram.graph import store
from engram.graph.connect import connect
conn = connect(sys.argv[1])
i, errors, end = 0, 0, time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    try:
        with store.transaction(conn):
            store.create_node(conn, name=f"hammer {i}", type="concept", description="x",
                              affected_files=["src/app.py"], strength=0.9)
            time.sleep(0.05)
        i += 1
    except Exception as exc:
        errors += 1
        print(repr(exc), file=sys.stderr)
print(i, errors)
"""


@pytest.mark.slow
def test_hooks_read_while_worker_and_maintain_write(tmp_path, engram_home, monkeypatch, figures):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    root = make_project(tmp_path)
    for i in range(4):
        replay_inproc(session_script(root, f"seed{i}", i))
    consolidate_all(root)
    for i in range(4, 10):  # pending sessions for a real worker to consolidate during the reads
        replay_inproc(session_script(root, f"late{i}", i))
    db = db_path(root)
    env = {**os.environ, "ENGRAM_NO_WORKER": "1"}
    hammer = subprocess.Popen([sys.executable, "-c", HAMMER, str(db), "4"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env)
    maint = [subprocess.Popen([sys.executable, "-m", "engram", "maintain", "--project", str(root)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) for _ in range(2)]
    worker = subprocess.Popen([sys.executable, "-m", "engram", "consolidate", "--all", "--project", str(root)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    reads = 0
    deadline = time.monotonic() + 4
    while time.monotonic() < deadline or reads < 60:
        for event, obj in _reader_payloads(root, reads):
            res = run_inproc(event, json.dumps(obj).encode())
            assert res.rc == 0 and output_problem(res.stdout, event) is None and res.stderr == ""
            reads += 1
    outs = [p.communicate(timeout=120) for p in maint + [worker, hammer]]
    for p, (out, err) in zip(maint + [worker, hammer], outs):
        assert p.returncode == 0, err.decode()[-1000:]
        assert b"locked" not in out + err, (out + err).decode()[-1000:]
    commits, errors = map(int, outs[-1][0].split())
    assert errors == 0 and commits > 10
    log = (project_dir(root) / "logs" / "engram.log")
    text = log.read_text() if log.exists() else ""
    assert "locked" not in text and " ERROR " not in text, text[-2000:]
    assert graph_problems(db) == []
    figures.add("concurrency", reader_hooks_during_writes=reads, reader_failures=0, locked_surfaced=0)


def _reader_payloads(root: Path, i: int) -> list[tuple[str, dict]]:
    base = {"session_id": f"reader{i % 3}", "cwd": str(root)}
    target = str(root / "src" / f"mod{i % 10}.py")
    return [
        ("SessionStart", {**base, "source": "startup"}),
        ("UserPromptSubmit", {**base, "prompt": f"why does mod{i % 10} use integer offsets?"}),
        ("PostToolUse", {**base, "tool_name": "Read", "tool_input": {"file_path": target},
                         "tool_response": {"type": "text", "file": {"filePath": target, "content": "x\n"}}}),
    ]
