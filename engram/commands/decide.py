"""`engram decide "..." --rationale "..." --files a,b`: record an explicit decision.

The decision is written into the graph at once (a short transaction: a query finds it
before any consolidation, and it supersedes what it replaces), and recorded as a
`decision` event: an agent runs this through its shell tool and the PostToolUse hook
records the event in that session (an agent's shell is told apart by the variables
harnesses set in it: CLAUDECODE, GEMINI_CLI, CODEX_SANDBOX*); run by a person, the event
is appended to the project's `cli` session. Its consolidation attaches the episode.
"""

from __future__ import annotations

import argparse
import os

from engram.commands import add_project_option


def add_parser(sub) -> None:
    p = sub.add_parser("decide", help="record an explicit decision (content, rationale, affected files)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog='example: engram decide "Use SQLite for the job queue" --rationale "no server" '
                              '--files src/queue.py')
    p.add_argument("content", help='the decision, e.g. "Use SQLite for the job queue"')
    p.add_argument("--rationale", "-r", default="", help="why")
    p.add_argument("--files", "-f", default="", help="comma-separated affected files")
    add_project_option(p)
    p.set_defaults(func=run)


def in_agent_shell(env: dict) -> bool:
    return bool(env.get("CLAUDECODE") or env.get("GEMINI_CLI")
                or any(k.startswith("CODEX_SANDBOX") for k in env))


def run(args) -> int:
    from engram import lifecycle
    from engram.consolidate import graph_apply
    from engram.errors import EngramError

    content = args.content.strip()
    if not content:
        raise EngramError('the decision text is empty; pass it as the first argument: engram decide "Use X"')
    files = [f.strip() for f in args.files.split(",") if f.strip()]
    ctx = lifecycle.Ctx("cli", os.path.abspath(args.project or os.getcwd()), harness="cli")
    if not in_agent_shell(os.environ):  # in an agent's shell its hook records the event
        lifecycle.tool_calls(ctx, [{"tool": "engram decide", "action": "decision", "ok": True,
                                    "content": content, "rationale": args.rationale, "files": files}])
    graph_apply.decide_now(ctx.project, content, args.rationale, files, source="cli")
    print(f"Decision recorded for {ctx.project.root}: {content}")
    return 0
