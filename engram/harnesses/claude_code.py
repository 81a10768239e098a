"""Claude Code: hook payloads -> neutral records, context -> hookSpecificOutput; its install plan.

Shapes from docs/harness-contracts.md §1. Every field is treated as optional; a tool we do
not know is still captured (as `tool_call`).

Install: hooks in ~/.claude/settings.json, or a project's .claude/settings.local.json.
Project level uses settings.local.json (private, not committed), because the command
names this machine's paths. The checkout's plugin/ folder is also a Claude Code plugin
(the repository its marketplace) whose hooks call "${CLAUDE_PLUGIN_ROOT}"/bin/engram-hook:
with the plugin enabled, run `engram install --plugin` so the hooks are not registered twice.
"""

from __future__ import annotations

import os

from engram import jsonio
from engram.config import MCP_SERVERS

NAME = "claude-code"
LABEL = "Claude Code"
HANDLERS: dict = {}
INJECTABLE = {"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure"}
# Our own MCP tools, under each name install may give the server and the plugin's: saving a
# decision is a decision event, querying is not captured.
# Codex spells a server's "-" as "_" in tool names (mcp__engram_memory__save_decision).
DECISION_TOOLS = {*(f"mcp__{name}__save_decision"
                    for server in MCP_SERVERS for name in {server, server.replace("-", "_")}),
                  "mcp__plugin_engram_engram__save_decision"}
OWN_QUERY_SUFFIX = "__query_knowledge"
# The agents' own task lists (docs/harness-contracts.md §1.9, §2.7, §3.5): tool -> (list field,
# text field). Each call carries the whole list with every item's status.
TODO_TOOLS = {"TodoWrite": ("todos", "content"), "update_plan": ("plan", "step"),
              "write_todos": ("todos", "description")}
MAX_CONTEXT_CHARS = 9500  # Claude Code moves >10,000 chars to a file


def as_dict(value) -> dict:
    """`value` when it is a dict, else {}: payload fields are untrusted and optional."""
    return value if isinstance(value, dict) else {}


def as_str(value) -> str:
    """`value` when it is a string, else ""."""
    return value if isinstance(value, str) else ""


_d, _s = as_dict, as_str


def session_id(payload: dict, cwd: str):
    """The session id the payload carries (every harness but GSD 2 sends one)."""
    return payload.get("session_id")


def prepare(ctx, event: str, payload: dict) -> None:
    """No tags on the events (GSD 2 tags its units)."""


def hunks(patch) -> list[dict] | None:
    """structuredPatch ([{oldStart, oldLines, newStart, newLines, lines}]) -> neutral hunks."""
    if not isinstance(patch, list) or not patch:
        return None
    out = []
    for h in patch:
        if not isinstance(h, dict) or not isinstance(h.get("lines"), list):
            return None
        nums = [h.get(k) for k in ("oldStart", "oldLines", "newStart", "newLines")]
        if not all(isinstance(n, int) for n in nums):
            return None
        out.append({"old_start": nums[0], "old_lines": nums[1], "new_start": nums[2],
                    "new_lines": nums[3], "lines": [_s(x) for x in h["lines"]]})
    return out


def todo_call(call: dict, tool: str, tin: dict) -> dict:
    """A task-list tool call (`TODO_TOOLS`) as a neutral `todos` call: [{text, status}]."""
    field, text = TODO_TOOLS[tool]
    raw = tin.get(field) if isinstance(tin.get(field), list) else []
    items = [{"text": _s(_d(x).get(text)), "status": _s(_d(x).get("status"))} for x in raw]
    call.update(action="todos", items=[x for x in items if x["text"]])
    return call


def exit_code_of(error: str) -> int | None:
    """`Exit code N` on the first line of a PostToolUseFailure error."""
    first = error.split("\n", 1)[0].strip()
    if first.lower().startswith("exit code"):
        num = first[9:].strip(" :")
        if num.lstrip("-").isdigit():
            return int(num)
    return None


def tool_call(tool: str, tin: dict, resp, error: str | None) -> list[dict]:
    """One Claude Code tool call as neutral calls (empty when it is not to be captured)."""
    if tool.endswith(OWN_QUERY_SUFFIX) and "engram" in tool:
        return []
    ok = error is None
    call: dict = {"tool": tool, "ok": ok, "error": error}
    r = _d(resp)
    if tool == "Read":
        f = _d(r.get("file"))
        call.update(action="read", path=_s(tin.get("file_path")) or _s(f.get("filePath")),
                    offset=tin.get("offset"), limit=tin.get("limit"))
        if isinstance(f.get("content"), str):
            call["content"] = f["content"]
        elif r.get("type") and r.get("type") != "text":
            call["content_type"] = _s(r.get("type"))[:20]
    elif tool in ("Write", "Edit", "MultiEdit", "NotebookEdit"):
        path = _s(tin.get("file_path")) or _s(tin.get("notebook_path")) or _s(r.get("filePath"))
        call.update(action="write", path=path, hunks=hunks(r.get("structuredPatch")))
        if tool == "Write":
            created = r.get("type") == "create" or ("originalFile" in r and r.get("originalFile") is None)
            call.update(op="create" if created else "update", content=_s(tin.get("content")),
                        old_content=r.get("originalFile") if isinstance(r.get("originalFile"), str) else None)
        elif tool == "Edit":
            call.update(op="edit", edits=[(_s(tin.get("old_string")), _s(tin.get("new_string")))])
        elif tool == "MultiEdit":
            edits = tin.get("edits") if isinstance(tin.get("edits"), list) else []
            call.update(op="edit", edits=[(_s(_d(e).get("old_string")), _s(_d(e).get("new_string"))) for e in edits])
        else:
            call.update(op="edit", edits=[(_s(tin.get("old_source")), _s(tin.get("new_source")))])
    elif tool in ("Bash", "PowerShell"):
        output = _s(r.get("stdout"))
        if _s(r.get("stderr")):
            output += "\n" + r["stderr"]
        if not r and isinstance(resp, str):
            output = resp
        code = exit_code_of(error) if error else 0
        if not error and (tin.get("run_in_background") is True or r.get("backgroundTaskId")):
            code = call["ok"] = None  # launched in the background (asked, or auto-backgrounded): its end is unknown
            call["task_id"] = _s(r.get("backgroundTaskId"))  # TaskOutput tells how it ended
        call.update(action="shell", command=_s(tin.get("command")), output=output or (error or ""),
                    exit_code=code if code is not None or not error else 1)
    elif tool == "TaskOutput" and _d(r.get("task")).get("task_type", "local_bash") == "local_bash":
        task = _d(r.get("task"))
        code = task.get("exitCode")
        call.update(action="task_output", task_id=_s(task.get("task_id")) or _s(tin.get("task_id")),
                    status=_s(task.get("status")), output=_s(task.get("output")),
                    exit_code=code if isinstance(code, int) and not isinstance(code, bool) else None)
    elif tool in ("Grep", "Glob", "LS"):
        count = r.get("numFiles") if isinstance(r.get("numFiles"), int) else r.get("numLines")
        call.update(action="search", pattern=_s(tin.get("pattern")), path=_s(tin.get("path")),
                    results_count=count if isinstance(count, int) else None)
    elif tool == "WebSearch":
        results = r.get("results") if isinstance(r.get("results"), list) else []
        n = sum(len(x["content"]) if isinstance(_d(x).get("content"), list) else 0 for x in results)
        call.update(action="web_search", query=_s(tin.get("query")), results_count=n)
    elif tool == "WebFetch":
        call.update(action="web_fetch", url=_s(tin.get("url")), status=r.get("code"))
    elif tool in ("Task", "Agent"):
        call.update(action="agent", description=_s(tin.get("description")),
                    subagent_type=_s(tin.get("subagent_type")))
    elif tool in TODO_TOOLS:
        todo_call(call, tool, tin)
    elif tool in DECISION_TOOLS:
        files = tin.get("files")
        call.update(action="decision", content=_s(tin.get("decision")) or _s(tin.get("content")),
                    rationale=_s(tin.get("rationale")),
                    files=[f for f in files if isinstance(f, str)] if isinstance(files, list) else [])
    else:
        call.update(action="other", input=tin)
    return [call]


def request(event: str, payload: dict) -> tuple[str, dict]:
    """(kind, data) for lifecycle; kind is session_start|prompt|tool|stop|session_end|compact|ignore."""
    if event == "SessionStart":
        return "session_start", {"source": _s(payload.get("source")) or "startup"}
    if event == "UserPromptSubmit":
        return "prompt", {"text": _s(payload.get("prompt"))}
    if event in ("PostToolUse", "PostToolUseFailure"):
        error = None
        if event == "PostToolUseFailure":
            error = _s(payload.get("error")) or "tool failed"
        calls = tool_call(_s(payload.get("tool_name")), _d(payload.get("tool_input")),
                          payload.get("tool_response"), error)
        return "tool", {"calls": calls}
    if event == "Stop":
        return "stop", {"last_message": payload.get("last_assistant_message"),
                        "stop_hook_active": bool(payload.get("stop_hook_active"))}
    if event == "SessionEnd":
        return "session_end", {"reason": _s(payload.get("reason"))}
    if event == "PreCompact":
        return "compact", {"trigger": _s(payload.get("trigger"))}
    return "ignore", {}


def render(event: str, context: str | None, notice: str | None = None) -> str:
    """Stdout for the event: the context for Claude where the event takes it, the notice for
    the user as `systemMessage` (shown to the user, not to Claude: harness-contracts.md §1.6),
    or nothing."""
    return output(event, context if event in INJECTABLE else None, notice)


def output(event: str, context: str | None, notice: str | None) -> str:
    """The hook JSON of Claude Code's shape, which Codex and Gemini CLI read too: `context`
    under hookSpecificOutput (cut to MAX_CONTEXT_CHARS), `notice` as systemMessage; "" for neither."""
    out: dict = {"systemMessage": notice} if notice else {}
    if context:
        if len(context) > MAX_CONTEXT_CHARS:
            context = context[: MAX_CONTEXT_CHARS - 20] + "\n[... cut by engram]"
        out["hookSpecificOutput"] = {"hookEventName": event, "additionalContext": context}
    return jsonio.dumps(out) if out else ""


# -- install: where its settings live, engram's entries there, the next step ----------

NESTED, ALLOW_COMMENTS = True, False
COMMAND = "claude"  # its CLI: doctor counts the harness as found when this is on PATH
TIMEOUT_S = 10
EVENTS = {  # event: (matcher or None, timeout seconds)
    "SessionStart": ("startup|resume|clear|compact", TIMEOUT_S),
    "UserPromptSubmit": (None, TIMEOUT_S),
    "PostToolUse": ("*", TIMEOUT_S),
    "PostToolUseFailure": ("*", TIMEOUT_S),
    "Stop": (None, TIMEOUT_S),
    "PreCompact": (None, TIMEOUT_S),
    "SessionEnd": (None, 5),  # a settings timeout raises the 1.5 s SessionEnd budget
}


def settings_path(project: str | None) -> str:
    if project:
        return os.path.join(project, ".claude", "settings.local.json")
    return os.path.join(os.path.expanduser("~"), ".claude", "settings.json")


def wanted(command) -> dict[str, list]:
    out = {}
    for event, (matcher, timeout) in EVENTS.items():
        group: dict = {"matcher": matcher} if matcher else {}
        group["hooks"] = [{"type": "command", "command": command(event, NAME), "timeout": timeout}]
        out[event] = [group]
    return out


def next_step(project: str | None) -> str:
    where = f"in {project}" if project else "in any project"
    return f"start a new Claude Code session {where} (or /clear); `engram doctor` checks the setup"


def plugin_step(root: str) -> str:
    """The checkout is a plugin marketplace whose one plugin is its plugin/ folder (so Claude
    Code copies that folder only, not the checkout's .venv or build/)."""
    import shlex

    return (f"run `claude plugin marketplace add {shlex.quote(root)}` and `claude plugin install engram@engram`, "
            f"or `claude --plugin-dir {shlex.quote(os.path.join(root, 'plugin'))}` for one session")


# -- its MCP server: ~/.claude.json belongs to its CLI, so the CLI registers it -------------


def mcp_entry(project: str | None, argv: list[str], env: dict[str, str]) -> None:
    return None  # no file of Claude Code's is engram's to edit for it


def _json_object(path: str) -> dict:
    from engram.harnesses.claude_plugin import json_object  # one reader of Claude Code's JSON files

    return json_object(path)


def _servers_of(holder) -> dict:
    servers = holder.get("mcpServers") if isinstance(holder, dict) else None
    return servers if isinstance(servers, dict) else {}


def _scope_servers(project: str | None) -> dict:
    """The servers at the scope engram registers at: user (~/.claude.json's `mcpServers`), or
    with --project that project's local scope (under `projects` there), read, never written."""
    doc = _json_object(os.path.join(os.path.expanduser("~"), ".claude.json"))
    return _servers_of(_d(doc.get("projects")).get(project)) if project else _servers_of(doc)


def mcp_servers(project: str | None) -> dict:
    """The servers a session has by name, where engram registers its own: user scope and,
    with --project, the project's local scope and its shared .mcp.json. A name is taken
    wherever it is held, and by another tool wherever another tool's server holds it."""
    from engram.config import is_own_mcp_server

    scopes = [_scope_servers(None)]
    if project:
        scopes += [_scope_servers(project), _servers_of(_json_object(os.path.join(project, ".mcp.json")))]
    found: dict = {}
    for servers in scopes:
        for name, entry in servers.items():
            if name not in found or is_own_mcp_server(found[name]):
                found[name] = entry
    return found


def mcp_command(project: str | None, name: str, argv: list[str], env: dict[str, str]) -> list[str]:
    """`claude mcp add`, at user scope (`--scope local` in the project with --project)."""
    pinned = [w for k, v in env.items() for w in ("--env", f"{k}={v}")]
    return ["claude", "mcp", "add", "--scope", "local" if project else "user", *pinned, name, "--", *argv]


def _claude(argv: list[str], project: str | None) -> tuple[int, str]:
    """(exit code, what went wrong) of one `claude mcp` command, within 60 s whatever it leaves behind."""
    import shlex

    from engram import workers

    try:
        done = workers.run_child(argv, cwd=project or None, timeout=60)
    except OSError as exc:
        return 127, f"`{shlex.join(argv)}` failed ({exc.strerror or exc})"
    out, err = done.text()
    last = (err.strip() or out.strip() or ("no answer within 60 s" if done.timed_out else f"exit {done.code}"))
    return (1 if done.timed_out else done.code or 0), f"`{shlex.join(argv)}` failed ({last.splitlines()[-1][:200]})"


def register_mcp(project: str | None, name: str, argv: list[str], env: dict[str, str]) -> tuple[bool, str]:
    """(registered, what to tell the user): through the `claude` CLI when it is on PATH, else
    the exact command to run. `name` is free or engram's own (install/mcp.py chose it): an
    entry of engram's from another install there is replaced."""
    import shlex
    import shutil

    add = mcp_command(project, name, argv, env)
    if shutil.which("claude") is None:
        return False, f"`claude` is not on PATH; to add the query_knowledge tool run: {shlex.join(add)}"
    current = _scope_servers(project).get(name)
    if current == {"type": "stdio", "command": argv[0], "args": argv[1:], "env": env}:
        return True, f"MCP server '{name}' already registered (`claude mcp get {name}` shows it)"
    if current is not None:
        _claude(["claude", "mcp", "remove", "--scope", "local" if project else "user", name], project)
    code, failed = _claude(add, project)
    if code != 0:
        return False, f"{failed}; run it yourself once that is fixed"
    return True, f"MCP server '{name}' registered with `claude mcp add`"


def unregister_mcp(project: str | None, name: str) -> str:
    """What happened to engram's server called `name` (removed, or the command to remove it;
    "" when engram's is not there: another tool's server of that name is left alone)."""
    import shlex
    import shutil

    from engram.config import is_own_mcp_server

    if not is_own_mcp_server(_scope_servers(project).get(name)):
        return ""
    remove = ["claude", "mcp", "remove", "--scope", "local" if project else "user", name]
    if shutil.which("claude") is None:
        return f"`claude` is not on PATH; remove engram's MCP server with: {shlex.join(remove)}"
    code, failed = _claude(remove, project)
    return f"MCP server '{name}' removed" if code == 0 else failed


# -- doctor --------------------------------------------------------------------------------


def doctor_caveat(doc: dict, project: str | None) -> str:
    return " - but disableAllHooks is true there, so none run" if doc.get("disableAllHooks") else ""


def plugin_enabled(project: str | None) -> str | None:
    """engram's plugin, when Claude Code has it installed and enabled (for this user, or in
    `project`): it brings engram's hooks and MCP server itself."""
    from engram.harnesses import claude_plugin

    return ", ".join(claude_plugin.enabled(project)) or None


def trust_key(settings: str, event: str, group: int, index: int) -> None:
    return None  # it runs the hooks of its settings files without a trust record


def folder_trust(root: str) -> None:
    return None
