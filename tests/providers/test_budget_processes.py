"""The daily budget held across processes: concurrent `engram consolidate` runs, each with
parallel Pass 1 calls, over slow fake harness CLIs, and reservations of a killed process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from testing.consolidation import Session, make_root, rows

from engram.config import Project
from engram.providers import reservations


def _talk(root, project_no: int, count: int) -> None:
    """Talk-only sessions: one model call each (admitted call by call, no session hold)."""
    for i in range(count):
        s = Session(root, f"talk-{i}").start().prompt(f"Should project {project_no} keep its queue in SQLite? "
                                                     f"Question {i}.")
        s.stop(f"Yes: SQLite keeps it in one file (answer {i}).")
        t = 1_700_000_000 + 60 * i
        os.utime(s.project.events_path(f"talk-{i}"), (t, t))


def _big(root) -> None:
    """One session of several Pass 1 windows (at windowSize 4): its whole estimate is held first."""
    s = Session(root, "big").start().prompt("Refactor the parser")
    for k in range(10):
        s.read(f"src/m{k}.py").write(f"src/m{k}.py", f"x = {k}\n")
    s.stop()


def _consolidate_concurrently(roots, n: int) -> list[tuple[str, str]]:
    """Three `engram consolidate --all` at once over a fake CLI that takes 0.4 s a call."""
    with open(os.path.join(Project.from_cwd(str(roots[0])).home, "config.json"), "w") as f:
        json.dump({"llmProvider": "claude-code", "dailyTokenBudget": n, "windowSize": 4, "windowOverlap": 1}, f)
    env = dict(os.environ, FAKE_CLI_DELAY="0.4")
    procs = [subprocess.Popen([sys.executable, "-m", "engram", "consolidate", "--all", "--project", str(r)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in roots]
    outs = [p.communicate(timeout=240) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [err[-2000:] for _, err in outs]
    return outs


def _ledger(root) -> list[int]:
    return [t for (t,) in rows(Project.from_cwd(str(root)), "SELECT input_tokens + output_tokens + "
                               "cache_read_tokens + cache_write_tokens FROM model_calls")]


def test_concurrent_workers_stop_at_the_budget_plus_one_call(clis, tmp_path, monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    roots = [make_root(tmp_path, f"p{i}") for i in range(3)]
    for i, r in enumerate(roots):
        _talk(r, i, 8)  # 24 calls of ~250 tokens
    n = 2_000
    _consolidate_concurrently(roots, n)
    per_project = [_ledger(r) for r in roots]
    ledger, calls = [t for p in per_project for t in p], clis.calls()
    assert len(ledger) == len(calls) and sum(ledger) == sum(c["tokens"] for c in calls)  # every call metered
    assert sum(1 for p in per_project if p) > 1  # the three ran side by side
    assert n <= sum(ledger) <= n + max(ledger)  # stopped at N, crossed by at most the one call admitted last
    assert reservations.reserved(str(Project.from_cwd(str(roots[0])).home), "claude-code") == 0


def test_concurrent_workers_hold_one_session_at_a_time_when_only_one_fits(clis, tmp_path, monkeypatch):
    from engram.consolidate import passes, worker
    from engram.providers.base import estimate_tokens

    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    roots = [make_root(tmp_path, f"p{i}") for i in range(3)]
    for r in roots:
        _big(r)
    project = Project.from_cwd(str(roots[0]))
    events, _ = worker.read_stream(project.events_path("big"))
    need = sum(estimate_tokens(c, o) for c, o in passes.call_sizes(events, {"windowSize": 4, "windowOverlap": 1}))
    outs = _consolidate_concurrently(roots, need * 3 // 2)  # one session's estimate fits, two do not
    assert sorted(bool(_ledger(r)) for r in roots) == [False, False, True]
    assert sum("(full, offline)" in out for out, _ in outs) == 2
    assert {c["task"] for c in clis.calls()} == {"pass1", "pass2"}


def test_a_killed_process_leaves_no_reservation_behind(tmp_path):
    home = str(tmp_path / "home")
    code = ("import sys, time; from engram.providers import reservations as r\n"
            "with r.locked(sys.argv[1], 'codex') as book: book[r.owner(sys.argv[1]) + ':1'] = 5000\n"
            "print('held', flush=True); time.sleep(60)")
    child = subprocess.Popen([sys.executable, "-c", code, home], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "held"
        assert reservations.reserved(home, "codex") == 5000  # alive: its call is in flight
    finally:
        child.kill()
        child.wait()
    assert reservations.reserved(home, "codex") == 0  # dead: dropped by the next reader
    with reservations.locked(home, "codex") as book:
        assert book == {}
    live = os.path.join(home, "budget", "live")
    assert os.listdir(live) == []
    ended = "from engram.providers import reservations as r; import sys; r.owner(sys.argv[1])"
    subprocess.run([sys.executable, "-c", ended, home], check=True)  # an owner that ended without reserving
    assert len(os.listdir(live)) == 1
    mine = reservations.owner(home)  # the next owner sweeps the ended ones
    assert os.listdir(live) == [mine + ".lock"]
