"""engram: persistent memory for AI coding agents, captured through harness hooks.

Kept import-free on purpose: `python -m engram.hook` runs on every tool call and
must not pay for anything it does not use.
"""

__version__ = "0.1.0"
