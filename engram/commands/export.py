"""`engram export [DIR] [--cwd DIR]`: a project's events, episodes and graph as plain files.

Writes DIR (default `engram-export-<project>-<date>`): manifest.json, events/*.jsonl,
episodes/*.episode.json, graph.json (every graph row; what `engram import` reads) and
graph.graphml (for graph tools). Secrets were redacted at capture, so an export holds none.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "export",
        help="write a project's events, episodes and graph (JSON + GraphML) to a directory",
        description=__doc__.split("\n\n", 1)[0] if __doc__ else None,
        epilog="example: engram export ~/backup/myapp && engram import ~/backup/myapp --cwd ~/src/myapp",
    )
    p.add_argument("out", nargs="?", default=None, help="directory to create (default: ./engram-export-<project>-<date>)")
    p.add_argument("--cwd", default=None, help="project directory (default: the current directory)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engram.config import Project
    from engram.core.portability import export_project
    from engram.errors import EngramError

    project = Project.from_cwd(args.cwd or os.getcwd())
    if not os.path.isdir(project.dir):
        raise EngramError(f"engram has no data for {project.root} (nothing captured there yet)")
    out = args.out or f"engram-export-{os.path.basename(project.root) or 'root'}-{time.strftime('%Y%m%d-%H%M%S')}"
    counts = export_project(project, os.path.abspath(out))
    print(f"exported {project.root} to {out}: {counts['sessions']} session(s), {counts.get('nodes', 0)} node(s), "
          f"{counts.get('edges', 0)} edge(s), {counts.get('episodes', 0)} episode(s)")
    return 0
