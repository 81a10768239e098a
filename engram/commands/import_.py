"""`engram import DIR [--cwd DIR] [--merge]`: load an `engram export` into a project.

The target is the project at --cwd (default: the current directory), which may be a
different path or machine than the exported one: paths in the graph are project-relative.
Stops when the target already holds any exported session or node, unless --merge (then
only what is new is added). Vectors are recomputed by this machine's embedder.
"""

from __future__ import annotations

import argparse
import os
from typing import Any


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "import",
        help="load an `engram export` directory into a project",
        description=__doc__.split("\n\n", 1)[0] if __doc__ else None,
        epilog="example: engram import ~/backup/myapp --cwd ~/src/myapp",
    )
    p.add_argument("src", help="a directory written by `engram export`")
    p.add_argument("--cwd", default=None, help="project directory to import into (default: the current directory)")
    p.add_argument("--merge", action="store_true", help="add only what the project does not hold yet")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engram.config import Project
    from engram.core.portability import import_project

    project = Project.from_cwd(args.cwd or os.getcwd())
    counts = import_project(project, os.path.abspath(args.src), merge=args.merge)
    print(f"imported into {project.root}: {counts['sessions']} session(s), {counts.get('nodes', 0)} node(s), "
          f"{counts.get('edges', 0)} edge(s), {counts.get('episodes', 0)} episode(s)")
    return 0
