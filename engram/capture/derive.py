"""Derived events: patterns over the session's recent tool calls (spec, "Derived event types").

Each derived event is its own JSONL line with `ref`, the seq of the direct event it
derives from. The rules, exactly as implemented:

- exploration: a successful read of a file not read before in this session.
- expanding_search: a read whose directory is more than 2 steps (up + down the tree)
  from the directory of every one of the last 5 reads.
- fix_attempt: a write while the latest test run failed (no passing run since);
  `same_region` says whether it overlaps a range written before that failure.
- progression: a write to a file not written before in this session while the latest
  test run passed.
- repeated_revision: a write whose line range overlaps the ranges of 2+ earlier writes
  to the same file (the 3rd, 4th, ... revision of one region).
"""

from __future__ import annotations

RECENT_READS = 5
MAX_RANGES_PER_FILE = 30


def dir_distance(a: str, b: str) -> int:
    """Steps up from a's directory to the common ancestor, then down to b's directory."""
    pa = [p for p in a.split("/")[:-1] if p]
    pb = [p for p in b.split("/")[:-1] if p]
    common = 0
    for x, y in zip(pa, pb):
        if x != y:
            break
        common += 1
    return (len(pa) - common) + (len(pb) - common)


def _overlaps(r1, r2) -> bool:
    return r1[0] <= r2[1] and r2[0] <= r1[1]


def for_read(ev: dict, st: dict) -> list[dict]:
    path = ev.get("path")
    if not path or not ev.get("ok"):
        return []
    out = []
    if path not in st["seen"]:
        st["seen"].append(path)
        out.append({"type": "exploration", "path": path})
    recent = st["recent_reads"]
    if recent:
        dist = min(dir_distance(path, p) for p in recent)
        if dist > 2:
            out.append({"type": "expanding_search", "path": path, "distance": dist})
    recent.append(path)
    del recent[:-RECENT_READS]
    return out


def for_write(ev: dict, st: dict, seq: int) -> list[dict]:
    """Derived events of a write that will be stamped with `seq`."""
    path = ev.get("path")
    if not path or not ev.get("ok"):
        return []
    out = []
    ranges = ev.get("ranges") or []
    prior = st["write_ranges"].get(path, [])
    last_test = st.get("last_test")
    if last_test and not last_test["ok"]:
        same = any(_overlaps(r, p) for r in ranges for p in prior if p[2] < last_test["seq"])
        out.append({"type": "fix_attempt", "path": path, "after_test": last_test["seq"],
                    "same_region": same})
    elif last_test and last_test["ok"] and path not in st["written"]:
        out.append({"type": "progression", "path": path, "after_test": last_test["seq"]})
    for r in ranges:
        hits = [p for p in prior if _overlaps(r, p)]
        if len(hits) >= 2:
            lo = min([r[0]] + [p[0] for p in hits])
            hi = max([r[1]] + [p[1] for p in hits])
            out.append({"type": "repeated_revision", "path": path, "range": [lo, hi],
                        "count": len(hits) + 1})
            break
    if path not in st["written"]:
        st["written"].append(path)
    st["write_ranges"][path] = (prior + [[r[0], r[1], seq] for r in ranges])[-MAX_RANGES_PER_FILE:]
    return out
