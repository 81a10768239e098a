"""Hook latency: percentiles of the in-process replay, and a sample as real subprocesses.

In process (`engram.history.replay` times every `engram.hook.run` of the master replay) measures
engram's own work per event: capture, state, retrieval, the consolidation trigger. What a
user waits for also includes the interpreter start and the imports, so a sample of the
same payloads is run as hook subprocesses (config.HOOK_ARGS, as installed) against a copy of
the final graph, interleaved with `python -c pass` (the bare interpreter on the same
machine at the same moment, the baseline the benches use).
"""

from __future__ import annotations

import math
import os
import shutil
import sys
import time
from typing import Any

from engram import workers
from engram.config import HOOK_ARGS

PERCENTILES = (50, 90, 99)


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile (no interpolation: every figure is a measured run)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def summary(samples: dict[str, list[float]]) -> dict[str, dict[str, Any]]:
    """{event: {"n", "p50", "p90", "p99"}} in milliseconds."""
    out = {}
    for event in sorted(samples):
        vals = samples[event]
        out[event] = {"n": len(vals), **{f"p{p}": _round(percentile(vals, p)) for p in PERCENTILES}}
    return out


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 2)


def pick(items: list[tuple[str, dict]], n: int) -> list[tuple[str, dict]]:
    """Up to n payloads spread over the session, keeping its SessionStart and prompts."""
    first = [it for it in items if it[0] in ("SessionStart", "UserPromptSubmit")][: max(1, n // 4)]
    rest = [it for it in items if it not in first]
    step = max(1, len(rest) // max(1, n - len(first)))
    return first + rest[::step][: max(0, n - len(first))]


def _env(home: str) -> dict[str, str]:
    import engram

    repo = os.path.dirname(os.path.dirname(os.path.abspath(engram.__file__)))
    path = os.pathsep.join(p for p in (repo, os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "ENGRAM_HOME": home, "ENGRAM_NO_WORKER": "1", "ENGRAM_OFFLINE": "1", "PYTHONPATH": path}


def _timed(argv: list[str], raw: bytes, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    workers.run_child(argv, input=raw, env=env, timeout=60)
    return (time.perf_counter() - t0) * 1000


def subprocess_sample(master: str, items: list[tuple[str, dict]], n: int, scratch: str) -> dict[str, list[float]]:
    """{event or "bare": [ms]} for n payloads run as real hooks on a copy of `master`."""
    from engram import jsonio

    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(master, scratch)
    env = _env(scratch)
    out: dict[str, list[float]] = {}
    try:
        for event, payload in pick(items, n):
            raw = jsonio.dumps(dict(payload, session_id="engram-eval-latency")).encode()
            out.setdefault("bare", []).append(_timed([sys.executable, "-c", "pass"], b"", env))
            out.setdefault(event, []).append(_timed([sys.executable, *HOOK_ARGS, event], raw, env))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out
