"""`engram view [--out FILE] [--project DIR]`: a project's memory as one self-contained HTML page.

Knowledge by kind with evidence and payoff, the sessions timeline, what each session was
shown and used, the token ledger (engram/report/view.py). Nothing is loaded from the
network and no server runs: open the file in any browser. Default FILE:
`$ENGRAM_HOME/views/<project>.html` (never the current directory, usually the user's
repository); the file is replaced atomically.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from engram.commands import add_project_option


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("view", help="write a project's memory as one self-contained HTML page",
                              description=__doc__.split("\n\n", 1)[0] if __doc__ else None,
                              epilog="example: engram view --out /tmp/memory.html && xdg-open /tmp/memory.html")
    p.add_argument("--out", metavar="FILE", help="where to write the page (default: $ENGRAM_HOME/views/<project>.html)")
    add_project_option(p)
    p.set_defaults(func=run)


def build(project: Any) -> str:
    """The page's HTML for one project (reads only)."""
    from engram.clock import utc_iso
    from engram.graph import items, ledger, store
    from engram.graph.readonly import open_ro
    from engram.report import inventory
    from engram.report.items import list_items
    from engram.report.view import page

    conn = open_ro(project.db_path)
    try:
        rows = list_items(conn, project.root)
        episodes = [n for n in store.list_nodes(conn, type="episode", status="active")]
        episodes.sort(key=lambda n: str(n.get("created_at") or ""), reverse=True)
        use = inventory.model_use([project])
        use["all"] = ledger.totals_since(conn, "")
        line = inventory.payoff_line(inventory.payoff(conn))
        html = page({"name": os.path.basename(project.root) or project.root, "root": project.root}, rows, episodes,
                    items.sessions(conn), items.injections_of(conn), use, line, utc_iso(0))
    finally:
        conn.close()
    return html


def out_path(args: argparse.Namespace, project: Any) -> str:
    from engram.errors import EngramError

    if not args.out:
        return os.path.join(project.home, "views", f"{os.path.basename(project.root) or 'root'}-{project.id}.html")
    out = os.path.abspath(os.path.expanduser(args.out))
    if os.path.isdir(out):
        raise EngramError(f"--out {args.out}: is a directory; name a file such as {os.path.join(args.out, 'memory.html')}")
    if not os.path.isdir(os.path.dirname(out)):
        raise EngramError(f"--out {args.out}: its folder {os.path.dirname(out)} does not exist; create it first")
    return out


def run(args: argparse.Namespace) -> int:
    from engram.config import Project
    from engram.errors import EngramError
    from engram.fsio import write_atomic

    project = Project.from_cwd(args.project or os.getcwd())
    if not os.path.exists(project.db_path):
        raise EngramError(f"engram has no memory of {project.root} yet (nothing consolidated there)")
    out = out_path(args, project)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    write_atomic(out, build(project).encode("utf-8"), mode=0o644, durable=False)
    print(out)
    return 0
