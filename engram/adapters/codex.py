"""Codex CLI: hook payloads -> neutral records, context -> hookSpecificOutput (contracts §2).

Codex hooks fire for tool calls of `Bash`, `apply_patch` and MCP tools only. There is no
Read tool: reads are shell commands (`cat`, `sed -n`, `nl`), which the core's shell
classifier turns into file_read, so the command is passed through untouched. A patch
becomes one write call per file. Codex has no SessionEnd (the Stop of each turn closes
it), Stop must print nothing, and context goes out only as hookSpecificOutput JSON.
"""

from __future__ import annotations

from engram import jsonio
from engram.adapters import apply_patch, claude_code

NAME = "codex"
INJECTABLE = {"SessionStart", "UserPromptSubmit", "PostToolUse"}
SHELL_TOOLS = {"Bash", "shell", "local_shell", "exec_command", "container.exec", "unified_exec"}
PATCH_TOOLS = {"apply_patch", "Edit", "Write"}  # Edit/Write are Codex's matcher aliases of apply_patch
MAX_CONTEXT_CHARS = claude_code.MAX_CONTEXT_CHARS

_d, _s = claude_code._d, claude_code._s


def command_text(value) -> str:
    """`tool_input.command`: a string today; older releases sent argv (["bash", "-lc", cmd])."""
    if isinstance(value, list):
        parts = [str(x) for x in value]
        if len(parts) >= 3 and parts[-2] in ("-lc", "-c"):
            return parts[-1]
        return " ".join(parts)
    return _s(value)


def result(resp) -> tuple[int | None, str]:
    """(exit code, output) of a `tool_response` ("Exit code: N\\nWall time: ...\\nOutput:\\n...")."""
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


def tool_call(tool: str, tin: dict, resp, cwd: str) -> list[dict]:
    """One Codex tool call as neutral calls."""
    code, output = result(resp)
    patch = _s(tin.get("command")) or _s(tin.get("input")) or _s(tin.get("patch"))
    if tool in PATCH_TOOLS and "*** " in patch:
        ok = code == 0 if code is not None else not output.lstrip().lower().startswith(("error", "failed"))
        return apply_patch.calls(patch, cwd, ok, None if ok else output[:500] or "apply_patch failed", tool)
    if tool in SHELL_TOOLS:
        code = 0 if code is None else code
        return [{"tool": tool, "ok": code == 0, "error": None if code == 0 else f"Exit code {code}",
                 "action": "shell", "command": command_text(tin.get("command")), "output": output,
                 "exit_code": code}]
    return claude_code.tool_call(tool, tin, resp, None)  # MCP tools: same naming as Claude Code


def request(event: str, payload: dict) -> tuple[str, dict]:
    """(kind, data) for lifecycle; Codex events share Claude Code's names."""
    if event == "PostToolUse":
        calls = tool_call(_s(payload.get("tool_name")), _d(payload.get("tool_input")),
                          payload.get("tool_response"), _s(payload.get("cwd")))
        return "tool", {"calls": calls}
    if event in ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"):
        return claude_code.request(event, payload)
    return "ignore", {}


def render(event: str, context: str | None) -> str:
    """hookSpecificOutput JSON where Codex takes context; nothing else (Stop rejects text)."""
    if not context or event not in INJECTABLE:
        return ""
    return claude_code.render(event, context)
