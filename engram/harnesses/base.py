"""What a harness module provides: the `Harness` protocol.

A harness (Claude Code, Codex CLI, Gemini CLI, GSD 2) is one module satisfying
`Harness`: the payload adapter the hook uses and the install plan `engram install`,
`uninstall` and `doctor` use, side by side. The registry (registry.py) lists them.
Adapters are thin: a harness payload becomes engram's neutral calls and lifecycle kinds
(engram.lifecycle), and engram's context text becomes the harness's output. The
contracts they follow are in docs/harness-contracts.md. Claude Code's adapter is the
reference the others build on: its payload helpers and defaults (`as_dict`, `as_str`,
`session_id`, `prepare`) are theirs too. Nothing imports this module at run time.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs every hook ~20 ms: the protocol is for readers and type checkers
if TYPE_CHECKING:
    from typing import Any, Callable, Protocol

    class Harness(Protocol):
        NAME: str  # the --harness name
        LABEL: str  # what the user calls it
        # -- the hook side ------------------------------------------------------------
        HANDLERS: dict[str, Callable[..., Any]]  # lifecycle kinds of its own (GSD units), by name

        def request(self, event: str, payload: dict) -> tuple[str, dict]: ...  # (lifecycle kind, its arguments)
        def session_id(self, payload: dict, cwd: str) -> Any: ...  # the payload's session
        def prepare(self, ctx: Any, event: str, payload: dict) -> None: ...  # tags for every event (ctx.extra)
        # what the hook prints: `context` for the agent, `notice` for the user (SessionStart's notices)
        # on the harness's user channel (systemMessage); GSD has none (gsd_units writes it to KNOWLEDGE.md)
        def render(self, event: str, context: str | None, notice: str | None = None) -> str: ...

        # -- the install side: settings file, engram's entries, what the user does next ---------
        NESTED: bool  # entries grouped under matchers (Claude Code style) or flat (GSD)
        ALLOW_COMMENTS: bool  # the settings file may hold comments (kept when editing)
        COMMAND: str  # its CLI's name (doctor: is this harness on the machine?)

        def settings_path(self, project: str | None) -> str: ...
        def wanted(self, command: Callable[[str, str], str]) -> dict[str, list]: ...
        def next_step(self, project: str | None) -> str: ...
        def plugin_step(self, root: str) -> str | None: ...  # load engram as its plugin from checkout `root`; None: no plugin

        # -- its MCP server (`engram mcp` as argv + env), registered its own way (harness-contracts.md §5.2) --
        # (the file, the entry) when a config file holds it: its settings file, or a TOML file of its own
        def mcp_entry(self, project: str | None, argv: list[str], env: dict[str, str]) -> tuple[str, dict] | None: ...
        # when its CLI registers it: the servers configured there, by name (install/mcp.py chooses a free name)
        def mcp_servers(self, project: str | None) -> dict | None: ...
        # the command that registers it as `name`, when its CLI does
        def mcp_command(self, project: str | None, name: str, argv: list[str],
                        env: dict[str, str]) -> list[str] | None: ...
        # run that command: (registered, what to tell the user); None when a file entry does it
        def register_mcp(self, project: str | None, name: str, argv: list[str],
                         env: dict[str, str]) -> tuple[bool, str] | None: ...
        # undo it for engram's server called `name`: what to tell the user ("" when engram's is not
        # there, another tool's being left alone); None when a file entry did it
        def unregister_mcp(self, project: str | None, name: str) -> str | None: ...

        # -- doctor: what its hooks being registered does not yet mean --------------------------
        def doctor_caveat(self, doc: dict, project: str | None) -> str: ...  # appended to "N hooks registered"
        # engram's own plugin, when the harness has it enabled (for the user, or in `project`): which one
        def plugin_enabled(self, project: str | None) -> str | None: ...
        # -- trust: a harness that runs hooks or servers only where the user trusted them --------
        # the key its config records trust in hook `index` of `group` of `event` of `settings` under
        # (uninstall removes it, doctor looks for it); None when it records none
        def trust_key(self, settings: str, event: str, group: int, index: int) -> str | None: ...
        # why it will not run engram's hooks or server in the folder `root`, and the fix; None when it will
        def folder_trust(self, root: str) -> tuple[str, str] | None: ...
