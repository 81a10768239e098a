"""Fixtures for the MCP server tests: a project with a real graph (tests/testing/graph.py)."""

from testing.graph import facts, g, root  # noqa: F401  (fixtures)
