"""`engram install` / `uninstall`: the settings-file editing every harness shares.

Each harness module (engram.harnesses) says where its settings live, which entries
engram wants there and what the user does next; here `merge` changes the `hooks` object,
`jsonedit` splices it into the file's text, `plan` ties it together with backups and the
manifest that lets `uninstall` restore files byte for byte, and `setup` does the rest of
install (data dir, interpreter record, database). This module builds the hook command.
"""

from __future__ import annotations

import os
import shlex
import sys


PLUGIN_DIR = "plugin"  # the checkout's Claude Code plugin: .claude-plugin/, hooks/, .mcp.json, bin/


def plugin_dir() -> str | None:
    """The plugin directory of the checkout engram runs from, when there is one: the Claude
    Code plugin, whose bin/engram-hook every install from that checkout registers too (one
    copy of the script). An installed wheel has none."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(root, PLUGIN_DIR)
    hook = os.path.join(path, "bin", "engram-hook")
    return path if os.path.isfile(hook) and os.access(hook, os.X_OK) else None


def checkout_script(name: str = "engram-hook") -> str | None:
    """`plugin/bin/<name>` of the checkout engram runs from, when there is one."""
    found = plugin_dir()
    return os.path.join(found, "bin", name) if found else None


def runner_target() -> str:
    """The executable the hook command starts: the checkout's plugin/bin/engram-hook (which
    finds the interpreter recorded at install), else this interpreter's absolute path."""
    return checkout_script() or os.path.abspath(sys.executable)


def runner_words() -> str:
    """Shell words that start the hook: `runner_target`, plus config.HOOK_ARGS for an interpreter."""
    from engram.config import HOOK_ARGS

    return shlex.quote(runner_target()) + ("" if checkout_script() else " " + shlex.join(HOOK_ARGS))


def runner() -> str:
    """Shell words that start the hook (never a PATH lookup). ENGRAM_HOME is pinned when it
    is not the default, since the harness's environment will not have it."""
    from engram.config import engram_home

    words = runner_words()
    home = engram_home()
    if home != os.path.abspath(os.path.expanduser("~/.engram")):
        words = f"ENGRAM_HOME={shlex.quote(home)} {words}"
    return words


def hook_command(event: str, harness_name: str) -> str:
    return f"{runner()} {event} --harness {harness_name}"
