"""Monitoring: warnings when a write contradicts a decision, and the metacognitive metrics.

`trigger` is the hook side (standard library only); `worker` is the detached checker.
"""
