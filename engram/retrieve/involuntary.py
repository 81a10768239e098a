"""Involuntary retrieval: the first read of a file in a session brings back what we know of it.

Spec: on PostToolUse of a read of a file not seen before in this session, the strongest
nodes linked to that file (strength > involuntaryMinStrength, default 0.5; at most
involuntaryTopK, default 3) come back as brief annotations next to the tool result. A
file already seen this session gets nothing, and no database is opened for it.

This runs on the hottest path engram has, so: the caller decides "new file" from the
session state before anything is imported; the database is opened only if the file
exists, read-only, with the standard-library driver; the lookup is ONE indexed query
(node_files.path -> nodes, ordered by strength). Nodes already shown this session in the
summary form or better, unchanged since, are skipped (the query fetches a few spare
rows for that).
"""

from __future__ import annotations

import os

from engram.graph import readonly
from engram.retrieve import shown, tiers
from engram.retrieve.screens import curation
from engram.text import AS_DATA, inert

HEADER = "engram memory for {path} (" + AS_DATA + "):"


def annotate(db_path: str, path: str, cfg: dict, st: dict, root: str | None = None) -> str | None:
    """Annotation text for the first read of `path` (project-relative), or None; faded items
    and items whose evidence no longer holds in the project at `root` are left out."""
    if not path or not os.path.exists(db_path):
        return None
    k = int(cfg["involuntaryTopK"])
    if k <= 0:
        return None
    conn = readonly.open_ro(db_path)
    try:
        rows = readonly.by_file_top(conn, path, float(cfg["involuntaryMinStrength"]), k + 5)
        rows = [r for r, _ in curation.screen(conn, root, [(r, 1.0) for r in rows])]
    finally:
        conn.close()
    rs = shown.rstate(st)
    fresh = [r for r in rows if shown.is_new(rs["injected"], r, tiers.SUMMARY)][:k]
    if not fresh:
        return None
    lines = [tiers.line(r, tiers.SUMMARY) for r in fresh]
    shown.remember(rs["injected"], {r["id"]: r for r in fresh}, [(r["id"], tiers.SUMMARY) for r in fresh])
    return "\n".join([HEADER.format(path=inert(path, 200))] + lines)  # the path is the payload's
