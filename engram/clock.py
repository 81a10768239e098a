"""UTC timestamps as ISO-8601 text: the one format engram writes everywhere.

Text sorts in time order, greps well and needs no `datetime` import (the hook pays
for every import). Precision is the caller's: events carry milliseconds, graph rows
microseconds (same-second writes must still order), logs and manifests whole seconds.
"""

from __future__ import annotations

import time


def utc_iso(digits: int = 3, t: float | None = None) -> str:
    """`2026-12-01T07:59:23.123Z` with `digits` (0, 3 or 6) fractional digits."""
    t = time.time() if t is None else t
    head = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t))
    if digits <= 0:
        return head + "Z"
    return head + ".%0*dZ" % (digits, int(t % 1 * 10**digits))


def valid_iso(text: object) -> str | None:
    """`text` as engram's millisecond form when it is a past UTC timestamp in that format
    (`2025-08-06T07:10:20.758Z`; any fraction, or none), else None. Plain string checks,
    no `re` or `datetime`: the hook validates a replayed record's time with it."""
    if not isinstance(text, str) or not 20 <= len(text) <= 30 or text[-1] != "Z":
        return None
    head, frac = text[:19], text[19:-1]
    digits = head[:4] + head[5:7] + head[8:10] + head[11:13] + head[14:16] + head[17:19]
    if [head[i] for i in (4, 7, 10, 13, 16)] != ["-", "-", "T", ":", ":"] or not digits.isdigit():
        return None
    if frac and not (frac[0] == "." and frac[1:].isdigit()):
        return None
    month, day, hour, minute, second = (int(head[a:a + 2]) for a in (5, 8, 11, 14, 17))
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return None
    out = head + "." + (frac[1:] + "000")[:3] + "Z"
    return out if out <= utc_iso(3) else None
