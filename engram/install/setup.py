"""The parts of install that are not hook registration: data dir, interpreter, launcher, database."""

from __future__ import annotations

import os
import shlex
import sys

PYTHON_FILE = "python"
VERDICTS = "python.verdict"  # plugin/bin/engram-hook's cached check of each interpreter it ran
LAUNCHER = os.path.join("bin", "engram-hook")


def ensure_home() -> str:
    """Create $ENGRAM_HOME (0700) if missing; its path."""
    from engram.config import engram_home

    home = engram_home()
    os.makedirs(home, mode=0o700, exist_ok=True)
    os.chmod(home, 0o700)
    return home


def interpreter() -> str:
    """This interpreter's absolute path, not resolved: a venv's python is a symlink whose
    target lacks the venv's site-packages."""
    return os.path.abspath(sys.executable)


def own_command() -> str | None:
    """This installation's `engram` script: next to its interpreter (a venv's or pipx's bin/)."""
    path = os.path.join(os.path.dirname(interpreter()), "engram")
    return path if os.path.isfile(path) else None


def shebang(path: str) -> list[str]:
    """The words of a script's `#!` line ([] for a program, or a file that cannot be read)."""
    from engram.fsio import read_regular

    head = read_regular(path, 512) or b""
    return head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split() if head.startswith(b"#!") else []


def runs_this(path: str) -> bool:
    """Whether the `engram` at `path` runs this installation: it is `own_command` (a pipx
    link resolves to it), or a script started by this interpreter. Other memory tools ship
    a command called `engram` too (a Go binary from brew, another Python package)."""
    own = own_command()
    if own and os.path.realpath(path) == os.path.realpath(own):
        return True
    words = shebang(path)
    return bool(words) and os.path.abspath(words[0]) == interpreter()


def record_interpreter(home: str) -> str:
    """Write $ENGRAM_HOME/python, which plugin/bin/engram-hook runs; its path. The wrapper's
    cached verdicts on interpreters go: an install is when a failed one may have been fixed
    (engram installed into it), so the next hook checks again."""
    from engram.fsio import write_atomic

    path = os.path.join(home, PYTHON_FILE)
    write_atomic(path, (interpreter() + "\n").encode())
    try:
        os.unlink(os.path.join(home, VERDICTS))
    except FileNotFoundError:
        pass
    return path


def write_launcher(home: str) -> str:
    """Write $ENGRAM_HOME/bin/engram-hook, a stable path to engram's hook: what the plugin's
    hooks/hooks.json runs when copied into a settings file, outside a Claude Code plugin (its
    commands fall back from ${CLAUDE_PLUGIN_ROOT} to it). It runs the same command `engram
    install` registers, and, like plugin/bin/engram-hook, never fails the agent when that
    command is gone. Its path."""
    from engram.fsio import write_atomic
    from engram.install import runner_target, runner_words

    path = os.path.join(home, LAUNCHER)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    target = shlex.quote(runner_target())
    script = (
        "#!/bin/sh\n"
        "# Written by `engram install`: engram's hook at a path that does not move (docs/harnesses.md).\n"
        f"export ENGRAM_HOME={shlex.quote(home)}\n"
        f"if [ -x {target} ]; then\n"
        f"  exec {runner_words()} \"$@\"\n"
        "fi\n"
        f"echo \"engram-hook: {target} is gone; run 'engram install' again\" >&2\n"
        "cat >/dev/null\n"
        "exit 0\n")
    write_atomic(path, script.encode(), mode=0o700)
    return path


def recorded_interpreter(home: str) -> str | None:
    """The interpreter `record_interpreter` wrote; None when there is none or something that is
    not a regular file is in its place (a FIFO would block the reader)."""
    from engram.fsio import read_regular

    data = read_regular(os.path.join(home, PYTHON_FILE), 4096, follow=False)
    if data is None:
        return None
    return data.decode("utf-8", "replace").strip() or None


def init_database(project_dir: str) -> tuple[str, int]:
    """Create the project's data dir and engram.db with the current schema: (path, version)."""
    from engram.config import Project
    from engram.graph.connect import connect
    from engram.graph.migrations import schema_version

    project = Project.from_cwd(project_dir).ensure()
    conn = connect(project.db_path, vectors=False)
    try:
        return project.db_path, schema_version(conn)
    finally:
        conn.close()
