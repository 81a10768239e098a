"""One module per `engram` verb (install and uninstall share one, as export and import do).

Each module exposes `add_parser(subparsers)`, which registers its verb(s) with
`set_defaults(func=...)`, and the functions behind them, `run(args) -> int`; heavy imports
stay inside those functions. `cli.py` lists the modules. The helpers below are the one
`--project` option every verb that works on a project takes, and the one `--provider`.
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
