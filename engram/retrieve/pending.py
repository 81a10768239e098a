"""Decisions stated but not yet consolidated, for `engram query` and `query_knowledge`.

`engram decide` and `save_decision` write a decision into the graph at once. A decision
recognised in the stream (a prompt's "let's use X for the Y", a `decision` event an
agent's hook recorded) waits for its session's consolidation, which starts at the end of
the turn. Until then the on-demand query reads it from the newest event streams, past
what the graph has applied of each, and returns the ones the question names by subject,
first (issue 14, finding 7), unless the graph already holds the statement (in any
status) or a newer decision, pending or live, replaces it (`decisions`). The hooks do
not: their budget has no room for reading streams, and the turn's consolidation comes
before the next session starts.
"""

from __future__ import annotations

import os

from engram import jsonio
from engram.graph import readonly, store, supersession
from engram.language import decision_text
from engram.retrieve import tiers
from engram.text import clip, strip_injected

RECENT_STREAMS = 5
RECENT_STATEMENTS = 40  # per stream: a turn's consolidation applies what came before
NAME_MAX = 80


def _stated(ev: dict) -> list[str]:
    if ev.get("type") == "decision" and ev.get("content"):
        return [str(ev["content"])]
    if ev.get("type") == "user_prompt":
        return [d["text"] for d in decision_text.decision_sentences(strip_injected(str(ev.get("prompt") or "")))]
    return []


def _statements(path: str, after_seq: int) -> list[dict]:
    """The newest `RECENT_STATEMENTS` events of a stream past `after_seq` whose lines name a
    prompt or a decision (a superset of those `_stated` reads), oldest first: only those
    lines are parsed, and a session's stream is mostly tool calls and injections. The bound
    keeps the query's cost flat where no worker ran (`ENGRAM_NO_WORKER`, a crashed drain):
    500 unapplied prompts took ~25 ms of decision parsing, where a turn holds a few."""
    found = []
    for ev in jsonio.tail_objects(path, jsonio.MAX_JSONL_BYTES, (b'"user_prompt"', b'"decision"')):
        seq = ev.get("seq")
        if not isinstance(seq, int) or seq <= after_seq:
            continue
        found.append(ev)
        if len(found) >= RECENT_STATEMENTS:
            break
    found.reverse()
    return found


def decisions(conn, events_dir: str) -> tuple[list[dict], set[str]]:
    """(node-shaped rows for the decisions of the newest streams not yet in the graph, the ids
    of live decisions one of them replaces); `conn` None: there is no graph yet.

    A statement the graph holds under its name, in any status, is not pending: `engram
    decide` wrote it at once, and a superseded one stays superseded. Among the pending and
    the live decisions on their subjects, one a newer one replaces (graph/supersession's
    `relation`) is dropped: the consolidation to come would retire it.
    """
    try:
        names = sorted((n for n in os.listdir(events_dir) if n.endswith(".jsonl")),
                       key=lambda n: os.path.getmtime(os.path.join(events_dir, n)), reverse=True)
    except OSError:
        return [], set()
    out: dict[str, dict] = {}
    for name in names[:RECENT_STREAMS]:
        session = name[: -len(".jsonl")]
        done = (store.applied_through(conn, session) or 0) if conn is not None else 0
        for ev in _statements(os.path.join(events_dir, name), done):
            for text in _stated(ev):
                node = {"id": f"pending:{session}:{ev['seq']}", "name": clip(text, NAME_MAX), "type": "decision",
                        "description": f"Decision: {text} (stated in session {session}; not consolidated yet)",
                        "summary": clip(text, tiers.MAX_SUMMARY), "strength": 0.0, "affected_files": "[]",
                        "updated_at": ev.get("ts") or "",
                        "data": jsonio.dumps({"explicit": True, "statement": decision_text.statement(text),
                                              "stated_at": ev.get("ts") or ""})}
                out.setdefault(store.normalise_name(node["name"]), node)
    if conn is None:
        return _current(list(out.values()), [])
    fresh = [n for n in out.values() if not store.find_by_name(conn, n["name"], limit=1)]
    subjects = {w for n in fresh for w in tiers.data_of(n)["statement"]["subject"]}
    live = readonly.nodes(conn, [nid for nid, _, _ in readonly.decisions_about(conn, [], subjects)]) if fresh else {}
    return _current(fresh, list(live.values()))


def _current(pending: list[dict], live: list[dict]) -> tuple[list[dict], set[str]]:
    """(the pending decisions no newer one replaces, the live ones a newer pending one replaces)."""
    def when(n: dict) -> tuple[str, int]:
        seq = int(n["id"].rsplit(":", 1)[1]) if n["id"].startswith("pending:") else 0
        return supersession.ms(tiers.data_of(n).get("stated_at") or n.get("updated_at") or ""), seq

    def statement(n: dict) -> dict:
        return tiers.data_of(n).get("statement") or decision_text.statement(n["name"])

    replaced = set()
    for p in pending:  # live pairs were settled when the newer of the two was written
        for other in pending + live:
            older, newer = sorted((p, other), key=when)
            if other is not p and tiers.data_of(newer).get("explicit") and (
                    supersession.relation(statement(older), statement(newer))[0] == "replaces"):
                replaced.add(older["id"])
    return [n for n in pending if n["id"] not in replaced], {n["id"] for n in live if n["id"] in replaced}


def about(nodes: list[dict], words: set[str]) -> list[dict]:
    """The pending decisions whose subject lies wholly among the question's (stemmed) words."""
    out = []
    for n in nodes:
        subject = tiers.data_of(n)["statement"]["subject"]
        if subject and set(subject) <= words:
            out.append(n)
    return out
