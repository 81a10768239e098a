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
