"""Harnesses: one module per harness (its payload adapter and its install plan), one registry."""
