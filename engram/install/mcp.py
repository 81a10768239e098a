"""engram's MCP server (`engram mcp`: query_knowledge, save_decision) as install writes it.

Each harness says how it registers the server (docs/harness-contracts.md §5.2, its module's
`mcp_entry` / `mcp_servers` / `register_mcp`): Claude Code through its CLI, Codex as a
table in config.toml, Gemini CLI as an `mcpServers` entry in its settings.json, GSD 2 not at
all. What is shared is here: the server's command line, its name, the marked TOML table
(written and taken out again without rewriting the rest of the file) and the record of what
is registered, $ENGRAM_HOME/mcp.json (engram.config.mcp_server_name): the injected text names
the query_knowledge tool only where the agent has it, and uninstall and doctor know the name.

The name is `engram`, unless another tool's server already holds it there (other memory
tools call theirs `engram` too): then `engram-memory` (config.MCP_SERVERS). Another tool's
entry is never overwritten or removed, and install says in one line that it is there.
"""

from __future__ import annotations

import json
import os
import sys

from engram.config import MCP_SERVER, MCP_SERVERS, is_own_mcp_server

TOML_MARK = "# engram's MCP server, added by `engram install` (`engram uninstall` removes this table)"


def server() -> tuple[list[str], dict[str, str]]:
    """(argv, env) of the server: this interpreter's absolute path, never a PATH lookup;
    ENGRAM_HOME pinned when it is not the default, as for the hooks."""
    from engram.config import MODULE_ARGS, engram_home

    home = engram_home()
    env = {} if home == os.path.abspath(os.path.expanduser("~/.engram")) else {"ENGRAM_HOME": home}
    return [os.path.abspath(sys.executable), *MODULE_ARGS, "mcp"], env


# -- its name ----------------------------------------------------------------------------------


def choose(servers: dict, ours=None) -> tuple[str | None, list[str]]:
    """(the name engram's server takes among a harness's configured `servers`, the names of
    MCP_SERVERS other tools' servers hold): the one engram's already has, else the first free
    one; None when other tools hold them all. `ours(name)` says whose a server is (default:
    its command line is engram's, config.is_own_mcp_server)."""
    ours = ours or (lambda name: is_own_mcp_server(servers[name]))
    held = [n for n in MCP_SERVERS if n in servers]
    foreign = [n for n in held if not ours(n)]
    mine = [n for n in held if n not in foreign]
    free = [n for n in MCP_SERVERS if n not in servers]
    return (mine + free + [None])[0], foreign


def foreign_note(foreign: list[str]) -> str:
    """One line on other tools' servers by engram's names, which stay as they are ("" for none)."""
    if not foreign:
        return ""
    held = " and ".join(f"'{n}'" for n in foreign)
    return f"an MCP server called {held} that engram did not write is configured there (another tool's?); left as it is"


def note(name: str | None, foreign: list[str], already: bool = False) -> str:
    """What install says of a file entry: engram's server registered (under which name), and
    other tools' servers by engram's names, left as they are."""
    said = [foreign_note(foreign)] if foreign else []
    if name is not None:
        said.append(f"MCP server {'already ' if already else ''}registered"
                    + (f" as '{name}'" if name != MCP_SERVER else ""))
    else:
        said.append("engram's MCP server was not added")
    return "; ".join(said)


# -- the record the hooks read ----------------------------------------------------------------


def record(harness: str, name: str | None) -> None:
    """Note in $ENGRAM_HOME/mcp.json the name `harness` has the server under (None: it has not)."""
    from engram.config import MCP_STATE, engram_home, mcp_state
    from engram.fsio import write_atomic

    state = mcp_state()
    if name:
        state[harness] = name
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


def toml_block(entry: dict, name: str = MCP_SERVER) -> str:
    """`[mcp_servers.<name>]` holding `entry`, under engram's mark."""
    lines = ["", TOML_MARK, f"[mcp_servers.{name}]", *(f"{k} = {_toml(v)}" for k, v in entry.items())]
    return "\n".join(lines) + "\n"


def parse_toml(text: str, path: str) -> dict:
    """A TOML file's tables; malformed (nesting too deep for tomllib included) is one line
    naming the file."""
    import tomllib

    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        from engram.errors import EngramError

        why = exc if isinstance(exc, tomllib.TOMLDecodeError) else "nested too deeply to read"
        raise EngramError(f"{path}: not valid TOML ({why}); engram left it unchanged - fix it and run "
                          "the command again") from None


def _toml_tables(text: str, path: str) -> dict:
    return parse_toml(text, path).get("mcp_servers") or {}


def _marked(text: str) -> set[str]:
    """The `[mcp_servers.*]` tables engram wrote: those right under its mark."""
    lines = text.split("\n")
    return {after[len("[mcp_servers."):-1] for line, after in zip(lines, lines[1:])
            if line == TOML_MARK and after.startswith("[mcp_servers.") and after.endswith("]")}


def toml_with_server(text: str | None, entry: dict, path: str) -> tuple[str, str, str | None]:
    """(the TOML text with engram's table, note, the table's name); the text unchanged when
    it has that table already, or when other tools' tables hold every name."""
    text = text or ""
    marked = _marked(text)
    name, foreign = choose(_toml_tables(text, path), lambda n: n in marked)
    if name is None:
        return text, note(None, foreign), None
    if name in marked:
        if toml_without_server(text) + toml_block(entry, name) == text:
            return text, note(name, foreign, already=True), name
        text = toml_without_server(text)
    sep = "" if not text or text.endswith("\n") else "\n"
    return text + sep + toml_block(entry, name), note(name, foreign), name


def toml_without_server(text: str) -> str:
    """The TOML text without the tables engram appended (each from its mark to the next table)."""
    kept, pos, mark = [], 0, "\n" + TOML_MARK + "\n"
    while True:  # one pass: the pieces between engram's tables (the mark holds no "[")
        at = text.find(mark, pos)
        kept.append(text[pos:] if at < 0 else text[pos:at])
        if at < 0:
            return "".join(kept)
        header_end = text.find("\n", at + len(TOML_MARK) + 2)
        end = text.find("\n[", header_end) if header_end >= 0 else -1
        if end < 0:
            return "".join(kept)
        pos = end + 1


def toml_without_tables(text: str, headers: list[str]) -> str:
    """The TOML text without the tables headed `[<header>]` (each to the next table header or
    the end), every other line kept as it was."""
    wanted = {f"[{h}]" for h in headers}
    out, skipping = [], False
    for line in text.splitlines(keepends=True):
        head = line.strip()
        if head.startswith("["):
            skipping = head in wanted
        if not skipping:
            out.append(line)
    return "".join(out)
