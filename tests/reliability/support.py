"""Shared tools of the reliability tests: run the hook in-process, snapshot trees, check output.

The in-process runner exists because a hook subprocess costs ~15 ms and hypothesis wants
thousands of examples: `engram.hook.main` is called with stdin/stdout/stderr swapped, which
is exactly what `python -m engram.hook` does minus interpreter start and `os._exit`.
"""

from __future__ import annotations

import io
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

# Every lifecycle event name any supported harness sends (harness-contracts.md §1-§4),
# plus names no harness sends: an adapter must ignore those quietly.
EVENT_NAMES = (
    "SessionStart", "Setup", "SubagentStart", "UserPromptSubmit", "UserPromptExpansion",
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Stop", "SubagentStop",
    "StopFailure", "SessionEnd", "PreCompact", "PostCompact", "Notification", "BeforeAgent",
    "AfterAgent", "BeforeTool", "AfterTool", "BeforeModel", "AfterModel", "PreCompress",
    "session_start", "session_end", "turn_end", "unit_start", "unit_end", "agent_end",
)  # fmt: skip


@dataclass
class HookRun:
    rc: int
    stdout: str
    stderr: str


class _Stdin:
    def __init__(self, raw: bytes):
        self.buffer = io.BytesIO(raw)


def run_inproc(event: str, raw: bytes, *args: str) -> HookRun:
    """`python -m engram.hook EVENT ARGS < raw`, in this process."""
    from engram import hook

    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = _Stdin(raw), io.StringIO(), io.StringIO()  # type: ignore[assignment]
    try:
        rc = hook.main([event, *args])
        return HookRun(rc, sys.stdout.getvalue(), sys.stderr.getvalue())  # type: ignore[union-attr]
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


def harnesses() -> list[str]:
    """One name per adapter module in `engram.hook.ADAPTERS` (aliases collapsed)."""
    from engram.hook import ADAPTERS

    by_module: dict[str, str] = {}
    for name, module in ADAPTERS.items():
        by_module.setdefault(module, name)
    return sorted(by_module.values())


def adapter_events(harness: str) -> tuple[str, ...]:
    """The union of known event names and any the adapter itself declares."""
    import importlib

    from engram.hook import ADAPTERS

    mod = importlib.import_module(ADAPTERS[harness])
    declared: set[str] = set()
    for attr in ("EVENTS", "INJECTABLE", "EVENT_MAP", "EVENT_KINDS"):
        value = getattr(mod, attr, None)
        if isinstance(value, (set, frozenset, tuple, list, dict)):
            declared |= {v for v in value if isinstance(v, str)}
    return tuple(dict.fromkeys([*EVENT_NAMES, *sorted(declared)]))


def output_problem(out: str, event: str) -> str | None:
    """Why `out` is not valid hook stdout (nothing, or exactly one JSON object); None if valid."""
    if out == "":
        return None
    if "Traceback" in out:
        return "traceback on stdout"
    try:
        obj = json.loads(out)
    except ValueError as exc:
        return f"stdout is not one JSON document: {exc}: {out[:200]!r}"
    if not isinstance(obj, dict):
        return f"stdout is JSON but not an object: {out[:200]!r}"
    hso = obj.get("hookSpecificOutput")
    if hso is not None:
        if not isinstance(hso, dict) or not isinstance(hso.get("additionalContext", ""), str):
            return f"malformed hookSpecificOutput: {out[:200]!r}"
        if len(hso.get("additionalContext", "")) > 10_000:
            return "additionalContext over 10,000 chars"
    return None


def snapshot(*roots: Path, skip: Path | None = None) -> dict[str, tuple[int, int]]:
    """{path: (size, mtime_ns)} of every file and directory under roots, except under `skip`."""
    out: dict[str, tuple[int, int]] = {}
    skip_s = str(skip) if skip else None
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            if skip_s and (dirpath == skip_s or dirpath.startswith(skip_s + os.sep)):
                dirnames[:] = []
                continue
            for name in dirnames + filenames:
                p = os.path.join(dirpath, name)
                try:
                    st = os.lstat(p)
                except FileNotFoundError:
                    continue
                out[p] = (st.st_size, st.st_mtime_ns) if not os.path.isdir(p) else (0, 0)
    return out


def jsonl_lines(path: Path) -> tuple[list[dict], int]:
    """(parsed lines, unparseable lines) of a JSONL file."""
    good, bad = [], 0
    if not path.exists():
        return good, bad
    for line in path.read_bytes().split(b"\n"):
        if not line.strip():
            continue
        try:
            good.append(json.loads(line))
        except ValueError:
            bad += 1
    return good, bad


def all_bytes(root: Path) -> bytes:
    """Every file under root, concatenated (for leak checks)."""
    return b"\n".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


def make_project(base: Path, name: str = "proj") -> Path:
    root = base / name
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def main():\n    return 1\n")
    return root
