"""What a session did, and what a graph node is about, as comparable keys.

A session's *targets* are read off its own event stream:

* `file:<path>`   every project file it read, wrote, or failed on;
* `test:<check>`  every test command it ran (pass or fail);
* `error:<check>` every test, build or command that failed.

`<check>` is a command reduced to what identifies it across runs (`check_sig`): the first
segment that is not a `cd`/`export`, without pipes or redirections, at most 4 words, so
`cd app && npm test foo.test.ts 2>&1 | tail` and `npm test foo.test.ts` are one check.

A node is *about* the same keys: its linked files; for an error node, the check that
failed (its text starts with the command); for a test command that works (a `command`
node whose purpose is test), that command. Retrieval is then scored by comparing the keys of what it showed with the
keys the session touched afterwards (`engram.evaluation.scoring`).
"""

from __future__ import annotations

import os
import re
from typing import Any, Iterable

KINDS = ("file", "test", "error")
_SEGMENT = re.compile(r"&&|\|\||;")
_TAIL = re.compile(r"(?:(?<!\s)\s+)?(?:\||\d?>|&>)")
_SETUP = ("cd ", "export ", "source ", "set ")


def check_sig(command: Any) -> str:
    """The identity of a check: `cd x && npm test a.ts 2>&1 | tail` -> `npm test a.ts`."""
    segs = [s.strip() for s in _SEGMENT.split(str(command or "")) if s.strip()]
    seg = next((s for s in segs if not s.startswith(_SETUP)), segs[0] if segs else "")
    return " ".join(_TAIL.split(seg, 1)[0].split()[:4])


def kind(key: str) -> str:
    return key.split(":", 1)[0]


def _event_keys(ev: dict[str, Any]) -> list[str]:
    t = ev.get("type")
    path = ev.get("path")
    if isinstance(path, str) and path and not os.path.isabs(path) and (
            t in ("file_read", "file_write") or ev.get("ok") is False):
        return [f"file:{path}"]
    sig = check_sig(ev.get("command")) if t in ("test_run", "build", "command") else ""
    if not sig:
        return []
    out = [f"test:{sig}"] if t == "test_run" else []
    failed = ev.get("outcome") == "fail" if t == "test_run" else (
        isinstance(ev.get("exit_code"), int) and ev["exit_code"] != 0)
    return out + ([f"error:{sig}"] if failed else [])


def touches(events: Iterable[dict[str, Any]]) -> list[tuple[int, str]]:
    """[(seq, key)] in stream order: what the session did."""
    return [(ev["seq"], key) for ev in events for key in _event_keys(ev)]


def first_touch(touched: list[tuple[int, str]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for seq, key in touched:
        out.setdefault(key, seq)
    return out


def turns(events: list[dict[str, Any]]) -> list[tuple[int, str, int]]:
    """[(prompt seq, prompt text, seq where the turn ends)] for each user prompt."""
    prompts = [(e["seq"], str(e.get("prompt") or "")) for e in events if e.get("type") == "user_prompt"]
    last = max((e["seq"] for e in events), default=0)
    ends = [s for s, _ in prompts[1:]] + [last + 1]
    return [(s, text, end) for (s, text), end in zip(prompts, ends)]


# -- what a node is about ------------------------------------------------------------------


def _command_in(text: str) -> str:
    """The command an error text opens with ("`cmd` failed ..." or "cmd: 3 failing test(s)")."""
    text = text.strip()
    if text.startswith("`"):
        end = text.find("`", 1)
        return text[1:end] if end > 0 else text[1:]
    return text.split(": ", 1)[0]


def node_keys(node: dict[str, Any], files: Iterable[str]) -> set[str]:
    """The keys a node is about (see the module docstring)."""
    from engram.retrieve.tiers import data_of

    keys = {f"file:{p}" for p in files}
    if node.get("type") == "error":
        sig = check_sig(_command_in(str(node.get("name") or "")))
        if sig:
            keys |= {f"error:{sig}", f"test:{sig}"}
    elif data_of(node).get("kind") == "command" and data_of(node).get("purpose") == "test":
        if check_sig(node.get("name")):
            keys.add(f"test:{check_sig(node.get('name'))}")
    return keys


def keys_of(conn: Any, ids: list[str] | None = None) -> dict[str, set[str]]:
    """{node id: keys} for these live nodes (all live nodes when `ids` is None)."""
    from engram.graph import readonly

    if ids is None:
        ids = [row[0] for row in readonly.live_texts(conn)]
    nodes = readonly.nodes(conn, ids)
    files = readonly.files_of(conn, ids)
    return {nid: node_keys(n, files.get(nid, [])) for nid, n in nodes.items()}


def graph_keys(db_path: str) -> set[str]:
    """Every key some live node of the graph is about (what memory could supply)."""
    from engram.graph import readonly

    conn = readonly.open_ro(db_path)
    if conn is None:
        return set()
    try:
        return set().union(*keys_of(conn).values())
    finally:
        conn.close()
