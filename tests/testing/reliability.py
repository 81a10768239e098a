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
    """Every harness of the registry."""
    from engram.harnesses.registry import HARNESSES

    return sorted(HARNESSES)


def adapter_events(harness: str) -> tuple[str, ...]:
    """The union of known event names and any the adapter itself declares."""
    from engram.harnesses.registry import get

    mod = get(harness)
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


def harness_problem(harness: str, event: str, out: str) -> str | None:
    """Output the harness's contract does not allow: context on an event it does not take
    context from (GSD takes none), or context labelled with another event."""
    from engram.harnesses.registry import get

    if not out:
        return None
    allowed = getattr(get(harness), "INJECTABLE", set())
    if event not in allowed:
        return f"{harness} does not take output on {event!r}: {out[:200]!r}"
    hso = json.loads(out).get("hookSpecificOutput") or {}
    if hso.get("hookEventName") not in (None, event):
        return f"hookEventName {hso.get('hookEventName')!r} on {event!r}"
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


# -- a realistic session, as Claude Code payloads ---------------------------------------------


def session_script(root: Path, session: str, k: int = 0, secret: str = "") -> list[tuple[str, dict]]:
    """One small coding session (prompt, reads, a failing test, a fix, a passing test, a
    decision, Stop) as (event, payload) pairs; `secret` is planted in every text field."""
    src = root / "src" / f"mod{k}.py"
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_text(f"def f{k}():\n    return {k}\n")
    s = f" {secret}" if secret else ""

    def p(event: str, **fields) -> tuple[str, dict]:
        return event, {"session_id": session, "cwd": str(root), "transcript_path": "",
                       "hook_event_name": event, **fields}

    def bash(cmd: str, out: str, fail: bool = False) -> tuple[str, dict]:
        if fail:
            return p("PostToolUseFailure", tool_name="Bash", tool_input={"command": cmd},
                     error=f"Exit code 1\n{out}")
        return p("PostToolUse", tool_name="Bash", tool_input={"command": cmd},
                 tool_response={"stdout": out, "stderr": ""})

    edit = {"file_path": str(src), "old_string": f"return {k}", "new_string": f"return {k} + 1{s}"}
    patch = [{"oldStart": 2, "oldLines": 1, "newStart": 2, "newLines": 1,
              "lines": [f"-    return {k}", f"+    return {k} + 1{s}"]}]
    return [
        p("SessionStart", source="startup"),
        p("UserPromptSubmit", prompt=f"fix the off-by-one in mod{k}{s}"),
        p("PostToolUse", tool_name="Read", tool_input={"file_path": str(src)},
          tool_response={"type": "text", "file": {"filePath": str(src), "content": src.read_text() + s}}),
        bash(f"pytest tests/test_mod{k}.py -q", f"FAILED tests/test_mod{k}.py::test_f{k} - assert {k} == {k + 1}{s}\n"
             f"1 failed in 0.01s", fail=True),
        p("PostToolUse", tool_name="Edit", tool_input=edit, tool_response={"filePath": str(src), "structuredPatch": patch}),
        bash(f"pytest tests/test_mod{k}.py -q", "1 passed in 0.01s"),
        bash(f'engram decide "Use integer offsets in mod{k}" --rationale "off-by-one bugs{s}" --files src/mod{k}.py',
             "recorded"),
        p("Stop", last_assistant_message=f"Fixed mod{k}: the function now returns {k} + 1.{s}"),
    ]


def replay_inproc(items: list[tuple[str, dict]], harness: str = "claude-code") -> list[HookRun]:
    out = []
    for event, obj in items:
        res = run_inproc(event, json.dumps(obj).encode(), "--harness", harness)
        assert res.rc == 0
        out.append(res)
    return out


def replay(items: list[tuple[str, dict]], harness: str = "claude-code") -> list:
    """The hooks of `items` as real subprocesses (`python -m engram.hook`), one after another;
    each must exit 0."""
    from testing.helpers import run_hook

    out = []
    for event, obj in items:
        res = run_hook(event, obj, "--harness", harness, timeout=60)
        assert res.returncode == 0, (event, res.stderr)
        out.append(res)
    return out


def consolidate_all(root: Path, provider: str | None = None) -> list:
    """Consolidate every pending or queued session of the project in this process, as a worker
    would (the configured provider: offline under the test conftest's ENGRAM_OFFLINE=1)."""
    from engram.config import Project, load_config
    from engram.consolidate import trigger
    from testing.consolidation import consolidate

    project = Project.from_cwd(str(root)).ensure()
    cfg, _ = load_config(project.home)
    sessions = trigger.pending_sessions(project)
    sessions += [s for s in trigger.queued(project) if s not in sessions]
    return [consolidate(project, s, cfg, provider, lock_timeout=30) for s in sessions]


def db_path(root: Path) -> Path:
    from engram.config import Project

    return Path(Project.from_cwd(str(root)).db_path)


def graph_problems(db: Path) -> list[str]:
    """Integrity check, duplicate nodes/edges and overlapping consolidation ranges."""
    import sqlite3

    conn = sqlite3.connect(str(db))
    try:
        problems = []
        ok = conn.execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            problems.append(f"integrity_check: {ok}")
        for row in conn.execute("SELECT name_key, type, count(*) FROM nodes WHERE type != 'episode' "
                                "GROUP BY name_key, type HAVING count(*) > 1"):
            problems.append(f"duplicate node {row}")
        for row in conn.execute("SELECT from_node, to_node, type, count(*) FROM edges GROUP BY 1, 2, 3 HAVING count(*) > 1"):
            problems.append(f"duplicate edge {row}")
        ranges: dict[str, list[tuple[int, int]]] = {}
        for s, a, b in conn.execute("SELECT session_id, from_seq, to_seq FROM consolidations ORDER BY session_id, from_seq"):
            prev = ranges.setdefault(s, [])
            if prev and a <= prev[-1][1]:
                problems.append(f"overlapping consolidations of {s}: {prev[-1]} and {(a, b)}")
            prev.append((a, b))
        eps = conn.execute("SELECT count(*) FROM episodes").fetchone()[0]
        recs = conn.execute("SELECT count(*) FROM consolidations WHERE episode_id IS NOT NULL").fetchone()[0]
        if eps != recs:
            problems.append(f"{eps} episodes but {recs} consolidation records")
        return problems
    finally:
        conn.close()
