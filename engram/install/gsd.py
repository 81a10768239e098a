"""GSD 2 (gsd-pi): shell hooks in ~/.gsd/agent/settings.json, or a project's .gsd/settings.json.

GSD 2 is built on the pi agent with its config dir renamed to `.gsd` (pi's own docs say
~/.pi/agent; gsd-pi's package.json sets configDir ".gsd"). Entries are flat
(event -> [handler]), timeouts are milliseconds, and every engram entry is
`blocking: false`, because a blocking hook's non-zero exit would veto the agent's action.
Project hooks run only once the project holds `.gsd/hooks.trusted`.
"""

from __future__ import annotations

import os

NAME, LABEL = "gsd", "GSD 2"
NESTED, ALLOW_COMMENTS = False, False
EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "PreCompact", "SessionEnd",
          "PreUnit", "PostUnit", "PostVerify")


def settings_path(project: str | None) -> str:
    if project:
        return os.path.join(project, ".gsd", "settings.json")
    return os.path.join(os.path.expanduser("~"), ".gsd", "agent", "settings.json")


def wanted(command) -> dict[str, list]:
    return {e: [{"command": command(e, NAME), "blocking": False, "timeout": 5000}] for e in EVENTS}


def next_step(project: str | None) -> str:
    if project:
        trust = os.path.join(project, ".gsd", "hooks.trusted")
        return f"trust the project's hooks (`touch {trust}`), then start `gsd` there"
    return "start `gsd` in a project; engram keeps a section of .gsd/KNOWLEDGE.md current after each unit"
