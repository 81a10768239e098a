"""`engram show` and `engram memory`: look at one node of the graph, or look at and correct one item.

`engram show <node id or name>`: one node with its edges, episodes and history.

`engram memory list|show|edit|pin|unpin|forget`: look at and correct one item at a time.

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
    p = subparsers.add_parser(
        "show",
        help="show one node: description, files, edges, episodes, history",
        description="Show a node of the current project's graph (or --project DIR's) by id or "
        "by name (case and spacing ignored), with its edges, source episodes, supersession "
        "history and trajectory.",
        epilog='examples: engram show "job queue"   engram show n_3f9a0c1d2e4b5a6f --json',
    )
    p.add_argument("node", help="node id or name")
    add_project_option(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)
    add_memory_parser(subparsers)


def _node_lines(n: dict[str, Any]) -> list[str]:
    lines = [f"{n['name']}  [{n['type']}, {n['status']}, strength {n['strength']:.2f}]  {n['id']}"]
    if n.get("superseded_by"):
        lines.append(f"  superseded by {n['superseded_by']}")
    for key in ("summary", "description"):
        if n.get(key):
            lines.append(f"  {n[key]}")
    if n["affected_files"]:
        lines.append("  files: " + ", ".join(n["affected_files"]))
    lines.append(
        f"  evidence: {n['episode_count']} episodes, {n['outcome_success']}/{n['outcome_total']} successful,"
        f" {n['sessions_without_reinforcement']} sessions without reinforcement"
        + (", causal" if n["causal"] else "")
    )
    return lines


def format_report(rep: dict[str, Any]) -> str:
    n = rep["node"]
    lines = _node_lines(n)
    data = {k: v for k, v in (n["data"] or {}).items() if k != "history"}
    if data:
        import json

        lines.append("  data: " + json.dumps(data, sort_keys=True)[:600])
    if rep["edges"]:
        lines.append("edges:")
        for e in rep["edges"]:
            arrow = "->" if e["direction"] == "out" else "<-"
            extra = f"  ({e['data']['reason']})" if e["data"].get("reason") else ""
            lines.append(f"  {arrow} {e['type']:<17} {e['other_name']} [{e['strength']:.2f}] {e['other']}{extra}")
    if rep["episodes"]:
        lines.append("episodes:")
        lines += [f"  {ep['created_at'][:16]} {ep['outcome']:<8} {ep['goal'][:90]}" for ep in rep["episodes"]]
    history = (n["data"] or {}).get("history") or []
    if history:
        lines.append("history:")
        lines += [f"  {h.get('at', '')[:16]} {h.get('event')}: {h.get('reason', '')}" for h in history]
    if rep["trajectory"]:
        lines.append("trajectory (oldest first):")
        lines += [f"  {t['created_at'][:16]} {t['status']:<10} {t['name']}  {t['id']}" for t in rep["trajectory"]]
    if rep["other_matches"]:
        lines.append("other nodes with this name: " + ", ".join(f"{o['id']} ({o['type']}, {o['status']})" for o in rep["other_matches"]))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    import json

    from engram.report.inventory import node_report, resolve_project
    from engram.graph.readonly import open_ro
    from engram.errors import EngramError

    project = resolve_project(args.project)
    conn = open_ro(project.db_path)
    if conn is None:
        where = args.project or os.getcwd()
        raise EngramError(f"no engram database for {where} (expected {project.db_path}); see `engram status`")
    try:
        rep = node_report(conn, args.node)
    finally:
        conn.close()
    print(json.dumps(rep, indent=2) if args.json else format_report(rep))
    return 0


# -- engram memory ----------------------------------------------------------------------

MEMORY_DOC = "List, show, edit, pin, unpin or forget one memory item (docs/curation.md)."


def add_memory_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("memory", help="list, show, edit, pin, unpin or forget one memory item",
                              description=MEMORY_DOC,
                              epilog="examples: engram memory list --kind command   engram memory pin n_3f9a0c1d2e4b5a6f",
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    q = sub.add_parser("list", help="the active items, pinned first, with their payoff")
    q.add_argument("--kind", metavar="K", help="only this kind (command, gotcha, unfinished, instruction, file, "
                                               "command_run, decision, error, ...)")
    q.add_argument("--json", action="store_true", help="print a JSON array")
    add_project_option(q)
    q.set_defaults(func=memory_list)
    q = sub.add_parser("show", help="one item: text, kind, evidence, payoff, pinned, its changes")
    q.add_argument("id")
    q.add_argument("--json", action="store_true", help="print one JSON object")
    add_project_option(q)
    q.set_defaults(func=memory_show)
    q = sub.add_parser("edit", help="replace an item's text (recorded in its log)")
    q.add_argument("id")
    q.add_argument("--text", required=True, help="the new text")
    add_project_option(q)
    q.set_defaults(func=memory_edit)
    for verb, helptext in (("pin", "always inject this item, first in its section"),
                           ("unpin", "let this item be ranked like any other again")):
        q = sub.add_parser(verb, help=helptext)
        q.add_argument("id")
        add_project_option(q)
        q.set_defaults(func=memory_pin, pinned=verb == "pin")
    q = sub.add_parser("forget", help="the same as `engram forget ID`")
    q.add_argument("id")
    q.add_argument("--dry-run", action="store_true", help="show what would be removed, change nothing")
    add_project_option(q)
    q.set_defaults(func=memory_forget)


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


def memory_list(args: argparse.Namespace) -> int:
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


def memory_show(args: argparse.Namespace) -> int:
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


def memory_edit(args: argparse.Namespace) -> int:
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


def memory_pin(args: argparse.Namespace) -> int:
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


def memory_forget(args: argparse.Namespace) -> int:
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
