"""One module per `engram` verb (install and uninstall share one; export, import and view, the
memory written out, share one; show and memory, looking at one node or item, share one).

Each module exposes `add_parser(subparsers)`, which registers its verb(s) with
`set_defaults(func=...)`, and the functions behind them, `run(args) -> int`; heavy imports
stay inside those functions. `cli.py` lists the modules. The helpers below: the one
`--project` option every verb that works on a project takes, the one `--provider`, and the
`engram` command line a hint should print.
"""

from __future__ import annotations

import argparse


def add_project_option(p: argparse.ArgumentParser, help: str = "the project directory (default: the current directory)",
                       **kw) -> None:
    """`--project DIR` (dest `project`), with `--cwd` kept as a hidden alias of earlier versions."""
    p.add_argument("--project", metavar="DIR", help=help, **kw)
    p.add_argument("--cwd", dest="project", help=argparse.SUPPRESS)


def add_provider_option(p: argparse.ArgumentParser, help: str) -> None:
    """`--provider P`: one of the registry's chat providers (engram/providers/registry.py)."""
    from engram.providers.registry import CHOICES

    p.add_argument("--provider", choices=CHOICES, metavar="{" + ",".join(CHOICES) + "}", help=help)


def engram_command() -> str:
    """How a shell runs this installation of engram: `engram` when that is what PATH finds
    (not another tool's command of that name), else the absolute path of the script next to
    this interpreter (after `make`, .venv/bin is not on PATH), else `python -m engram`."""
    import shlex
    import shutil

    from engram.install import setup

    found = shutil.which("engram")
    if found and setup.runs_this(found):
        return "engram"
    script = setup.own_command()
    return shlex.quote(script) if script else f"{shlex.quote(setup.interpreter())} -m engram"


def runnable(text: str) -> str:
    """`text` with each command in backquotes that starts with `engram ` written the way
    this shell can run it (engram_command)."""
    command = engram_command()
    return text if command == "engram" else text.replace("`engram ", f"`{command} ")
