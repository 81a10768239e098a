"""engram's MCP server (stdio): `query_knowledge`, plus `save_decision`.

Started by `engram mcp` (or `python -m engram mcp`). The SDK is imported only there,
so nothing else in engram pays for it.
"""
