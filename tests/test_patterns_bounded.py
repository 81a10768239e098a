"""No module-level regular expression of `engram` takes 0.25 s on a hostile 4 KB input.

Every pattern a module's globals hold (directly, in a class, or inside the lists, dicts,
tuples and dataclass instances rule tables are made of) runs `search` and `finditer` to
exhaustion, and every literal pattern the code hands to `re.search(r"...")` and its kin runs
the way that call runs it (`re.match` from the start only), on each input of
`testing.patterns.HOSTILE` (long runs of one separator, long words, deep punctuation, nested
brackets, ...). A backtracking pattern would cost seconds to hours there, so the timing
happens in worker processes: each pair is cut by a timer at `CAP` and each worker has a deadline, so a runaway fails the test with its module, name
and input family instead of hanging the suite. Time is the worker's CPU time, and a pair
over the bound is timed `TRIES` times and its best kept, so the other processes of a shared
machine do not fail the test. docs/monitoring.md, "Bounded patterns" has the figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from testing import patterns

BOUND = 0.25  # seconds per pattern × input × op
CAP = 2.0
TRIES = 3
CHUNK = 40  # patterns per worker process
DEADLINE = 120  # seconds per worker process
TESTS = Path(__file__).resolve().parent


def _worker(chunk: list[dict]) -> list[dict]:
    """Run one worker process on `chunk`; its slow pairs, or one record saying it did not finish."""
    job = json.dumps({"patterns": chunk, "bound": BOUND, "cap": CAP, "tries": TRIES})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(TESTS.parent)])}
    try:
        done = subprocess.run([sys.executable, "-m", "testing.patterns"], input=job, capture_output=True,
                              text=True, timeout=DEADLINE, env=env)
        out, err = done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        out, err = expired.stdout or "", f"no answer within {DEADLINE} s"
    if isinstance(out, bytes):
        out = out.decode()
    records = [json.loads(line) for line in out.splitlines() if line.strip()]
    if not any("done" in r for r in records):
        first = chunk[0]["where"][0]
        records.append({"where": [first], "family": "-", "op": "worker", "seconds": -1, "error": err[-500:]})
    return [r for r in records if "done" not in r]


def slow_pairs() -> tuple[list[dict], int, list[str]]:
    """(slow pairs, patterns checked, modules skipped) over the whole package."""
    found, skipped = patterns.collect()
    items = sorted((patterns.job_item(f) for f in found), key=lambda item: item["where"][0])
    chunks = [items[i:i + CHUNK] for i in range(0, len(items), CHUNK)]
    with ThreadPoolExecutor(max_workers=max(2, min(4, os.cpu_count() or 2))) as pool:
        slow = [record for records in pool.map(_worker, chunks) for record in records]
    return slow, len(items), skipped


def test_every_module_level_pattern_is_bounded_on_hostile_inputs():
    slow, checked, _skipped = slow_pairs()
    assert checked > 300, f"only {checked} patterns found: the collector misses the rule tables"
    lines = [f"{', '.join(r['where'][:2])} on {r['family']} ({r['op']}): "
             f"{'did not finish: ' + r['error'] if 'error' in r else str(r['seconds']) + ' s'}" for r in slow]
    assert not slow, f"{len(slow)} pattern/input pairs take >= {BOUND} s:\n" + "\n".join(lines)


if __name__ == "__main__":
    # `python tests/test_patterns_bounded.py`: the figures docs/monitoring.md quotes.
    pairs, count, skipped = slow_pairs()
    for record in sorted(pairs, key=lambda r: -r["seconds"]):
        print(json.dumps(record))
    print(json.dumps({"patterns": count, "inputs": len(patterns.HOSTILE), "slow_pairs": len(pairs),
                      "skipped": skipped}))
