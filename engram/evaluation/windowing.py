"""What the Pass 1 window parameters change, measured without calling a model.

`windowSize` / `windowOverlap` only matter to the model-backed consolidator (the offline
one reads a session's events whole), and there they trade two things:

* cost: the number of Pass 1 calls, and their input tokens, computed from the real
  prompts (`engram/consolidate/prompts/pass1.txt` + the rendered window, characters / 4);
* causal context: the share of cause -> effect links that some window holds whole (the
  spec's reason for the overlap: "preserves causal chains spanning window boundaries").
  Links, read off the events: a failing check -> the next write of its fix -> the run
  that passed (`offline_episode.errors` evidence, consecutive pairs); a failing test ->
  a fix attempt (`fix_attempt.after_test` -> the write); a build or web lookup -> what
  the agent said it learned (`learned.ref` -> the `learned` event).

Windows are cut per consolidation range as the live worker sees them: the events of one
turn (up to its `turn_complete`), since every Stop queues a consolidation of what is new.
With a model provider the evaluation also re-consolidates at each setting and scores
retrieval; offline, retrieval cannot move, and this module is the whole story.
"""

from __future__ import annotations

from typing import Any

PASS2_OUTPUT = 1500  # an Opus episode + change request: 1-2K tokens (docs/consolidation.md)
SUMMARY_TOKENS = 200  # the spec's (docs/spec.md) ~200-token window summary (Pass 1 output, Pass 2 input)


def links(events: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """Cause -> effect seq pairs (see the module docstring)."""
    from engram.consolidate.offline_episode import errors

    out = []
    for e in errors(events):
        ev = e["evidence"]
        out += list(zip(ev, ev[1:]))
    for ev in events:
        if ev.get("type") == "fix_attempt" and isinstance(ev.get("after_test"), int):
            out.append((ev["after_test"], ev["ref"]))
        elif ev.get("type") == "learned" and isinstance(ev.get("ref"), int):
            out.append((ev["ref"], ev["seq"]))
    return sorted(set(out))


def turn_ranges(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The stream cut after each `turn_complete`: what each Stop's consolidation reads.

    Only the ranges that get the full two passes: a talk-only turn gets the light call.
    """
    from engram.consolidate.worker import kind_of

    out: list[list[dict[str, Any]]] = [[]]
    for ev in events:
        out[-1].append(ev)
        if ev.get("type") == "turn_complete":
            out.append([])
    return [r for r in out if r and kind_of(r, 3) == "full"]


def measure(events: list[dict[str, Any]], size: int, overlap: int) -> dict[str, int]:
    """{"windows", "input_tokens", "output_tokens", "links", "kept"} for one consolidation range."""
    from engram.consolidate import windows
    from engram.consolidate.passes import prompt

    primary, notes = windows.primary_events([e for e in events if e.get("type") not in ("session_start",)])
    wins = windows.make_windows(primary, size, overlap)
    system = len(prompt("pass1"))
    tokens = sum((system + len(windows.render(w, notes)) + 40) // 4 for w in wins)
    spans = [{e["seq"] for e in w} for w in wins]
    pairs = links(events)
    kept = sum(1 for a, b in pairs if any(a in s and b in s for s in spans))
    pass2_in = (len(prompt("pass2")) // 4 + SUMMARY_TOKENS * len(wins)) if wins else 0
    return {"windows": len(wins), "input_tokens": tokens + pass2_in,
            "output_tokens": (SUMMARY_TOKENS * len(wins) + PASS2_OUTPUT) if wins else 0,
            "links": len(pairs), "kept": kept}


def sweep(streams: list[list[dict[str, Any]]], settings: list[tuple[int, int]],
          default: tuple[int, int] = (10, 3)) -> dict[tuple[int, int], dict]:
    """Totals over the sessions for each (windowSize, windowOverlap); tokens also relative to `default`."""
    out = {}
    for size, overlap in settings:
        tot = {"windows": 0, "input_tokens": 0, "output_tokens": 0, "links": 0, "kept": 0}
        for events in streams:
            for part in turn_ranges(events):
                for k, v in measure(part, size, overlap).items():
                    tot[k] += v
        n = max(1, len(streams))
        out[(size, overlap)] = {**tot, "sessions": len(streams), "calls_per_session": round(tot["windows"] / n, 1),
                                "tokens_per_session": round((tot["input_tokens"] + tot["output_tokens"]) / n),
                                "links_kept": round(tot["kept"] / tot["links"], 4) if tot["links"] else None}
    base = out.get(default, {}).get("tokens_per_session")
    for v in out.values():
        v["tokens_relative"] = round(v["tokens_per_session"] / base, 3) if base else None
    return out
