"""`engram consolidate [--session ID | --all | --redo ID] [--provider P] [--project DIR] [--json]`, in the foreground.

For backfills and debugging: the same consolidation the background worker runs, with
progress on stderr and one summary line per session on stdout (--json: one object per
session). Without --session or --all it consolidates every session of the project that
NEEDS_CONSOLIDATION (the same as --all). A session the project has never captured is an
error. A session whose model answers were unusable is consolidated offline from then on
(consolidate/worker.py); `--redo ID` lets the model try that session again: its pending
events now, its later ones as they come (what was consolidated offline stays).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from engram.commands import add_project_option, add_provider_option


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "consolidate",
        help="consolidate captured sessions now, in the foreground (backfills, debugging)",
        description="Consolidate sessions into episodes and the knowledge graph, showing progress. "
        "Example: engram consolidate --session abc123 --provider offline",
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument("--session", metavar="ID", help="only this session")
    which.add_argument("--all", action="store_true", help="every session that needs consolidation (default)")
    which.add_argument("--redo", metavar="ID", help="ask the model again for a session whose answers were unusable")
    add_provider_option(p, "override llmProvider (anthropic/openai need their API key, a harness CLI its login)")
    add_project_option(p)
    p.add_argument("--json", action="store_true", help="print one JSON object per session")
    p.set_defaults(func=run)


def _line(o: Any) -> str:
    from engram.consolidate.worker import counts_text

    if o.status in ("consolidated", "recovered") and o.episode_id:
        u = o.usage or {}
        return (f"{o.session}: {o.status} seq {o.from_seq}-{o.to_seq} ({o.kind}, {o.provider}) -> "
                f"{o.episode_id}; {counts_text(o.counts)}; tokens {u.get('input_tokens', 0)}+{u.get('output_tokens', 0)}")
    if o.status == "failed":
        return f"{o.session}: FAILED ({o.error}); it stays queued"
    if o.status == "busy":
        return f"{o.session}: busy (a worker holds it); try again in a moment"
    return f"{o.session}: {o.status} (up to seq {o.to_seq})"


def _redo(project: Any, session: str) -> None:
    """Forget that the model's answers for `session` were unusable, saying so."""
    from engram.consolidate.worker import forget_unusable

    if forget_unusable(project, session):
        print(f"{session}: the model is asked again for this session", file=sys.stderr)
    else:
        print(f"{session}: no unusable answers recorded; consolidating it as usual", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from engram.commands.worker import open_project
    from engram.config import load_config, safe_name
    from engram.errors import EngramError
    from engram.consolidate import trigger, worker
    from engram.providers import registry

    project = open_project(args.project)
    cfg, warnings = load_config(project.home)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    models = registry.consolidation(cfg, args.provider, project=project)  # a missing key is the user's to fix: one line, exit 1
    args.session = args.session or args.redo
    if args.session:
        sessions = [safe_name(args.session)]
    else:  # every session with new events, and every one a lost or replaced engram.db no longer holds
        pending = trigger.pending_sessions(project)
        sessions = pending + [s for s in trigger.lost_in_graph(project) if s not in pending]
    if args.session and not os.path.exists(project.events_path(sessions[0])):
        raise EngramError(f"no session {args.session!r} in {project.root} ({project.events_path(sessions[0])} "
                          "does not exist); `engram consolidate` without --session takes every pending one")
    if args.redo:
        _redo(project, sessions[0])
    if not sessions:
        print("[]" if args.json else "nothing to consolidate")
        return 0

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    failed, rows = 0, []
    for i, s in enumerate(sessions, 1):
        say(f"[{i}/{len(sessions)}] {s}")
        o = worker.consolidate_session(project, s, cfg, models, progress=say, lock_timeout=120)
        failed += o.status in ("failed", "busy")
        if args.json:
            import dataclasses

            rows.append(dataclasses.asdict(o))
        else:
            print(_line(o), flush=True)
    if args.json:
        import json

        print(json.dumps(rows, indent=2))
    return 1 if failed else 0
