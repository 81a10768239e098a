"""Registering engram's MCP server (`engram mcp`: query_knowledge, save_decision) the harness's own way.

docs/harness-contracts.md §5.2 has each harness's form:
* Claude Code keeps MCP servers in ~/.claude.json, which its CLI owns: `engram install`
  runs `claude mcp add --scope user` when the CLI is on PATH (`--scope local` in the
  project with --project), else prints that exact command;
* Codex: a `[mcp_servers.engram]` table appended to config.toml, marked as engram's;
  the rest of the file is never rewritten and uninstall removes exactly that table;
* Gemini CLI: `mcpServers.engram` in the settings.json that holds its hooks (plan.py
  edits both in one change, so uninstall restores the file byte for byte);
* GSD 2: no MCP registration is known (§5.2); GSD v1 runs inside Claude Code.
What is registered is recorded in $ENGRAM_HOME/mcp.json (engram.config.mcp_registered):
the injected text names the query_knowledge tool only where the agent has it.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys

SERVER = "engram"
TOML_MARK = "# engram's MCP server, added by `engram install` (`engram uninstall` removes this table)"


def server() -> tuple[list[str], dict[str, str]]:
    """(argv, env) of the server: this interpreter's absolute path, never a PATH lookup;
    ENGRAM_HOME pinned when it is not the default, as for the hooks."""
    from engram.config import engram_home

    home = engram_home()
    env = {} if home == os.path.abspath(os.path.expanduser("~/.engram")) else {"ENGRAM_HOME": home}
    return [os.path.abspath(sys.executable), "-m", "engram", "mcp"], env


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


# -- Claude Code: its CLI -------------------------------------------------------------------


def claude_add_command(project: str | None) -> list[str]:
    argv, env = server()
    scope = "local" if project else "user"
    pinned = [w for k, v in env.items() for w in ("--env", f"{k}={v}")]
    return ["claude", "mcp", "add", "--scope", scope, *pinned, SERVER, "--", *argv]


def claude_remove_command(project: str | None) -> list[str]:
    return ["claude", "mcp", "remove", "--scope", "local" if project else "user", SERVER]


def _claude(argv: list[str], project: str | None) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=project or None, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def claude_register(project: str | None) -> tuple[bool, str]:
    """(registered, what to tell the user): through the `claude` CLI when it is on PATH."""
    add = claude_add_command(project)
    if shutil.which("claude") is None:
        return False, f"`claude` is not on PATH; to add the query_knowledge tool run: {shlex.join(add)}"
    if _claude(["claude", "mcp", "get", SERVER], project).returncode == 0:
        return True, "MCP server 'engram' already registered (`claude mcp get engram` shows it)"
    res = _claude(add, project)
    if res.returncode != 0:
        last = (res.stderr.strip() or res.stdout.strip() or f"exit {res.returncode}").splitlines()[-1]
        return False, f"`{shlex.join(add)}` failed ({last}); run it yourself once that is fixed"
    return True, "MCP server 'engram' registered with `claude mcp add`"


def claude_unregister(project: str | None) -> str:
    """What happened to the Claude Code registration (removed, or the command to remove it)."""
    remove = claude_remove_command(project)
    if shutil.which("claude") is None:
        return f"`claude` is not on PATH; if you added engram's MCP server, remove it with: {shlex.join(remove)}"
    if _claude(["claude", "mcp", "get", SERVER], project).returncode != 0:
        return ""
    res = _claude(remove, project)
    return ("MCP server 'engram' removed" if res.returncode == 0
            else f"`{shlex.join(remove)}` failed: {(res.stderr.strip() or res.stdout.strip())[:200]}")


# -- Gemini CLI: mcpServers in settings.json ---------------------------------------------------


def gemini_entry() -> dict:
    argv, env = server()
    entry: dict = {"command": argv[0], "args": argv[1:], "timeout": 30000}
    if env:
        entry["env"] = env
    return entry


# -- Codex: a table appended to config.toml -------------------------------------------------


def codex_config_path(mod, project: str | None) -> str:
    """Codex's config.toml, next to the hooks.json `mod` (the codex harness) writes."""
    return os.path.join(os.path.dirname(mod.settings_path(project)), "config.toml")


def codex_block() -> str:
    argv, env = server()
    q = json.dumps  # a JSON string is a TOML basic string
    lines = ["", TOML_MARK, f"[mcp_servers.{SERVER}]", f"command = {q(argv[0])}",
             "args = [" + ", ".join(q(a) for a in argv[1:]) + "]", "startup_timeout_sec = 20"]
    if env:
        lines.append("env = { " + ", ".join(f"{k} = {q(v)}" for k, v in env.items()) + " }")
    return "\n".join(lines) + "\n"


def _codex_tables(text: str, path: str) -> dict:
    import tomllib

    try:
        return tomllib.loads(text).get("mcp_servers") or {}
    except tomllib.TOMLDecodeError as exc:
        from engram.errors import EngramError

        raise EngramError(f"{path}: not valid TOML ({exc}); engram left it unchanged - fix it and run "
                          "the command again") from None


def codex_with_server(text: str | None, path: str = "config.toml") -> tuple[str, str]:
    """(config.toml's text with engram's table, note); the text unchanged when it has one."""
    text = text or ""
    if SERVER in _codex_tables(text, path):
        ours = TOML_MARK in text
        if ours and codex_without_server(text) + codex_block() == text:
            return text, "MCP server already registered"
        if not ours:
            return text, "an 'engram' MCP server of your own is configured there; left as it is"
        text = codex_without_server(text)
    sep = "" if not text or text.endswith("\n") else "\n"
    return text + sep + codex_block(), "MCP server registered"


def codex_without_server(text: str) -> str:
    """config.toml without the table engram appended (from its mark to the next table)."""
    at = text.find("\n" + TOML_MARK + "\n")
    if at < 0:
        return text
    end = text.find("\n[", at + len(TOML_MARK) + 2 + len(f"[mcp_servers.{SERVER}]"))
    return text[:at] + (text[end + 1:] if end >= 0 else "")

