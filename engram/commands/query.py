"""`engram query "question" [--scope current_project|all] [--json]`: ask the project memory.

The same retrieval the MCP tool `query_knowledge` runs (engram.retrieve.query), for a person
at a terminal or a script. Text output is the tiered context an agent would see; --json
prints one object per hit (id, name, type, activation, tier, files, why, project, line), its
text fields inert like the text output's (a script may paste them into a prompt).
"""

from __future__ import annotations

import argparse
import os

from engram.commands import add_project_option


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "query",
        help="ask the project memory a question (what query_knowledge answers)",
        description=__doc__.split("\n\n", 1)[0] if __doc__ else None,
        epilog='example: engram query "why does retry cap at 3?" --scope all --json',
    )
    p.add_argument("question", help="free text; file paths and names in it become entry points")
    p.add_argument("--scope", choices=("current_project", "all"), default="current_project",
                   help="this project (from --project) or every project engram knows (default: %(default)s)")
    p.add_argument("--json", action="store_true", help="print hits as a JSON array")
    add_project_option(p)
    p.add_argument("--limit", type=int, default=20, help="max hits with --json (default: %(default)s)")
    p.add_argument("--budget", type=int, default=None,
                   help="token budget of the text output (default: 2 x tokenBudget from config)")
    p.add_argument("--no-vectors", action="store_true", help="skip embedding seeds")
    p.set_defaults(func=run)


def query(args: argparse.Namespace) -> tuple[str, int]:
    """(what to print, exit code); separate from run() so tests need no capsys."""
    from engram import config, jsonio
    from engram.retrieve import query as core

    cfg, _ = config.load_config()
    hits, notes = core.run(args.question, args.project or os.getcwd(), scope=args.scope, cfg=cfg,
                           vectors=not args.no_vectors, embedder=lambda model: _embedder(cfg, model))
    if args.json:
        return jsonio.dumps([core.json_row(h) for h in hits[: max(0, args.limit)]]), 0
    budget = args.budget if args.budget is not None else 2 * int(cfg["tokenBudget"])
    text = core.format_text(args.question, hits, budget, args.scope)
    if notes:
        text += "\n" + "\n".join(f"({n})" for n in notes)
    return text, 0


def _embedder(cfg: dict, model: str):
    """The embedder of the question, built only when the graph has vectors (of `model`): the
    local model's own function when they are its vectors (it needs no key, no network, no
    consent, and spares the registry's import), else the configured one
    (engram.providers.registry)."""
    from engram.graph import vectors

    if model == vectors.LOCAL_MODEL:
        return vectors.LocalQuestion()
    from engram.providers import registry

    return registry.embedder(cfg)


def run(args: argparse.Namespace) -> int:
    out, code = query(args)
    print(out)
    return code
