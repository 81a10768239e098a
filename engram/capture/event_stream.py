"""`events/<session>.jsonl`: how a field is bounded, and appending and reading events.

Appends are one `os.write` on an O_APPEND descriptor (stamped with seq, ts, session and
turn under the session lock, capture/session_state.py), never rewritten; readers skip a
torn line. Every text field goes through `bounded`: cut, then redacted (bounded work: a
megabyte of output costs what its kept head and tail cost). The JSONL is a
public interface: the README documents every type and field. Standard library only.
"""

from __future__ import annotations

import os

from engram import jsonio
from engram.clock import utc_iso
from engram.fsio import open_append


def bounded(text, limit: int, field: str, cut: dict) -> str:
    """A text field as it goes into the stream: at most `limit` characters (head and tail
    kept), redacted, the original length recorded in `cut` when it was shortened. The
    redaction rules load here: an event that carries no such field (SessionStart's, Stop's
    without a reply) never loads them."""
    from engram.redact import clip_then_redact

    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text, original = clip_then_redact(text, limit)
    if original:
        cut[field] = original
    return text


def append(events_path: str, state: dict, session: str, events: list[dict], fsync: bool = False) -> None:
    """Stamp events with seq/ts/session/turn and append them in one write."""
    if not events:
        return
    ts = utc_iso(3)
    lines = []
    for ev in events:
        state["seq"] += 1
        stamped = {"type": ev.pop("type"), "ts": ts, "session": session, "seq": state["seq"],
                   "turn": state["turn"]}
        stamped.update(ev)
        ev.clear()
        ev.update(stamped)
        lines.append(jsonio.dumps(ev))
    data = ("\n".join(lines) + "\n").encode("utf-8", "replace")
    fd = open_append(events_path)  # a FIFO or a device in its place: NotRegular, never a hang
    try:
        if state.get("size"):
            # A writer killed mid-line leaves no newline: start on a fresh line so the
            # torn line stays one (skipped) line.
            if os.pread(fd, 1, state["size"] - 1) != b"\n":
                data = b"\n" + data
                state["torn"] = True  # the caller reports it (once: the line is now closed)
        start = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        except OSError:
            # A full disk (ENOSPC, EFBIG) can take part of the line: take it back, so the
            # file holds whole events only and the next append starts clean.
            try:
                os.ftruncate(fd, start)
            except OSError:
                pass
            raise
        if fsync:
            os.fsync(fd)
        state["size"] = os.fstat(fd).st_size
    finally:
        os.close(fd)


def read_events(path: str, after_seq: int = 0) -> tuple[list[dict], int]:
    """(events with seq > after_seq, number of unreadable lines skipped)."""
    objects, bad, _ = jsonio.read_jsonl(path)
    events = []
    for ev in objects:
        if isinstance(ev, dict) and isinstance(ev.get("seq"), int):
            if ev["seq"] > after_seq:
                events.append(ev)
        else:
            bad += 1
    return events, bad
