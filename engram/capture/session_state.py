"""Per-session hook state, held under an exclusive lock while events are appended.

`sessions/<session>.state.json` keeps what the next hook needs without re-reading the
JSONL: the last `seq`, the JSONL size after the last append, the turn, files seen and
written, the last test verdict, recent reads, write ranges, queued context, and the
corners retrieval and monitoring keep (`SessionState` documents every key). It is a
cache: when it is missing, stale or corrupt, `seq` is recovered from the JSONL's tail.
The lock is `fcntl.flock` on a sibling `.lock` file, so hooks of one session (parallel
tool calls) serialise and `seq` stays gap-free.
"""

from __future__ import annotations

import fcntl
import os

from engram import jsonio
from engram.fsio import open_marker, read_file, read_regular, write_atomic

TAIL_BYTES = 65536
MAX_SEEN = 5000
MAX_STATE_BYTES = 8 * 1024 * 1024

TYPE_CHECKING = False  # `typing` costs every hook ~20 ms: the schema is for readers and type checkers
if TYPE_CHECKING:
    from typing import Any, TypedDict

    class SessionState(TypedDict, total=False):
        """`st`: everything a hook keeps between calls of one session (one JSON object)."""

        # -- capture (this package) ----------------------------------------------------------
        seq: int  # the last event's seq: appends continue from it, gap-free
        size: int  # the JSONL's size after the last append (a different size means a torn or foreign write)
        turn: int  # user prompts so far
        turn_tool_calls: int  # tool calls in the current turn
        turn_events: list[int]  # seqs of this turn's build / research events (Stop adds `learned` for them)
        last_prompt: str  # the current turn's prompt, clipped (Stop's `turn_complete.user_summary`)
        seen: list[str]  # files read this session (first reads derive `exploration`; bounded to MAX_SEEN)
        written: list[str]  # files written this session
        last_test: dict[str, Any] | None  # {"seq", "ok"} of the latest test run
        recent_reads: list[str]  # the last classify.RECENT_READS paths read (`expanding_search`)
        write_ranges: dict[str, list[list[int]]]  # path -> [[start, end, seq]] written (`repeated_revision`)
        pending: list[str]  # context queued for the next hook that can show it
        compacted_turn: int  # the turn of the last compaction recorded (one per turn: lifecycle.compact)
        gotchas_shown: list[str]  # gotcha node ids shown at a failure (retrieve/at_failure: once per session)
        torn: bool  # set by event_stream.append when it closed a torn line; the caller logs it once
        discard: bool  # set under the lock when the session is dropped (lifecycle.session_end): nothing is saved
        stale: bool  # set on entry when the JSONL changed behind the state's back (dropped on save)
        recovered: bool  # set on entry when the state file was missing or corrupt (dropped on save)
        # -- kept by other packages, each in its own key --------------------------------------
        # engram.retrieve.shown: {"injected": {node id: [updated_at, tier]}, "sig", "start_size" (the size of
        # SessionStart's context, which the first prompt's budget leaves room for: retrieve/inject.py)}
        retrieval: dict[str, Any]
        contradiction: dict[str, Any]  # engram.monitor.contradiction: {"failures", "disabled", "queue"}
        metacog: dict[str, Any]  # engram.monitor.metacognitive: the three metrics' running state


def _fresh() -> dict:
    """A new session's state (SessionState above documents every key)."""
    return {"seq": 0, "size": 0, "turn": 0, "turn_tool_calls": 0, "turn_events": [],
            "last_prompt": "", "seen": [], "written": [], "last_test": None,
            "recent_reads": [], "write_ranges": {}, "pending": []}


def last_seq_in(path: str) -> int:
    """Highest seq among the last complete lines of a JSONL file (0 when none)."""
    for ev in jsonio.tail_objects(path, TAIL_BYTES):
        if isinstance(ev.get("seq"), int):
            return ev["seq"]
    return 0


class Locked:
    """`with Locked(state_path, events_path) as st:` read-modify-write of the state."""

    def __init__(self, state_path: str, events_path: str):
        self.state_path = state_path
        self.events_path = events_path
        self.fd = -1
        self.state: dict = {}

    def __enter__(self) -> dict:
        self.fd = open_marker(self.state_path[: -len(".state.json")] + ".lock")
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        try:
            st = jsonio.loads(read_file(self.state_path, MAX_STATE_BYTES).decode("utf-8", "replace"))
            if not isinstance(st, dict):
                raise ValueError("state is not an object")
            for k, v in _fresh().items():
                st.setdefault(k, v)
        except (OSError, ValueError):
            st = _fresh()
            st["recovered"] = True
        try:
            size = os.stat(self.events_path).st_size if os.path.isfile(self.events_path) else 0
        except OSError:
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
            if exc[0] is None and self.state.pop("discard", None):
                lock = self.state_path[: -len(".state.json")] + ".lock"
                os.unlink(lock)  # the session is no session: nothing of it stays
            elif exc[0] is None:
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
    data = read_regular(state_path, MAX_STATE_BYTES, follow=False)
    try:
        st = jsonio.loads(data.decode("utf-8", "replace")) if data is not None else None
    except ValueError:
        st = None
    return st if isinstance(st, dict) else _fresh()
