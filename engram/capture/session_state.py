"""Per-session hook state, held under an exclusive lock while events are appended.

`sessions/<session>.state.json` keeps what the next hook needs without re-reading the
JSONL: the last `seq`, the JSONL size after the last append, the turn, files seen and
written, the last test verdict, recent reads, write ranges, queued context. It is a
cache: when it is missing, stale or corrupt, `seq` is recovered from the JSONL's tail.
The lock is `fcntl.flock` on a sibling `.lock` file, so hooks of one session (parallel
tool calls) serialise and `seq` stays gap-free.
"""

from __future__ import annotations

import fcntl
import os

from engram import jsonio
from engram.fsio import write_atomic

TAIL_BYTES = 65536
MAX_SEEN = 5000


def _fresh() -> dict:
    return {"seq": 0, "size": 0, "turn": 0, "turn_tool_calls": 0, "turn_events": [],
            "last_prompt": "", "seen": [], "written": [], "last_test": None,
            "recent_reads": [], "write_ranges": {}, "pending": []}


def last_seq_in(path: str) -> int:
    """Highest seq among the last complete lines of a JSONL file (0 when none)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - TAIL_BYTES))
            tail = f.read()
    except OSError:
        return 0
    for line in reversed(tail.split(b"\n")):
        if not line.strip():
            continue
        try:
            seq = jsonio.loads(line.decode("utf-8", "replace")).get("seq")
        except (ValueError, AttributeError):
            continue  # a torn line from a killed writer
        if isinstance(seq, int):
            return seq
    return 0


class Locked:
    """`with Locked(state_path, events_path) as st:` read-modify-write of the state."""

    def __init__(self, state_path: str, events_path: str):
        self.state_path = state_path
        self.events_path = events_path
        self.fd = -1
        self.state: dict = {}

    def __enter__(self) -> dict:
        self.fd = os.open(self.state_path[: -len(".state.json")] + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        try:
            with open(self.state_path, "rb") as f:
                st = jsonio.loads(f.read().decode("utf-8", "replace"))
            if not isinstance(st, dict):
                raise ValueError("state is not an object")
            for k, v in _fresh().items():
                st.setdefault(k, v)
        except (OSError, ValueError):
            st = _fresh()
            st["recovered"] = True
        try:
            size = os.stat(self.events_path).st_size
        except FileNotFoundError:
            size = 0
        if size != st["size"]:
            # Someone appended without updating the state (a killed hook, a lost state
            # file): trust the JSONL.
            st["seq"] = max(st["seq"], last_seq_in(self.events_path)) if size else 0
            st["size"] = size
            st["stale"] = True
        self.state = st
        return st

    def __exit__(self, *exc) -> None:
        try:
            if exc[0] is None:
                st = self.state
                st.pop("stale", None)
                st.pop("recovered", None)
                if len(st["seen"]) > MAX_SEEN:
                    st["seen"] = st["seen"][-MAX_SEEN:]
                write_atomic(self.state_path, jsonio.dumps(st).encode(), durable=False)
        finally:
            os.close(self.fd)


def read(state_path: str) -> dict:
    """A snapshot for readers outside the lock (CLI, workers)."""
    try:
        with open(state_path, "rb") as f:
            st = jsonio.loads(f.read().decode("utf-8", "replace"))
        return st if isinstance(st, dict) else _fresh()
    except (OSError, ValueError):
        return _fresh()
