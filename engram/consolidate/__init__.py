"""Consolidation: a session's new events become an episode and graph changes, in a worker.

`trigger` is the hook side (standard library only); the rest runs in `engram worker`.
"""
