"""The MCP stdio server: one retrieval tool, `query_knowledge(question, scope)`.

Built on the official `mcp` SDK. Version 2 renamed `FastMCP` to `MCPServer`
(`mcp.server.mcpserver`); version 1 only has `mcp.server.fastmcp.FastMCP`. Decorators
and return handling are the same, so one shim covers both (docs/harness-contracts.md §5).

stdio carries JSON-RPC on stdout, so nothing else may be printed there: the tools return
strings, and faults are logged to stderr by the SDK. The project is the server's working
directory (harnesses start MCP servers in the project), or the first of
CLAUDE_PROJECT_DIR / GEMINI_PROJECT_DIR / ENGRAM_PROJECT_DIR that is set.

`save_decision(decision, rationale, files)` writes an explicit decision into the graph at
once (query_knowledge returns it before any consolidation) and records its event in the
project's `mcp` session, as `engram decide` does for a shell; the Claude Code hook also
captures the call (as `mcp__engram__save_decision`), and entity resolution merges the
copies at consolidation.
"""

from __future__ import annotations

import os

from engram.text import inert

PROJECT_ENV = ("ENGRAM_PROJECT_DIR", "CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")
# A question, a decision or its rationale: the wire takes a request of up to 1 MiB (wire.py),
# and a megabyte of question costs a second of retrieval for nothing a few KB would not find.
MAX_TEXT = 20_000
MAX_FILES = 200
INSTRUCTIONS = ("Project memory from earlier coding sessions: decisions, past errors, findings, "
                "linked to files. query_knowledge answers a question from it.")


def server_class():
    """MCPServer (mcp >= 2) or FastMCP (mcp 1.x)."""
    try:
        from mcp.server.mcpserver import MCPServer

        return MCPServer
    except ImportError:
        from mcp.server.fastmcp import FastMCP

        return FastMCP


def project_dir() -> str:
    for name in PROJECT_ENV:
        if os.environ.get(name):
            return os.environ[name]
    return os.getcwd()


def query_knowledge(question: str, scope: str = "current_project") -> str:
    """Search engram's memory of earlier sessions (decisions, past errors, findings, concepts
    linked to files) for what is relevant to `question`. Mention file paths, module or
    technology names for the best results. scope: "current_project" (default) or "all"
    (every project engram has recorded)."""
    from engram import config
    from engram.providers import registry
    from engram.retrieve import query

    if scope not in query.SCOPES:
        return f"scope must be one of: {', '.join(query.SCOPES)} (got {inert(repr(scope), 80)})."
    if len(question) > MAX_TEXT:
        return (f"The question is {len(question):,} characters; ask in at most {MAX_TEXT:,} (name the files, "
                "modules, technologies or the error message).")
    cfg, _ = config.load_config()
    hits, notes = query.run(question, project_dir(), scope=scope, cfg=cfg, embedder=registry.embedder(cfg))
    text = query.format_text(question, hits, 2 * int(cfg["tokenBudget"]), scope)  # framed, fields inert
    missing = [n for n in notes if n.startswith("no memory yet")]
    return text + ("\n" + inert(missing[0], 400) if missing and not hits else "")


def save_decision(decision: str, rationale: str = "", files: list[str] | None = None) -> str:
    """Record an explicit project decision (what was decided, why, which files it governs)
    so that later sessions see it when they work on those files."""
    from engram import lifecycle
    from engram.consolidate import graph_apply

    decision = (decision or "").strip()
    if not decision:
        return "Nothing recorded: the decision text is empty."
    if max(len(decision), len(rationale or "")) > MAX_TEXT or len(files or []) > MAX_FILES:
        return (f"Nothing recorded: a decision and its rationale take at most {MAX_TEXT:,} characters each, and "
                f"at most {MAX_FILES} files; state the decision in a sentence or two.")
    files = [f for f in (files or []) if isinstance(f, str) and f.strip()]
    ctx = lifecycle.Ctx("mcp", project_dir(), harness="mcp")
    lifecycle.tool_calls(ctx, [{"tool": "mcp save_decision", "action": "decision", "ok": True,
                                "content": decision, "rationale": rationale or "", "files": files}])
    graph_apply.decide_now(ctx.project, decision, rationale or "", files, source="mcp")
    return f"Decision recorded for {inert(ctx.project.root, 200)}: {inert(decision, 400)}"


def build():
    """The server object with both tools registered."""
    server = server_class()("engram", instructions=INSTRUCTIONS)
    server.tool()(query_knowledge)
    server.tool()(save_decision)
    return server

