"""Payloads through the real hook, as a live session would have sent them.

`replay` runs `engram.hook.run` in this process (`engram eval`, `engram backfill`, tests):
a fault is reported to `observe`, as the real hook would log it and exit 0.
`replay_as_processes` starts the hook (config.HOOK_ARGS) once per payload, as a harness does.
Both say it is a replay (`run(replay=True)`, ENGRAM_REPLAY=1), so the events are dated by
the records' times the payloads carry (engram.hook.REPLAY_TS), not by the replay's.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from typing import Callable, Iterable

from engram.config import HOOK_ARGS

Observe = Callable[[str, str, float, bool], None]  # (event, printed output, milliseconds, fault)


def replay(items: Iterable[tuple[str, dict]], cwd: str | None = None, observe: Observe | None = None,
           harness: str | None = None) -> Counter:
    """Feed payloads to the hook in process; how many of each event were sent. `harness` names
    the adapter (a session's `harness`), as an installed hook's `--harness` does; None detects it."""
    from engram import hook, jsonio

    counts: Counter = Counter()
    for event, payload in items:
        t0 = time.perf_counter()
        fault = False
        try:
            out = hook.run(event, harness, jsonio.dumps(payload).encode(), cwd or os.getcwd(), replay=True)
        except Exception:
            out, fault = "", True
        if observe is not None:
            observe(event, out, (time.perf_counter() - t0) * 1000, fault)
        counts[event] += 1
    return counts


def replay_as_processes(items: Iterable[tuple[str, dict]], env: dict | None = None,
                        harness_args: tuple = ()) -> Counter:
    """Feed payloads to hook subprocesses, started as `engram install` starts them (config.HOOK_ARGS);
    how many of each event were sent."""
    import json

    from engram import workers

    counts: Counter = Counter()
    env = {**(os.environ if env is None else env), "ENGRAM_REPLAY": "1"}
    for event, payload in items:
        workers.run_child([sys.executable, *HOOK_ARGS, event, *harness_args], input=json.dumps(payload).encode(),
                     env=env, timeout=60)
        counts[event] += 1
    return counts
