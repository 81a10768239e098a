"""`python -m engram.hook <Event> [--harness NAME]`: one lifecycle event, then exit 0.

Reads the harness's JSON payload from stdin, hands it to the harness adapter and to
`engram.lifecycle`, prints only what the harness's contract allows, and always exits 0:
on any fault it logs one line (to the project log, or stderr when there is no project)
and prints nothing. Standard library only; nothing here may import a third-party package.
"""

from __future__ import annotations

import os
import sys

MAX_STDIN = 64 * 1024 * 1024
ADAPTERS = {
    "claude-code": "engram.adapters.claude_code",
    "claude": "engram.adapters.claude_code",
    "codex": "engram.adapters.codex",
    "gemini": "engram.adapters.gemini",
    "gemini-cli": "engram.adapters.gemini",
    "gsd": "engram.adapters.gsd",
}
GEMINI_EVENTS = {"BeforeAgent", "AfterAgent", "BeforeTool", "AfterTool", "PreCompress", "BeforeModel",
                 "AfterModel", "BeforeToolSelection"}


def _adapter(name: str):
    module = ADAPTERS.get(name)
    if module is None:
        raise ValueError(f"unknown harness {name!r}; known: {', '.join(sorted(set(ADAPTERS)))}")
    __import__(module)
    return sys.modules[module]


def _parse_argv(argv: list[str]) -> tuple[str, str | None]:
    event, harness = "", None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--harness" and i + 1 < len(argv):
            harness = argv[i + 1]
            i += 2
            continue
        if a.startswith("--harness="):
            harness = a.split("=", 1)[1]
        elif not event:
            event = a
        i += 1
    return event, harness


def detect_harness(payload: dict) -> str:
    """Fallback when --harness is absent (harness-contracts §0 heuristic, not a contract).

    The registrations `engram install` writes always pass --harness; this only serves
    hand-written ones. Codex: `turn_id`, or a transcript under ~/.codex. Gemini: a
    `timestamp` or a Gemini-only event name. GSD 2: no `hook_event_name` and no
    `session_id` (camelCase payloads), or the `GSD_HOOK_EVENT` it exports. Else Claude Code.
    """
    event = payload.get("hook_event_name")
    if "turn_id" in payload or "/.codex/" in str(payload.get("transcript_path") or ""):
        return "codex"
    if event in GEMINI_EVENTS or (event and "timestamp" in payload):
        return "gemini"
    if not event and ("session_id" not in payload or os.environ.get("GSD_HOOK_EVENT")):
        return "gsd"
    return "claude-code"


def run(event: str, harness: str | None, raw: bytes, env_cwd: str) -> str:
    """Handle one event; return what to print. Raises on faults (main() logs them)."""
    from engram import jsonio, lifecycle

    if not raw.strip():
        raise ValueError("empty stdin: no payload")
    payload = jsonio.loads(raw.decode("utf-8", "replace"))
    if not isinstance(payload, dict):
        raise ValueError(f"payload is a JSON {type(payload).__name__}, not an object")
    name = harness or detect_harness(payload)
    adapter = _adapter(name)
    kind, data = adapter.request(event, payload)
    if kind == "ignore":
        return ""
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) and payload.get("cwd") else env_cwd
    transcript = payload.get("transcript_path")
    # Optional adapter hooks, for harnesses whose payloads lack what Claude Code's carry:
    # `session_id(payload, cwd)` derives a session (GSD 2 sends none), `prepare(ctx, event,
    # payload)` sets ctx.extra tags, and HANDLERS maps kinds of its own to functions(ctx, **data).
    session_of = getattr(adapter, "session_id", None)
    session = session_of(payload, cwd) if session_of else payload.get("session_id")
    ctx = lifecycle.Ctx(session, cwd, adapter.NAME, transcript if isinstance(transcript, str) else None)
    if hasattr(adapter, "prepare"):
        adapter.prepare(ctx, event, payload)
    if kind == "tool":
        context = lifecycle.tool_calls(ctx, data["calls"]) if data["calls"] else None
    else:
        handler = getattr(adapter, "HANDLERS", {}).get(kind) or getattr(lifecycle, kind)
        context = handler(ctx, **data)
    return adapter.render(event, context)


def _fault(event: str, raw: bytes, exc: BaseException) -> None:
    """Log a fault where the user will look: the project's log when the project is known."""
    from engram.log import log

    msg = f"{event or '?'}: {type(exc).__name__}: {exc}"
    path = None
    try:
        from engram import config, jsonio

        payload = jsonio.loads(raw.decode("utf-8", "replace")) if raw.strip() else {}
        cwd = payload.get("cwd") if isinstance(payload, dict) else None
        if isinstance(cwd, str) and cwd:  # the payload names its project: log there
            path = config.Project.from_cwd(cwd).ensure().log_path
        else:  # e.g. GSD payloads carry no cwd: the hook runs in the project, if engram knows it
            project = config.Project.from_cwd(os.getcwd())
            if os.path.isdir(os.path.join(project.dir, "logs")):
                path = project.log_path
    except BaseException:
        path = None
    log(path, "hook", msg)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    event, raw = "", b""
    try:
        if os.environ.get("ENGRAM_DISABLE", "") not in ("", "0"):
            return 0
        event, harness = _parse_argv(argv)
        raw = sys.stdin.buffer.read(MAX_STDIN + 1)
        if len(raw) > MAX_STDIN:
            raw = b""
            raise ValueError(f"payload larger than {MAX_STDIN} bytes; not captured")
        out = run(event, harness, raw, os.getcwd())
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
    except BaseException as exc:  # the agent must never see a failing hook
        try:
            _fault(event, raw, exc)
        except BaseException:
            pass
    return 0


if __name__ == "__main__":
    main()
    try:
        sys.stdout.flush()
    except BaseException:
        pass
    os._exit(0)  # skip interpreter teardown; nothing is left buffered
