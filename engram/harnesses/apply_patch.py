"""Codex `apply_patch` text -> one neutral write call per file (docs/harness-contracts.md §2.3).

Grammar (🔶 consistent across third-party parsers): between `*** Begin Patch` and
`*** End Patch`, each file starts with `*** Add File: <path>` (then `+` lines),
`*** Update File: <path>` (optionally `*** Move to: <new>`, then `@@`-separated chunks
of ` `, `-`, `+` lines) or `*** Delete File: <path>`. Paths are relative to the cwd.

Update chunks carry no line numbers, so they are located in the file as it is after
the patch (the hook runs after it was applied): the chunk's new side is searched for,
in order, and the old side's start follows from the lines added before it.
Standard library only: this runs on the hook's hot path.
"""

from __future__ import annotations

import os

ADD, UPDATE, DELETE, MOVE = "*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "
MAX_READ_BYTES = 4 * 1024 * 1024


def parse(text: str) -> list[dict]:
    """[{op: add|update|delete, path, move_to?, lines: [...], chunks: [[...]]}] in patch order."""
    files: list[dict] = []
    cur: dict | None = None
    for raw in text.split("\n"):
        line = raw.rstrip("\r")
        if line.startswith((ADD, UPDATE, DELETE)):
            op = "add" if line.startswith(ADD) else "update" if line.startswith(UPDATE) else "delete"
            cur = {"op": op, "path": line.split(": ", 1)[1].strip(), "lines": [], "chunks": []}
            files.append(cur)
        elif line.startswith("*** End Patch"):
            cur = None
        elif cur is None or line.startswith(("*** Begin Patch", "*** End of File")):
            continue
        elif line.startswith(MOVE):
            cur["move_to"] = line[len(MOVE):].strip()
        elif cur["op"] == "add":
            if line.startswith("+"):
                cur["lines"].append(line[1:])
        elif cur["op"] == "update":
            if line.startswith("@@") or not cur["chunks"]:
                cur["chunks"].append([])
            if not line.startswith("@@"):
                cur["chunks"][-1].append(line if line[:1] in (" ", "-", "+") else " " + line)
    for f in files:
        f["chunks"] = [c for c in f["chunks"] if any(x[:1] in "-+" for x in c)]
    return files


def _read_lines(path: str) -> list[str] | None:
    from engram.fsio import read_regular

    data = read_regular(path, MAX_READ_BYTES)  # never a FIFO or a device
    return data.decode("utf-8", "replace").split("\n") if data is not None else None


def _find(haystack: list[str], needle: list[str], start: int) -> int:
    """Index of `needle` in `haystack` at or after `start` (then anywhere), else -1."""
    if not needle:
        return -1
    for lo in (start, 0):
        for i in range(lo, len(haystack) - len(needle) + 1):
            if haystack[i:i + len(needle)] == needle:
                return i
    return -1


def hunks(chunks: list[list[str]], new_lines: list[str] | None) -> list[dict]:
    """Neutral hunks {old_start, old_lines, new_start, new_lines, lines} for update chunks."""
    out, pos, delta = [], 0, 0
    for chunk in chunks:
        new_side = [x[1:] for x in chunk if x[:1] in (" ", "+")]
        old_n = sum(1 for x in chunk if x[:1] in (" ", "-"))
        at = _find(new_lines, new_side, pos) if new_lines is not None else -1
        new_start = at + 1 if at >= 0 else pos + 1
        pos = (at if at >= 0 else pos) + len(new_side)
        out.append({"old_start": max(1, new_start - delta), "old_lines": old_n, "new_start": new_start,
                    "new_lines": len(new_side), "lines": chunk})
        delta += len(new_side) - old_n
    return out


def calls(text: str, cwd: str, ok: bool | None, error: str | None, tool: str = "apply_patch") -> list[dict]:
    """Neutral write calls: add -> create, update -> edit (a move also deletes the old path); `ok` None: unknown."""
    out = []
    for f in parse(text):
        path = os.path.join(cwd, f["path"]) if cwd and not os.path.isabs(f["path"]) else f["path"]
        call = {"tool": tool, "ok": ok, "error": error, "action": "write", "path": path}
        if f["op"] == "add":
            content = "\n".join(f["lines"]) + ("\n" if f["lines"] else "")
            call.update(op="create", content=content, old_content=None)
        elif f["op"] == "delete":
            call.update(op="delete", hunks=None)
        else:
            if f.get("move_to"):
                out.append(dict(call, op="delete", hunks=None))
                target = f["move_to"]
                path = call["path"] = os.path.join(cwd, target) if cwd and not os.path.isabs(target) else target
            call.update(op="edit", hunks=hunks(f["chunks"], _read_lines(path) if ok else None))
        out.append(call)
    return out
