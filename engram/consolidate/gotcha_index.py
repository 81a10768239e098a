"""The small index of known gotchas that the hook matches a failed command against.

After each consolidation the worker writes `gotchas.json` in the project's directory: the
active gotchas that have a way round, at most MAX_ITEMS, each as its command family, the
normalised first error line (capture/commandline.error_key) and the line to show. The hook
(retrieve/at_failure.py) reads this file, never the database, so a failed command costs it
one small read (docs/knowledge.md, "A gotcha when it is needed").
"""

from __future__ import annotations

from typing import Any

from engram import jsonio
from engram.fsio import write_atomic
from engram.graph import readonly
from engram.text import clip

MAX_ITEMS = 100
VERSION = 1


def entries(conn: Any) -> list[dict[str, str]]:
    """The index's items: live gotchas with a family, an error key and a way round."""
    out = []
    for node in readonly.of_kind(conn, "gotcha", MAX_ITEMS):
        try:
            data = jsonio.loads(node.get("data") or "{}")
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("family") and data.get("error_key") and data.get("worked"):
            out.append({"id": node["id"], "family": str(data["family"]), "key": str(data["error_key"]),
                        "text": clip(node.get("description"), 400)})
    return out


def write(conn: Any, path: str) -> None:
    """Replace the index at `path` atomically (a reader sees the old or the new one)."""
    write_atomic(path, jsonio.dumps({"version": VERSION, "items": entries(conn)}).encode(), durable=False)
