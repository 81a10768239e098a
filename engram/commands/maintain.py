"""`engram maintain [--project DIR] [--dry-run] [--json]`: nightly graph upkeep (cron-safe).

Decay catch-up and strength recomputation, the cross-episode pattern scan, rename
following and supersession of nodes whose files existed and are gone (never of a file
this project never had), pending embeddings. Safe while
hooks and workers run (short transactions, WAL); idempotent; exits non-zero only when a
project's database could not be maintained.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from engram.commands import add_project_option


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "maintain",
        help="pattern scan, strength decay, supersede nodes whose files are gone (for cron)",
        description="Maintain every project's graph (or one, with --project): count sessions for "
        "activity-relative decay and recompute strengths, create pattern nodes for nodes with 3+ "
        "edges of one type, follow git renames and supersede nodes whose files were deleted. "
        "Example cron line:  0 3 * * *  engram maintain",
    )
    add_project_option(p, "only this project (its root or data directory)")
    p.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")
    p.add_argument("--json", action="store_true", help="print the reports as JSON")
    p.set_defaults(func=run)


class _Progress:
    """Step names on stderr, only once a run has taken more than a moment."""

    def __init__(self, label: str, after: float = 1.0):
        self.label, self.after, self.start = label, after, time.monotonic()
        self.tty = sys.stderr.isatty()
        self.shown = False

    def __call__(self, step: str) -> None:
        if time.monotonic() - self.start < self.after:
            return
        self.shown = True
        end = "" if self.tty else "\n"
        print(f"\rmaintain: {self.label}: {step}...\033[K" if self.tty else f"maintain: {self.label}: {step}...",
              end=end, file=sys.stderr, flush=True)  # fmt: skip

    def done(self) -> None:
        if self.shown and self.tty:
            print("\r\033[K", end="", file=sys.stderr, flush=True)


def summary_line(rep: Any) -> str:
    parts = []
    if rep.sessions_counted:
        parts.append(f"decay +{rep.sessions_counted} sessions")
    if rep.strength_changed:
        parts.append(f"{rep.strength_changed} strengths changed")
    if rep.patterns_created or rep.patterns_updated:
        parts.append(f"patterns +{rep.patterns_created} new, {rep.patterns_updated} updated")
    parts.append(f"{rep.files_checked} files checked")
    if rep.links_renamed:
        parts.append(f"{rep.links_renamed} links renamed")
    if rep.nodes_superseded:
        parts.append(f"{rep.nodes_superseded} superseded")

    if rep.embedded or rep.vectors_purged:
        parts.append(f"{rep.embedded} embedded, {rep.vectors_purged} vectors purged")
    head = "no changes" if not rep.changes() else ", ".join(parts)
    if rep.nodes_unseen:
        head += f", {rep.nodes_unseen} kept (their files were never seen in this project)"
    return f"{head} ({rep.seconds:.1f} s)"


def _one(project: Any, args: argparse.Namespace, cfg: dict[str, Any]) -> Any:
    import os

    from engram.graph.maintenance import maintain
    from engram.graph.connect import connect
    from engram.providers import registry

    conn = connect(project.db_path)
    try:
        embedder = None if args.dry_run else registry.embedder(cfg, conn)
        progress = _Progress(project.root)
        try:
            return maintain(conn, root=project.root, embedder=embedder, dry_run=args.dry_run, progress=progress,
                            events_dir=os.path.join(project.dir, "events"))
        finally:
            progress.done()
    finally:
        conn.close()


def run(args: argparse.Namespace) -> int:
    import json
    import os

    from engram.config import load_config
    from engram.report.inventory import select_projects
    from engram.graph.connect import db_errors
    from engram.log import log

    cfg, _warnings = load_config()
    projects = [p for p in select_projects(args.project) if os.path.exists(p.db_path)]
    if args.project and not projects:
        print(f"maintain: no engram database for {args.project}; nothing to do")
        return 0
    failed, out = 0, []
    print(f"maintain: {len(projects)} project(s){' (dry run: nothing is written)' if args.dry_run else ''}",
          file=sys.stderr if args.json else sys.stdout)  # fmt: skip
    for project in projects:
        name = os.path.basename(project.root) or project.root
        try:
            rep = _one(project, args, cfg)
        except db_errors() + (OSError,) as exc:
            failed += 1
            log(project.log_path, "maintain", f"failed: {exc}")
            out.append({"project": project.root, "error": str(exc)})
            if not args.json:
                print(f"  {name:<24} FAILED: {exc} (database {project.db_path})")
            continue
        if not args.dry_run:
            log(project.log_path, "maintain", summary_line(rep), "INFO")
        out.append({"project": project.root, **rep.as_dict()})
        if not args.json:
            print(f"  {name:<24} {summary_line(rep)}")
            for w in rep.warnings:
                print(f"  {'':<24} warning: {w}")
    if args.json:
        print(json.dumps(out, indent=2))
    return 1 if failed else 0
