"""Decision nodes and hand-written diffs for the offline checker's reading tests (rounds 2-5), and
what the labelled sets hold."""

from __future__ import annotations

import json
from pathlib import Path

from engram.language import decision_text


def node(text: str) -> dict:
    """A decision node as the checker receives it, parsed from `text`."""
    return {"id": "d0", "name": text, "description": text, "data": decision_text.parse(text)}


def diff(path: str, *lines: str, start: int = 10) -> str:
    """One hunk of `path`: lines starting with '+' / '-' added / removed, others context."""
    old = sum(1 for x in lines if not x.startswith("+"))
    new = sum(1 for x in lines if not x.startswith("-"))
    return f"--- a/{path}\n+++ b/{path}\n@@ -{start},{old} +{start},{new} @@\n" + "\n".join(lines) + "\n"


def new_file(path: str, *lines: str) -> str:
    """A new file of `lines`, as capture writes it."""
    return f"--- a/{path}\n+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n" + "\n".join("+" + x for x in lines) + "\n"


def rules_and_decisions(folder: Path, names: tuple[str, ...]) -> tuple[set[str], set[str]]:
    """The rule ids and decision texts of the labelled sets `names` in `folder`: a new round may
    reuse neither."""
    rules, decisions = set(), set()
    for name in names:
        for c in json.loads((folder / name).read_text())["cases"]:
            rules.add(c.get("rule"))
            decisions.update(c["decisions"])
    return rules, decisions
