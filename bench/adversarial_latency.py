"""Every hook's worst case on hostile input, and how long it holds its session's lock.

    python bench/adversarial_latency.py [--runs 3]

An adversarial generator (below) builds payloads meant to make a hook slow: long
repetitive tokens that look like keys, near-miss secret shapes, spoken passwords, key
armour, deep JSON nesting, huge integers, megabytes of test output and blank lines, a
50,000-line file write, and special files (a FIFO, /dev/zero, a committed symlink) where
the hook reads a transcript, a written file or a GSD plan. Each runs as a real hook
subprocess against a project with a consolidated graph, interleaved with the same events
carrying ordinary payloads (the same-run baseline) and a bare interpreter.

While a hook runs, a probe polls its session's lock file (non-blocking flock, every
millisecond) and records the longest stretch it found the lock held: the longest any
other hook of that session (a parallel tool call) would have waited.

Targets (issue 18): every hook's worst case <= 1 s on 2 cores; the session's other
hooks never wait more than ~100 ms. The machine may be shared: run it several times.
"""

from __future__ import annotations

import argparse
import base64
import fcntl
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from engram.config import HOOK_ARGS  # the hook as `engram install` starts it

SESSION = "adv"


def project(base: str) -> tuple[str, dict]:
    """A project with a small consolidated graph (so retrieval and write checks run)."""
    proj = os.path.join(base, "proj")
    os.makedirs(os.path.join(proj, ".git"))
    os.makedirs(os.path.join(proj, "src"))
    with open(os.path.join(proj, "src", "calc.py"), "w") as f:
        f.write("def add(a, b):\n    return a + b\n")
    env = dict(os.environ, ENGRAM_HOME=os.path.join(base, "home"), ENGRAM_NO_WORKER="1", ENGRAM_OFFLINE="1")
    seed = [("UserPromptSubmit", {"prompt": "fix add in src/calc.py"}),
            ("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": 'engram decide "Keep add pure" '
                                                                        "--files src/calc.py"},
                             "tool_response": {"stdout": "recorded", "stderr": ""}}),
            ("Stop", {"last_assistant_message": "add is pure now"})]
    for event, fields in seed:
        hook(event, {"session_id": "seed", "cwd": proj, **fields}, env)
    subprocess.run([sys.executable, "-m", "engram", "consolidate", "--all", "--project", proj], env=env,
                   capture_output=True, check=True)
    return proj, env


def hook(event: str, payload: dict | bytes, env: dict) -> float:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    t0 = time.perf_counter()
    subprocess.run([sys.executable, *HOOK_ARGS, event], input=data, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    return time.perf_counter() - t0


def hostile(proj: str, base: str) -> dict[str, tuple[str, dict | bytes]]:
    """name -> (event, payload): the adversarial generator."""
    rnd = random.Random(18)
    src = os.path.join(proj, "src", "calc.py")
    b64 = base64.urlsafe_b64encode(rnd.randbytes(45_000)).decode()
    fifo = os.path.join(base, "fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    plan = os.path.join(proj, ".planning")
    os.makedirs(plan, exist_ok=True)
    if not os.path.lexists(os.path.join(plan, "STATE.md")):
        os.symlink("/dev/zero", os.path.join(plan, "STATE.md"))

    def p(**f):
        return {"session_id": SESSION, "cwd": proj, "transcript_path": "", **f}

    def bash(out: str, cmd: str = "make build") -> dict:
        return p(tool_name="Bash", tool_input={"command": cmd}, tool_response={"stdout": out, "stderr": ""})

    deep = "[" * 20000 + "]" * 20000
    huge_int = '{"session_id": "%s", "cwd": "%s", "tool_name": "Bash", "tool_input": {"command": "ls"}, ' \
               '"tool_response": {"stdout": "x", "exit_code": %s}}' % (SESSION, proj, "9" * 200_000)
    return {
        "keyword run 60 KB": ("PostToolUse", bash("btn-auth-login-token-" * 3000)),
        "base64 60 KB + pwd": ("PostToolUse", bash(b64[:30_000] + "pwd" + b64[30_000:])),
        "near-miss prefixes": ("PostToolUse", bash("sk- ghp_ AKIA xoxb- eyJ.eyJ. glpat- key- " * 1500)),
        "assignments 60 KB": ("PostToolUse", bash("password=token=secret: " * 2600)),
        "test output 2 MB": ("PostToolUseFailure", p(tool_name="Bash", tool_input={"command": "pytest -q"},
                                                      error="Exit code 1\n" + "FAIL " + "x" * 2_000_000)),
        "blank lines 2 MB": ("PostToolUseFailure", p(tool_name="Bash", tool_input={"command": "npx vitest"},
                                                      error="Tests " + "\n" * 2_000_000)),
        "write 50k lines": ("PostToolUse", p(tool_name="Write", tool_input={"file_path": src, "content": "y = 1\n" * 50_000},
                                             tool_response={"type": "update", "filePath": src,
                                                            "originalFile": "x = 2\n" * 50_000})),
        "spoken prompt 60 KB": ("UserPromptSubmit", p(prompt="the password is " * 4000)),
        "armour last message": ("Stop", p(last_assistant_message="-----BEGIN RSA PRIVATE KEY-----\n" * 2000)),
        "deep nesting": ("PostToolUse", p(tool_name="mcp__x__y", tool_input={"q": "x"}, tool_response=deep)),
        "huge integer": ("PostToolUse", huge_int.encode()),
        "transcript FIFO": ("Stop", p(transcript_path=fifo)),
        "transcript /dev/zero": ("Stop", p(transcript_path="/dev/zero")),
        "edit of a FIFO": ("PostToolUse", p(tool_name="Edit", tool_input={"file_path": fifo, "old_string": "a",
                                                                        "new_string": "b"},
                                            tool_response={"filePath": fifo})),
        "plan -> /dev/zero": ("SessionStart", p(source="startup")),
    }


def ordinary(proj: str) -> dict[str, tuple[str, dict]]:
    """The same events with everyday payloads: the same-run baseline."""
    src = os.path.join(proj, "src", "calc.py")

    def p(**f):
        return {"session_id": SESSION + "-base", "cwd": proj, "transcript_path": "", **f}

    return {
        "PostToolUse": ("PostToolUse", p(tool_name="Bash", tool_input={"command": "make build"},
                                         tool_response={"stdout": "ok\n", "stderr": ""})),
        "PostToolUseFailure": ("PostToolUseFailure", p(tool_name="Bash", tool_input={"command": "pytest -q"},
                                                       error="Exit code 1\nFAILED tests/t.py::t - x\n1 failed in 0.1s")),
        "UserPromptSubmit": ("UserPromptSubmit", p(prompt="fix add in src/calc.py")),
        "Stop": ("Stop", p(last_assistant_message="done")),
        "SessionStart": ("SessionStart", p(source="startup")),
        "Write": ("PostToolUse", p(tool_name="Edit", tool_input={"file_path": src, "old_string": "a", "new_string": "b"},
                                   tool_response={"filePath": src})),
    }


class LockProbe:
    """Polls a session's lock file; `longest` is the longest stretch it found the lock held."""

    def __init__(self, path: str):
        self.path, self.longest, self._stop = path, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "LockProbe":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        held_since = None
        while not self._stop.is_set():
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError:
                time.sleep(0.001)
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
                if held_since is not None:
                    self.longest = max(self.longest, time.perf_counter() - held_since)
                held_since = None
            except OSError:
                held_since = held_since if held_since is not None else time.perf_counter()
            finally:
                os.close(fd)
            time.sleep(0.001)
        if held_since is not None:
            self.longest = max(self.longest, time.perf_counter() - held_since)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    import compileall

    import engram

    compileall.compile_dir(os.path.dirname(engram.__file__), quiet=1)
    base = tempfile.mkdtemp(prefix="engram-adv-")
    proj, env = project(base)
    from engram.config import Project

    lock_path = Project(os.path.realpath(proj), env["ENGRAM_HOME"]).state_path(SESSION)[: -len(".state.json")] + ".lock"
    cases, normal = hostile(proj, base), ordinary(proj)
    times: dict[str, list[float]] = {n: [] for n in cases}
    held: dict[str, list[float]] = {n: [] for n in cases}
    base_times: dict[str, list[float]] = {n: [] for n in normal}
    bare: list[float] = []
    for _ in range(args.runs):
        bare.append(hook_bare(env))
        for name, (event, payload) in normal.items():
            base_times[name].append(hook(event, payload, env))
        for name, (event, payload) in cases.items():
            with LockProbe(lock_path) as probe:
                times[name].append(hook(event, payload, env))
            held[name].append(probe.longest)
    report(times, held, base_times, cases, bare, args.runs)
    subprocess.run(["rm", "-rf", base], check=False)
    return 0


def hook_bare(env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], env=env, check=False)
    return time.perf_counter() - t0


def report(times, held, base_times, cases, bare, runs) -> None:
    base_med = {n: statistics.median(ts) for n, ts in base_times.items()}
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {runs} runs each, interleaved; "
          f"bare interpreter {statistics.median(bare) * 1000:.0f} ms")
    print("baseline (ordinary payloads): " + ", ".join(f"{n} {t * 1000:.0f} ms" for n, t in base_med.items()))
    print(f"{'hostile case':<22} {'event':<19} {'median ms':>9} {'max ms':>7} {'x same event':>12} {'lock held max ms':>16}")
    worst, worst_lock = 0.0, 0.0
    for name, ts in times.items():
        event = cases[name][0]
        ref = base_med["Write" if "write" in name or "edit" in name else event]
        worst, worst_lock = max(worst, max(ts)), max(worst_lock, max(held[name]))
        print(f"{name:<22} {event:<19} {statistics.median(ts) * 1000:>9.0f} {max(ts) * 1000:>7.0f} "
              f"{statistics.median(ts) / ref:>12.2f} {max(held[name]) * 1000:>16.1f}")
    print(f"worst hook: {worst * 1000:.0f} ms (target <= 1000 ms): {'OK' if worst <= 1.0 else 'OVER'}; "
          f"longest lock hold: {worst_lock * 1000:.0f} ms (target ~100 ms): {'OK' if worst_lock <= 0.1 else 'OVER'}")


if __name__ == "__main__":
    raise SystemExit(main())
