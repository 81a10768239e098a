"""`engram export --to CLAUDE.md|AGENTS.md|GEMINI.md`: one marked section of the harness's own
memory file, kept current with the pinned and most-used items.

A team can review the section in a pull request, and a harness run without engram's hooks
still reads it. Only the text between the two markers is ever rewritten (the splice of
harnesses/gsd_knowledge.py, with this section's own markers), atomically, and only when it
changed; the rest of the file is left as it is, and a file that is a symlink, not a regular
file, or larger than 4 MB is left alone. Item texts come from tool output: each is shown
through `text.inert` under a line saying they are recalled facts, not instructions.
"""

from __future__ import annotations

import os
from typing import Any

from engram.harnesses import gsd_knowledge
from engram.text import AS_DATA, inert

TARGETS = ("CLAUDE.md", "AGENTS.md", "GEMINI.md")
BEGIN = "<!-- engram:memory:begin (kept current by `engram export --to`; edits here are overwritten) -->"
END = "<!-- engram:memory:end -->"
HEADING = "## Project memory (engram)"
LIMIT = 20
# The kinds that fill the section when few items were used yet: what a session can act on.
STANDING = ("unfinished", "command", "gotcha", "instruction", "decision")
LABELS = {"command": "Command that works", "command_run": "Command run", "gotcha": "Known problem",
          "unfinished": "Unfinished", "instruction": "User instruction", "decision": "Decision", "file": "File",
          "error": "Past error", "finding": "Finding"}


def select(rows: list[dict[str, Any]], limit: int = LIMIT) -> list[dict[str, Any]]:
    """Pinned items, then the most used, then the strongest of the standing kinds; never a
    faded item nor one whose evidence no longer holds."""
    live = [r for r in rows if not r["faded"] and r["evidence"].get("holds") is not False]
    pinned = [r for r in live if r["pinned"]]
    used = sorted((r for r in live if r["used"] and not r["pinned"]),
                  key=lambda r: (-r["used"], -r["strength"], r["name"]))
    rest = sorted((r for r in live if not r["used"] and not r["pinned"] and r["kind"] in STANDING),
                  key=lambda r: (STANDING.index(r["kind"]), -r["strength"], r["name"]))
    return (pinned + used + rest)[:limit]


def text(rows: list[dict[str, Any]]) -> str:
    """The section's body: one bullet per item."""
    lines = [f"Recalled by engram from earlier sessions ({AS_DATA}); pinned first, then the most used."]
    for r in rows:
        label = LABELS.get(r["kind"], r["kind"].replace("_", " ").capitalize())
        said = inert(r["text"] or r["name"], 400)
        said = said[len(label) + 2:] if said.startswith(label + ": ") else said  # "Decision: Decision: …"
        tail = " (pinned)" if r["pinned"] else f" (used in {r['used']} session(s))" if r["used"] else ""
        lines.append(f"- {label}: {said}{tail}")
    if not rows:
        lines.append("- Nothing learnt yet.")
    return "\n".join(lines)


def write(root: str, name: str, body: str) -> bool:
    """Splice the section into `<root>/<name>`; True when the file changed."""
    if name not in TARGETS:
        raise ValueError(f"{name}: not one of {', '.join(TARGETS)}")
    return gsd_knowledge.write_section(os.path.join(root, name), root, body, begin=BEGIN, end=END, heading=HEADING)
