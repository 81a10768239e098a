"""`engram mcp`: run the MCP stdio server (query_knowledge, save_decision).

`engram install` registers it with each harness (Claude Code through `claude mcp add`,
Codex in config.toml, Gemini CLI in settings.json; docs/retrieval.md has the forms).
stdout carries JSON-RPC only, so errors go to stderr. A request over 1 MiB, a batch, a
request without a method or with params that are not an object (or nest deeper than 32
levels) is answered with JSON-RPC's error at once (engram/mcp/wire.py).

examples:
  engram mcp --project ~/src/app      what a harness starts (stdio)
  claude mcp add --scope user engram -- /path/to/python -P -m engram mcp
"""

from __future__ import annotations

import argparse
import os
import sys

from engram.commands import add_project_option


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("mcp", help="run the MCP stdio server (query_knowledge tool)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_project_option(p, "the project the tools answer for (default: the harness's project dir, else the "
                          "current directory)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engram.mcp import query_knowledge, wire

    if args.project:
        os.environ[query_knowledge.PROJECT_ENV[0]] = args.project
    try:
        server = query_knowledge.build()  # imports the SDK
    except ImportError as exc:
        print(f"Error: the MCP SDK is not installed in {sys.executable} ({exc}); engram-hooks depends on it: "
              f"run `{sys.executable} -m pip install 'mcp>=1.10,<3'`, or reinstall engram", file=sys.stderr)
        return 1
    import anyio

    anyio.run(wire.serve, server)  # stdio, every line checked and bounded first (mcp/wire.py)
    return 0
