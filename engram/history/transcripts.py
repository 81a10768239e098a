"""Claude Code transcripts -> the hook payloads a live session would have produced.

Reads both layouts: native JSONL (one record per line) and the JSON array written by
some Stop hooks (`logs/chat.json`). Rules, matching live hook logs (fixtures PROVENANCE):
- a typed user message (not meta, not a slash command's output) -> UserPromptSubmit;
- each tool_use with its tool_result -> PostToolUse with `tool_response` = the record's
  `toolUseResult`, or PostToolUseFailure with `error` = the result text when `is_error`;
- the end of each agent turn -> Stop with the turn's last assistant text; a "Stop hook
  feedback" meta message marks a Stop (stop_hook_active false) and makes the next Stop a
  re-entry (stop_hook_active true);
- SessionStart / SessionEnd around each run of one sessionId;
- each payload carries its record's `timestamp` under `engram.hook.REPLAY_TS` (a Stop, the
  turn's last record's; SessionEnd, the session's last), so a replay dates its events by the
  transcript, not by the import (the hook honours it in a replay only).
"""

from __future__ import annotations

import json
from typing import Iterator

# Records in the user's place that no UserPromptSubmit carries: a slash command and its output,
# bash mode's (`!cmd`) command and output, the harness's own notes.
SKIP_PREFIXES = ("<command-name>", "<local-command-stdout>", "<local-command-stderr>", "<command-message>", "Caveat:",
                 "<local-command-caveat>", "<bash-input>", "<bash-stdout>", "<bash-stderr>",
                 # a skill's body, which the client adds in the user's place when the skill runs
                 # (a meta record in a transcript; an export shows it as the user's turn)
                 "Base directory for this skill:",
                 # a background task's end, which the client hands the model with no UserPromptSubmit
                 # (tests/realclis/test_claude_code.py)
                 "<task-notification>",
                 "[Request interrupted", "This session is being continued from a previous conversation")


MAX_TRANSCRIPT_BYTES = 512 * 1024 * 1024


def load_records(path: str) -> list[dict]:
    """The records of one transcript. A FIFO, a device or a symlink raises engram.fsio.NotRegular
    at once (an OSError: skipped by the caller) instead of blocking or reading forever."""
    from engram.fsio import read_file

    return parse_records(read_file(path, MAX_TRANSCRIPT_BYTES).decode("utf-8", "replace"))


def parse_records(data: str) -> list[dict]:
    """The records of a transcript's text: a JSON array, or one JSON object a line."""
    stripped = data.lstrip()
    if stripped.startswith("["):
        recs = json.loads(stripped)
        return [r for r in recs if isinstance(r, dict)]
    out = []
    # Not jsonio.read_jsonl: a finished transcript's last line may lack its newline and is
    # still a record (in an engram stream it would be a torn append, skipped).
    for line in data.splitlines():
        line = line.strip()
        if line:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict):
                out.append(rec)
    return out


def _content(rec: dict):
    msg = rec.get("message")
    return msg.get("content") if isinstance(msg, dict) else None


def _notification(rec: dict) -> bool:
    """A user record holding a background task's `<task-notification>`: the client hands it to
    the model with no UserPromptSubmit (tests/realclis/test_claude_code.py); an answer it ended
    had fired Stop, and the answer to it fires Stop again."""
    c = _content(rec)
    if isinstance(c, list):
        c = "\n".join(b.get("text", "") for b in c if isinstance(b, dict) and b.get("type") == "text")
    return rec.get("type") == "user" and isinstance(c, str) and c.lstrip().startswith("<task-notification>")


def _prompt_text(rec: dict) -> str | None:
    """The typed prompt of a user record, or None when it is a tool result or meta."""
    if rec.get("type") != "user" or rec.get("isMeta") or rec.get("isSidechain") or rec.get("isCompactSummary"):
        return None
    c = _content(rec)
    if isinstance(c, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in c):
            return None
        c = "\n".join(b.get("text", "") for b in c if isinstance(b, dict) and b.get("type") == "text")
    if not isinstance(c, str) or not c.strip() or c.lstrip().startswith(SKIP_PREFIXES):
        return None
    return c


def _dated(common: dict, rec: dict) -> None:
    """The replay time of the payloads that follow: the record's timestamp, when it has one."""
    from engram.hook import REPLAY_TS

    if isinstance(rec.get("timestamp"), str) and rec["timestamp"]:
        common[REPLAY_TS] = rec["timestamp"]


def _result_text(block: dict) -> str:
    c = block.get("content")
    if isinstance(c, list):
        return "\n".join(b.get("text", "") for b in c if isinstance(b, dict))
    return c if isinstance(c, str) else ""


def _sessions(records: list[dict]) -> list[list[dict]]:
    """Records grouped by sessionId, in order of first appearance (resumed sessions interleave)."""
    groups: dict[str, list[dict]] = {}
    for rec in records:
        sid = rec.get("sessionId")
        if isinstance(sid, str) and sid:
            groups.setdefault(sid, []).append(rec)
    return list(groups.values())


def payloads(records: list[dict]) -> Iterator[tuple[str, dict]]:
    """(event name, payload) in the order a live session would have sent them."""
    for group in _sessions(records):
        yield from _session_payloads(group)


def _session_payloads(records: list[dict]) -> Iterator[tuple[str, dict]]:
    tool_uses: dict[str, dict] = {}
    cwd = next((r["cwd"] for r in records if isinstance(r.get("cwd"), str) and r["cwd"]), "")
    common = {"session_id": records[0]["sessionId"], "transcript_path": "", "cwd": cwd}
    in_turn = reentry = False
    last_text = ""

    def stop():
        return "Stop", dict(common, hook_event_name="Stop", stop_hook_active=reentry,
                            last_assistant_message=last_text)

    # the first record that has a time: a session may open with records that have none
    # (a custom title, an agent name), and an undated SessionStart is dated at the import
    _dated(common, next((r for r in records if isinstance(r.get("timestamp"), str) and r["timestamp"]), records[0]))
    yield "SessionStart", dict(common, hook_event_name="SessionStart", source="startup")
    for rec in records:
        if rec.get("cwd"):
            common["cwd"] = rec["cwd"]
        text = _prompt_text(rec)
        if text is not None and in_turn:
            yield stop()  # at the turn's last record's time, before this prompt's
        if _notification(rec):  # a background task's end wakes the agent, whose last answer had ended
            if in_turn:
                yield stop()
                last_text = ""
            continue
        _dated(common, rec)
        if text is not None:
            in_turn, reentry, last_text = True, False, ""
            yield "UserPromptSubmit", dict(common, hook_event_name="UserPromptSubmit", prompt=text)
            continue
        c = _content(rec)
        if rec.get("type") == "user" and rec.get("isMeta") and isinstance(c, str) and c.startswith("Stop hook feedback"):
            if in_turn:
                yield stop()
            in_turn, reentry = True, True
            continue
        if rec.get("type") == "assistant" and isinstance(c, list):
            for b in c:
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "text" and b.get("text") and not rec.get("isSidechain"):
                    last_text = b["text"]
                elif b.get("type") == "tool_use":
                    tool_uses[b.get("id")] = b
        elif rec.get("type") == "user" and isinstance(c, list):
            yield from _tool_results(rec, c, tool_uses, common)
    if in_turn:
        yield stop()
    yield "SessionEnd", dict(common, hook_event_name="SessionEnd", reason="other")


def _tool_results(rec: dict, content: list, tool_uses: dict, common: dict) -> Iterator[tuple[str, dict]]:
    """Tool calls (subagents' too: they fire with the parent session id) paired with results."""
    for b in content:
        if not (isinstance(b, dict) and b.get("type") == "tool_result"):
            continue
        use = tool_uses.pop(b.get("tool_use_id"), None)
        if use is None:
            continue
        base = dict(common, tool_name=use.get("name"), tool_input=use.get("input") or {})
        if b.get("is_error"):
            yield "PostToolUseFailure", dict(base, hook_event_name="PostToolUseFailure", error=_result_text(b))
        else:
            resp = rec.get("toolUseResult", _result_text(b))
            yield "PostToolUse", dict(base, hook_event_name="PostToolUse", tool_response=resp)
