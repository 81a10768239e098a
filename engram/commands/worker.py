"""`engram worker --project DIR`: the detached consolidation worker the hooks start.

Drains the project's consolidation queue while holding one of its worker slots, then
exits. Output goes to the project log (the hook points stdout/stderr there); run it by
hand to watch a drain in the foreground.
"""

from __future__ import annotations

import argparse
import os
from typing import Any


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "worker",
        help="(internal) drain a project's consolidation queue; the Stop and SessionStart hooks start it",
        description="Consolidate every queued session of one project, then exit.",
    )
    p.add_argument("--project", metavar="DIR", required=True, help="the project's root or data directory")
    p.add_argument("--provider", choices=("offline", "anthropic", "openai"),
                   help="override llmProvider (default: config, offline without a key)")
    p.add_argument("--slot-fd", type=int, help=argparse.SUPPRESS)  # the slot the spawning hook claimed
    p.set_defaults(func=run)


def open_project(path: str | None) -> Any:
    """A Project from its data directory (holding project.json) or from a directory inside it."""
    from engram.config import Project

    path = os.path.abspath(path or os.getcwd())
    if os.path.exists(os.path.join(path, "project.json")):
        return Project.from_dir(path)
    return Project.from_cwd(path).ensure()


def run(args: argparse.Namespace) -> int:
    from engram.config import load_config
    from engram.core.consolidation import drain
    from engram.log import log

    os.nice(10)  # background work: the agent's own processes come first
    project = open_project(args.project)
    cfg, _ = load_config(project.home)
    outcomes = drain(project, cfg, provider=args.provider, slot_fd=args.slot_fd)
    done = sum(1 for o in outcomes if o.status == "consolidated")
    failed = [o.session for o in outcomes if o.status == "failed"]
    log(project.log_path, "worker", f"drained: {done} consolidated, {len(failed)} failed {failed or ''}", "INFO")
    return 1 if failed else 0
