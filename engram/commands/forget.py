"""`engram forget <node id | text> [--project DIR] [--dry-run]`: remove a piece of knowledge everywhere.

Deletes the node (or every node whose name contains the text) with its edges and vectors,
scrubs every other mention from the graph (descriptions, summaries, data, other nodes' file
lists and file links, edges, episode records, the agent's replies kept as passages), the
episode files, the session state, queued write checks, the file-to-decision cache and GSD's
KNOWLEDGE.md section, rewrites the JSONL lines it came from as `forgotten` stubs, drops
matching log lines and fault records, and leaves a salted tombstone so consolidation never
re-creates it from old events. The database is vacuumed and its WAL checkpointed, so no freed page
keeps a copy; while another process holds an old snapshot of the database open the WAL cannot
be emptied, and the command says so and exits 1 (run it again once that process is done).
`--dry-run` reports exactly what a real run changes: the counts, the nodes whose text is
scrubbed and every file rewritten or deleted. An id that names no node is an error, not a text
to forget.
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
    from engram.consolidate import purge
    from engram.graph import privacy
    from engram.graph.connect import connect
    from engram.harnesses import gsd_knowledge

    # created if missing, so the tombstone outlives this run (a dry run looks at nothing real)
    conn = connect(":memory:" if dry_run and not os.path.exists(project.db_path) else project.db_path)
    try:
        p = privacy.plan(conn, target)
        report: dict[str, Any] = {"terms": [target], "nodes": [n["id"] for n in p.delete],
                                  "names": [n["name"] for n in p.delete]}
        report.update(privacy.apply(conn, p, dry_run=dry_run))
    finally:
        conn.close()
    lines, files = 0, [project.db_path]  # tombstones at least, and vacuumed
    for s in purge.sessions(project):
        n, rewritten = purge.purge_session(project, s, p.terms, p.evidence.get(s, set()), dry_run=dry_run)
        lines, files = lines + n, files + rewritten
    report["jsonl_lines"] = lines
    report["log_lines"], rewritten = purge.purge_text_files(project, p.terms, dry_run=dry_run)
    report["knowledge_lines"] = _gsd_section(project, p.terms, dry_run)
    report["files"] = files + rewritten + ([os.path.join(project.root, gsd_knowledge.REL_PATH)]
                                           if report["knowledge_lines"] else [])
    return report


def _gsd_section(project: Any, terms: Any, dry_run: bool) -> int:
    """Lines of GSD's `.gsd/KNOWLEDGE.md` engram section that mention a term (removed)."""
    from engram.graph.privacy import contains
    from engram.harnesses import gsd_knowledge

    return gsd_knowledge.drop_lines(project.root, lambda line: contains(line, terms), dry_run=dry_run)


def _summary(report: dict[str, Any], dry_run: bool) -> str:
    """The counts on one line, then every node scrubbed and every file rewritten or deleted
    by name: a dry run says exactly what the real run will touch."""
    names = ", ".join(repr(n) for n in report["names"][:10]) or "no node"
    verb = "would forget" if dry_run else "forgot"
    head = (f"{verb} {', '.join(repr(t) for t in report['terms'])}: {report.get('nodes_deleted', 0)} node(s) deleted "
            f"({names}), {report.get('nodes_scrubbed', 0)} scrubbed, {report.get('file_links_removed', 0)} file "
            f"link(s) removed, {report.get('edges_scrubbed', 0)} edge(s) and {report.get('episodes_scrubbed', 0)} "
            f"episode record(s) scrubbed, {report['jsonl_lines']} event line(s) replaced, {report['log_lines']} log "
            f"line(s), fault or queued check(s) removed, {report['knowledge_lines']} KNOWLEDGE.md line(s) removed; "
            + ("nothing was changed" if dry_run else "a tombstone keeps it from coming back"))
    scrubbed = [f"{'would scrub' if dry_run else 'scrubbed'} the text of: " + ", ".join(
        repr(n) for n in report.get("scrubbed", []))] if report.get("scrubbed") else []
    files = [f"{'would rewrite or delete' if dry_run else 'rewrote or deleted'} {len(report['files'])} file(s):"]
    return "\n".join([head, *scrubbed, *files, *(f"  {f}" for f in report["files"])])


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
    print(_summary(report, args.dry_run))
    if not args.dry_run and not report.get("checkpointed", 1):
        print(f"Error: another process holds {project.db_path} open on an old snapshot, so its write-ahead log "
              "(engram.db-wal) still holds the forgotten text; run the same `engram forget` again once it is "
              "done (a hook or worker finishes in seconds; `engram mcp` or a query shell must be closed)",
              file=sys.stderr)
        return 1
    return 0
