"""What engram does at each lifecycle event, harness-agnostic.

Adapters translate a harness payload into calls of these functions and translate the
returned context text (or None) back into the harness's output. What is meant for the user,
not the agent (SessionStart's notices: the day's budget is spent, consolidations failed), is
left in `ctx.notice` for the adapter's user channel. The generic Python API
(`engram.harnesses.generic`) calls them directly.
"""

from __future__ import annotations

import os

from engram import config
from engram.capture import event_stream, session_state

AGENT_SUMMARY_CHARS = 800  # ~200 tokens
USER_SUMMARY_CHARS = 300


class Ctx:
    """One hook invocation: which project, which session, which settings."""

    __slots__ = ("project", "session", "cfg", "harness", "cwd", "transcript_path", "extra", "notice")

    def __init__(self, session: str, cwd: str, harness: str = "claude-code",
                 transcript_path: str | None = None, home: str | None = None):
        self.session = config.safe_name(session)
        self.cwd = cwd
        self.harness = harness
        self.transcript_path = transcript_path
        self.project = config.Project.from_cwd(cwd, home).ensure()
        try:
            self.cfg, warnings = config.load_config(self.project.home)
        except config.ConfigError as exc:  # a typo in config.json must not stop capture
            self.cfg, warnings = dict(config.DEFAULTS), [f"{exc}; using the defaults until it is fixed"]
        self.extra: dict = {}  # added to every event: harness tags (GSD milestone/slice/task), a replay's ts
        self.notice: str | None = None  # for the user, not the agent: the adapter's user channel shows it
        for w in warnings:
            self.log(w, "WARN")

    def log(self, message: str, level: str = "ERROR") -> None:
        from engram.log import log

        log(self.project.log_path, f"hook:{self.harness}", f"session={self.session} {message}", level)

    def locked(self) -> session_state.Locked:
        return session_state.Locked(self.project.state_path(self.session),
                                    self.project.events_path(self.session))

    def append(self, st: dict, events: list[dict]) -> None:
        if self.extra:
            for ev in events:
                for k, v in self.extra.items():
                    ev.setdefault(k, v)
        event_stream.append(self.project.events_path(self.session), st, self.session, events,
                            self.cfg["fsync"])
        if st.pop("torn", None):
            self.log("events file ended in a torn line (a writer was killed mid-append); "
                     "readers skip that one line")


def _pop_pending(st: dict) -> list[str]:
    pending, st["pending"] = st["pending"], []
    return [p for p in pending if isinstance(p, str)]


def _join(parts: list[str]) -> str | None:
    parts = [p for p in parts if p]
    return "\n\n".join(parts) if parts else None


def _recall(ctx: Ctx, step, *args) -> str | None:
    """Run one retrieval step; a fault is logged and the event goes on without context."""
    try:
        return step(*args)
    except Exception as exc:
        ctx.log(f"retrieval {step.__module__.rsplit('.', 1)[-1]}.{step.__name__} failed: {type(exc).__name__}: {exc}")
        return None


def _monitor(ctx: Ctx, step, *args) -> list[str]:
    """Contradiction warnings due now, metacognitive notes, new checks (engram.monitor.trigger); never raises."""
    try:
        return step(ctx, *args)
    except Exception as exc:
        ctx.log(f"monitoring {step.__name__} failed: {type(exc).__name__}: {exc}")
        return []


def _low_prefix(ctx: Ctx) -> str | None:
    """The closing names-only line's opening: it names query_knowledge only where the agent has the tool."""
    from engram.retrieve import inject

    return inject.low_prefix(ctx.harness, ctx.project.home)


# Each event imports only what it uses (the hook pays for every import): retrieval at
# SessionStart and on prompts, monitoring on tool calls, the consolidation trigger at the
# events that queue a session.


def session_start(ctx: Ctx, source: str = "startup") -> str | None:
    """The context for the agent; the user's notices go to `ctx.notice`, never into it."""
    from engram import notices
    from engram.consolidate import trigger as consolidation
    from engram.retrieve import inject, shown

    with ctx.locked() as st:
        ctx.append(st, [{"type": "session_start", "source": str(source or "")[:40],
                         "harness": ctx.harness, "cwd": ctx.cwd}])
        view = shown.snapshot(st)
    # The database is read without the session lock (docs/architecture.md, "Process model").
    recalled = _recall(ctx, inject.session_start, ctx.project, ctx.session, ctx.cfg, view, str(source or ""),
                       _low_prefix(ctx))
    with ctx.locked() as st:
        shown.merge(st, view)
        _injected(ctx, st, view, "session_start", recalled)
    consolidation.after(ctx, "session_start")
    notice = _recall(ctx, consolidation.consolidation_notice, ctx.project)  # failed consolidations, if any
    said = _recall(ctx, notices.text, ctx.project.home)  # e.g. the day's model budget is spent, once
    ctx.notice = _join([said, notice])
    return recalled


def with_notice(ctx: Ctx, context: str | None) -> str | None:
    """The user's notice before the context: for a harness with no channel to the user (GSD's
    KNOWLEDGE.md section, the Python API), which shows both where it shows the context."""
    return _join([ctx.notice, context])


def prompt(ctx: Ctx, text: str) -> str | None:
    from engram.monitor import trigger as monitoring
    from engram.retrieve import inject, shown

    from engram.text import strip_injected

    cut: dict = {}
    text = strip_injected(text) if isinstance(text, str) else text
    body = event_stream.bounded(text, ctx.cfg["maxPromptChars"], "prompt", cut)  # redacted before the lock
    ev = {"type": "user_prompt", "prompt": body}
    if cut:
        ev["truncated"] = cut
    with ctx.locked() as st:
        st["turn"] += 1
        st["turn_tool_calls"] = 0
        st["turn_events"] = []
        st["last_prompt"] = body[:USER_SUMMARY_CHARS]
        ctx.append(st, [ev])
        pending = _monitor(ctx, monitoring.before_prompt, st) + _pop_pending(st)
        view = shown.snapshot(st)
    # a prompt with no word of the user's (a background task's notification) asks nothing
    recalled = _recall(ctx, inject.prompt, ctx.project, ctx.session, ctx.cfg, view, text, ctx.cwd,
                       _low_prefix(ctx)) if isinstance(text, str) and text.strip() else None
    with ctx.locked() as st:
        shown.merge(st, view)
        _injected(ctx, st, view, "prompt", recalled)
    return _join(pending + [recalled])


def tool_calls(ctx: Ctx, calls: list[dict]) -> str | None:
    """Capture one tool call (or several, e.g. a multi-file patch) and its derived events.

    Classification (redaction, reading the written file) happens before the session lock
    is taken and the database reads (the write check, the first-read note) after it is
    released: the lock is held only for the state and the append, so the session's other
    hooks (parallel tool calls) never wait on a slow field or a locked database.
    """
    from engram.capture import classify
    from engram.monitor import trigger as monitoring

    root = ctx.project.root
    direct = []
    for call in calls:
        call.setdefault("cwd", ctx.cwd)
        direct.append(classify.classify(call, root, ctx.cfg))
    with ctx.locked() as st:
        batch, first_reads = _derive(st, direct)
        st["turn_tool_calls"] += len(calls)
        ctx.append(st, batch)
        pending = _monitor(ctx, monitoring.after_tool_calls, st, batch) + _pop_pending(st)
        checks_off = monitoring.checks_off(st)
        view = _snapshot_for_notes(ctx, st, first_reads)
        failed = _failures(batch)
        shown = list(st.get("gotchas_shown") or []) if failed else []
    monitoring.queue_checks(ctx, checks_off, batch)
    if view is not None:
        pending += _first_read_notes(ctx, view, first_reads)
    if failed:
        pending.append(_recall(ctx, _gotcha_note, ctx, failed, shown))
    return _join(pending)


def _failures(batch: list[dict]) -> list[dict]:
    if not any(ev.get("ok") is False for ev in batch):
        return []
    from engram.retrieve import at_failure

    return at_failure.failures(batch)


def _gotcha_note(ctx: Ctx, failed: list[dict], shown: list[str]) -> str | None:
    """The way round a known gotcha, when a command just failed like it (once per session)."""
    if not os.path.exists(ctx.project.gotcha_index_path):
        return None
    from engram.retrieve import at_failure

    hits = at_failure.match(ctx.project.gotcha_index_path, failed, shown)
    if not hits:
        return None
    with ctx.locked() as st:
        st["gotchas_shown"] = (list(st.get("gotchas_shown") or []) + [g for g, _ in hits])[-200:]
    return at_failure.note(hits)


def _derive(st: dict, direct: list[dict]) -> tuple[list[dict], list[str]]:
    """(the direct events with their derived ones, paths read for the first time)."""
    from engram.capture import classify

    batch: list[dict] = []
    first_reads: list[str] = []
    for ev in direct:
        seq = st["seq"] + len(batch) + 1
        if ev["type"] == "file_read":
            if ev.get("ok") and ev.get("path") and ev["path"] not in st["seen"]:
                first_reads.append(ev["path"])  # decided before for_read marks it seen
            derived = classify.for_read(ev, st)
        elif ev["type"] == "file_write":
            derived = classify.for_write(ev, st, seq)
        else:
            derived = []
        if ev["type"] == "test_run" and ev["outcome"] in ("pass", "fail"):  # an unknown verdict says nothing
            st["last_test"] = {"seq": seq, "ok": ev["outcome"] == "pass"}
        if ev["type"] in ("build", "research"):
            st["turn_events"].append(seq)
        for d in derived:
            d["ref"] = seq
        batch.append(ev)
        batch.extend(derived)
    return batch, first_reads


def _snapshot_for_notes(ctx: Ctx, st: dict, first_reads: list[str]) -> dict | None:
    if not first_reads or not os.path.exists(ctx.project.db_path):
        return None
    from engram.retrieve import shown  # only when there is a graph to read

    return shown.snapshot(st)


def _first_read_notes(ctx: Ctx, view: dict, paths: list[str]) -> list[str | None]:
    """What the graph knows about files read for the first time (read without the lock)."""
    from engram.retrieve import involuntary, shown

    notes = [_recall(ctx, involuntary.annotate, ctx.project.db_path, path, ctx.cfg, view, ctx.project.root)
             for path in paths]
    if any(notes):
        with ctx.locked() as st:
            shown.merge(st, view)
            _injected(ctx, st, view, "first_read", _join(notes))
    return notes


def _injected(ctx: Ctx, st: dict, view: dict, via: str, text: str | None) -> None:
    """Record what a retrieval just showed (ids and tiers, its words) as an `injected` event:
    the worker decides from the session's later events which items it used (docs/curation.md)."""
    from engram.retrieve.shown import newly_shown

    items = newly_shown(view) if text else []
    if items:
        ctx.append(st, [{"type": "injected", "via": via, "items": items[:300], "words": len(text.split())}])


def _consolidate(ctx: Ctx, event: str) -> None:
    """Queue this session and start a worker if a slot is free (engram.consolidate.trigger)."""
    from engram.consolidate import trigger as consolidation

    consolidation.after(ctx, event)


def stop(ctx: Ctx, last_message: str | None = None, stop_hook_active: bool = False) -> None:
    """Close the turn: `learned` records for its builds/research, then `turn_complete`."""
    if not isinstance(last_message, str) or not last_message:
        last_message = _last_assistant_text(ctx.transcript_path) or ""
    cut: dict = {}
    agent = event_stream.bounded(last_message, AGENT_SUMMARY_CHARS, "agent_summary", cut)  # before the lock
    with ctx.locked() as st:
        events = [{"type": "learned", "ref": ref, "text": agent} for ref in st["turn_events"] if agent]
        tc = {"type": "turn_complete", "user_summary": st["last_prompt"], "agent_summary": agent,
              "tool_calls": st["turn_tool_calls"], "continuation": bool(stop_hook_active)}
        if cut:
            tc["truncated"] = cut
        events.append(tc)
        st["turn_events"] = []
        st["turn_tool_calls"] = 0
        ctx.append(st, events)
    _consolidate(ctx, "stop")
    return None


EMPTY_SCAN = 65536  # an events file larger than this holds work


def _empty(path: str) -> bool:
    """No prompt and no tool call: only the markers a harness's start and end leave."""
    from engram import jsonio
    from engram.consolidate.trigger import MARKERS
    from engram.fsio import read_regular

    data = read_regular(path, EMPTY_SCAN + 1)
    if data is None or len(data) > EMPTY_SCAN:
        return data is None
    types = [ev.get("type") for ev in jsonio.tail_objects(path, EMPTY_SCAN)]
    return all(t in MARKERS for t in types)


def session_end(ctx: Ctx, reason: str = "") -> None:
    """Close the session; one with no prompt and no tool call (`claude mcp list`, a CLI
    opened and quit) is no session: its files go, and nothing is queued or counted."""
    events = ctx.project.events_path(ctx.session)
    with ctx.locked() as st:
        if st["turn"] == 0 and _empty(events):
            for path in (events, ctx.project.state_path(ctx.session)):
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
            st["discard"] = True
            return
        ctx.append(st, [{"type": "session_end", "reason": str(reason or "")[:40]}])
    _consolidate(ctx, "session_end")


def compact(ctx: Ctx, trigger: str = "") -> None:
    """A compaction queues the session once per turn: a harness that reports one before
    every model call would otherwise have its session consolidated in slices."""
    with ctx.locked() as st:
        if st.get("compacted_turn") == st["turn"]:
            return
        st["compacted_turn"] = st["turn"]
        ctx.append(st, [{"type": "compact", "trigger": str(trigger or "")[:40]}])
    _consolidate(ctx, "compact")


# The lifecycle kinds an adapter's `request` may name (besides "tool" and "ignore", which
# the hook handles itself), each called with the arguments the adapter read off its payload.
HANDLERS = {"session_start": session_start, "prompt": prompt, "stop": stop, "session_end": session_end,
            "compact": compact}


def _last_assistant_text(transcript_path: str | None, tail_bytes: int = 262144) -> str | None:
    """The last assistant text block in a Claude-style transcript JSONL (bounded read; the
    harness's file, so a symlink to it is followed)."""
    if not transcript_path or not isinstance(transcript_path, str):
        return None
    from engram import jsonio

    for rec in jsonio.tail_objects(transcript_path, tail_bytes, (b'"assistant"',), follow=True):
        try:
            content = rec["message"]["content"]
        except (KeyError, TypeError):
            continue
        if isinstance(content, str):
            return content
        texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        if any(texts):
            return "\n".join(t for t in texts if t)
    return None
