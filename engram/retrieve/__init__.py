"""Retrieval: what the graph knows that bears on the current context, as injected text.

SessionStart, prompts and first reads (the hooks) and `engram query` / the MCP tool.
"""
