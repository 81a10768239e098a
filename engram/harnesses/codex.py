"""Codex CLI: hook payloads -> neutral records, context -> hookSpecificOutput; its install plan.

Contracts: docs/harness-contracts.md §2.

Codex hooks fire for tool calls of `Bash`, `apply_patch` and MCP tools only. There is no
Read tool: reads are shell commands (`cat`, `sed -n`, `nl`), which the core's shell
classifier turns into file_read, so the command is passed through untouched. A patch
becomes one write call per file. Codex 0.171.0 fires SessionEnd when a session ends (older
releases had none: each turn's Stop closed it), Stop must print nothing, and context goes
out only as hookSpecificOutput JSON. A shell call's `tool_response` is its output alone:
the exit status is read from the session's rollout (`rollout_exit`), else it is unknown.

Install: hooks in ~/.codex/hooks.json ($CODEX_HOME), or a project's .codex/hooks.json;
JSON rather than config.toml, so the user's TOML (and its comments) is never rewritten; the MCP
server, which only config.toml can hold, is one marked table appended to it (`mcp_entry`).
Codex runs a hook only after the user trusts its exact definition in the `/hooks` panel,
and again after any change to it; project hooks also need a trusted project.
"""

from __future__ import annotations

import os

from engram import jsonio
from engram.harnesses import apply_patch, claude_code
from engram.harnesses.claude_code import as_dict as _d
from engram.harnesses.claude_code import as_str as _s
from engram.harnesses.claude_code import prepare, session_id  # noqa: F401  (the Harness protocol)

NAME = "codex"
LABEL = "Codex CLI"
HANDLERS: dict = {}
INJECTABLE = {"SessionStart", "UserPromptSubmit", "PostToolUse"}
SHELL_TOOLS = {"Bash", "shell", "local_shell", "exec_command", "container.exec", "unified_exec"}
PATCH_TOOLS = {"apply_patch", "Edit", "Write"}  # Edit/Write are Codex's matcher aliases of apply_patch
MAX_CONTEXT_CHARS = claude_code.MAX_CONTEXT_CHARS


def command_text(value) -> str:
    """`tool_input.command`: a string today; older releases sent argv (["bash", "-lc", cmd])."""
    if isinstance(value, list):
        parts = [str(x) for x in value]
        if len(parts) >= 3 and parts[-2] in ("-lc", "-c"):
            return parts[-1]
        return " ".join(parts)
    return _s(value)


def result(resp) -> tuple[int | None, str]:
    """(exit code, output) of a `tool_response`: an object with `exit_code`, a text headed
    "Exit code: N" (apply_patch), or the output alone (a shell command since 0.171: no code)."""
    if isinstance(resp, dict):
        code = resp.get("exit_code", resp.get("exitCode"))
        out = resp.get("output", resp.get("aggregated_output", resp.get("stdout", "")))
        return (code if isinstance(code, int) else None), _s(out) or jsonio.dumps(resp)[:4000]
    text = _s(resp)
    code = None
    first, _, rest = text.partition("\n")
    if first.lower().startswith("exit code:"):
        num = first.split(":", 1)[1].strip()
        code = int(num) if num.lstrip("-").isdigit() else None
    head, sep, body = text.partition("Output:\n")
    return code, body if sep and head.count("\n") <= 4 else text


ROLLOUT_TAIL = 1 << 20  # bytes of the rollout read for one call's exit code (it was just written)
_EXITED = "Process exited with code "


def rollout_exit(transcript: str, call_id: str) -> int | None:
    """The exit code Codex wrote to its rollout (the payload's `transcript_path`) for
    `call_id` (= `tool_use_id`): the `item_completed` CommandExecution's `exit_code`, else
    "Process exited with code N" in the `function_call_output` (docs/harness-contracts.md
    §2.6). Codex writes both before it runs PostToolUse. None when neither is there: a
    command still running in the background, or a file that is not a Codex rollout."""
    name = os.path.basename(transcript)
    if not call_id or not name.startswith("rollout-") or not name.endswith(".jsonl"):
        return None
    for rec in jsonio.tail_objects(transcript, ROLLOUT_TAIL, (jsonio.dumps(call_id).encode(),), follow=True):
        body = _d(rec.get("payload"))
        item = _d(body.get("item"))
        code = item.get("exit_code")
        if item.get("id") == call_id and isinstance(code, int) and not isinstance(code, bool):
            return code
        out = _s(body.get("output"))
        if body.get("call_id") == call_id and _EXITED in out:
            num = out.split(_EXITED, 1)[1].split("\n", 1)[0].strip()
            if num.lstrip("-").isdigit():
                return int(num)
    return None


def tool_call(tool: str, tin: dict, resp, cwd: str, exit_code: int | None = None) -> list[dict]:
    """One Codex tool call as neutral calls; `exit_code` is the rollout's, when the payload has none.
    A shell command whose exit status nobody reported is unknown (`ok` None), never a success;
    so is a patch with neither an exit code nor any output (a converted transcript's, history/)."""
    code, output = result(resp)
    code = exit_code if code is None else code
    patch = _s(tin.get("command")) or _s(tin.get("input")) or _s(tin.get("patch"))
    if tool in PATCH_TOOLS and "*** " in patch:
        if code is not None:
            ok: bool | None = code == 0
        else:  # no output at all: nobody reported the patch's result
            ok = not output.lstrip().lower().startswith(("error", "failed")) if output.strip() else None
        return apply_patch.calls(patch, cwd, ok, (output[:500] or "apply_patch failed") if ok is False else None, tool)
    if tool in SHELL_TOOLS:
        ok = None if code is None else code == 0
        return [{"tool": tool, "ok": ok, "error": f"Exit code {code}" if ok is False else None,
                 "action": "shell", "command": command_text(tin.get("command")), "output": output,
                 "exit_code": code}]
    return claude_code.tool_call(tool, tin, resp, None)  # MCP tools: same naming as Claude Code


def request(event: str, payload: dict) -> tuple[str, dict]:
    """(kind, data) for lifecycle; Codex events share Claude Code's names."""
    if event == "PostToolUse":
        tool, resp = _s(payload.get("tool_name")), payload.get("tool_response")
        code = None
        if tool in SHELL_TOOLS and result(resp)[0] is None:
            code = rollout_exit(_s(payload.get("transcript_path")), _s(payload.get("tool_use_id")))
        calls = tool_call(tool, _d(payload.get("tool_input")), resp, _s(payload.get("cwd")), code)
        return "tool", {"calls": calls}
    if event in ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"):
        return claude_code.request(event, payload)
    return "ignore", {}


def render(event: str, context: str | None, notice: str | None = None) -> str:
    """hookSpecificOutput JSON where Codex takes context, the user's notice as `systemMessage`
    (a UI warning: harness-contracts.md §2.4); nothing else (Stop rejects text)."""
    if event not in INJECTABLE:
        return ""
    return claude_code.output(event, context, notice)


# -- install: where its settings live, engram's entries there, the next step ----------

NESTED, ALLOW_COMMENTS = True, False
COMMAND = "codex"  # its CLI: doctor counts the harness as found when this is on PATH
EVENTS = {  # no matcher means every tool: Codex only hooks Bash, apply_patch and MCP tools
    "SessionStart": "startup|resume|clear|compact",
    "UserPromptSubmit": None,
    "PostToolUse": None,
    "Stop": None,
    "PreCompact": None,
    "SessionEnd": None,  # Codex 0.171.0 fires it when `codex exec` (or the TUI) ends (tests/realclis)
}


def settings_path(project: str | None) -> str:
    if project:
        return os.path.join(project, ".codex", "hooks.json")
    home = os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")
    return os.path.join(home, "hooks.json")


def wanted(command) -> dict[str, list]:
    out = {}
    for event, matcher in EVENTS.items():
        group: dict = {"matcher": matcher} if matcher else {}
        group["hooks"] = [{"type": "command", "command": command(event, NAME), "timeout": 10}]
        out[event] = [group]
    return out


def next_step(project: str | None) -> str:
    return ("open Codex, run /hooks and trust the engram hooks (Codex skips a hook until you trust "
            "its exact definition" + (", and the project must be trusted)" if project else ")"))


def plugin_step(root: str) -> None:
    return None  # no plugin of engram's for Codex


def mcp_entry(project: str | None, argv: list[str], env: dict[str, str]) -> tuple[str, dict]:
    """`[mcp_servers.engram]` (or `.engram-memory`, install/mcp.py) in config.toml, next to the
    hooks.json engram writes."""
    entry: dict = {"command": argv[0], "args": argv[1:], "startup_timeout_sec": 20}
    if env:
        entry["env"] = env
    return os.path.join(os.path.dirname(settings_path(project)), "config.toml"), entry


def mcp_servers(project: str | None) -> None:
    return None  # config.toml holds it


def mcp_command(project: str | None, name: str, argv: list[str], env: dict[str, str]) -> None:
    return None


def register_mcp(project: str | None, name: str, argv: list[str], env: dict[str, str]) -> None:
    return None


def unregister_mcp(project: str | None, name: str) -> None:
    return None


def doctor_caveat(doc: dict, project: str | None) -> str:
    return " (Codex runs them once trusted in /hooks)"


def plugin_enabled(project: str | None) -> None:
    return None  # no plugin of engram's for Codex


def trust_key(settings: str, event: str, group: int, index: int) -> str:
    """`hooks.state."<hooks.json>:<event_in_snake_case>:<group>:<index>"` in config.toml, where
    Codex 0.171.0 records the hash of a hook the user trusted in /hooks (harness-contracts §9.2)."""
    snake = "".join("_" + c.lower() if c.isupper() else c for c in event).lstrip("_")
    return f"{settings}:{snake}:{group}:{index}"


def folder_trust(root: str) -> None:
    return None  # a project's hooks need a trusted project; doctor reads the hooks' own trust
