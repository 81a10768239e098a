"""Named points where a test can kill the consolidation worker: `ENGRAM_CRASH_AT=<name>`.

`crash_at("worker:after_commit")` sends SIGKILL to this very process when the variable
names that point, so the reliability tests can prove a worker dies anywhere (before,
inside and after its transaction; between the graph commit and the episode file) and the
next SessionStart still ends with every session consolidated exactly once. Unset, it
costs one dictionary lookup.
"""

from __future__ import annotations

import os

POINTS = (
    "worker:start",                # holds the session lock, nothing read yet
    "worker:after_request",        # episode + graph change request built, nothing written
    "graph:in_transaction",        # nodes and edges written, transaction not committed
    "worker:after_commit",         # graph committed, vectors not synced
    "worker:before_episode_file",  # vectors synced, episode file not written
    "worker:after_episode_file",   # episode file written, fault not cleared
    "drain:between_sessions",      # one session done, the next not started
)


def crash_at(name: str) -> None:
    if os.environ.get("ENGRAM_CRASH_AT") == name:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
