"""Crash at every point: SIGKILL the consolidation worker at each named point, then SessionStart.

`ENGRAM_CRASH_AT=<point>` makes the worker kill itself there (engram/consolidate/crashpoints.py):
before anything, after the request is built, inside the graph transaction, after the
commit, between the commit and the episode file, after the file, between two sessions. A
second round kills workers at random moments instead. After each, one SessionStart hook
(and the worker it starts) must leave every session consolidated exactly once: one episode
and one contiguous consolidation record per applied range, episode files matching the
graph, no duplicate node or edge, `PRAGMA integrity_check` ok, and the same knowledge as a
run that never crashed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from engram.consolidate.crashpoints import POINTS
from testing.helpers import project_dir
from testing.reliability import consolidate_all, db_path, graph_problems, make_project, replay_inproc, session_script


def _capture(root: Path, sessions: int = 3) -> None:
    """Sessions captured with workers off: their Stop hooks only queue them."""
    for i in range(sessions):
        replay_inproc(session_script(root, f"s{i}", i))


def _setup(tmp_path: Path, name: str, monkeypatch, sessions: int = 3) -> Path:
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    root = make_project(tmp_path, name)
    replay_inproc(session_script(root, "s0", 0))
    consolidate_all(root)  # prior knowledge for entity resolution to merge into
    _capture(root, sessions)  # s0 gets a second turn, the others are new
    return root


def _worker(root: Path, env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "engram", "worker", "--project", str(project_dir(root))],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _session_start_and_wait(root: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("ENGRAM_NO_WORKER", "ENGRAM_CRASH_AT")}
    body = {"session_id": "next", "cwd": str(root), "source": "startup"}
    res = subprocess.run([sys.executable, "-m", "engram.hook", "SessionStart"], input=json.dumps(body).encode(),
                         capture_output=True, env=env, timeout=60)
    assert res.returncode == 0
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if not _pending(root) and not _busy(root):
            return
        time.sleep(0.1)
    raise AssertionError(f"still pending after SessionStart: {_pending(root)}")


def _pending(root: Path) -> list[str]:
    from engram.config import Project
    from engram.consolidate import trigger

    return [s for s in trigger.pending_sessions(Project.from_cwd(str(root))) if s != "next"]


def _busy(root: Path) -> bool:
    import fcntl

    for lock in (project_dir(root) / "workers").glob("slot-*.lock"):
        fd = os.open(lock, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)
    return False


def _check_exactly_once(root: Path) -> int:
    """Assert every session is consolidated exactly once; return how many were checked."""
    db = db_path(root)
    assert graph_problems(db) == []
    conn = sqlite3.connect(db)
    sessions = sorted(p.stem for p in (project_dir(root) / "events").glob("s*.jsonl"))
    try:
        for s in sessions:
            ranges = conn.execute("SELECT from_seq, to_seq, episode_id FROM consolidations WHERE session_id = ? "
                                  "ORDER BY from_seq", (s,)).fetchall()
            eps = [r[0] for r in conn.execute("SELECT id FROM episodes WHERE session_id = ?", (s,))]
            assert ranges and ranges[0][0] == 1, (s, ranges)
            for (a, b, _), (c, _, _) in zip(ranges, ranges[1:]):
                assert c == b + 1, f"{s}: ranges {ranges} overlap or leave a gap"
            assert sorted(eps) == sorted(r[2] for r in ranges if r[2]), (s, eps, ranges)
            rec = json.loads((project_dir(root) / "episodes" / f"{s}.episode.json").read_text())
            file_ids = [e["id"] for e in rec["episodes"]]
            assert sorted(file_ids) == sorted(eps), f"{s}: episode file {file_ids} vs graph {eps}"
            assert rec["mark"]["consolidated_to"] >= ranges[-1][1]
            assert rec["mark"]["events_size"] == (project_dir(root) / "events" / f"{s}.jsonl").stat().st_size
    finally:
        conn.close()
    return len(sessions)


def _knowledge(root: Path) -> tuple[Counter, Counter]:
    conn = sqlite3.connect(db_path(root))
    try:
        nodes = Counter(conn.execute("SELECT type, name FROM nodes WHERE type != 'episode'").fetchall())
        edges = Counter(r[0] for r in conn.execute("SELECT type FROM edges"))
        return nodes, edges
    finally:
        conn.close()


def _reference(tmp_path_factory, monkeypatch, sessions: int) -> tuple[Counter, Counter]:
    """The knowledge a run without crashes ends with (the same sessions, another home)."""
    base = tmp_path_factory.mktemp("reference")
    with monkeypatch.context() as m:
        m.setenv("ENGRAM_HOME", str(base / "home"))
        root = _setup(base, "proj", m, sessions)
        consolidate_all(root)
        return _knowledge(root)


@pytest.fixture
def reference(tmp_path_factory, monkeypatch):
    return _reference(tmp_path_factory, monkeypatch, 3)


@pytest.mark.slow
@pytest.mark.parametrize("point", POINTS)
def test_worker_killed_at_each_point(point, tmp_path, engram_home, monkeypatch, reference, figures):
    monkeypatch.setenv("ENGRAM_HOME", str(engram_home))
    root = _setup(tmp_path, "proj", monkeypatch)
    worker = _worker(root, {**os.environ, "ENGRAM_CRASH_AT": point})
    _, err = worker.communicate(timeout=120)
    assert worker.returncode == -signal.SIGKILL, f"{point} was never reached: {err.decode()[-800:]}"
    _session_start_and_wait(root)
    _check_exactly_once(root)
    assert _knowledge(root) == reference
    figures.add("crash", worker_crash_points=1, sessions_lost=0, sessions_duplicated=0, integrity_failures=0)


@pytest.mark.slow
def test_workers_killed_at_random_moments(tmp_path, tmp_path_factory, engram_home, monkeypatch, figures):
    """A worker drains 16 sessions in ~0.3 s here: kill each attempt somewhere inside that."""
    reference = _reference(tmp_path_factory, monkeypatch, 16)
    root = _setup(tmp_path, "proj", monkeypatch, 16)
    rnd = random.Random(2)
    kills = 0
    for _ in range(20):
        w = _worker(root, dict(os.environ))
        time.sleep(rnd.uniform(0.02, 0.15))
        if w.poll() is None:
            w.send_signal(signal.SIGKILL)
            kills += 1
        w.communicate(timeout=60)
        if not _pending(root):
            break
    assert kills >= 3, "the workers finished before any kill: shorten the delays"
    _session_start_and_wait(root)
    checked = _check_exactly_once(root)
    assert _knowledge(root) == reference
    figures.add("crash", worker_random_kills=kills, sessions_checked=checked, sessions_lost=0, sessions_duplicated=0)
