"""PostToolUse latency of file writes with and without linked decisions, against a bare interpreter.

    python bench/write_hook_latency.py [--runs 40] [--nodes 5000]

A fresh ENGRAM_HOME holds a project whose graph has `--nodes` nodes (a tenth of them
decisions, strength spread over 0..1), two of them linked to `jobs/queue.py`. Timed, in
the same run and interleaved so machine noise hits all alike:

  bare         `python -c pass`
  no-decision  an Edit of a file no decision is linked to (one cache lookup, no process)
  linked       an Edit of jobs/queue.py that contradicts a linked decision: the hook
               queues the check, starts the detached checker and returns; it also
               delivers the previous run's warning (the realistic worst case)
  linked-cold  the same, right after the graph changed (the file's decisions are looked
               up with one indexed query: what the first write of each file after a
               consolidation pays)
  linked-noproc  `linked` with ENGRAM_NO_WORKER=1: the job is queued but no process is
               started, which isolates what the spawn (and the new process competing for
               the CPU while the hook exits) adds

Between runs the bench waits for the detached checker to finish (outside the timing),
so its CPU does not land on the next measurement. The package is byte-compiled first:
an installed package is, and this environment sets PYTHONDONTWRITEBYTECODE.
Target (issue 6): median of `linked` <= 2.0x bare.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engram.config import HOOK_ARGS  # the hook as `engram install` starts it

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def build_project(base: str, nodes: int) -> tuple[str, dict]:
    """A project dir and its graph: `nodes` nodes, two strong decisions linked to jobs/queue.py."""
    from engram.config import Project
    from engram.graph import connect, store

    proj = os.path.join(base, "proj")
    for d in (".git", "jobs", "app"):
        os.makedirs(os.path.join(proj, d), exist_ok=True)
    for rel in ("jobs/queue.py", "app/views.py"):
        with open(os.path.join(proj, rel), "w") as f:
            f.write("import json\nimport sqlite3\n")
    env = dict(os.environ, ENGRAM_HOME=os.path.join(base, "home"), ENGRAM_OFFLINE="1")
    os.environ["ENGRAM_HOME"] = env["ENGRAM_HOME"]
    project = Project.from_cwd(proj).ensure()
    conn = connect.connect(project.db_path, vectors=False)
    rng = random.Random(7)
    rows = [{"name": f"node {i}", "type": "decision" if i % 10 == 0 else "concept", "description": "x" * 120,
             "strength": rng.random(), "affected_files": [f"src/m{i % 700}.py"]} for i in range(nodes)]
    rows += [{"name": "Use SQLite instead of Redis for the job queue.", "type": "decision", "strength": 0.9,
              "description": "Use SQLite instead of Redis for the job queue.", "affected_files": ["jobs/queue.py"]},
             {"name": "Never use print for logging; use the logging module.", "type": "decision", "strength": 0.7,
              "description": "", "affected_files": ["jobs/queue.py"]}]
    store.insert_nodes(conn, rows)
    conn.close()
    return proj, env


def edit_payload(proj: str, rel: str, session: str) -> bytes:
    path = os.path.join(proj, rel)
    return json.dumps({
        "session_id": session, "transcript_path": "", "cwd": proj, "hook_event_name": "PostToolUse",
        "tool_name": "Edit", "tool_input": {"file_path": path, "old_string": "import json", "new_string": "import json\nimport redis"},
        "tool_response": {"filePath": path, "structuredPatch": [
            {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 2, "lines": [" import json", "+import redis"]}]},
    }).encode()


def timed(argv: list[str], data: bytes, env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process itself: user + system, from wait4's rusage)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    proc.stdin.write(data)
    proc.stdin.close()
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = 0  # reaped above
    return wall, usage.ru_utime + usage.ru_stime


def _worker_pids(project) -> set[int]:
    """Pids of checkers that have logged (the log line's second field)."""
    try:
        lines = open(project.log_path).read().splitlines()
    except FileNotFoundError:
        return set()
    return {int(x.split()[1]) for x in lines if " contradiction " in x}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def settle(project, session: str, timeout: float = 20.0) -> None:
    """Wait (untimed) until the session's detached checker has drained its queue and its process is gone.

    Waiting for the lock alone is not enough: the interpreter's teardown after the lock is
    released would land on the next measurement.
    """
    from engram import workers
    from engram.monitor import trigger, worker

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        queued = [j for j in trigger.queue(project).jobs() if worker.session_of(j) == session]
        if not queued and not workers.is_locked(trigger.pool(project).slot_path(0)) \
                and not any(_alive(pid) for pid in _worker_pids(project) - _SEEN):
            _SEEN.update(_worker_pids(project))
            return
        time.sleep(0.005)
    raise SystemExit(f"the checker for {session} did not finish within {timeout} s")


_SEEN: set[int] = set()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--nodes", type=int, default=5000)
    args = ap.parse_args()
    compileall.compile_dir(str(REPO / "engram"), quiet=1)
    base = tempfile.mkdtemp(prefix="engram-write-bench-")
    proj, env = build_project(base, args.nodes)
    from engram.config import Project
    from engram.monitor import trigger, worker

    project = Project.from_cwd(proj)
    hook = [sys.executable, *HOOK_ARGS, "PostToolUse"]
    cases = {
        "bare": lambda: timed([sys.executable, "-c", "pass"], b"", env),
        "no-decision": lambda: timed(hook, edit_payload(proj, "app/views.py", "plain"), env),
        "linked": lambda: timed(hook, edit_payload(proj, "jobs/queue.py", "linked"), env),
        "linked-cold": lambda: timed(hook, edit_payload(proj, "jobs/queue.py", "cold"), env),
        "linked-noproc": lambda: timed(hook, edit_payload(proj, "jobs/queue.py", "noproc"),
                                       dict(env, ENGRAM_NO_WORKER="1")),
    }
    cache = os.path.join(project.dir, trigger.CACHE)
    for name in ("no-decision", "linked", "linked-cold"):  # warm-up: the first run creates the session files
        cases[name]()
    settle(project, "linked")
    settle(project, "cold")
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    for _ in range(args.runs):
        for name, run in cases.items():
            if name == "linked-cold":
                os.unlink(cache)
            times[name].append(run())
            settle(project, "linked")
            settle(project, "cold")
        for job in trigger.queue(project).jobs():
            if worker.session_of(job) == "noproc":
                trigger.queue(project).done(job)
    checks = sum(1 for line in open(project.events_path("linked")) if '"contradiction_warning"' in line)
    wall = {k: [w for w, _ in v] for k, v in times.items()}
    cpu = {k: [c for _, c in v] for k, v in times.items()}
    bare, bare_cpu = statistics.median(wall["bare"]), statistics.median(cpu["bare"])
    print(f"python {sys.version.split()[0]}, {args.runs} runs each, interleaved; graph of {args.nodes + 2} nodes; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"{'case':<14} {'wall median ms':>15} {'p90 ms':>8} {'x bare':>7} {'cpu median ms':>14} {'x bare':>7}")
    for name in times:
        med, p90 = statistics.median(wall[name]), sorted(wall[name])[int(len(wall[name]) * 0.9) - 1]
        cmed = statistics.median(cpu[name])
        print(f"{name:<14} {med * 1000:>15.1f} {p90 * 1000:>8.1f} {med / bare:>7.2f} {cmed * 1000:>14.1f} "
              f"{cmed / bare_cpu:>7.2f}")
    ratio = statistics.median(wall["linked"]) / bare
    print(f"checks that ran in the background and warned: {checks} (one per linked write)")
    print(f"linked write: {ratio:.2f}x bare (target <= 2.0x): {'OK' if ratio <= 2.0 else 'OVER'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
