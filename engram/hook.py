"""`python -m engram.hook <Event> [--harness NAME]`: one lifecycle event, then exit 0.

Installed hooks start it as `python -S -P -c "<put engram's folder on sys.path>; from engram.hook
import entry; entry()" <engram's folder> <Event> ...` (config.HOOK_ARGS: no runpy, no `site`, no
project file on sys.path); both run `entry`.

Reads the harness's JSON payload from stdin, hands it to the harness adapter and to
`engram.lifecycle`, prints only what the harness's contract allows, and always exits 0:
on any fault it logs one line (to the project log, or stderr when there is no project)
and prints nothing. Standard library only; nothing here may import a third-party package.
"""

from __future__ import annotations

import os
import sys

MAX_STDIN = 64 * 1024 * 1024
# A replayed transcript's payloads (engram.history) carry their record's time under this
# key; the hook stamps the events with it only in a replay (`run(replay=True)`, or
# ENGRAM_REPLAY=1 for a subprocess), and only a valid past UTC time (clock.valid_iso).
# A live payload's field is ignored: live events carry the time they happened.
REPLAY_TS = "engram_replay_ts"


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


def run(event: str, harness: str | None, raw: bytes, env_cwd: str, replay: bool = False) -> str:
    """Handle one event; return what to print. Raises on faults (main() logs them).
    `replay`: the payload is a replayed transcript's, its events dated by REPLAY_TS."""
    from engram import clock, jsonio, lifecycle
    from engram.harnesses import registry

    if not raw.strip():
        raise ValueError("empty stdin: no payload")
    payload = jsonio.loads(raw.decode("utf-8", "replace"))
    if not isinstance(payload, dict):
        raise ValueError(f"payload is a JSON {type(payload).__name__}, not an object")
    adapter = registry.get(harness) if harness else registry.detect(payload)
    kind, data = adapter.request(event, payload)
    if kind == "ignore":
        return ""
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) and payload.get("cwd") else env_cwd
    transcript = payload.get("transcript_path")
    ctx = lifecycle.Ctx(adapter.session_id(payload, cwd), cwd, adapter.NAME,
                        transcript if isinstance(transcript, str) else None)
    adapter.prepare(ctx, event, payload)  # harness tags for every event (GSD 2: the running unit)
    when = clock.valid_iso(payload.get(REPLAY_TS)) if replay else None
    if when:
        ctx.extra["ts"] = when  # every event of this payload: the record's time, not the import's
    if kind == "tool":
        context = lifecycle.tool_calls(ctx, data["calls"]) if data["calls"] else None
    else:
        handler = adapter.HANDLERS.get(kind) or lifecycle.HANDLERS[kind]
        context = handler(ctx, **data)
    return adapter.render(event, context, ctx.notice)


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
        out = run(event, harness, raw, os.getcwd(), os.environ.get("ENGRAM_REPLAY") == "1")
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
    except BaseException as exc:  # the agent must never see a failing hook
        try:
            _fault(event, raw, exc)
        except BaseException:
            pass
    return 0


def entry() -> None:
    """The process: one event, then exit 0 at once (config.HOOK_ARGS starts it).

    The cyclic garbage collector is off: a hook's work is bounded and its process ends with
    it, so the few cycles it makes are freed at exit, and the collections its allocations
    set off (rendering a prompt's context allocates thousands of objects) cost a prompt
    ~0.6 ms of CPU (bench/retrieval_latency.py)."""
    import gc

    gc.disable()
    main()
    try:
        sys.stdout.flush()
    except BaseException:
        pass
    os._exit(0)  # skip interpreter teardown; nothing is left buffered


if __name__ == "__main__":
    entry()
