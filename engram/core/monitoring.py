"""What `lifecycle` calls for monitoring: deliver warnings, update metrics, request checks.

Called inside the session lock, after the hook appended its own events, so everything
here reads and writes `st` race-free and appends its events with gap-free seqs:

* `after_tool_calls`: deliver the contradiction warnings and notices queued by a
  checker since the last hook (each exactly once, recorded as `contradiction_delivered`),
  fold the tool call into the metacognitive metrics (a new flag becomes a note and a
  `metacog_flag` event), and queue a check for each file_write with linked decisions;
* `before_prompt`: deliver queued warnings when no tool call came first (the agent's
  turn ended), and record the session's size for the "typical session" estimate.

Standard library only (the hook's hot path).
"""

from __future__ import annotations

from engram.core import contradiction_trigger, metacognitive


def _deliver(ctx, st: dict, via: str) -> list[str]:
    items = contradiction_trigger.drain(st)
    if not items:
        return []
    ctx.append(st, [{"type": "contradiction_delivered", "ref": q.get("ref"), "kind": q.get("kind", "warning"),
                     "via": via} for q in items])
    return [q["text"] for q in items]


def after_tool_calls(ctx, st: dict, batch: list[dict]) -> list[str]:
    notes = _deliver(ctx, st, "tool_calls")
    try:
        flags, events = metacognitive.observe(st, batch, ctx.project.dir)
        if events:
            ctx.append(st, events)
        notes += flags
    except Exception as exc:  # a metrics fault must not cost the warnings already drained
        ctx.log(f"metacognitive metrics failed: {type(exc).__name__}: {exc}")
    for ev in batch:
        if ev.get("type") == "file_write":
            try:
                contradiction_trigger.request_check(ctx.project, ctx.session, st, ev, ctx.cfg)
            except Exception as exc:
                ctx.log(f"contradiction check of {ev.get('path')} not started: {type(exc).__name__}: {exc}")
    return notes


def before_prompt(ctx, st: dict) -> list[str]:
    notes = _deliver(ctx, st, "prompt")
    try:
        metacognitive.record_session(ctx.project.dir, ctx.session, st)
    except Exception as exc:
        ctx.log(f"metacognitive session record failed: {type(exc).__name__}: {exc}")
    return notes
