"""`engram mcp`: run the MCP stdio server (query_knowledge, save_decision).

`engram install` registers it with each harness (Claude Code through `claude mcp add`,
Codex in config.toml, Gemini CLI in settings.json; docs/retrieval.md has the forms).
stdout carries JSON-RPC only, so errors go to stderr.

example (what `engram install` registers with Claude Code):
  claude mcp add --scope user engram -- /path/to/python -m engram mcp
"""

from __future__ import annotations

import argparse
import sys


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("mcp", help="run the MCP stdio server (query_knowledge tool)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engram.mcp import query_knowledge

    try:
        server = query_knowledge.build()  # imports the SDK
    except ImportError as exc:
        print(f"Error: the MCP SDK is not installed in {sys.executable} ({exc}); engram-hooks depends on it: "
              f"run `{sys.executable} -m pip install 'mcp>=1.10,<3'`, or reinstall engram", file=sys.stderr)
        return 1
    server.run()  # stdio transport by default
    return 0
