"""Pass 1 input: events as compact, delimited text lines, cut into overlapping windows.

Derived events (exploration, fix_attempt, ...) are folded into the line of the event
they derive from instead of taking a window slot: the spec's (docs/spec.md) 8-12 events per window
should be 8-12 things the agent did, not half of them bookkeeping. Every line starts with
`[seq N]`, which is what the model cites as evidence and what the validator checks.

Event text is untrusted (it holds file contents, command output, web pages): it is placed
inside an <events> block that the prompts declare to be data, and anything that would
close that block early is defused.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from engram.text import clip, clip_tail, fit

DERIVED = ("exploration", "expanding_search", "fix_attempt", "progression", "repeated_revision")
SKIP = ("session_start", "compact", "injected")


def primary_events(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[int, list[str]]]:
    """(events that take a window slot, {seq of a direct event: notes from its derived events})."""
    notes: dict[int, list[str]] = {}
    out = []
    for ev in events:
        t = ev.get("type")
        if t in DERIVED and isinstance(ev.get("ref"), int):
            notes.setdefault(ev["ref"], []).append(_derived_note(ev))
        elif t not in SKIP:
            out.append(ev)
    return out, notes


def _derived_note(ev: dict[str, Any]) -> str:
    t = ev.get("type")
    if t == "fix_attempt":
        return f"fix attempt after failing test seq {ev.get('after_test')}" + (
            " (same region as before)" if ev.get("same_region") else "")
    if t == "repeated_revision":
        return f"region {ev.get('range')} revised {ev.get('count')} times"
    if t == "progression":
        return "new file after a passing test"
    if t == "expanding_search":
        return f"search expanding outward (distance {ev.get('distance')})"
    return "first read" if t == "exploration" else str(t)


def make_windows(items: list[Any], size: int, overlap: int) -> list[list[Any]]:
    """Windows of `size` items, consecutive windows sharing `overlap` items.

    The overlap is what lets a cause at the end of one window and its effect at the start
    of the next appear together in at least one window. A short tail that would repeat
    only overlap is not a window of its own.
    """
    size = max(2, int(size))
    overlap = max(0, min(int(overlap), size - 1))
    if len(items) <= size:
        return [list(items)] if items else []
    step = size - overlap
    out = []
    start = 0
    while True:
        out.append(list(items[start : start + size]))
        if start + size >= len(items):
            return out
        start += step


# A model reads </EVENTS> and < /events> like </events>: any case, any spacing.
_TAG = re.compile(r"<(?=\s*/?\s*(?:events|summar))", re.I)


def defuse(text: str) -> str:
    """Text that cannot close or open the <events> / <summaries> data blocks."""
    return _TAG.sub(r"<\\", text.replace("</", "<\\/"))


def describe(ev: dict[str, Any]) -> str:
    """One event as one line of prose-like text (without the seq prefix)."""
    t = ev.get("type")
    fn = _DESCRIBERS.get(str(t))
    text = fn(ev) if fn else f"{t} {clip(ev.get('tool'), 60)}"
    if ev.get("ok") is False and ev.get("error"):
        text += f" [tool error: {clip(ev['error'], 160)}]"
    return text


def _write(ev: dict[str, Any]) -> str:
    diff = clip(ev.get("diff"), 240)
    return (f"file_write {ev.get('path')} op={ev.get('op')} +{ev.get('lines_added', 0)}"
            f" -{ev.get('lines_removed', 0)}" + (f" diff: {diff}" if diff else ""))


def _test(ev: dict[str, Any]) -> str:
    head = (f"test_run {str(ev.get('outcome', '')).upper()} exit={ev.get('exit_code')}: "
            f"{clip(ev.get('command'), 120)} passed={ev.get('passed')} failed={ev.get('failed')}")
    failing = ev.get("failing_tests") or []
    if failing:
        head += " failing=" + ", ".join(clip(f, 80) for f in failing[:5])
    if ev.get("outcome") == "fail":
        head += f" output: {clip_tail(ev.get('output'), 200)}"
    return head


def _command(ev: dict[str, Any]) -> str:
    text = f"{ev.get('type')} exit={ev.get('exit_code')}: {clip(ev.get('command'), 140)}"
    if ev.get("error_summary"):
        return text + f" errors: {clip(ev['error_summary'], 240)}"
    if ev.get("exit_code"):
        return text + f" output: {clip_tail(ev.get('output'), 160)}"
    return text


def _research(ev: dict[str, Any]) -> str:
    what = ev.get("query") or ev.get("url") or ""
    return f"research {ev.get('source')}: {clip(what, 200)}"


_DESCRIBERS = {
    "user_prompt": lambda e: f"user_prompt: {clip(e.get('prompt'), 400)}",
    "file_read": lambda e: f"file_read {e.get('path')}" + (f" ({e['lines']} lines)" if e.get("lines") else ""),
    "file_write": _write,
    "test_run": _test,
    "build": _command,
    "command": _command,
    "search": lambda e: f"search {clip(e.get('pattern'), 100)!r} in {e.get('path') or '.'}"
                        f" -> {e.get('results_count')} results",
    "research": _research,
    "decision": lambda e: f"decision (explicit, saved by the agent): {clip(e.get('content'), 300)}"
                          + (f" because {clip(e.get('rationale'), 200)}" if e.get("rationale") else "")
                          + (f" files={e.get('files')}" if e.get("files") else ""),
    "todos": lambda e: "todos (the agent's task list): " + "; ".join(
        f"[{i.get('status')}] {clip(i.get('text'), 100)}" for i in e.get("items") or [])[:600],
    "tool_call": lambda e: f"tool_call {e.get('tool')} input={clip(e.get('input'), 160)}",
    "learned": lambda e: f"learned (after seq {e.get('ref')}): {clip(e.get('text'), 300)}",
    "turn_complete": lambda e: f"turn_complete tool_calls={e.get('tool_calls')} agent said: "
                               f"{clip(e.get('agent_summary'), 320)}",
    "session_end": lambda e: "session_end",
}


def render(events: Iterable[dict[str, Any]], notes: dict[int, list[str]] | None = None,
           max_chars: int | None = None) -> str:
    """`[seq N] ...` lines, defused, ready to sit inside an <events> block; with `max_chars`
    the longest lines are clipped until the whole fits (a model call's input is bounded)."""
    lines = []
    for ev in events:
        line = f"[seq {ev.get('seq')}] {describe(ev)}"
        extra = (notes or {}).get(ev.get("seq"))  # type: ignore[arg-type]
        if extra:
            line += " (" + "; ".join(extra) + ")"
        lines.append(defuse(line))
    return "\n".join(fit(lines, max_chars) if max_chars else lines)
