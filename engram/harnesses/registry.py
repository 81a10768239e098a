"""The harnesses engram supports, in one place: used by the hook, install, uninstall, doctor.

Each is a module satisfying `base.Harness` (its payload adapter and its install plan),
listed here explicitly in the order `engram install --harness all` and `doctor` use (the
shape of pre-commit's `all_languages.py`). Each entry imports its module when first asked
for: a hook runs one harness and pays for that one only. A hook registration always names
its harness (`--harness NAME`); `detect` serves hand-written registrations that do not.
"""

from __future__ import annotations

import os

from engram.errors import EngramError

TYPE_CHECKING = False  # `typing` costs every hook ~20 ms
if TYPE_CHECKING:
    from typing import Callable

    from engram.harnesses.base import Harness


def _claude_code() -> Harness:
    from engram.harnesses import claude_code

    return claude_code


def _codex() -> Harness:
    from engram.harnesses import codex

    return codex


def _gemini() -> Harness:
    from engram.harnesses import gemini

    return gemini


def _gsd() -> Harness:
    from engram.harnesses import gsd

    return gsd


HARNESSES: dict[str, Callable[[], Harness]] = {"claude-code": _claude_code, "codex": _codex, "gemini": _gemini,
                                               "gsd": _gsd}
ALIASES = {"claude": "claude-code", "gemini-cli": "gemini"}
GEMINI_EVENTS = {"BeforeAgent", "AfterAgent", "BeforeTool", "AfterTool", "PreCompress", "BeforeModel",
                 "AfterModel", "BeforeToolSelection"}


def get(name: str) -> Harness:
    """The harness called `name` (or one of its aliases); an EngramError naming the choices otherwise."""
    load = HARNESSES.get(ALIASES.get(name, name))
    if load is None:
        raise EngramError(f"unknown harness {name!r}; choose one of {', '.join(HARNESSES)}")
    return load()


def detect(payload: dict) -> Harness:
    """The harness an unlabelled payload comes from (docs/harness-contracts.md §0: a heuristic,
    not a contract), read off the payload without loading the other harnesses.

    Codex: `turn_id`, or a transcript under ~/.codex. Gemini: a Gemini-only event name, or a
    `timestamp`. GSD 2: no event name and no session id (camelCase payloads), or the
    GSD_HOOK_EVENT it exports. Anything else: Claude Code.
    """
    event = payload.get("hook_event_name")
    if "turn_id" in payload or "/.codex/" in str(payload.get("transcript_path") or ""):
        return get("codex")
    if event in GEMINI_EVENTS or (event and "timestamp" in payload):
        return get("gemini")
    if not event and ("session_id" not in payload or os.environ.get("GSD_HOOK_EVENT")):
        return get("gsd")
    return get("claude-code")
