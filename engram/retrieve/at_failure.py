"""A known gotcha's way round, when a command fails the way it failed before.

The worker keeps the project's gotchas that have a way round in a small index
(consolidate/gotcha_index.py). When a shell command fails, the hook reads that file (never
the database) and matches the failure by command family and normalised first error line
(capture/commandline.py: `family_key`, `error_key`); a match is shown once per session, at
once, next to the failed call's result. Tool text reaches the agent through `inert`.
"""

from __future__ import annotations

from engram import jsonio
from engram.fsio import read_regular
from engram.redact.injection import withhold
from engram.text import AS_DATA, inert

MAX_INDEX_BYTES = 256 * 1024
SHELL = ("command", "build", "test_run")
HEADER = f"engram memory for this failure ({AS_DATA}):"


def failures(batch: list[dict]) -> list[dict]:
    """The shell events of a batch that failed (a known non-zero exit)."""
    return [ev for ev in batch if ev.get("type") in SHELL and ev.get("ok") is False and ev.get("command")]


def _index(path: str) -> list[dict]:
    raw = read_regular(path, MAX_INDEX_BYTES)
    try:
        doc = jsonio.loads(raw.decode("utf-8", "replace")) if raw else {}
    except ValueError:
        return []
    items = doc.get("items") if isinstance(doc, dict) else None
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def match(index_path: str, failed: list[dict], shown: list[str]) -> list[tuple[str, str]]:
    """[(gotcha id, its line)] for failures that match a known gotcha not yet shown this session."""
    items = _index(index_path)
    if not items:
        return []
    from engram.capture import commandline as cl  # `re`: loaded only when a command failed

    out: list[tuple[str, str]] = []
    for ev in failed:
        family = cl.family_key(str(ev["command"]))
        key = cl.error_key(str(ev.get("error_summary") or ev.get("output") or ev.get("error") or ""))
        for item in items:
            gid = str(item.get("id") or "")
            if (gid and gid not in shown and gid not in {g for g, _ in out}
                    and item.get("family") == family and item.get("key") == key):
                out.append((gid, inert(withhold(str(item.get("text") or ""), "a command's output"), 400)))
    return out


def note(hits: list[tuple[str, str]]) -> str:
    return "\n".join([HEADER] + [f"- {text}" for _, text in hits])
