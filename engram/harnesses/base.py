"""What a harness module provides, and the defaults most of them share.

A harness (Claude Code, Codex CLI, Gemini CLI, GSD 2) is one module satisfying
`Harness`: the payload adapter the hook uses and the install plan `engram install`,
`uninstall` and `doctor` use, side by side. The registry (registry.py) lists them.
Adapters are thin: a harness payload becomes engram's neutral calls and lifecycle kinds
(engram.lifecycle), and engram's context text becomes the harness's output. The
contracts they follow are in docs/harness-contracts.md.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs every hook ~9 ms: the protocol is for readers and type checkers
if TYPE_CHECKING:
    from typing import Any, Callable, Protocol

    class Harness(Protocol):
        NAME: str  # the --harness name
        LABEL: str  # what the user calls it
        # -- the hook side ------------------------------------------------------------
        HANDLERS: dict[str, Callable[..., Any]]  # lifecycle kinds of its own (GSD units), by name

        def claims(self, payload: dict) -> bool: ...  # does an unlabelled payload come from it?
        def request(self, event: str, payload: dict) -> tuple[str, dict]: ...  # (lifecycle kind, its arguments)
        def session_id(self, payload: dict, cwd: str) -> Any: ...  # the payload's session
        def prepare(self, ctx: Any, event: str, payload: dict) -> None: ...  # tags for every event (ctx.extra)
        def render(self, event: str, context: str | None) -> str: ...  # what the hook prints

        # -- the install side: settings file, engram's entries, what the user does next ---------
        NESTED: bool  # entries grouped under matchers (Claude Code style) or flat (GSD)
        ALLOW_COMMENTS: bool  # the settings file may hold comments (kept when editing)

        def settings_path(self, project: str | None) -> str: ...
        def wanted(self, command: Callable[[str, str], str]) -> dict[str, list]: ...
        def next_step(self, project: str | None) -> str: ...


def as_dict(value: Any) -> dict:
    """`value` when it is a dict, else {}: payload fields are untrusted and optional."""
    return value if isinstance(value, dict) else {}


def as_str(value: Any) -> str:
    """`value` when it is a string, else ""."""
    return value if isinstance(value, str) else ""


def payload_session(payload: dict, cwd: str) -> Any:
    """The session id the payload carries (every harness but GSD 2 sends one)."""
    return payload.get("session_id")


def no_tags(ctx: Any, event: str, payload: dict) -> None:
    """Most harnesses add no tags to their events."""
