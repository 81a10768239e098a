"""The files a session's shell commands removed or moved, for the offline consolidator.

apply_patch records a deleted file as a write; a shell's `rm src/c.py` or `git mv src/a.py
src/b.py` is only a command line. Read at consolidation time, in the worker (never on the
hook's path), so the file concepts of files the shell removed are retired, and those it
moved are retired by the concept of their new path, as an apply_patch delete or move is
(offline.py, `_deleted`).
"""

from __future__ import annotations

import os
from typing import Any

from engram.capture.classify import rel_path
from engram.config import project_root
from engram.capture.commandline import file_ops


def gone(events: list[dict[str, Any]], prior: list[dict[str, Any]]) -> list[tuple[int, str, str, str | None]]:
    """(seq, "gone", path, None | destination) for the files the successful shell commands of
    `events` removed or moved, project-relative. The working directory is followed through
    `cd` (across commands for Claude Code, whose shell keeps it; within one command line for
    the harnesses that start a shell per command); a path it cannot place is left out, and
    so is one without a "/" or a file extension ("build", "Makefile"): a retirement by name
    would reach any node of that name."""
    start = next((e for e in prior + events if e.get("type") == "session_start" and e.get("cwd")), None)
    if start is None:
        return []
    root = project_root(str(start["cwd"]))
    base = _placed(".", os.path.realpath(str(start["cwd"])), root)
    keeps_cwd = start.get("harness") == "claude-code"
    mine, here, out = {e["seq"] for e in events}, base, []
    for e in prior + events:
        if e.get("type") != "command" or not isinstance(e.get("command"), str):
            continue
        here = here if keeps_cwd else base
        ok = e.get("ok", True) is True and e.get("exit_code") == 0
        for op, a, b in file_ops(e["command"]):
            if op == "cd":  # a failed command may have stopped anywhere
                here = _placed(here, a, root) if ok else None
                continue
            path, dest = _placed(here, a, root), _placed(here, b, root) if op == "mv" else None
            if dest is not None and (b.endswith("/") or os.path.isdir(os.path.join(root, dest))):
                dest = os.path.join(dest, os.path.basename(path or ""))
            if ok and e["seq"] in mine and path and _file_like(path) and (op == "rm" or dest):
                out.append((e["seq"], "gone", path, dest))
    return out


def _placed(here: str | None, arg: str, root: str) -> str | None:
    """`arg` (a shell path) as a project-relative path from the directory `here`; None when
    it cannot be known (an unexpanded `~` or `$`, `cd -`, outside the project)."""
    if not arg or arg[0] in "~$`" or "$" in arg:
        return None
    if os.path.isabs(arg):
        rel = rel_path(os.path.realpath(arg), root)
        return None if os.path.isabs(rel) else rel
    if here is None:
        return None
    rel = os.path.normpath(os.path.join(here, arg))
    return None if rel == ".." or rel.startswith("../") else rel


def _file_like(path: str) -> bool:
    return "/" in path or "." in os.path.basename(path).lstrip(".")
