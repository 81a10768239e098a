"""Typed events from neutral tool calls, appended to `events/<session>.jsonl`.

Classification is deterministic: it looks only at the tool's action, its parameters and
its result, never at natural language. Adapters turn a harness payload into neutral
calls (`action` is read / write / shell / web_search / web_fetch / search / agent /
decision / other); this module turns a call into one direct event. Derived events come
from `derive.py`. Appends are one `os.write` on an O_APPEND descriptor, never rewritten.
The JSONL is a public interface: the README documents every type and field.
"""

from __future__ import annotations

import os

from engram import jsonio
from engram.capture import diffs, shellcmd
from engram.clock import utc_iso
from engram.hashing import sha256_hex
from engram.redact import is_env_file, redact, redact_env_file


def rel_path(path: str, root: str) -> str:
    """Project-relative path when inside the project (so knowledge carries across clones)."""
    if not isinstance(path, str) or not path:
        return ""
    p = path.replace("\\", "/")
    if not os.path.isabs(p):
        return os.path.normpath(p)
    p = os.path.normpath(p)
    if p == root or p.startswith(root.rstrip("/") + "/"):
        return os.path.relpath(p, root)
    return p


def clip(text, limit: int, field: str, cut: dict) -> str:
    """Bound a text field; record the original length in `cut` when it is shortened."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = redact(text)
    if len(text) > limit:
        cut[field] = len(text)
        half = limit // 2
        return text[:half] + "\n[...]\n" + text[-(limit - half) :]
    return text


def _exit_code(call: dict):
    code = call.get("exit_code")
    if isinstance(code, int) and not isinstance(code, bool):
        return code
    return 0 if call.get("ok", True) else 1


def classify(call: dict, root: str, cfg: dict) -> dict:
    """One direct event (without seq/ts/session) for a neutral tool call."""
    action = call.get("action")
    cut: dict = {}
    ev: dict = {"tool": str(call.get("tool") or "")[:200], "ok": bool(call.get("ok", True))}
    if call.get("error") and action != "shell":  # a shell failure's text is its output
        ev["error"] = clip(call["error"], 500, "error", cut)
    out_max = cfg["maxOutputChars"]
    if action == "read":
        ev["type"] = "file_read"
        ev["path"] = rel_path(call.get("path"), root)
        content = call.get("content")
        if isinstance(content, str):
            ev["hash"] = "sha256:" + sha256_hex(content)[:32]
            ev["lines"] = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
        for k in ("offset", "limit", "content_type"):
            if call.get(k) is not None:
                ev[k] = call[k]
    elif action == "write":
        _write_fields(ev, call, root, cfg, cut)
    elif action == "shell":
        command = str(call.get("command") or "")
        kind = shellcmd.classify(command)
        ev["command"] = clip(command, 1000, "command", cut)
        ev["exit_code"] = _exit_code(call)
        output = call.get("output") or ""
        if kind == shellcmd.TEST:
            from engram.capture import testparse

            ev["type"] = "test_run"
            res = testparse.parse(str(output), command)
            ev.update(res)
            if not res["recognized"]:
                ev["note"] = "output not recognised; verdict from exit code only"
            ev["outcome"] = "pass" if ev["exit_code"] == 0 and not res["failed"] else "fail"
        elif kind == shellcmd.BUILD:
            ev["type"] = "build"
            if ev["exit_code"] != 0:
                ev["error_summary"] = clip(_error_lines(str(output)), 800, "error_summary", cut)
        elif kind == shellcmd.DECISION:
            args = shellcmd.decision_args(command) or {"content": command, "rationale": "", "files": []}
            return _decision(ev, args, root, cut)
        elif kind == shellcmd.READ:
            ev["type"] = "file_read"
            targets = shellcmd.read_targets(command)
            ev["path"] = rel_path(os.path.join(call.get("cwd") or root, targets[0]), root) if targets else ""
            ev["via"] = "shell"
        else:
            ev["type"] = "search" if kind == shellcmd.SEARCH else "command"
        if ev["type"] in ("test_run", "build", "command", "search"):
            ev["output"] = clip(str(output), out_max, "output", cut)
    elif action in ("web_search", "web_fetch"):
        ev["type"] = "research"
        ev["source"] = action
        if action == "web_search":
            ev["query"] = clip(call.get("query"), 500, "query", cut)
            ev["results_count"] = call.get("results_count")
        else:
            ev["url"] = clip(call.get("url"), 500, "url", cut)
            ev["status"] = call.get("status")
    elif action == "search":
        ev["type"] = "search"
        ev["pattern"] = clip(call.get("pattern"), 300, "pattern", cut)
        ev["path"] = rel_path(call.get("path"), root) if call.get("path") else ""
        ev["results_count"] = call.get("results_count")
    elif action == "agent":
        ev["type"] = "research" if call.get("subagent_type") == "Explore" else "tool_call"
        ev["source"] = "agent"
        ev["query"] = clip(call.get("description"), 300, "query", cut)
    elif action == "decision":
        return _decision(ev, call, root, cut)
    else:
        ev["type"] = "tool_call"
        ev["input"] = clip(jsonio.dumps(call.get("input")) if call.get("input") is not None else "", 500, "input", cut)
    if cut:
        ev["truncated"] = cut
    return ev


def _decision(ev: dict, args: dict, root: str, cut: dict) -> dict:
    ev["type"] = "decision"
    ev["content"] = clip(args.get("content"), 1000, "content", cut)
    ev["rationale"] = clip(args.get("rationale"), 1000, "rationale", cut)
    files = args.get("files") or []
    ev["files"] = [rel_path(os.path.join(root, f) if not os.path.isabs(f) else f, root)
                   for f in files if isinstance(f, str)][:20]
    if cut:
        ev["truncated"] = cut
    return ev


def _write_fields(ev: dict, call: dict, root: str, cfg: dict, cut: dict) -> None:
    ev["type"] = "file_write"
    raw_path = call.get("path") or ""
    path = rel_path(raw_path, root)
    ev["path"] = path
    ev["op"] = call.get("op") or "update"
    abs_path = raw_path if os.path.isabs(raw_path) else os.path.join(call.get("cwd") or root, raw_path)
    hunks = call.get("hunks")
    if not hunks and call.get("edits"):
        hunks = diffs.hunks_from_edits(call["edits"], _read_text(abs_path))
    elif not hunks and isinstance(call.get("content"), str):
        hunks = diffs.hunks_from_content(call.get("old_content"), call["content"])
    hunks = hunks or []
    summary = diffs.summarize(path, hunks, cfg["maxDiffChars"])
    snip = diffs.snippet(abs_path if ev["ok"] else None, hunks, summary["ranges"])
    scrub = redact_env_file if is_env_file(path) else redact
    summary["diff"] = scrub(summary["diff"])
    if summary.pop("truncated", None):
        cut["diff"] = len(summary["diff"])
    ev.update(summary)
    if snip:
        snip["text"] = scrub(snip["text"])
        ev["snippet"] = snip


def _read_text(path: str) -> str | None:
    from engram.fsio import read_regular

    data = read_regular(path, diffs.MAX_READ_BYTES)  # never a FIFO or a device
    return None if data is None else data.decode("utf-8", "replace")


def _error_lines(output: str) -> str:
    """The lines of a build log that say what failed (bounded)."""
    keep = [ln.strip() for ln in output.split("\n")
            if "error" in ln.lower() or "failed" in ln.lower() or "cannot" in ln.lower()]
    return "\n".join(keep[:15]) if keep else output.strip()[-600:]


# -- the file ---------------------------------------------------------------------


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
    fd = os.open(events_path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
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
