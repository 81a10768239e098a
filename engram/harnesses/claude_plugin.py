"""Is engram's Claude Code plugin installed and enabled, and where? Read off Claude Code's own records.

`claude plugin install name@marketplace` (docs/harness-contracts.md §1.1, observed with the
real CLI) records the copy in ~/.claude/plugins/installed_plugins.json, with its scope and,
for project and local scope, its project, and turns it on with `enabledPlugins` in the
settings file of that scope. doctor and install need to know, because the plugin brings
engram's hooks and MCP server itself: `engram install` on top would run every hook twice.
Other memory tools publish Claude Code plugins called `engram` too, so a plugin is engram's
by what its folder holds (plugin/'s bin/engram-hook and .mcp.json), not by its name.
"""

from __future__ import annotations

import json
import os

RECORD = os.path.join(".claude", "plugins", "installed_plugins.json")
SETTINGS = {"user": os.path.join(".claude", "settings.json"),  # under HOME; the others under the project
            "project": os.path.join(".claude", "settings.json"),
            "local": os.path.join(".claude", "settings.local.json")}


RECORD_LIMIT = 64 << 20  # bytes: ~/.claude.json keeps every project's history and grows to megabytes


def json_object(path: str) -> dict:
    """A JSON object file's content; {} when it is missing, unreadable, not an object, nested
    too deeply, larger than RECORD_LIMIT or not a regular file (a FIFO would block the read)."""
    from engram.fsio import read_regular

    raw = read_regular(path, RECORD_LIMIT + 1)
    if raw is None or len(raw) > RECORD_LIMIT:
        return {}
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def is_engrams(folder) -> bool:
    """Whether a plugin folder is engram's plugin/ (a copy of it, or the checkout's own)."""
    return isinstance(folder, str) and all(
        os.path.isfile(os.path.join(folder, *part)) for part in (("bin", "engram-hook"), (".mcp.json",)))


def _applies(install: dict, project: str | None) -> bool:
    """An install at user scope applies everywhere; at project or local scope, in its project only."""
    if install.get("scope") == "user":
        return True
    where = install.get("projectPath")
    return bool(project and isinstance(where, str) and os.path.realpath(where) == os.path.realpath(project))


def _settings_of(install: dict) -> str | None:
    relative = SETTINGS.get(install.get("scope"))
    base = os.path.expanduser("~") if install.get("scope") == "user" else install.get("projectPath")
    return os.path.join(base, relative) if relative and isinstance(base, str) else None


def enabled(project: str | None) -> list[str]:
    """engram's plugins Claude Code has installed and enabled for this user (user scope) or,
    with `project`, in that project: ["engram@engram (user scope)", ...]."""
    plugins = json_object(os.path.join(os.path.expanduser("~"), RECORD)).get("plugins")
    out = []
    for pid, installs in (plugins.items() if isinstance(plugins, dict) else ()):
        for install in installs if isinstance(installs, list) else ():
            ours = isinstance(install, dict) and is_engrams(install.get("installPath"))
            if not ours or not _applies(install, project):
                continue
            settings = _settings_of(install)
            switched = json_object(settings).get("enabledPlugins") if settings else None
            if isinstance(switched, dict) and switched.get(pid) is True:
                out.append(f"{pid} ({install['scope']} scope)")
    return out
