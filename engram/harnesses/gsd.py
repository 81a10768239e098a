"""GSD 2 (pi shell hooks): camelCase payloads -> neutral records, unit ids -> event tags; install.

GSD 2's shell hooks (docs/harness-contracts.md §4.4) send no session id and no event name, and
most carry no cwd: the hook runs in the project directory, which hook.py falls back to.
The session id is, in order: $ENGRAM_SESSION; the id this adapter minted at the
session's SessionStart (kept in `sessions/gsd-current.json` of the project's data dir);
else `gsd-<YYYYMMDD>` (one session per project and day). Two GSD sessions running at once
in one project therefore share a session id.

PreUnit records the running unit (`M001/S01/T01`) in that file and every later event
carries `unit`, `unit_type`, `milestone`, `slice`, `task`, until PostUnit clears it.
Shell hooks cannot inject context, so after SessionStart and each PostUnit the engram
section of `.gsd/KNOWLEDGE.md` is regenerated (docs/harness-contracts.md §4.5, route 1); GSD's prompt
builder inlines that file into the next unit's prompt. Stdout stays empty.

Install: shell hooks in ~/.gsd/agent/settings.json, or a project's .gsd/settings.json.
GSD 2 is built on the pi agent with its config dir renamed to `.gsd` (pi's own docs say
~/.pi/agent; gsd-pi's package.json sets configDir ".gsd"). Entries are flat
(event -> [handler]), timeouts are milliseconds, and every engram entry is
`blocking: false`, because a blocking hook's non-zero exit would veto the agent's action.
Project hooks run only once the project holds `.gsd/hooks.trusted`.
"""

from __future__ import annotations

import os

from engram.harnesses import claude_code
from engram.harnesses.claude_code import as_dict as _d
from engram.harnesses.claude_code import as_str as _s
from engram.harnesses.gsd_units import HANDLERS, prepare, session_id  # noqa: F401  (the Harness protocol)

NAME = "gsd"
LABEL = "GSD 2"
TOOLS = {"read": "read", "write": "write", "edit": "write", "bash": "shell", "grep": "search", "find": "search"}


def _text(content) -> str:
    if isinstance(content, list):
        return "\n".join(_s(_d(p).get("text")) for p in content)
    return _s(content)


def _exit_code(text: str, is_error: bool) -> int:
    """pi's bash tool ends a failed run's text with `Command exited with code N`."""
    tail = text.rstrip().rsplit("\n", 1)[-1]
    if "exited with code" in tail:
        num = tail.rsplit("code", 1)[1].strip(" .:")
        if num.lstrip("-").isdigit():
            return int(num)
    return 1 if is_error else 0


def tool_call(tool: str, tin: dict, content, is_error: bool, cwd: str) -> list[dict]:
    """One pi tool call as neutral calls (`ls` is not captured: docs/harness-contracts.md §4.4)."""
    text = _text(content)
    base = {"tool": tool, "ok": not is_error, "error": text[:500] or "tool failed" if is_error else None}
    path = _s(tin.get("path")) or _s(tin.get("file_path"))
    path = os.path.join(cwd, path) if path and not os.path.isabs(path) else path
    action = TOOLS.get(tool)
    if tool == "ls":
        return []
    if action == "read":
        return [dict(base, action="read", path=path, offset=tin.get("offset"), limit=tin.get("limit"))]
    if tool == "write":
        return [dict(base, action="write", path=path, op="update", content=_s(tin.get("content")), old_content=None)]
    if tool == "edit":
        edits = tin.get("edits") if isinstance(tin.get("edits"), list) else [tin]
        pairs = [(_s(_d(e).get("oldText")) or _s(_d(e).get("old_string")),
                  _s(_d(e).get("newText")) or _s(_d(e).get("new_string"))) for e in edits]
        return [dict(base, action="write", path=path, op="edit", edits=pairs)]
    if action == "shell":
        code = _exit_code(text, is_error)
        return [dict(base, ok=code == 0, error=None, action="shell", command=_s(tin.get("command")),
                     output=text, exit_code=code)]
    if action == "search":
        return [dict(base, action="search", pattern=_s(tin.get("pattern")), path=path, results_count=None)]
    return claude_code.tool_call(tool, tin, None, base["error"]) if tool.startswith("mcp__") else \
        [dict(base, action="other", input=tin)]


def request(event: str, payload: dict) -> tuple[str, dict]:
    """(kind, data): lifecycle kinds, plus this adapter's HANDLERS for units and verification."""
    if event == "SessionStart":
        return "gsd_session_start", {}
    if event == "UserPromptSubmit":
        return "prompt", {"text": _s(payload.get("text")) or _s(payload.get("prompt"))}
    if event == "PostToolUse":
        calls = tool_call(_s(payload.get("toolName")), _d(payload.get("input")), payload.get("content"),
                          bool(payload.get("isError")), _s(payload.get("cwd")) or os.getcwd())
        return "tool", {"calls": calls}
    if event == "Stop":
        return "stop", {"last_message": None}
    if event == "PreCompact":
        return "compact", {"trigger": "auto"}
    if event == "SessionEnd":
        return "session_end", {"reason": _s(payload.get("reason"))}
    if event in ("PreUnit", "PostUnit"):
        return ("unit_start" if event == "PreUnit" else "unit_end"), {"status": _s(payload.get("status"))}
    if event == "PostVerify":
        fails = payload.get("failures")
        return "verify", {"passed": bool(payload.get("passed")),
                          "failures": fails[:20] if isinstance(fails, list) else fails}
    return "ignore", {}


def render(event: str, context: str | None, notice: str | None = None) -> str:
    """Nothing: GSD parses stdout only for block/reason, and engram never blocks. It has no
    channel to the user: SessionStart's notices go into the KNOWLEDGE.md section (gsd_units)."""
    return ""


# -- install: where its settings live, engram's entries there, the next step ----------

NESTED, ALLOW_COMMENTS = False, False
COMMAND = "gsd"  # its CLI: doctor counts the harness as found when this is on PATH
EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "PreCompact", "SessionEnd",
          "PreUnit", "PostUnit", "PostVerify")


def settings_path(project: str | None) -> str:
    if project:
        return os.path.join(project, ".gsd", "settings.json")
    return os.path.join(os.path.expanduser("~"), ".gsd", "agent", "settings.json")


def wanted(command) -> dict[str, list]:
    return {e: [{"command": command(e, NAME), "blocking": False, "timeout": 5000}] for e in EVENTS}


def next_step(project: str | None) -> str:
    if project:
        trust = os.path.join(project, ".gsd", "hooks.trusted")
        return f"trust the project's hooks (`touch {trust}`), then start `gsd` there"
    return "start `gsd` in a project; engram keeps a section of .gsd/KNOWLEDGE.md current after each unit"


def plugin_step(root: str) -> None:
    return None  # no plugin of engram's for GSD 2


# -- its MCP server: no registration is known for GSD 2 (docs/harness-contracts.md §5.2) ----


def mcp_entry(project: str | None, argv: list[str], env: dict[str, str]) -> None:
    return None


def mcp_servers(project: str | None) -> None:
    return None


def mcp_command(project: str | None, name: str, argv: list[str], env: dict[str, str]) -> None:
    return None


def register_mcp(project: str | None, name: str, argv: list[str], env: dict[str, str]) -> None:
    return None


def unregister_mcp(project: str | None, name: str) -> None:
    return None


def doctor_caveat(doc: dict, project: str | None) -> str:
    """GSD runs project hooks only once the project trusts them."""
    if project and not os.path.exists(os.path.join(project, ".gsd", "hooks.trusted")):
        return " - but .gsd/hooks.trusted is missing, so GSD skips them"
    return ""


def plugin_enabled(project: str | None) -> None:
    return None  # no plugin of engram's for GSD 2


def trust_key(settings: str, event: str, group: int, index: int) -> None:
    return None  # it runs the hooks of its settings files without a trust record


def folder_trust(root: str) -> None:
    return None
