"""`engram memory list|show|edit|pin|unpin|forget`: look at and correct one item at a time.

`list [--kind K] [--json]` the live items (pinned first, then strongest) with their payoff;
`show ID [--json]` one item: text, kind, evidence (and whether it still holds), payoff,
pinned, its changes; `edit ID --text TEXT` replaces its text; `pin ID` / `unpin ID` (a
pinned item is always injected at SessionStart, first in its section, and never fades);
`forget ID` is `engram forget ID`. Every change is a row of the item's curation log
(`show` lists them); `forget` leaves its tombstone. An id that names no item is a one-line
error and exit 1 (docs/curation.md).
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from engram.commands import add_project_option


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("memory", help="list, show, edit, pin, unpin or forget one memory item",
                              description=__doc__.split("\n\n", 1)[0] if __doc__ else None,
                              epilog="examples: engram memory list --kind command   engram memory pin n_3f9a0c1d2e4b5a6f",
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    q = sub.add_parser("list", help="the live items, pinned first, with their payoff")
    q.add_argument("--kind", metavar="K", help="only this kind (command, gotcha, unfinished, instruction, file, "
                                               "command_run, decision, error, ...)")
    q.add_argument("--json", action="store_true", help="print a JSON array")
    add_project_option(q)
    q.set_defaults(func=list_)
    q = sub.add_parser("show", help="one item: text, kind, evidence, payoff, pinned, its changes")
    q.add_argument("id")
    q.add_argument("--json", action="store_true", help="print one JSON object")
    add_project_option(q)
    q.set_defaults(func=show)
    q = sub.add_parser("edit", help="replace an item's text (recorded in its log)")
    q.add_argument("id")
    q.add_argument("--text", required=True, help="the new text")
    add_project_option(q)
    q.set_defaults(func=edit)
    for verb, helptext in (("pin", "always inject this item, first in its section"),
                           ("unpin", "let this item be ranked like any other again")):
        q = sub.add_parser(verb, help=helptext)
        q.add_argument("id")
        add_project_option(q)
        q.set_defaults(func=pin, pinned=verb == "pin")
    q = sub.add_parser("forget", help="the same as `engram forget ID`")
    q.add_argument("id")
    q.add_argument("--dry-run", action="store_true", help="show what would be removed, change nothing")
    add_project_option(q)
    q.set_defaults(func=forget)


def _project(args: argparse.Namespace) -> Any:
    from engram.config import Project
    from engram.errors import EngramError

    project = Project.from_cwd(args.project or os.getcwd())
    if not os.path.exists(project.db_path):
        raise EngramError(f"engram has no memory of {project.root} yet (nothing consolidated there)")
    return project


def _read(project: Any) -> Any:
    from engram.graph.readonly import open_ro

    return open_ro(project.db_path)


def _write(project: Any) -> Any:
    from engram.graph.connect import connect

    return connect(project.db_path)


def list_(args: argparse.Namespace) -> int:
    import json

    from engram.report.items import list_items

    project = _project(args)
    conn = _read(project)
    try:
        rows = list_items(conn, project.root, args.kind)
    finally:
        conn.close()
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("no items" + (f" of kind {args.kind}" if args.kind else ""))
    for r in rows:
        flags = "".join((" pinned" if r["pinned"] else "", " faded" if r["faded"] else "",
                         " expired" if r["evidence"].get("holds") is False else ""))
        print(f"{r['id']}  {r['kind']:<12} {r['strength']:.2f}  used {r['used']}/{r['injected']}{flags}  "
              f"{r['name'][:90]}")
    return 0


def show(args: argparse.Namespace) -> int:
    import json

    from engram.report.items import get_item

    project = _project(args)
    conn = _read(project)
    try:
        item = get_item(conn, args.id, project.root)
    finally:
        conn.close()
    if args.json:
        print(json.dumps(item, indent=2))
        return 0
    ev = item["evidence"]
    holds = {None: "not checked", True: "holds", False: f"no longer holds: {ev.get('broken')}"}[ev["holds"]]
    lines = [f"{item['id']}  {item['kind']} ({item['type']}, {item['status']}), strength {item['strength']:.2f}"
             + (", pinned" if item["pinned"] else "") + (", faded" if item["faded"] else ""),
             f"name      {item['name']}", f"text      {item['text']}",
             f"payoff    injected {item['injected']}, used {item['used']}, last used {item['last_used'] or 'never'}",
             f"evidence  session {ev['session'] or '?'}, events {ev['seqs'] or '?'}; "
             + ("; ".join(ev["needs"]) or "needs nothing of the files") + f" ({holds})"]
    lines += [f"files     {', '.join(item['files'])}"] if item["files"] else []
    lines += [f"change    {c['at']} {c['action']}" for c in item["changes"]]
    print("\n".join(lines))
    return 0


def edit(args: argparse.Namespace) -> int:
    from engram.errors import EngramError
    from engram.graph import items, store
    from engram.report.items import live_item

    text = " ".join(str(args.text).split())
    if not text:
        raise EngramError("--text is empty; give the item's new text")
    project = _project(args)
    conn = _write(project)
    try:
        with store.transaction(conn):
            node = live_item(conn, args.id)
            store.update_node(conn, node["id"], description=text, summary="")
            items.log_change(conn, node["id"], "edit", {"old": node["description"], "new": text}, store.now())
    finally:
        conn.close()
    print(f"edited {args.id}: its text is now {text!r}")
    return 0


def pin(args: argparse.Namespace) -> int:
    from engram.graph import items, store
    from engram.report.items import live_item

    project = _project(args)
    conn = _write(project)
    verb = "pinned" if args.pinned else "unpinned"
    try:
        with store.transaction(conn):
            node = live_item(conn, args.id)
            changed = items.set_pinned(conn, node["id"], args.pinned)
            if changed:
                items.log_change(conn, node["id"], "pin" if args.pinned else "unpin", {}, store.now())
    finally:
        conn.close()
    print(f"{verb} {args.id}" + ("" if changed else f" (it already was {verb})") + f": {node['name'][:90]}")
    return 0


def forget(args: argparse.Namespace) -> int:
    from engram.commands import forget as forget_cmd
    from engram.graph import store
    from engram.report.items import live_item

    project = _project(args)
    conn = _read(project)
    try:
        if store.get_node(conn, args.id) is None:
            live_item(conn, args.id)  # raises the one-line error
    finally:
        conn.close()
    return forget_cmd.run(argparse.Namespace(project=project.root, target=args.id, dry_run=args.dry_run,
                                             list=False, allow=None))
