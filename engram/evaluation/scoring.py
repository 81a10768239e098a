"""Scoring what retrieval showed against what the session then did.

For one replayed session and one variant (items from `recorder`, targets from
`outcomes.touches`):

* **precision**: shown items about something (a file, a check) that the session touched
  *after* the item was shown; a first-read note also counts its own file. Items about
  nothing scorable (an episode without files, a finding) are counted as shown but left
  out of precision (`scorable`).
* **recall**: of the session's targets, the share some item covered *at or before* their
  first touch: memory pointed at them before the agent went there. Two denominators:
  `revisited` (targets an earlier session of the project touched: what a perfect memory
  could have supplied, whatever the consolidator kept) and `known` (targets some live
  graph node was about when the session started: what engram's graph could supply).
* both for SessionStart + prompts ("pre") and with first-read notes ("all");
* tokens injected per channel.

Sums over sessions give the ratios (micro-averaged: a session with many targets weighs
more, as it should: it is more work the memory could have saved).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from engram.evaluation.outcomes import KINDS, first_touch, kind
from engram.evaluation.recorder import CHANNELS, PRE

SCOPES = {"pre": PRE, "all": CHANNELS}


def _hit(item: dict[str, Any], touched: list[tuple[int, str]], kinds: tuple[str, ...]) -> bool:
    keys = {k for k in item["keys"] if kind(k) in kinds}
    if item["read"] and f"file:{item['read']}" in keys:
        return True
    return any(seq > item["seq"] and key in keys for seq, key in touched)


def _scope(items: list[dict], touched: list[tuple[int, str]], first: dict[str, int],
           sets: dict[str, set[str]]) -> dict[str, Any]:
    files = [i for i in items if any(kind(k) == "file" for k in i["keys"])]
    out: dict[str, Any] = {
        "injected": len(items), "scorable": sum(1 for i in items if i["keys"]),
        "hits": sum(1 for i in items if i["keys"] and _hit(i, touched, KINDS)),
        "file_linked": len(files), "file_hits": sum(1 for i in files if _hit(i, touched, ("file",))),
    }  # fmt: skip
    covered = {t for t in first if any(t in i["keys"] and i["seq"] <= first[t] for i in items)}
    for name, targets in sets.items():
        out[f"covered_{name}"] = {k: len({t for t in covered & targets if kind(t) == k}) for k in KINDS}
    return out


def score_session(session: str, items: list[dict[str, Any]], touched: list[tuple[int, str]],
                  known: set[str], earlier: set[str], tokens: dict[str, int], events: int) -> dict[str, Any]:
    """One session's counts for one variant (see the module docstring)."""
    first = first_touch(touched)
    sets = {"revisited": set(first) & earlier, "known": set(first) & known}
    mine = [i for i in items if i["session"] == session]
    row: dict[str, Any] = {"session": session, "events": events, "tokens": tokens}
    row["targets"] = {k: sum(1 for t in first if kind(t) == k) for k in KINDS}
    for name, targets in sets.items():
        row[name] = {k: sum(1 for t in targets if kind(t) == k) for k in KINDS}
    for label, chans in SCOPES.items():
        row[label] = _scope([i for i in mine if i["channel"] in chans], touched, first, sets)
    return row


# -- summaries ------------------------------------------------------------------------------


def ratio(num: int, den: int) -> dict[str, Any]:
    return {"value": round(num / den, 4) if den else None, "num": num, "den": den}


def _sum(rows: list[dict], *path: str) -> int:
    total = 0
    for r in rows:
        v: Any = r
        for p in path:
            v = v.get(p, 0) if isinstance(v, dict) else 0
        total += v if isinstance(v, int) else sum(v.values()) if isinstance(v, dict) else 0
    return total


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Ratios over the scored sessions of one variant (rows of `score_session`)."""
    n = max(1, len(rows))
    out: dict[str, Any] = {"sessions": len(rows)}
    for scope in SCOPES:
        out[f"precision_{scope}"] = ratio(_sum(rows, scope, "hits"), _sum(rows, scope, "scorable"))
        out[f"file_precision_{scope}"] = ratio(_sum(rows, scope, "file_hits"), _sum(rows, scope, "file_linked"))
        for den in ("revisited", "known"):
            out[f"recall_{scope}_{den}"] = ratio(_sum(rows, scope, f"covered_{den}"), _sum(rows, den))
            for k in KINDS:
                out[f"recall_{scope}_{den}_{k}"] = ratio(_sum(rows, scope, f"covered_{den}", k), _sum(rows, den, k))
        out[f"injected_{scope}_per_session"] = round(_sum(rows, scope, "injected") / n, 1)
    tokens: dict[str, int] = defaultdict(int)
    for r in rows:
        for ch, t in r["tokens"].items():
            tokens[ch] += t
    out["tokens_per_session"] = {ch: round(tokens[ch] / n) for ch in CHANNELS}
    out["tokens_pre_per_session"] = round(sum(tokens[ch] for ch in PRE) / n)
    for name in ("targets", "revisited", "known"):
        out[name] = {k: _sum(rows, name, k) for k in KINDS}
    return out
