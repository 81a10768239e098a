"""Gemini CLI: hook payloads -> neutral records, context -> hookSpecificOutput; its install plan.

Contracts: docs/harness-contracts.md §3.

Gemini names its events differently (BeforeAgent = prompt, AfterTool = tool result,
AfterAgent = turn end, PreCompress = compaction), reports a failed tool through
`tool_response.error` rather than a separate event, and parses stdout as JSON: any
stray text becomes a warning shown to the user, so this adapter prints the JSON
object or nothing. Tool paths may be relative to the cwd; they are made absolute here.

Install: hooks in ~/.gemini/settings.json, or a project's .gemini/settings.json.
Timeouts are milliseconds. Lifecycle matchers are exact strings there, so SessionStart
gets none (all sources). Gemini accepts comments in settings.json: they are kept.
Project hooks are fingerprinted: Gemini warns about new ones until the user accepts them.
"""

from __future__ import annotations

import os

from engram import jsonio
from engram.config import MCP_SERVERS
from engram.harnesses import claude_code
from engram.harnesses.claude_code import as_dict as _d
from engram.harnesses.claude_code import as_str as _s
from engram.harnesses.claude_code import prepare, session_id  # noqa: F401  (the Harness protocol)

NAME = "gemini"
LABEL = "Gemini CLI"
HANDLERS: dict = {}
INJECTABLE = {"SessionStart", "BeforeAgent", "AfterTool"}
SEARCH_TOOLS = {"glob", "grep_search", "search_file_content", "grep", "list_directory"}
OWN_MCP = tuple(f"mcp_{name}_" for name in MCP_SERVERS)  # engram's server, under either name


def _abs(path: str, cwd: str) -> str:
    return os.path.join(cwd, path) if path and cwd and not os.path.isabs(path) else path


def _text(resp: dict) -> str:
    """`llmContent` as text (a string, or a list of parts with `text`)."""
    content = resp.get("llmContent")
    if isinstance(content, list):
        return unwrap("\n".join(_s(_d(p).get("text")) if isinstance(p, dict) else _s(p) for p in content))
    return unwrap(_s(content))


_WRAP = ("<untrusted_context>", "</untrusted_context>")
_TAIL_KEYS = ("Error: ", "Exit Code: ", "Signal: ", "Background PIDs: ", "Process Group PGID: ")
_TIMED_OUT = "Command was automatically cancelled"


def unwrap(text: str) -> str:
    """Tool text without the `<untrusted_context>` frame Gemini CLI puts around it."""
    body = text.strip()
    if body.startswith(_WRAP[0]) and body.endswith(_WRAP[1]):
        return body[len(_WRAP[0]):-len(_WRAP[1])].strip("\n")
    return text


def shell_result(text: str) -> tuple[bool | None, int | None, str]:
    """(ok, exit code, output) of run_shell_command's llmContent.

    A finished command's text is "Output: ..." followed by sections, "Exit Code: N" only
    when N is not 0 (docs/harness-contracts.md §3.5): a finished command with no Exit Code,
    Error or Signal section exited 0. A command cancelled at its timeout failed; one the user
    cancelled or one moved to the background has no exit status (None, unknown).
    """
    body = unwrap(text)
    if not body.startswith("Output: "):
        return (False if body.startswith(_TIMED_OUT) else None), None, body
    lines, tail = body[len("Output: "):].split("\n"), {}
    while len(lines) > 1 and lines[-1].startswith(_TAIL_KEYS):  # the first line is the output's
        key, _, value = lines.pop().partition(": ")
        tail[key] = value.strip()
    out = "\n".join(lines)
    out = "" if out == "(empty)" else out
    code = tail.get("Exit Code", "")
    if code.lstrip("-").isdigit():
        return int(code) == 0, int(code), out
    if "Signal" in tail or "Error" in tail:
        return False, None, out
    return True, 0, out


def _read_many(resp: dict, cwd: str, base: dict) -> list[dict]:
    """read_many_files: one read per `--- path ---` separator in its output."""
    paths = [ln[4:-4].strip() for ln in _text(resp).split("\n") if ln.startswith("--- ") and ln.endswith(" ---")]
    return [dict(base, action="read", path=_abs(p, cwd)) for p in paths if p and p != "End of content"]


def tool_call(tool: str, tin: dict, resp, cwd: str) -> list[dict]:
    """One Gemini tool call as neutral calls."""
    r = _d(resp)
    err = r.get("error")
    error = (_s(_d(err).get("message")) or _s(err) or "tool failed") if err else None
    base: dict = {"tool": tool, "ok": error is None, "error": error}
    path = _abs(_s(tin.get("file_path")) or _s(tin.get("absolute_path")) or _s(tin.get("path")), cwd)
    own = next((p for p in OWN_MCP if tool.startswith(p)), None)
    if own:
        return claude_code.tool_call("mcp__engram__" + tool[len(own):], tin, resp, error)
    if tool == "read_file":
        content = _text(r)
        return [dict(base, action="read", path=path, offset=tin.get("offset"), limit=tin.get("limit"),
                     **({"content": content} if content and not error else {}))]
    if tool == "read_many_files":
        return _read_many(r, cwd, base) or [dict(base, action="other", input=tin)]
    if tool == "write_file":
        created = "created" in _text(r).lower()
        return [dict(base, action="write", path=path, op="create" if created else "update",
                     content=_s(tin.get("content")), old_content=None)]
    if tool == "replace":
        return [dict(base, action="write", path=path, op="edit",
                     edits=[(_s(tin.get("old_string")), _s(tin.get("new_string")))])]
    if tool == "run_shell_command":
        ok, code, output = shell_result(_text(r))
        if error:
            ok, code = False, code or None
        return [dict(base, ok=ok, action="shell", command=_s(tin.get("command")), output=output, exit_code=code)]
    if tool in SEARCH_TOOLS:
        where = _s(tin.get("dir_path")) or _s(tin.get("path"))
        return [dict(base, action="search", pattern=_s(tin.get("pattern")), path=_abs(where, cwd),
                     results_count=None)]
    if tool in claude_code.TODO_TOOLS:
        return [claude_code.todo_call(base, tool, tin)]
    if tool == "google_web_search":
        return [dict(base, action="web_search", query=_s(tin.get("query")), results_count=None)]
    if tool == "web_fetch":
        words = _s(tin.get("prompt")).split() or [_s(tin.get("url"))]
        url = next((w.strip("()<>,.;'\"") for w in words if w.startswith(("http://", "https://"))), "")
        return [dict(base, action="web_fetch", url=url or _s(tin.get("prompt"))[:300], status=None)]
    return [dict(base, action="other", input=tin)]


def request(event: str, payload: dict) -> tuple[str, dict]:
    """(kind, data) for lifecycle, from Gemini's event names."""
    if event == "SessionStart":
        return "session_start", {"source": _s(payload.get("source")) or "startup"}
    if event == "BeforeAgent":
        return "prompt", {"text": _s(payload.get("prompt"))}
    if event == "AfterTool":
        calls = tool_call(_s(payload.get("tool_name")), _d(payload.get("tool_input")),
                          payload.get("tool_response"), _s(payload.get("cwd")))
        return "tool", {"calls": calls}
    if event == "AfterAgent":
        return "stop", {"last_message": payload.get("prompt_response"),
                        "stop_hook_active": bool(payload.get("stop_hook_active"))}
    if event == "PreCompress":
        # Gemini CLI 0.61.0 fires PreCompress(auto) before every model call, ahead of its own
        # check of whether the history is long enough to compress; only /compress (manual)
        # is known to compress. An auto one says nothing happened.
        trigger = _s(payload.get("trigger"))
        return ("compact", {"trigger": trigger}) if trigger == "manual" else ("ignore", {})
    if event == "SessionEnd":
        return "session_end", {"reason": _s(payload.get("reason"))}
    return "ignore", {}


def render(event: str, context: str | None, notice: str | None = None) -> str:
    """The hookSpecificOutput JSON object with the user's notice as `systemMessage`
    (harness-contracts.md §3.4), or nothing: Gemini's stdout must be pure JSON."""
    if event not in INJECTABLE:
        return ""
    return claude_code.output(event, context, notice)


# -- install: where its settings live, engram's entries there, the next step ----------

NESTED, ALLOW_COMMENTS = True, True
COMMAND = "gemini"  # its CLI: doctor counts the harness as found when this is on PATH
EVENTS = {  # event: (matcher, timeout ms, handler name)
    "SessionStart": (None, 10000, "engram-session-start"),
    "BeforeAgent": (None, 10000, "engram-prompt"),
    "AfterTool": ("*", 10000, "engram-tool"),
    "AfterAgent": (None, 10000, "engram-turn-end"),
    "PreCompress": (None, 10000, "engram-compress"),
    "SessionEnd": (None, 5000, "engram-session-end"),
}


def settings_path(project: str | None) -> str:
    if project:
        return os.path.join(project, ".gemini", "settings.json")
    return os.path.join(os.path.expanduser("~"), ".gemini", "settings.json")


def wanted(command) -> dict[str, list]:
    out = {}
    for event, (matcher, timeout, name) in EVENTS.items():
        group: dict = {"matcher": matcher} if matcher else {}
        group["hooks"] = [{"name": name, "type": "command", "command": command(event, NAME), "timeout": timeout}]
        out[event] = [group]
    return out


def next_step(project: str | None) -> str:
    extra = " and accept the new project hooks when Gemini asks" if project else ""
    return f"start `gemini`{extra}; `/hooks panel` lists the engram hooks"


def plugin_step(root: str) -> None:
    return None  # no plugin of engram's for Gemini CLI


def mcp_entry(project: str | None, argv: list[str], env: dict[str, str]) -> tuple[str, dict]:
    """`mcpServers.engram` (or `.engram-memory`, install/mcp.py) in the settings.json that holds
    the hooks (one change edits both, so uninstall restores the file byte for byte); the
    timeout is milliseconds."""
    entry: dict = {"command": argv[0], "args": argv[1:], "timeout": 30000}
    if env:
        entry["env"] = env
    return settings_path(project), entry


def mcp_servers(project: str | None) -> None:
    return None  # settings.json holds it


def mcp_command(project: str | None, name: str, argv: list[str], env: dict[str, str]) -> None:
    return None


def register_mcp(project: str | None, name: str, argv: list[str], env: dict[str, str]) -> None:
    return None


def unregister_mcp(project: str | None, name: str) -> None:
    return None


def doctor_caveat(doc: dict, project: str | None) -> str:
    return ""


def plugin_enabled(project: str | None) -> None:
    return None  # no plugin of engram's for Gemini CLI


def trust_key(settings: str, event: str, group: int, index: int) -> None:
    return None


def folder_trust(root: str) -> tuple[str, str] | None:
    """Gemini CLI disables a folder's settings and MCP servers (and headless --yolo) until the
    user trusts it, when folder trust is on (it is by default): `~/.gemini/trustedFolders.json`
    maps a path to TRUST_FOLDER, TRUST_PARENT (the folder's parent and all below it) or
    DO_NOT_TRUST, the longest matching path deciding (harness-contracts §9.3)."""
    home = os.path.join(os.path.expanduser("~"), ".gemini")
    settings = _json_file(os.path.join(home, "settings.json"))
    if _d(_d(_d(settings).get("security")).get("folderTrust")).get("enabled") is False:
        return None
    rules = _d(_json_file(os.path.join(home, "trustedFolders.json")))
    folder = os.path.realpath(root)
    best, level = -1, None  # Gemini's rule: the longest matching path decides (isPathTrusted)
    for path, trust in rules.items():
        where = os.path.realpath(os.path.expanduser(str(path)))
        where = os.path.dirname(where) if trust == "TRUST_PARENT" else where
        if (folder == where or folder.startswith(where.rstrip("/") + "/")) and len(str(path)) > best:
            best, level = len(str(path)), trust
    if level in ("TRUST_FOLDER", "TRUST_PARENT") or os.environ.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return None
    return (f"Gemini CLI does not trust {root}: there it disables engram's MCP server and the folder's settings",
            "start `gemini` in that folder and choose to trust it (or add it to ~/.gemini/trustedFolders.json)")


def _json_file(path: str):
    """A small JSON file's object ({} when it is missing, unreadable, or not plain JSON)."""
    from engram.fsio import read_regular

    raw = read_regular(path, 1 << 20)
    try:
        return jsonio.loads(raw.decode("utf-8", "replace")) if raw else {}
    except ValueError:
        return {}
