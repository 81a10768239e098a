"""engram for any harness, from Python: call these at your harness's lifecycle points.

    from engram.harnesses import generic as engram

    ctx = engram.on_session_start("run-42", "/path/to/project")     # -> context text or None
    engram.on_prompt("run-42", cwd, "add retries to the client")      # -> context text or None
    engram.on_tool_call("run-42", cwd, engram.read("src/client.py", content=text))
    engram.on_tool_call("run-42", cwd, engram.shell("pytest -q", output, exit_code=1))
    engram.on_tool_call("run-42", cwd, engram.write("src/client.py", old=old_src, new=new_src))
    engram.on_stop("run-42", cwd, last_message="Added retries; tests pass.")
    engram.on_session_end("run-42", cwd)

Each `on_*` takes the harness's session id (letters, digits, `-_.`) and the working
directory (the project is its git root). Returned text is the context to show the model;
None means nothing to add. A tool call is a neutral call dict: build it with the helpers
below or by hand (fields: `engram.capture.classify.classify`). Like the hooks, these never
raise for runtime faults (a full disk, a locked database): the fault is logged to the
project's `logs/engram.log` and None is returned. Bad arguments raise ValueError.
A harness that can run shell hooks can instead pipe Claude-Code-shaped JSON into
`python -m engram.hook <Event> --harness claude-code`.
"""

from __future__ import annotations

from engram import lifecycle

ACTIONS = ("read", "write", "shell", "web_search", "web_fetch", "search", "agent", "decision", "other")


def _run(session_id: str, cwd: str, harness: str, fn, *args):
    from engram import config
    from engram.errors import UnsafeIdentifier

    if not isinstance(cwd, str) or not cwd:
        raise ValueError("cwd must be the (non-empty) working directory of the session")
    try:
        config.safe_name(session_id)
    except UnsafeIdentifier as exc:
        raise ValueError(str(exc)) from None
    ctx = None
    try:
        ctx = lifecycle.Ctx(session_id, cwd, harness)
        return fn(ctx, *args)
    except Exception as exc:  # like a hook: log, never break the harness
        from engram.log import log

        log(ctx.project.log_path if ctx else None, f"generic:{harness}",
            f"session={session_id} {fn.__name__} failed: {type(exc).__name__}: {exc}")
        return None


def on_session_start(session_id: str, cwd: str, source: str = "startup", *, harness: str = "generic") -> str | None:
    """A session began (source: startup | resume | clear | compact). Returns context to show;
    engram's notices for the user (a spent budget, failed consolidations) come first in it."""
    return _run(session_id, cwd, harness, _session_start, source)


def _session_start(ctx: lifecycle.Ctx, source: str) -> str | None:
    return lifecycle.with_notice(ctx, lifecycle.session_start(ctx, source))


def on_prompt(session_id: str, cwd: str, text: str, *, harness: str = "generic") -> str | None:
    """The user sent a prompt. Returns context related to it."""
    return _run(session_id, cwd, harness, lifecycle.prompt, str(text or ""))


def on_tool_call(session_id: str, cwd: str, *calls: dict, harness: str = "generic") -> str | None:
    """One tool call finished (several for a multi-file patch). Returns annotations, if any."""
    for call in calls:
        if not isinstance(call, dict) or call.get("action") not in ACTIONS:
            raise ValueError(f"a tool call is a dict whose 'action' is one of {', '.join(ACTIONS)}")
    return _run(session_id, cwd, harness, lifecycle.tool_calls, [dict(c) for c in calls]) if calls else None


def on_stop(session_id: str, cwd: str, last_message: str | None = None, *, harness: str = "generic") -> None:
    """The agent finished its turn; `last_message` is its reply (summarised into the turn)."""
    _run(session_id, cwd, harness, lifecycle.stop, last_message)


def on_session_end(session_id: str, cwd: str, reason: str = "", *, harness: str = "generic") -> None:
    """The session ended."""
    _run(session_id, cwd, harness, lifecycle.session_end, reason)


# -- neutral call builders -------------------------------------------------------------


def read(path: str, content: str | None = None, *, tool: str = "read", ok: bool = True) -> dict:
    return {"tool": tool, "ok": ok, "action": "read", "path": path, "content": content}


def write(path: str, *, new: str, old: str | None = None, tool: str = "write", ok: bool = True) -> dict:
    """A whole-file write; `old` is the previous content (None for a new file)."""
    return {"tool": tool, "ok": ok, "action": "write", "path": path, "op": "create" if old is None else "update",
            "content": new, "old_content": old}


def edit(path: str, old: str, new: str, *, tool: str = "edit", ok: bool = True) -> dict:
    """A string replacement inside a file (the file on disk already holds `new`)."""
    return {"tool": tool, "ok": ok, "action": "write", "path": path, "op": "edit", "edits": [(old, new)]}


def shell(command: str, output: str = "", exit_code: int = 0, *, tool: str = "shell") -> dict:
    return {"tool": tool, "ok": exit_code == 0, "action": "shell", "command": command, "output": output,
            "exit_code": exit_code}


def search(pattern: str, path: str = "", results_count: int | None = None, *, tool: str = "search") -> dict:
    return {"tool": tool, "ok": True, "action": "search", "pattern": pattern, "path": path,
            "results_count": results_count}


def web_search(query: str, results_count: int | None = None, *, tool: str = "web_search") -> dict:
    return {"tool": tool, "ok": True, "action": "web_search", "query": query, "results_count": results_count}


def decision(content: str, rationale: str = "", files: list[str] | None = None, *, tool: str = "decision") -> dict:
    """An explicit decision: what was decided, why, and which files it governs."""
    return {"tool": tool, "ok": True, "action": "decision", "content": content, "rationale": rationale,
            "files": list(files or [])}
