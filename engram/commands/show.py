"""`engram show <node id or name>`: one node with its edges, episodes and history."""

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
