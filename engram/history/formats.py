"""Which transcript format a file holds, read off its content, and what it converts to.

Four formats (docs/evaluation.md, "Transcript formats"): Claude Code's JSONL converts to Claude
Code's hook payloads (history/transcripts.py, on demand); a Codex CLI rollout
(history/rollout.py) and SpecStory's Markdown, both layouts (history/specstory.py), to Codex's.
"""

from __future__ import annotations

from dataclasses import dataclass

from engram.history import rollout, specstory, transcripts
from engram.hook import REPLAY_TS

CLAUDE_CODE, CODEX_ROLLOUT = "claude-code-jsonl", "codex-rollout-jsonl"
SPECSTORY_V2, SPECSTORY_LEGACY = "specstory-markdown-v2", "specstory-cursor-legacy"
HARNESS = {CLAUDE_CODE: "claude-code", CODEX_ROLLOUT: "codex", SPECSTORY_V2: "codex", SPECSTORY_LEGACY: "codex"}


@dataclass
class Converted:
    harness: str  # whose payloads: the adapter the replay names
    start: str  # the session's first time ("" when the file has none)
    records: list[dict]  # the JSONL records (none for Markdown)
    payloads: list[tuple[str, dict]] | None  # None: Claude Code's, converted from the records on demand


def sniff(text: str, records: list[dict] | None = None) -> str | None:
    """The format of a transcript's text (its parsed records, if already read); None if none of the four."""
    kind = specstory.layout(text)
    if kind:
        return SPECSTORY_V2 if kind == "v2" else SPECSTORY_LEGACY
    recs = transcripts.parse_records(text) if records is None else records
    if any(r.get("type") == "session_meta" and isinstance(r.get("payload"), dict) for r in recs):
        return CODEX_ROLLOUT
    if any(isinstance(r.get("sessionId"), str) and r["sessionId"] for r in recs):
        return CLAUDE_CODE
    return None


def convert(path: str, session_id: str) -> Converted:
    """One file as one session called `session_id`; ValueError when it is in no known format."""
    from engram.fsio import read_file

    text = read_file(path, transcripts.MAX_TRANSCRIPT_BYTES).decode("utf-8", "replace")
    records = [] if specstory.layout(text) else transcripts.parse_records(text)
    kind = sniff(text, records)
    if kind is None:
        raise ValueError(f"{path}: not a transcript in a format engram reads (Claude Code or Codex JSONL, SpecStory)")
    if kind == CLAUDE_CODE:
        records = [r for r in records if isinstance(r.get("sessionId"), str) and r["sessionId"]]
        return Converted(HARNESS[kind], _first_time(records), records, None)
    items = rollout.payloads(records, session_id) if kind == CODEX_ROLLOUT else specstory.payloads(text, session_id)
    start = next((p[REPLAY_TS] for _, p in items if p.get(REPLAY_TS)), "")
    return Converted(HARNESS[kind], start, records, items)


def _first_time(records: list[dict]) -> str:
    return next((r["timestamp"] for r in records if isinstance(r.get("timestamp"), str) and r["timestamp"]), "")
