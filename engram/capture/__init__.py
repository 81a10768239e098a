"""Capture: each tool call becomes typed events appended to `events/<session>.jsonl`.

Standard library only: the PostToolUse hook runs all of it (docs/architecture.md).
"""
