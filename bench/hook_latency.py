"""PostToolUse hook latency against a bare interpreter, measured in the same run.

    python bench/hook_latency.py [--runs 40] [--launch installed|module|wrapper] [--wrapper PATH]

Times the PostToolUse hook as `engram install` starts it (`python -P -c "from engram.hook
import entry; entry()"`, engram.config.HOOK_ARGS; `--launch module`: `python -m engram.hook`,
how it was started before, for comparison; `--launch wrapper`: through plugin/bin/engram-hook
with ENGRAM_PYTHON set to this interpreter, as the plugin and a checkout's install run it,
its cached interpreter check included, or through the script at `--wrapper PATH`, to compare
two versions of it) for Read, Edit and Bash-test payloads (a fresh
ENGRAM_HOME, a sample project, one session) and `python -c pass`, interleaved so that
machine noise hits both alike; prints medians and the ratio to the bare interpreter.
Target (issue 2): every median <= 2.0x bare.
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

from engram.config import HOOK_ARGS  # the hook as `engram install` starts it


def payloads(proj: str) -> dict[str, dict]:
    src = os.path.join(proj, "src", "calc.py")
    common = {"session_id": "bench", "transcript_path": "", "cwd": proj}
    return {
        "bare": {},
        "Read": dict(common, hook_event_name="PostToolUse", tool_name="Read", tool_input={"file_path": src},
                     tool_response={"type": "text", "file": {"filePath": src, "content": "def add(a, b):\n    return a + b\n"}}),
        "Edit": dict(common, hook_event_name="PostToolUse", tool_name="Edit",
                     tool_input={"file_path": src, "old_string": "a + b", "new_string": "b + a"},
                     tool_response={"filePath": src, "structuredPatch": [
                         {"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2,
                          "lines": [" def add(a, b):", "-    return a + b", "+    return b + a"]}]}),
        "Bash-test": dict(common, hook_event_name="PostToolUseFailure", tool_name="Bash",
                          tool_input={"command": "python -m pytest -q tests/"},
                          error="Exit code 1\n..F\nFAILED tests/test_calc.py::test_add - assert 1 == 2\n1 failed, 2 passed in 0.05s"),
    }


def time_once(argv: list[str], data: bytes, env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, input=data, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--launch", choices=("installed", "module", "wrapper"), default="installed")
    ap.add_argument("--wrapper", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                      "plugin", "bin", "engram-hook"))
    args = ap.parse_args()
    launch = list(HOOK_ARGS) if args.launch == "installed" else ["-m", "engram.hook"]
    start = [args.wrapper] if args.launch == "wrapper" else [sys.executable, *launch]
    # Installed packages are byte-compiled by pip; do the same for a source checkout, so
    # that a PYTHONDONTWRITEBYTECODE environment does not time the compiler.
    import compileall

    import engram

    compileall.compile_dir(os.path.dirname(engram.__file__), quiet=1)
    base = tempfile.mkdtemp(prefix="engram-bench-")
    proj = os.path.join(base, "proj")
    os.makedirs(os.path.join(proj, ".git"))
    os.makedirs(os.path.join(proj, "src"))
    with open(os.path.join(proj, "src", "calc.py"), "w") as f:
        f.write("def add(a, b):\n    return a + b\n")
    env = dict(os.environ, ENGRAM_HOME=os.path.join(base, "home"), ENGRAM_PYTHON=sys.executable)
    cases = payloads(proj)
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.runs):
        for name, payload in cases.items():
            if name == "bare":
                times[name].append(time_once([sys.executable, "-c", "pass"], b"", env))
            else:
                event = payload["hook_event_name"]
                times[name].append(time_once([*start, event], json.dumps(payload).encode(), env))
    bare = statistics.median(times["bare"])
    print(f"python {sys.version.split()[0]}, {args.runs} runs each, interleaved; the hook started as: {args.launch}")
    print(f"{'case':<12} {'median ms':>10} {'p90 ms':>8} {'x bare':>7}")
    worst = 0.0
    for name, ts in times.items():
        med = statistics.median(ts)
        p90 = sorted(ts)[int(len(ts) * 0.9) - 1]
        ratio = med / bare
        if name != "bare":
            worst = max(worst, ratio)
        print(f"{name:<12} {med * 1000:>10.1f} {p90 * 1000:>8.1f} {ratio:>7.2f}")
    print(f"worst PostToolUse ratio: {worst:.2f}x (target <= 2.0x): {'OK' if worst <= 2.0 else 'OVER'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
