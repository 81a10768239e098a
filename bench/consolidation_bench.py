"""Consolidation figures, each against a baseline measured in the same run.

    .venv/bin/python bench/consolidation_bench.py [--runs 15]

1. Stop hook latency: a bare interpreter (`python -c pass`), the Stop hook with the
   worker spawn switched off (ENGRAM_NO_WORKER=1), and the Stop hook spawning the
   detached worker (each run waits for the worker to finish first, so workers do not
   pile up and steal the CPU from the next measurement).
2. Offline consolidation throughput on a 500-event session (events per second).
3. Tokens per consolidation through the local scripted server (real anthropic SDK) for
   sessions of 10, 50 and 200 events, against the spec's (docs/spec.md) estimate
   (Pass 1 ~ 400 x windows, Pass 2 ~ 2000 + 200 x windows). Input tokens are our real
   prompts (characters / 4); output tokens are the scripted server's answers, which are
   shorter than a real model's, so the output column is a floor.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engram.config import HOOK_ARGS  # the hook as `engram install` starts it

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]


def _env(home: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.endswith("_BASE_URL")}
    env.update(ENGRAM_HOME=home, ENGRAM_OFFLINE="1", **extra)
    return env


def _median_ms(cmd: list[str], runs: int, env: dict[str, str], stdin: bytes = b"", before=None) -> float:
    times = []
    for _ in range(runs):
        if before:
            before()
        t = time.perf_counter()
        subprocess.run(cmd, input=stdin, env=env, capture_output=True, check=False)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def _session(root: Path, sid: str, events: int):
    """A session of about `events` events driven through the real lifecycle, in process."""
    from testing.consolidation import Session

    s = Session(root, sid).start()
    turn = 0
    while len(s.events()) < events:
        turn += 1
        s.prompt(f"Step {turn}: make module m{turn % 7} handle case {turn}. Let's use orjson instead of json.")
        s.read(f"src/m{turn % 7}.py").write(f"src/m{turn % 7}.py", f"import orjson\nX = {turn}\n")
        s.test(10, 1, (f"tests/test_m.py::test_{turn}",)).write(f"src/m{turn % 7}.py", f"X = {turn + 1}\n")
        s.test(11, 0).command("git status", 0, "clean").stop(f"Turn {turn} done; I used a dict instead of a list.")
    return s


def stop_latency(runs: int) -> None:
    from engram.config import Project
    from engram.consolidate import trigger

    tmp = Path(tempfile.mkdtemp())
    home, root = tmp / "home", tmp / "proj"
    (root / ".git").mkdir(parents=True)
    os.environ["ENGRAM_HOME"], os.environ["ENGRAM_NO_WORKER"] = str(home), "1"
    _session(root, "lat", 5)
    project = Project.from_cwd(str(root), str(home))
    payload = json.dumps({"session_id": "lat", "cwd": str(root), "hook_event_name": "Stop",
                          "transcript_path": "", "last_assistant_message": "ok"}).encode()
    hook = [sys.executable, *HOOK_ARGS, "Stop"]

    def idle() -> bool:
        fd = trigger.pool(project, {"maxConcurrentWorkers": 1}).claim()
        if fd is not None:
            os.close(fd)
        return fd is not None

    def drained() -> None:
        deadline = time.monotonic() + 30
        while not idle() and time.monotonic() < deadline:
            time.sleep(0.05)
        trigger.dequeue(project, "lat")  # queue-only runs leave it queued, by design
        time.sleep(0.3)  # let the last worker finish exiting (teardown is CPU too)

    # Every run waits for the previous worker and pauses the same 0.3 s, baselines included:
    # back-to-back runs are faster (warm caches, CPU clocks up), which would flatter them.
    bare = _median_ms([sys.executable, "-c", "pass"], runs, _env(str(home)), before=drained)
    quiet = _median_ms(hook, runs, _env(str(home), ENGRAM_NO_WORKER="1"), payload, before=drained)
    spawn = _median_ms(hook, runs, _env(str(home), ENGRAM_NO_WORKER=""), payload, before=drained)
    inproc = _after_stop_ms(root, runs)
    print("1. Stop hook latency (median of %d runs)" % runs)
    print(f"   bare interpreter            {bare:7.1f} ms   1.00x")
    print(f"   Stop, queue only            {quiet:7.1f} ms   {quiet / bare:.2f}x")
    print(f"   Stop + detached worker      {spawn:7.1f} ms   {spawn / bare:.2f}x")
    print(f"   (in process, trigger.after('stop'): queue + slot claim + posix_spawn = {inproc:.2f} ms)")


def _after_stop_ms(root: Path, runs: int) -> float:
    from engram import lifecycle
    from engram.consolidate import trigger

    ctx = lifecycle.Ctx("lat", str(root))
    os.environ["ENGRAM_NO_WORKER"] = ""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        pid = trigger.after(ctx, "stop")
        times.append((time.perf_counter() - t) * 1000)
        if pid:
            os.waitpid(pid, 0)
    os.environ["ENGRAM_NO_WORKER"] = "1"
    return statistics.median(times)


def offline_throughput() -> None:
    from engram.config import load_config
    from engram.consolidate import worker
    from engram.providers import registry

    tmp = Path(tempfile.mkdtemp())
    root = tmp / "proj"
    (root / ".git").mkdir(parents=True)
    os.environ["ENGRAM_HOME"], os.environ["ENGRAM_NO_WORKER"] = str(tmp / "home"), "1"
    s = _session(root, "big", 500)
    n = len(s.events())
    cfg = load_config()[0]
    t = time.perf_counter()
    o = worker.consolidate_session(s.project, "big", cfg, registry.consolidation(cfg, project=s.project))
    dt = time.perf_counter() - t
    print(f"\n2. Offline consolidation of a {n}-event session: {dt * 1000:.0f} ms, {n / dt:,.0f} events/s "
          f"({o.status}; {o.counts})")


def tokens() -> None:
    from engram.config import load_config
    from engram.consolidate import worker
    from engram.providers import registry
    from testing.servers.llm_server import LLMServer

    print("\n3. Tokens per consolidation (scripted server, windowSize 10 / overlap 3)")
    print("   events  windows  calls  input  output  total   spec estimate")
    with LLMServer() as srv:
        for size in (10, 50, 200):
            tmp = Path(tempfile.mkdtemp())
            root = tmp / "proj"
            (root / ".git").mkdir(parents=True)
            os.environ.update(ENGRAM_HOME=str(tmp / "home"), ENGRAM_NO_WORKER="1", **srv.env("anthropic"))
            os.environ.pop("ENGRAM_OFFLINE", None)
            s = _session(root, f"t{size}", size)
            events = s.events()[:size]
            with open(s.project.events_path(f"t{size}"), "w") as f:
                f.write("".join(json.dumps(e) + "\n" for e in events))
            cfg = load_config()[0]
            o = worker.consolidate_session(s.project, f"t{size}", cfg,
                                             registry.consolidation(cfg, project=s.project))
            u = o.usage
            windows = sum(1 for c in u["calls"] if c["step"].startswith("pass1["))
            spec = 400 * windows + 2000 + 200 * windows
            print(f"   {size:6}  {windows:7}  {len(u['calls']):5}  {u['input_tokens']:5}  {u['output_tokens']:6}"
                  f"  {u['input_tokens'] + u['output_tokens']:5}   {spec:5}  ({o.status})")
    os.environ.pop("ENGRAM_ANTHROPIC_API_KEY", None)


def main() -> int:
    ap = argparse.ArgumentParser(description="consolidation benchmarks")
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    stop_latency(args.runs)
    offline_throughput()
    tokens()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
