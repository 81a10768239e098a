"""engram's MCP server (`engram mcp`: query_knowledge, save_decision) as install writes it.

Each harness says how it registers the server (docs/harness-contracts.md §5.2, its module's
`mcp_entry` / `mcp_command` / `register_mcp`): Claude Code through its CLI, Codex as a
table in config.toml, Gemini CLI as `mcpServers.engram` in its settings.json, GSD 2 not at
all. What is shared is here: the server's command line, the marked TOML table (written and
taken out again without rewriting the rest of the file) and the record of what is
registered, $ENGRAM_HOME/mcp.json (engram.config.mcp_registered): the injected text names
the query_knowledge tool only where the agent has it.
"""

from __future__ import annotations

import json
import os
import sys

from engram.config import MCP_SERVER as SERVER

TOML_MARK = "# engram's MCP server, added by `engram install` (`engram uninstall` removes this table)"


def server() -> tuple[list[str], dict[str, str]]:
    """(argv, env) of the server: this interpreter's absolute path, never a PATH lookup;
    ENGRAM_HOME pinned when it is not the default, as for the hooks."""
    from engram.config import MODULE_ARGS, engram_home

    home = engram_home()
    env = {} if home == os.path.abspath(os.path.expanduser("~/.engram")) else {"ENGRAM_HOME": home}
    return [os.path.abspath(sys.executable), *MODULE_ARGS, "mcp"], env


# -- the record the hooks read ----------------------------------------------------------------


def record(harness: str, registered: bool) -> None:
    """Note in $ENGRAM_HOME/mcp.json whether `harness` has the server."""
    from engram.config import MCP_STATE, engram_home, mcp_state
    from engram.fsio import write_atomic

    state = mcp_state()
    if registered:
        state[harness] = True
    else:
        state.pop(harness, None)
    write_atomic(os.path.join(engram_home(), MCP_STATE), (json.dumps(state, indent=1) + "\n").encode())


# -- a marked table appended to a TOML file ----------------------------------------------------


def _toml(value) -> str:
    """A TOML value: strings as JSON strings (a JSON string is a TOML basic string), lists,
    inline tables, integers."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value) if isinstance(value, int) else json.dumps(value)


def toml_block(entry: dict) -> str:
    """`[mcp_servers.engram]` holding `entry`, under engram's mark."""
    lines = ["", TOML_MARK, f"[mcp_servers.{SERVER}]", *(f"{k} = {_toml(v)}" for k, v in entry.items())]
    return "\n".join(lines) + "\n"


def _toml_tables(text: str, path: str) -> dict:
    import tomllib

    try:
        return tomllib.loads(text).get("mcp_servers") or {}
    except tomllib.TOMLDecodeError as exc:
        from engram.errors import EngramError

        raise EngramError(f"{path}: not valid TOML ({exc}); engram left it unchanged - fix it and run "
                          "the command again") from None


def toml_with_server(text: str | None, entry: dict, path: str) -> tuple[str, str]:
    """(the TOML text with engram's table, note); the text unchanged when it has one."""
    text = text or ""
    if SERVER in _toml_tables(text, path):
        ours = TOML_MARK in text
        if ours and toml_without_server(text) + toml_block(entry) == text:
            return text, "MCP server already registered"
        if not ours:
            return text, "an 'engram' MCP server of your own is configured there; left as it is"
        text = toml_without_server(text)
    sep = "" if not text or text.endswith("\n") else "\n"
    return text + sep + toml_block(entry), "MCP server registered"


def toml_without_server(text: str) -> str:
    """The TOML text without the table engram appended (from its mark to the next table)."""
    at = text.find("\n" + TOML_MARK + "\n")
    if at < 0:
        return text
    end = text.find("\n[", at + len(TOML_MARK) + 2 + len(f"[mcp_servers.{SERVER}]"))
    return text[:at] + (text[end + 1:] if end >= 0 else "")
