"""`engram export` / `engram import` / `engram view`: a project's memory written out (plain files
and back, a section of the harness's memory file, a page).

`engram export [DIR] [--project DIR]` writes DIR (a new or empty directory; default
`$ENGRAM_HOME/exports/<project>-<date>`, never the current directory, which is usually the
user's repository):
manifest.json, events/*.jsonl, episodes/*.episode.json, graph.json (every graph row; what
`engram import` reads) and graph.graphml (for graph tools). Secrets were redacted at
capture, so an export holds none.

`engram import DIR [--project DIR] [--merge]` loads an export into the project at
--project (default: the current directory), which may be a different path or machine
than the exported one: paths in the graph are project-relative. It stops when the target
already holds any exported session or node, unless --merge (then only what is new is
added). Vectors are recomputed by this machine's embedder.

`engram view [--out FILE] [--project DIR]`: a project's memory as one self-contained HTML page.
Knowledge by kind with evidence and payoff, the sessions timeline, what each session was
shown and used, the token ledger (engram/report/view.py). Nothing is loaded from the
network and no server runs: open the file in any browser. Default FILE:
`$ENGRAM_HOME/views/<project>-<id>.html` (never the current directory, usually the user's
repository); the file is replaced atomically.

`engram export --to CLAUDE.md|AGENTS.md|GEMINI.md [--project DIR]` keeps one marked section
of that file in the project current with the pinned and most-used items (the rest of the
file untouched, replaced atomically; harnesses/memory_file.py).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from engram.commands import add_project_option


def add_parser(subparsers: Any) -> None:
    from engram.harnesses.memory_file import TARGETS

    p = subparsers.add_parser(
        "export",
        help="write a project's events, episodes and graph (JSON + GraphML) to a directory; with --to, "
             "engram's section of CLAUDE.md / AGENTS.md / GEMINI.md",
        description="Write a project's events, episodes and graph as plain files.",
        epilog="example: engram export ~/backup/myapp && engram import ~/backup/myapp --project ~/src/myapp",
    )
    p.add_argument("out", nargs="?", default=None,
                   help="a new or empty directory (default: $ENGRAM_HOME/exports/<project>-<date>)")
    p.add_argument("--to", choices=TARGETS, metavar="FILE",
                   help="instead: keep engram's section of the project's CLAUDE.md, AGENTS.md or GEMINI.md current "
                        "(the pinned and most-used items)")
    add_project_option(p)
    p.set_defaults(func=export)
    p = subparsers.add_parser(
        "import",
        help="load an `engram export` directory into a project",
        description="Load an `engram export` directory into a project.",
        epilog="example: engram import ~/backup/myapp --project ~/src/myapp",
    )
    p.add_argument("src", help="a directory written by `engram export`")
    add_project_option(p, "the project to import into (default: the current directory)")
    p.add_argument("--merge", action="store_true", help="add only what the project does not hold yet")
    p.set_defaults(func=import_)
    add_view_parser(subparsers)


def export_dir(args: argparse.Namespace, project: Any) -> str:
    """Where the export goes: DIR, or a new folder under $ENGRAM_HOME/exports; a one-line
    error for a path that is a file or a directory with something in it."""
    from engram.errors import EngramError

    if args.out is None:
        name = f"{os.path.basename(project.root) or 'root'}-{time.strftime('%Y%m%d-%H%M%S')}"
        return os.path.join(project.home, "exports", name)
    out = os.path.abspath(os.path.expanduser(args.out))
    if os.path.exists(out) and not os.path.isdir(out):
        raise EngramError(f"{args.out}: exists and is not a directory; name a new or empty directory")
    if os.path.isdir(out) and os.listdir(out):
        raise EngramError(f"{args.out}: is not empty; name a new or empty directory")
    if not os.path.isdir(os.path.dirname(out)):
        raise EngramError(f"{args.out}: its parent {os.path.dirname(out)} does not exist; create it first")
    return out


def export(args: argparse.Namespace) -> int:
    from engram.config import Project
    from engram.graph.portability import export_project
    from engram.errors import EngramError

    project = Project.from_cwd(args.project or os.getcwd())
    if not os.path.isdir(project.dir):
        raise EngramError(f"engram has no data for {project.root} (nothing captured there yet)")
    if getattr(args, "to", None):
        return export_to(args, project)
    out = export_dir(args, project)
    counts = export_project(project, out)
    print(f"exported {project.root} to {out}: {counts['sessions']} session(s), {counts.get('nodes', 0)} node(s), "
          f"{counts.get('edges', 0)} edge(s), {counts.get('episodes', 0)} episode(s)")
    return 0


def export_to(args: argparse.Namespace, project: Any) -> int:
    """`--to FILE`: the section of the harness's memory file (harnesses/memory_file.py)."""
    from engram.errors import EngramError
    from engram.graph.readonly import open_ro
    from engram.harnesses import memory_file
    from engram.report.items import list_items

    if args.out:
        raise EngramError(f"--to {args.to} writes into the project, not into {args.out}; drop one of the two")
    path = os.path.join(project.root, args.to)
    if os.path.islink(path) or (os.path.lexists(path) and not os.path.isfile(path)):
        raise EngramError(f"{path} is a symlink or not a regular file; engram leaves it alone")
    conn = open_ro(project.db_path)
    rows = []
    if conn is not None:
        try:
            rows = memory_file.select(list_items(conn, project.root))
        finally:
            conn.close()
    changed = memory_file.write(project.root, args.to, memory_file.text(rows))
    print(f"{'updated' if changed else 'already current:'} {path} ({len(rows)} item(s) in engram's section)")
    return 0


def import_(args: argparse.Namespace) -> int:
    from engram.config import Project, load_config
    from engram.graph.portability import import_project
    from engram.providers import registry

    project = Project.from_cwd(args.project or os.getcwd())
    embedder = registry.embedder(load_config(project.home)[0])
    counts = import_project(project, os.path.abspath(args.src), merge=args.merge, embedder=embedder)
    print(f"imported into {project.root}: {counts['sessions']} session(s), {counts.get('nodes', 0)} node(s), "
          f"{counts.get('edges', 0)} edge(s), {counts.get('episodes', 0)} episode(s)")
    return 0


# -- engram view -------------------------------------------------------------------------


def add_view_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("view", help="write a project's memory as one self-contained HTML page",
                              description="Write a project's memory as one self-contained HTML page (docs/curation.md).",
                              epilog="example: engram view --out /tmp/memory.html && xdg-open /tmp/memory.html")
    p.add_argument("--out", metavar="FILE",
                   help="where to write the page (default: $ENGRAM_HOME/views/<project>-<id>.html)")
    add_project_option(p)
    p.set_defaults(func=view)


def build_page(project: Any) -> str:
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
        now = utc_iso(6)
        use["all"] = ledger.totals_since(conn, "", now)  # rows dated ahead left out, as in status
        line = inventory.payoff_line(inventory.payoff(conn))
        html = page({"name": os.path.basename(project.root) or project.root, "root": project.root}, rows, episodes,
                    items.sessions(conn), items.injections_of(conn), use, line, utc_iso(0))
    finally:
        conn.close()
    return html


def view_path(args: argparse.Namespace, project: Any) -> str:
    from engram.errors import EngramError

    if not args.out:
        return os.path.join(project.home, "views", f"{os.path.basename(project.root) or 'root'}-{project.id}.html")
    out = os.path.abspath(os.path.expanduser(args.out))
    if os.path.isdir(out):
        raise EngramError(f"--out {args.out}: is a directory; name a file such as {os.path.join(args.out, 'memory.html')}")
    if not os.path.isdir(os.path.dirname(out)):
        raise EngramError(f"--out {args.out}: its folder {os.path.dirname(out)} does not exist; create it first")
    return out


def view(args: argparse.Namespace) -> int:
    from engram.config import Project
    from engram.errors import EngramError
    from engram.fsio import write_atomic

    project = Project.from_cwd(args.project or os.getcwd())
    if not os.path.exists(project.db_path):
        raise EngramError(f"engram has no memory of {project.root} yet (nothing consolidated there)")
    out = view_path(args, project)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    write_atomic(out, build_page(project).encode("utf-8"), mode=0o644, durable=False)
    print(out)
    return 0
