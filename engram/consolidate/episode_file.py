"""`episodes/<session>.episode.json`: the consolidated episodes and how far they reach.

The file is the consolidation state (docs/architecture.md, "Files are the state"): a session NEEDS_CONSOLIDATION iff
its JSONL holds events past `mark.consolidated_to` (no file: mark 0). It is written only
after the graph transaction commits, atomically, and always starts with the mark:

    {"mark":{"consolidated_to":41,"events_size":18233},"session":"...","episodes":[...]}

so a scanner (SessionStart, over every session of a project) reads only the first bytes:
`events_size` is the JSONL's size when it was consolidated, and an unchanged size means
nothing new without reading either file. Standard library only: hooks import this.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # `typing` costs ~20 ms on the hook; annotations only
if TYPE_CHECKING:
    from typing import Any

from engram import jsonio
from engram.fsio import private_dir, read_regular, write_atomic

HEAD_BYTES = 512
MAX_BYTES = 256 * 1024 * 1024


class Mark:
    """How far a session's stream is consolidated: the last seq and the JSONL size then.

    A plain class, not a NamedTuple: `typing` costs ~20 ms of import on every SessionStart
    and Stop hook, which read marks.
    """

    __slots__ = ("consolidated_to", "events_size")

    def __init__(self, consolidated_to: int, events_size: int):
        self.consolidated_to = consolidated_to
        self.events_size = events_size

    def __iter__(self):
        return iter((self.consolidated_to, self.events_size))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mark) and (self.consolidated_to, self.events_size) == (
            other.consolidated_to, other.events_size)

    def __repr__(self) -> str:
        return f"Mark({self.consolidated_to}, {self.events_size})"


NO_MARK = Mark(0, -1)


def read_mark(path: str) -> Mark:
    """The mark at the head of an episode file; NO_MARK when missing or unreadable."""
    data = read_regular(path, HEAD_BYTES, follow=False)  # a FIFO in its place: NO_MARK, never a hang
    if data is None:
        return NO_MARK
    head = data.decode("utf-8", "replace")
    at = head.find('"mark"')
    start = head.find("{", at) if at >= 0 else -1
    end = head.find("}", start) if start >= 0 else -1
    if end < 0:
        rec = read(path)
        mark = rec.get("mark") if rec else None
    else:
        try:
            mark = jsonio.loads(head[start : end + 1])
        except ValueError:
            mark = None
    if not isinstance(mark, dict):
        return NO_MARK
    to, size = mark.get("consolidated_to"), mark.get("events_size")
    return Mark(to if isinstance(to, int) else 0, size if isinstance(size, int) else -1)


def read(path: str) -> dict[str, Any] | None:
    return jsonio.read_object(path, MAX_BYTES) or None


def write(path: str, session: str, mark: Mark, episodes: list[dict[str, Any]]) -> None:
    """Replace the file atomically, mark first."""
    rec = {"mark": {"consolidated_to": mark.consolidated_to, "events_size": mark.events_size},
           "session": session, "episodes": episodes}
    private_dir(os.path.dirname(path))
    write_atomic(path, jsonio.dumps(rec).encode())
