"""Did the session use what it was shown? Payoff per item, read off the session's events.

The hook records every retrieval as an `injected` event (lifecycle.py: the ids and tiers
shown at SessionStart, on a prompt, on a first read, and the words). Here, in the worker
after each consolidation (never the hook), the whole session so far is read again and, for
each item shown, the first later event that used it is looked for (docs/curation.md):

* a command (a working one, one run without an exit status, a failing check's, a gotcha's
  way round): the session ran it, compared normalised (capture/commandline.py, as the
  command's key was made), or ran it with more options;
* a file's role: the session read or edited the file;
* an unfinished item: its check ran, the task list was updated, its leftover file or its
  pull request / issue was acted on, or (the last request, any other) one of its files edited;
* an instruction or decision: the session edited a file it is about, ran a command it
  quotes, or ran the tests (a build) it speaks of, and no contradiction warning named it since ("broken" is kept as how it was used:
  it was not followed, and it is not counted as used);
* anything else (an episode, an error, a finding): one of its files read or edited; one that
  names no file or command (a missing tool) has no use a session can show: `unseen`.

The rows replace the session's earlier ones (idempotent), the items' sums follow, an item
shown `fadeAfterUnused` times where its use could be seen, and never used, fades (retrieve/screens/curation.py stops serving it),
and the used items are reinforced in the session (graph/decay.py). The evidence of the
knowledge items the session touched is recorded too (graph/items/evidence.py).
"""

from __future__ import annotations

from typing import Any

from engram.capture import commandline as cl
from engram.graph import decay, items, store
from engram.graph.items import evidence

KNOWLEDGE = ("command", "command_run", "gotcha", "unfinished", "file")
# How an item was used when nothing a session does could show it ("psql is not found on this
# machine": its use is not running psql): such a showing never counts towards fading.
UNSEEN = "unseen"


def injections(events: list[dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], int, str]:
    """({node id: {seq, via, at}} of each item's first showing, words shown, the first's time)."""
    out: dict[str, dict[str, Any]] = {}
    words, first = 0, ""
    for ev in events:
        if ev.get("type") != "injected" or not isinstance(ev.get("items"), list):
            continue
        words += ev["words"] if isinstance(ev.get("words"), int) and ev["words"] > 0 else 0  # a stream is untrusted
        first = first or str(ev.get("ts") or "")
        for item in ev["items"]:
            nid = item[0] if isinstance(item, list) and item else None
            if isinstance(nid, str) and nid not in out:
                out[nid] = {"seq": ev["seq"], "via": str(ev.get("via") or ""), "at": str(ev.get("ts") or "")}
    return out, words, first


def canon(command: str) -> set[str]:
    """A command line's parts as project commands are keyed: normalised, then canonical."""
    return {cl.canonical(part) for part in cl.normalise(str(command or "")) if part}


class Later:
    """What the session did after one point: shell commands (canonical), paths read and written."""

    def __init__(self, events: list[dict[str, Any]]):
        self.events = events

    def after(self, seq: int) -> list[dict[str, Any]]:
        return [e for e in self.events if int(e.get("seq") or 0) > seq]

    @staticmethod
    def ran(evs: list[dict[str, Any]], commands: set[str]) -> dict[str, Any] | None:
        """The first event that ran one of the commands, or the same with more options
        (`npm run build -- --watch` runs `npm run build`)."""
        if not commands:
            return None
        return next((e for e in evs if isinstance(e.get("command"), str)
                     and any(c == k or c.startswith(k + " ") for c in canon(e["command"]) for k in commands)), None)

    @staticmethod
    def touched(evs: list[dict[str, Any]], paths: set[str], writes_only: bool = False) -> dict[str, Any] | None:
        kinds = ("file_write",) if writes_only else ("file_write", "file_read")
        return next((e for e in evs if e.get("type") in kinds and e.get("path") in paths), None)


def _quoted(text: str) -> set[str]:
    """The commands an instruction quotes in backquotes."""
    parts = str(text or "").split("`")
    return set().union(*(canon(p) for p in parts[1::2] if p.strip())) if len(parts) > 2 else set()


_CHECKS = (("test", "test_run"), ("build", "build"))  # an instruction naming the tests is followed by running them


def _checked(said: str, evs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first test or build run after an instruction that asks for one ("run the unit tests
    before you say a change is done")."""
    words = said.casefold()
    kinds = {kind for word, kind in _CHECKS if word in words}
    return next((e for e in evs if e.get("type") in kinds), None) if kinds else None


def use(node: dict[str, Any], evs: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, str]:
    """(the event that used the item, how), or (None, "") / (event, "broken")."""
    data = node.get("data") if isinstance(node.get("data"), dict) else {}
    kind, key = data.get("kind"), str(data.get("key") or "")
    files = {f for f in node.get("affected_files") or [] if isinstance(f, str)}
    commands = set().union(*(canon(c) for c in evidence.item_commands(node))) if evidence.item_commands(node) else set()
    if commands:
        hit = Later.ran(evs, commands)
        return (hit, "ran") if hit else (None, "")
    if kind == "file":
        hit = Later.touched(evs, files)
        return (hit, "read" if hit and hit.get("type") == "file_read" else "edited") if hit else (None, "")
    if kind == "unfinished":
        return _unfinished_use(key, files, evs)
    if node.get("type") == "decision":
        broke = next((e for e in evs if e.get("type") == "contradiction_warning"
                      and node["id"] in (e.get("decisions") or [])), None)
        if broke:
            return broke, "broken"
        said = str(node.get("name") or "") + " " + str(node.get("description") or "")
        hit = Later.ran(evs, _quoted(said)) or Later.touched(evs, files, writes_only=True) or _checked(said, evs)
        return (hit, "followed") if hit else (None, "")
    if not files:  # a missing tool, a way round never recorded: nothing the session does shows its use
        return None, UNSEEN
    hit = Later.touched(evs, files)
    return (hit, "read" if hit and hit.get("type") == "file_read" else "edited") if hit else (None, "")


def _unfinished_use(key: str, files: set[str], evs: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, str]:
    hit: dict[str, Any] | None = None
    if key == "todos":
        hit = next((e for e in evs if e.get("type") == "todos"), None)
    elif key.startswith("leftover:"):
        path = key[len("leftover:"):]
        hit = Later.touched(evs, {path}) or next((e for e in evs if path in str(e.get("command") or "")), None)
    elif key.startswith(("pr:", "issue:")):
        number = key.split(":", 1)[1]
        word = "pr" if key.startswith("pr:") else "issue"
        hit = next((e for e in evs if f"gh {word}" in str(e.get("command") or "")
                    and number in str(e.get("command") or "")), None)
    if hit is None:
        hit = Later.touched(evs, files, writes_only=True)
    return (hit, "acted on") if hit else (None, "")


def rows(conn: Any, events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int, str]:
    """The session's injection rows with their use, its words and its first injection's time."""
    shown, words, first = injections(events)
    nodes = store.get_nodes(conn, list(shown))
    later = Later(events)
    out = []
    for nid, rec in shown.items():
        node = nodes.get(nid)
        if node is None:  # forgotten since
            continue
        hit, how = use(node, later.after(rec["seq"]))
        used = hit is not None and how != "broken"
        out.append({"node_id": nid, "via": rec["via"], "seq": rec["seq"], "at": rec["at"] or first,
                    "used_seq": hit["seq"] if used and hit else None, "used_how": how,
                    "used_at": str(hit.get("ts") or "") or None if used and hit else None})
    return out, words, first


def record(conn: Any, root: str, session: str, events: list[dict[str, Any]], cfg: dict[str, Any]) -> dict[str, int]:
    """Payoff and evidence of one session, in one transaction; {"injected", "used"}."""
    found, words, first = rows(conn, events)
    with store.transaction(conn):
        used: list[str] = []
        if found:
            used = items.record_session(conn, session, found, words, first or store.now(),
                                        int(cfg.get("fadeAfterUnused", 0)))
        items.set_evidence(conn, session_evidence(conn, root, session, events))
    if used:
        decay.apply_session(conn, session, used)  # reinforced: what was used is worth keeping
    return {"injected": len(found), "used": len(used)}


def session_evidence(conn: Any, root: str, session: str, events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """{node id: {"session", "seqs", "needs"}} of the knowledge items this session supports."""
    reader = evidence.Reader(root, max_reads=200)
    written = [e["path"] for e in events if e.get("type") == "file_write" and isinstance(e.get("path"), str)]
    out = {}
    for node in store.get_nodes(conn, items.session_items(conn, session, KNOWLEDGE)).values():
        needs = evidence.needs(node, reader)
        data = node.get("data") if isinstance(node.get("data"), dict) else {}
        if data.get("kind") == "unfinished" and str(data.get("key") or "").startswith("check:"):
            needs += evidence.same_needs(list(dict.fromkeys(written))[-10:], reader)
        out[node["id"]] = {"session": session, "seqs": list(data.get("evidence_seqs") or [])[-10:], "needs": needs}
    return out
