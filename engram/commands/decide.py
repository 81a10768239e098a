"""`engram decide "..." --rationale "..." --files a,b`: record an explicit decision.

An agent runs this through its shell tool; the PostToolUse hook recognises the command
and records a `decision` event in that session, so the command itself then only
confirms (an agent's shell is told apart by the variables harnesses set in it:
CLAUDECODE, GEMINI_CLI, CODEX_SANDBOX*). Run by a person, the decision is appended to
the project's `cli` session; either way it reaches the graph at the next consolidation.
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
    from engram.errors import EngramError

    content = args.content.strip()
    if not content:
        raise EngramError('the decision text is empty; pass it as the first argument: engram decide "Use X"')
    files = [f.strip() for f in args.files.split(",") if f.strip()]
    if in_agent_shell(os.environ):
        print(f"Decision noted: {content} (the session's engram hook records it)")
        return 0
    ctx = lifecycle.Ctx("cli", os.path.abspath(args.project or os.getcwd()), harness="cli")
    lifecycle.tool_calls(ctx, [{"tool": "engram decide", "action": "decision", "ok": True,
                                "content": content, "rationale": args.rationale, "files": files}])
    print(f"Decision recorded for {ctx.project.root}: {content}")
    return 0
