"""Claude Code: hooks in ~/.claude/settings.json, or a project's .claude/settings.local.json.

Project level uses settings.local.json (private, not committed), because the command
names this machine's paths. The repository is also a Claude Code plugin whose root
hooks.json calls "${CLAUDE_PLUGIN_ROOT}"/bin/engram-hook: with the plugin enabled,
run `engram install --plugin` so the hooks are not registered twice.
"""

from __future__ import annotations

import os

NAME, LABEL = "claude-code", "Claude Code"
NESTED, ALLOW_COMMENTS = True, False
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
