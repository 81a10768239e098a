"""Gemini CLI: hooks in ~/.gemini/settings.json, or a project's .gemini/settings.json.

Timeouts are milliseconds. Lifecycle matchers are exact strings there, so SessionStart
gets none (all sources). Gemini accepts comments in settings.json: they are kept.
Project hooks are fingerprinted: Gemini warns about new ones until the user accepts them.
"""

from __future__ import annotations

import os

NAME, LABEL = "gemini", "Gemini CLI"
NESTED, ALLOW_COMMENTS = True, True
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
