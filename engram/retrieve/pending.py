"""Decisions stated but not yet consolidated, for `engram query` and `query_knowledge`.

`engram decide` and `save_decision` write a decision into the graph at once. A decision
recognised in the stream (a prompt's "let's use X for the Y", a `decision` event an
agent's hook recorded) waits for its session's consolidation, which starts at the end of
the turn. Until then the on-demand query reads it from the newest event streams, past
what the graph has applied of each, and returns the ones the question names by subject,
first (issue 14, finding 7). The hooks do not: their budget has no room for reading
streams, and the turn's consolidation comes before the next session starts.
"""

from __future__ import annotations

import os

from engram import jsonio
from engram.capture.event_stream import read_events
from engram.graph import decision_text, readonly, store
from engram.retrieve import tiers
from engram.text import clip

RECENT_STREAMS = 5
NAME_MAX = 80


def _stated(ev: dict) -> list[str]:
    if ev.get("type") == "decision" and ev.get("content"):
        return [str(ev["content"])]
    if ev.get("type") == "user_prompt":
        return [d["text"] for d in decision_text.decision_sentences(str(ev.get("prompt") or ""))]
    return []


def decisions(conn, events_dir: str) -> list[dict]:
    """Node-shaped rows for the decisions of the newest streams not yet in the graph
    (`conn` None: there is no graph yet)."""
    try:
        names = sorted((n for n in os.listdir(events_dir) if n.endswith(".jsonl")),
                       key=lambda n: os.path.getmtime(os.path.join(events_dir, n)), reverse=True)
    except OSError:
        return []
    out: dict[str, dict] = {}
    for name in names[:RECENT_STREAMS]:
        session = name[: -len(".jsonl")]
        done = (store.applied_through(conn, session) or 0) if conn is not None else 0
        events, _ = read_events(os.path.join(events_dir, name), done)
        for ev in events:
            for text in _stated(ev):
                node = {"id": f"pending:{session}:{ev['seq']}", "name": clip(text, NAME_MAX), "type": "decision",
                        "description": f"Decision: {text} (stated in session {session}; not consolidated yet)",
                        "summary": clip(text, tiers.MAX_SUMMARY), "strength": 0.0, "affected_files": "[]",
                        "updated_at": ev.get("ts") or "",
                        "data": jsonio.dumps({"explicit": True, "statement": decision_text.statement(text)})}
                out.setdefault(store.normalise_name(node["name"]), node)
    live = {key for _, _, key in readonly.by_names(conn, list(out))} if out and conn is not None else set()
    return [n for key, n in out.items() if key not in live]


def about(nodes: list[dict], words: set[str]) -> list[dict]:
    """The pending decisions whose subject lies wholly among the question's (stemmed) words."""
    out = []
    for n in nodes:
        subject = tiers.data_of(n)["statement"]["subject"]
        if subject and set(subject) <= words:
            out.append(n)
    return out
