"""The hooks start detached workers; bounded concurrency; a killed worker loses nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest
from testing.consolidation import Session, consolidate, episode_file, fix_session, rows, wait_for
from testing.helpers import run_hook

from engram import workers
from engram.consolidate import trigger, worker
from engram.providers import registry


def _payload(event: str, root, sid: str, **kw) -> dict:
    return {"session_id": sid, "cwd": str(root), "hook_event_name": event, "transcript_path": "", **kw}


def test_stop_hook_spawns_a_detached_worker_that_consolidates(root, monkeypatch):
    s = Session(root, "s1").start().prompt("Add a greet function").write("greet.py", "def greet():\n    pass\n")
    monkeypatch.delenv("ENGRAM_NO_WORKER")
    r = run_hook("Stop", _payload("Stop", root, "s1", last_assistant_message="Added greet."))
    assert r.returncode == 0 and r.stdout == b""
    assert wait_for(lambda: episode_file(s.project, "s1") is not None)
    assert not trigger.needs_consolidation(s.project, "s1")
    # the worker logs its summary after the episode file lands: wait for it, don't race it
    assert wait_for(lambda: "drained: 1 consolidated" in open(s.project.log_path).read())
    assert trigger.queued(s.project) == []


def test_session_end_and_precompact_leave_nothing_unqueued(root):
    s = fix_session(root)
    consolidate(s.project, "s1", {**_cfg(s)})
    s.end()
    assert trigger.queued(s.project) == []            # only the session_end marker is new
    s.prompt("one more thing").read("x.py")
    s.end()
    assert trigger.queued(s.project) == ["s1"]
    trigger.dequeue(s.project, "s1")
    import engram.lifecycle as lifecycle

    lifecycle.compact(s.ctx, "auto")
    assert trigger.queued(s.project) == ["s1"]


def _cfg(s: Session) -> dict:
    from engram.config import load_config

    return load_config(s.project.home)[0]


def _tiny_sessions(project, n: int) -> list[str]:
    """n discussion-only sessions written straight to their JSONL files."""
    os.makedirs(os.path.join(project.dir, "events"), exist_ok=True)
    sids = [f"old{i:03d}" for i in range(n)]
    for sid in sids:
        lines = [{"type": "user_prompt", "ts": "t", "session": sid, "seq": 1, "turn": 1, "prompt": f"Topic{sid}?"},
                 {"type": "turn_complete", "ts": "t", "session": sid, "seq": 2, "turn": 1, "tool_calls": 0,
                  "agent_summary": "ok", "user_summary": "", "continuation": False}]
        with open(project.events_path(sid), "w") as f:
            f.write("".join(json.dumps(x) + "\n" for x in lines))
    return sids


def test_300_pending_sessions_start_one_queue_not_300_processes(root, monkeypatch):
    s = Session(root, "current")
    sids = _tiny_sessions(s.project, 300)
    spawned = []
    real_start = workers.start
    monkeypatch.setattr(workers, "start", lambda *a, **kw: spawned.append(real_start(*a, **kw)) or spawned[-1])
    monkeypatch.delenv("ENGRAM_NO_WORKER")
    for _ in range(5):  # a burst of SessionStarts
        s.start()
    assert len(spawned) <= 2                               # maxConcurrentWorkers
    assert wait_for(lambda: not trigger.queued(s.project), timeout=60)
    assert wait_for(lambda: all(not trigger.needs_consolidation(s.project, x) for x in sids), timeout=30)
    assert rows(s.project, "SELECT count(DISTINCT session_id) FROM consolidations") == [(300,)]


def test_busy_slots_queue_without_spawning(root, monkeypatch):
    s = Session(root, "current")
    _tiny_sessions(s.project, 3)
    fds = [trigger.pool(s.project, {"maxConcurrentWorkers": 2}).claim() for _ in range(2)]
    monkeypatch.delenv("ENGRAM_NO_WORKER")
    try:
        assert trigger.pool(s.project, {"maxConcurrentWorkers": 2}).claim() is None
        s.start()
        assert len(trigger.queued(s.project)) == 3
    finally:
        for fd in fds:
            os.close(fd)
    outcomes = worker.drain(s.project, _cfg(s), registry.consolidation(_cfg(s), project=s.project))   # what the running worker does next
    assert sorted(o.status for o in outcomes) == ["consolidated"] * 3


def test_killed_worker_loses_nothing_and_session_start_recovers(root, llm, monkeypatch):
    s = fix_session(root)
    llm.script("pass2", {"stall": None})                  # Pass 2 never answers
    trigger.enqueue(s.project, ["s1"])
    env = {**os.environ, "ENGRAM_NO_WORKER": "", "ENGRAM_RAISE_ERRORS": ""}
    worker = subprocess.Popen([sys.executable, "-m", "engram", "worker", "--project", s.project.dir],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_for(lambda: llm.counts["pass2"] >= 1, timeout=30)
    finally:
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait()
    assert rows(s.project, "SELECT count(*) FROM consolidations") == [(0,)]
    assert episode_file(s.project, "s1") is None and trigger.needs_consolidation(s.project, "s1")
    monkeypatch.delenv("ENGRAM_NO_WORKER")
    r = run_hook("SessionStart", _payload("SessionStart", root, "s2", source="startup"))
    assert r.returncode == 0
    assert wait_for(lambda: episode_file(s.project, "s1") is not None, timeout=30)
    assert llm.counts["pass2"] == 2
    names = rows(s.project, "SELECT name, type, count(*) FROM nodes GROUP BY name, type HAVING count(*) > 1")
    assert names == []
    assert rows(s.project, "SELECT count(*) FROM episodes") == [(1,)]
    assert not trigger.needs_consolidation(s.project, "s1")


@pytest.mark.parametrize("bad", ["..", ".hidden", "a b"])
def test_queue_ignores_names_that_are_not_session_ids(root, bad):
    s = Session(root, "s1")
    qdir = os.path.join(s.project.dir, trigger.QUEUE)
    os.makedirs(qdir, exist_ok=True)
    if bad != "..":
        open(os.path.join(qdir, bad), "w").close()
    trigger.enqueue(s.project, ["s1"])
    assert trigger.queued(s.project) == ["s1"]
