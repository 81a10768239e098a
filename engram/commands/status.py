"""`engram status [--json] [--project DIR]`: projects, sessions, graph counts, sizes, vectors, the payoff
(what the last sessions were shown and used: docs/curation.md),
who consolidates and why, and the model-call ledger: today's and the last 7 days' tokens and
cost per provider."""

from __future__ import annotations

import argparse
from typing import Any

from engram.commands import add_project_option


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "status",
        help="show projects, sessions, graph counts, database size and the vector path",
        description="Show every project engram knows (or one, with --project): sessions, node / "
        "edge / episode counts by type and status, database size, embedding model and vector path.",
        epilog="examples: engram status --project .   engram status --session 3f2a9c1e --json",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_project_option(p, "only this project (its root or data directory)")
    p.add_argument("--session", metavar="ID", help="one session's metacognitive metrics and contradiction checker")
    p.set_defaults(func=run)


def _mb(n: int) -> str:
    return f"{n / 1e6:.2f} MB" if n >= 100_000 else f"{n / 1e3:.0f} kB"


def _by_type(nodes: dict[str, dict[str, int]]) -> str:
    parts = []
    for t, by_status in sorted(nodes.items()):
        sup = by_status.get("superseded", 0)
        parts.append(f"{t} {sum(by_status.values())}" + (f" ({sup} superseded)" if sup else ""))
    return ", ".join(parts) or "none"


def model_lines(m: dict[str, Any]) -> list[str]:
    """Who consolidates here and why, what the worker last used (it runs in the harness's
    environment), the daily budget, today's and the last 7 days' model use."""
    from engram import worker_use

    limit = m["daily_token_budget"]
    budget = f"; budget {limit:,} tokens a day per provider" if m["provider"] != "offline" else ""
    lines = [f"models       {m['provider']} ({m['why']}){budget}"]
    if m.get("worker"):
        lines.append(f"worker       last used {worker_use.text(m['worker'])}")
    if not m["use"]["last_7_days"]:
        return lines + ["model use    none in the last 7 days"]
    for window, label in (("today", "today"), ("last_7_days", "last 7 days")):
        use = m["use"][window]
        for i, (provider, u) in enumerate(sorted(use.items())):
            cost = f", ${u['cost_usd']:.4f} reported" if u.get("cost_usd") is not None else ""
            failed = f" ({u['failed']} failed)" if u.get("failed") else ""
            share = ""
            if window == "today":
                spent = (m["spent_today_all_projects"].get(provider) or {}).get("tokens", 0)
                share = f", {spent * 100 // max(1, limit)}% of today's budget"
            head = f"model use    {label:<12}" if i == 0 else " " * 25
            calls = f"{u['calls']} call{'s' * (u['calls'] != 1)}"
            lines.append(f"{head}{provider}: {calls}{failed}, {u['tokens']:,} tokens{share}{cost}")
        if not use:
            lines.append(f"model use    {label:<12}none")
    return lines


def format_status(data: dict[str, Any], configured: set[str] = frozenset()) -> str:
    """The status as text; why the embedder fell back is said only when the user chose
    the provider (`configured`: config.json's keys), never for a default without its key."""
    from engram.report.inventory import payoff_line

    emb = data["embedder"]
    why = emb.get("fallback_reason") if "embeddingProvider" in configured else None
    lines = [
        f"engram home  {data['home']}",
        f"embeddings   {emb['provider']} {emb['model']} ({emb['dim']} dims)" + (f" - {why}" if why else ""),
        f"vectors      {data['vector_path']}",
    ]
    lines += model_lines(data["models"])
    lines += [f"warning      {w}" for w in data.get("config_warnings", [])]
    if not data["projects"]:
        lines.append("no projects yet: engram records a project the first time a hook runs in it")
    for p in data["projects"]:
        lines.append("")
        lines.append(f"{p['name']}  {p['root']}")
        db = p["db"]
        if not db["exists"] and "error" not in p:
            lines.append(f"  sessions {p['sessions']} - no database yet")
            continue
        lines.append(
            f"  sessions {p['sessions']} - database {_mb(db['bytes'])}, schema v{db.get('schema_version', '?')}"
            + (f" ({len(db['pending_migrations'])} migrations pending)" if db.get("pending_migrations") else "")
        )
        if "error" in p:
            lines.append(f"  error: {p['error']}")
            continue
        lines.append(f"  nodes {p['nodes_total']}: {_by_type(p['nodes'])}")
        edges = ", ".join(f"{t} {n}" for t, n in sorted(p["edges"].items())) or "none"
        lines.append(f"  edges {p['edges_total']}: {edges}")
        eps = ", ".join(f"{o} {n}" for o, n in sorted(p["episodes"].items())) or "none"
        lines.append(f"  episodes {p['episodes_total']}: {eps}")
        if "payoff" in p:
            lines.append(f"  {payoff_line(p['payoff'])}")
        e = p.get("embeddings") or {}
        if e.get("model"):
            lines.append(f"  embedded {e['embedded']} with {e['model']} ({e['dim']}), {e['stale']} pending, {e['index']}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "session", None):
        from engram.monitor.metacognitive import session_status

        print(session_status(args.project, args.session, args.json))
        return 0
    import json

    from engram.config import user_keys
    from engram.report.inventory import status

    data = status(args.project)
    print(json.dumps(data, indent=2) if args.json else format_status(data, user_keys()))
    return 1 if any("error" in p for p in data["projects"]) else 0
