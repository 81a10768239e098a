"""Codex CLI: hooks in ~/.codex/hooks.json ($CODEX_HOME), or a project's .codex/hooks.json.

JSON rather than config.toml, so the user's TOML (and its comments) is never rewritten.
Codex runs a hook only after the user trusts its exact definition in the `/hooks` panel,
and again after any change to it; project hooks also need a trusted project.
Codex has no SessionEnd: each turn's Stop closes the turn and queues consolidation.
"""

from __future__ import annotations

import os

NAME, LABEL = "codex", "Codex CLI"
NESTED, ALLOW_COMMENTS = True, False
EVENTS = {  # no matcher means every tool: Codex only hooks Bash, apply_patch and MCP tools
    "SessionStart": "startup|resume|clear|compact",
    "UserPromptSubmit": None,
    "PostToolUse": None,
    "Stop": None,
    "PreCompact": None,
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
