"""`engram forget <node id | text> [--project DIR] [--dry-run]`: remove a piece of knowledge everywhere.

Deletes the node (or every node whose name contains the text) with its edges and vectors,
scrubs every other mention from the graph, the episode records and files, rewrites the
JSONL lines it came from as `forgotten` stubs, drops matching log lines, and leaves a
tombstone so consolidation never re-creates it from old events. The database is vacuumed
afterwards, so no freed page keeps a copy.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from engram.commands import add_project_option


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "forget",
        help="remove a node or a text from the graph, episodes, event files and logs (with a tombstone)",
        description=__doc__.split("\n\n", 1)[0] if __doc__ else None,
        epilog='examples: engram forget n_3f9a0c1d2e4b5a6f   engram forget "staging password"',
    )
    p.add_argument("target", nargs="?", help="a node id, or a text (3+ characters) to forget wherever it appears")
    add_project_option(p)
    p.add_argument("--dry-run", action="store_true", help="show what would be removed, change nothing")
    p.add_argument("--list", action="store_true", help="list the tombstones (what consolidation will not re-create)")
    p.add_argument("--allow", metavar="TEXT", help="remove the tombstone of TEXT, so it may be learned again")
    p.set_defaults(func=run)


def tombstones(project: Any, allow: str | None = None) -> list[str]:
    """The tombstone keys (hashes: the text itself is not kept), after removing `allow`'s."""
    from engram.graph import privacy
    from engram.graph.connect import connect

    if not os.path.exists(project.db_path):
        return []
    conn = connect(project.db_path)
    try:
        if allow:
            privacy.allow(conn, allow)
        return sorted(privacy.tombstoned_terms(conn).keys)
    finally:
        conn.close()


def forget(project: Any, target: str, *, dry_run: bool = False) -> dict[str, Any]:
    """Do the work (tests call this); returns counts and the plan's terms."""
    from engram.graph import privacy
    from engram.consolidate import purge
    from engram.graph.connect import connect

    # created if missing, so the tombstone outlives this run (a dry run looks at nothing real)
    conn = connect(":memory:" if dry_run and not os.path.exists(project.db_path) else project.db_path)
    try:
        p = privacy.plan(conn, target)
        report: dict[str, Any] = {"terms": [target], "nodes": [n["id"] for n in p.delete],
                                  "names": [n["name"] for n in p.delete]}
        if dry_run:
            return report
        report.update(privacy.apply(conn, p))
    finally:
        conn.close()
    lines = 0
    for s in purge.sessions(project):
        lines += purge.purge_session(project, s, p.terms, p.evidence.get(s, set()))
    report["jsonl_lines"] = lines
    report["log_lines"] = purge.purge_text_files(project, p.terms)
    return report


def run(args: argparse.Namespace) -> int:
    from engram.config import Project

    project = Project.from_cwd(args.project or os.getcwd())
    if not os.path.isdir(project.dir):
        print(f"Error: engram has no data for {project.root}", file=sys.stderr)
        return 1
    if args.list or args.allow:
        for term in tombstones(project, args.allow):
            print(term)
        return 0
    if not args.target:
        print("Error: name a node id or a text to forget (or --list / --allow TEXT)", file=sys.stderr)
        return 2
    report = forget(project, args.target, dry_run=args.dry_run)
    names = ", ".join(repr(n) for n in report["names"][:10]) or "no node"
    if args.dry_run:
        print(f"would delete {len(report['nodes'])} node(s) ({names}) and scrub every mention of "
              f"{', '.join(repr(t) for t in report['terms'])}")
        return 0
    print(f"forgot {', '.join(repr(t) for t in report['terms'])}: {report.get('nodes_deleted', 0)} node(s) deleted "
          f"({names}), {report.get('nodes_scrubbed', 0)} scrubbed, {report.get('episodes_scrubbed', 0)} episode "
          f"record(s) scrubbed, {report['jsonl_lines']} event line(s) replaced, {report['log_lines']} log line(s) "
          "removed; a tombstone keeps it from coming back")
    return 0
