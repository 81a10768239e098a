"""Merging engram's entries into a harness's `hooks` object, and taking them out again.

Two shapes exist. Claude Code, Codex and Gemini CLI nest: event -> [matcher group
{matcher?, hooks: [handler]}]. GSD 2 is flat: event -> [handler]. A handler is engram's
when its command starts engram's hook (`is_ours`); nothing else is ever touched.
Installing twice is a no-op: an event whose engram entries already equal the wanted
ones is left as it is; otherwise engram's entries are replaced where the first of them
stood (a new install appends them after the user's own).
"""

from __future__ import annotations

import copy
import os
import shlex

from engram.config import HOOK_ARGS, LEGACY_HOOK_ARGS

# The interpreter words of the hook command when it is not bin/engram-hook: config.HOOK_ARGS
# up to the folder it names (an install from another folder wrote another), what installs
# before -S wrote, and what installs before -P wrote.
RUNNER_ARGS = (HOOK_ARGS[:-1], LEGACY_HOOK_ARGS, ("-m", "engram.hook"))


class Malformed(ValueError):
    """The settings hold a `hooks` value of a shape the harness would not accept either."""


def command_words(command) -> list[str]:
    """A hook command's words after its leading VAR=value assignments ([] when it does not parse)."""
    try:
        words = shlex.split(command) if isinstance(command, str) else []
    except ValueError:
        return []
    while words and "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
        words.pop(0)
    return words


def is_ours(handler) -> bool:
    """A handler engram wrote: `[VAR=value] <runner> <Event> --harness NAME`, the runner being
    an engram-hook script (a checkout's or the plugin's bin/, $ENGRAM_HOME/bin/) or an
    interpreter with RUNNER_ARGS. Other tools' commands that merely hold those words, such
    as another memory tool's `~/.lore/bin/engram-hook` or `python -m engram.hooks.pre_tool_use`,
    are theirs."""
    words = command_words(handler.get("command") if isinstance(handler, dict) else None)
    if "--harness" not in words[1:]:
        return False
    return os.path.basename(words[0]) == "engram-hook" or any(
        tuple(words[1:1 + len(args)]) == args for args in RUNNER_ARGS)


def _check(hooks, nested: bool) -> dict:
    if not isinstance(hooks, dict):
        raise Malformed("'hooks' is not an object")
    for event, items in hooks.items():
        if not isinstance(items, list):
            raise Malformed(f"'hooks.{event}' is not a list")
        if nested and any(isinstance(g, dict) and not isinstance(g.get("hooks", []), list) for g in items):
            raise Malformed(f"a matcher group in 'hooks.{event}' has a 'hooks' value that is not a list")
    return hooks


def _has_ours(item, nested: bool) -> bool:
    if not nested:
        return is_ours(item)
    return isinstance(item, dict) and any(is_ours(h) for h in item.get("hooks") or [])


def _ours(items: list, nested: bool) -> list:
    return [i for i in items if _has_ours(i, nested)]


def _strip(items: list, nested: bool) -> list:
    """`items` without engram's handlers (a group left with no handler goes too)."""
    out = []
    for item in items:
        if not nested:
            if not is_ours(item):
                out.append(item)
        elif not _has_ours(item, True):
            out.append(item)
        else:
            rest = [h for h in item.get("hooks") or [] if not is_ours(h)]
            if rest:
                out.append(dict(item, hooks=rest))
    return out


def add(hooks, wanted: dict[str, list], nested: bool) -> dict:
    """A copy of `hooks` holding exactly `wanted` as engram's entries (others untouched)."""
    hooks = copy.deepcopy(_check(hooks if hooks is not None else {}, nested))
    for event in list(hooks):
        if event not in wanted and _ours(hooks[event], nested):
            hooks[event] = _strip(hooks[event], nested)
            if not hooks[event]:
                del hooks[event]
    for event, items in wanted.items():
        current = hooks.get(event, [])
        if _ours(current, nested) == items and all(i in current for i in items):
            continue
        pos = next((n for n, i in enumerate(current) if _has_ours(i, nested)), len(current))
        rest = _strip(current, nested)
        pos = min(pos, len(rest))
        hooks[event] = rest[:pos] + copy.deepcopy(items) + rest[pos:]
    return hooks


def remove(hooks, nested: bool) -> dict:
    """A copy of `hooks` without engram's entries; events left empty are dropped."""
    hooks = copy.deepcopy(_check(hooks if hooks is not None else {}, nested))
    for event in list(hooks):
        if _ours(hooks[event], nested):
            hooks[event] = _strip(hooks[event], nested)
            if not hooks[event]:
                del hooks[event]
    return hooks


def coverage(hooks, wanted: dict[str, list], nested: bool) -> tuple[list[str], list[str]]:
    """(events where engram's entries are as wanted, events where they are missing or differ)."""
    try:
        hooks = _check(hooks if hooks is not None else {}, nested)
    except Malformed:
        return [], sorted(wanted)
    good, bad = [], []
    for event, items in wanted.items():
        (good if _ours(hooks.get(event, []), nested) == items else bad).append(event)
    return good, bad


def commands(hooks, nested: bool) -> list[str]:
    """Every engram command registered in `hooks` (for doctor's checks)."""
    out = []
    if not isinstance(hooks, dict):
        return out
    for items in hooks.values():
        for item in items if isinstance(items, list) else []:
            handlers = (item.get("hooks") or []) if nested and isinstance(item, dict) else [item]
            out.extend(h["command"] for h in handlers if is_ours(h))
    return out
