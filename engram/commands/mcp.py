"""`engram mcp`: run the MCP stdio server (query_knowledge, save_decision).

Register it with a harness, e.g. `claude mcp add --scope user engram -- engram mcp`
(docs/retrieval.md lists Codex and Gemini CLI too). stdout carries JSON-RPC only.
"""

from __future__ import annotations

import argparse
import sys


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("mcp", help="run the MCP stdio server (query_knowledge tool)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        from engram.mcp.query_knowledge import serve
    except ImportError as exc:
        print(f"Error: the MCP SDK is not installed ({exc}); install it with: pip install 'engram-hooks[mcp]'",
              file=sys.stderr)
        return 1
    return serve()
