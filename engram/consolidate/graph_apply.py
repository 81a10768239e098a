"""Writing one consolidation into the graph: exactly once, all or nothing.

`plan()` runs entity resolution for every proposed node before any write (embedding may
be a network call, which must not hold SQLite's write lock). `apply()` then writes, in
ONE transaction: the episode row and episode node, every node (new, merged, or a child
with a version_of edge), the requested edges plus a discovered_during edge from every
node to the episode, the decay step of the session, and the `consolidations` row that
records the event range. A crash anywhere before COMMIT leaves the graph as it was; a
rerun after COMMIT finds the range applied and writes nothing.

Decisions are framed here, whatever produced them: explicit ones are asserted at strength
0.85 (decaying at half the spec's rate) and read "Decision: X because Y", implicit ones
at 0.35 and "Observed pattern: ..." (graph/strength.py says why); every decision's `data`
carries {"explicit", "rationale", "requires", "forbids"} for the contradiction checker and
`statement` (subject, choice, ruled out) for supersession and retrieval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engram.clock import utc_iso
from engram.consolidate.crashpoints import crash_at
from engram.consolidate.entity_resolution import Resolution, Resolver
from engram.consolidate.schema import EPISODE_KEY, NAME_MAX
from engram.graph import decay, strength, supersession
from engram.language import decision_text
from engram.graph import store
from engram.text import clip, clip_words

EXPLICIT_STRENGTH = 0.85
IMPLICIT_STRENGTH = 0.35
SUMMARY_MAX = 200
VERSIONS_MAX = 20


@dataclass
class Planned:
    node: dict[str, Any]
    res: Resolution


@dataclass
class Applied:
    episode_id: str
    episode_node: str
    counts: dict[str, int] = field(default_factory=dict)


# Kinds resolved by exact name only: an embedding match between two commands, two file
# paths or two open items is a different thing, not the same one. Their names are stable
# per key ("PR #380 open"), so a newer state of an item updates its node.
EXACT_KINDS = ("file", "command", "gotcha", "instruction", "unfinished")


def plan(request: dict[str, Any], resolver: Resolver, times: dict[int, Any] | None = None) -> list[Planned]:
    """Entity resolution for every proposed node (two proposals of one name share a fate).

    `times` ({seq: ts} of the events consolidated) dates each decision by its latest
    evidence (`data.stated_at`): supersession orders statements by when they were made,
    not by when their sessions happen to be consolidated.
    """
    out = []
    for n in request["graph"]["nodes"]:
        n = frame(n)
        stated = [str(times[s]) for s in n["data"]["evidence_seqs"] if times and times.get(s)]
        if n["type"] == "decision" and stated:
            n["data"]["stated_at"] = max(stated)
        kind = (n.get("data") or {}).get("kind")
        res = resolver.resolve(n["name"], n["type"], n["description"], exact_only=kind in EXACT_KINDS)
        if res.version:  # "SQLite 3.53.0" is SQLite: the version stays, as an attribute
            n["data"]["versions"] = [res.version]
        out.append(Planned(n, res))
    return out


def frame(node: dict[str, Any]) -> dict[str, Any]:
    """A proposed node with its description, summary, data and strength band settled."""
    node = dict(node)
    data = dict(node.get("data") or {})
    if node["type"] == "decision":  # what it is about, for supersession and retrieval
        data["statement"] = decision_text.statement(_decision_text(node))
    if data.get("kind") == "instruction":
        node["description"] = clip_words(f"The user said: \"{node['description']}\"", 600)
        data.update(explicit=bool(node.get("explicit")), rationale="", alternatives=[])
        data.setdefault("requires", decision_text.parse(node["description"])["requires"])
        data.setdefault("forbids", decision_text.parse(node["description"])["forbids"])
    elif node["type"] == "decision":
        text, why = node["name"], node.get("rationale") or ""
        parsed = decision_text.parse(f"{node['name']}. {node['description']}")
        data.setdefault("requires", parsed["requires"])
        data.setdefault("forbids", parsed["forbids"])
        data.update(explicit=bool(node.get("explicit")), rationale=why or parsed["rationale"],
                    alternatives=node.get("alternatives") or [])
        body = node["description"] if node["description"] and node["description"] != text else text
        if node.get("explicit"):
            desc = f"Decision: {body}" + (f" because {why}" if why and why not in body else "")
        else:
            alts = ", ".join(node.get("alternatives") or [])
            desc = f"Observed pattern: {body}" + (f" (instead of {alts})" if alts else "") + (
                f". Agent's words: {why}" if why else "")
        node["description"] = clip_words(desc, 600)
    elif node["type"] == "finding":
        data["confidence"] = node.get("confidence", 0.5)
    data["evidence_seqs"] = node.get("evidence") or []
    node["data"] = data
    node["summary"] = _summary(node["description"] or node["name"])
    return node


def _decision_text(node: dict[str, Any]) -> str:
    """The decision's sentence: its name, or the description a clipped name came from."""
    name, desc = node["name"], node.get("description") or ""
    stem = name.rstrip("…").rstrip()
    return desc if len(name) >= 79 and desc.startswith(stem) else name


def _summary(text: str) -> str:
    return clip_words(text, SUMMARY_MAX)


def _asserted(node: dict[str, Any]) -> dict[str, float]:
    """A decision's asserted strength and decay rate (graph/strength.py)."""
    if node["data"].get("explicit"):
        return {"asserted": EXPLICIT_STRENGTH, "decay_rate": strength.EXPLICIT_DECISION_RATE}
    return {"asserted": IMPLICIT_STRENGTH, "decay_rate": strength.RECENCY_RATE}


# -- a decision stated now --------------------------------------------------------------


def record_decision(conn: Any, text: str, rationale: str = "", files: list[str] | None = None,
                    source: str = "cli") -> str:
    """Write an explicit decision into the graph at once, in one short transaction; its id.

    `engram decide` and the MCP tool `save_decision` call this besides recording the
    decision event, so a query sees the decision before any consolidation (issue 14,
    finding 7). It is framed and supersedes by subject exactly as a consolidated decision
    is; the consolidation of its event later finds it by name and attaches its episode
    (`_Writer.merge`). The same statement again only refreshes it. Text is redacted as the
    event stream redacts it (engram/redact.py), so both copies carry the same name.
    """
    from engram.redact import redact

    text, rationale = redact(text), redact(rationale)
    node = frame({"key": "d1", "op": "create", "name": clip(text, NAME_MAX), "type": "decision", "description": text,
                  "files": list(files or []), "evidence": [], "explicit": True, "rationale": rationale,
                  "alternatives": [], "data": {"source": source, "stated_at": utc_iso(3)}})
    with store.transaction(conn):
        same = store.find_by_name(conn, node["name"], type="decision", include_superseded=False, limit=1)
        if same:
            store.update_node(conn, same[0]["id"], affected_files=node["files"], sessions_without_reinforcement=0,
                              data={"stated_at": node["data"]["stated_at"]}, **_asserted(node))
            nid = same[0]["id"]
        else:
            nid = store.create_node(conn, name=node["name"], type="decision", description=node["description"],
                                    summary=node["summary"], affected_files=node["files"], data=node["data"],
                                    episode_count=0, **_asserted(node))
        supersession.supersede_replaced(conn, nid)
    return nid


def decide_now(project: Any, text: str, rationale: str = "", files: list[str] | None = None,
               source: str = "cli") -> str | None:
    """`record_decision` on a project's database (`files` project-relative, as the decision
    event records them); None, with the reason on stderr, when the database cannot take it
    now (the decision event is recorded anyway: consolidation adds it later)."""
    import os
    import sys

    from engram.capture.classify import rel_path
    from engram.graph.connect import connect, db_errors

    paths = [rel_path(f if os.path.isabs(f) else os.path.join(project.root, f), project.root) for f in files or []]
    try:
        conn = connect(project.db_path)
        try:
            return record_decision(conn, text, rationale, paths, source)
        finally:
            conn.close()
    except db_errors() + (OSError,) as exc:
        print(f"engram: the decision is recorded as an event, not yet in the graph ({exc}); the next "
              "consolidation adds it", file=sys.stderr)
        return None


# -- apply ------------------------------------------------------------------------------


class _Writer:
    """The state of one apply(): ids by key, counts, nodes to reinforce."""

    def __init__(self, conn: Any, session: str, episode_id: str, outcome: str):
        self.conn = conn
        self.session = session
        self.episode_id = episode_id
        self.outcome = outcome
        self.ids: dict[str, str] = {}
        self.touched: list[str] = []
        self.counts = {"created": 0, "merged": 0, "children": 0, "recovered": 0, "annotated": 0, "edges": 0}

    def new_node(self, n: dict[str, Any]) -> str:
        decision = n["type"] == "decision"
        counted = _counts_outcome(n)
        ok = self.outcome == "success"
        fields = dict(
            description=n["description"], summary=n["summary"], affected_files=n.get("files") or [],
            source_episodes=[self.episode_id], data=n["data"], last_reinforced_session=self.session,
            causal=n["type"] == "error",
            episode_count=0 if decision else 1,
            outcome_total=1 if counted and not decision else 0,
            outcome_success=1 if counted and not decision and ok else 0,
            **(_asserted(n) if decision else {}),
        )  # fmt: skip
        self.counts["created"] += 1
        return store.create_node(self.conn, name=n["name"], type=n["type"], **fields)

    def merge(self, nid: str, n: dict[str, Any]) -> str:
        old = store.get_node(self.conn, nid)
        assert old is not None
        changes: dict[str, Any] = {"affected_files": n.get("files") or [], "data": _merged_data(old, n)}
        if n.get("op") == "update" or not old["description"] or _upgrades(old, n):
            changes.update(description=n["description"], summary=n["summary"])
        if old["type"] == "decision" and n["type"] == "decision":  # stated again: the stronger band holds
            band = _asserted(n)
            changes.update(asserted=max(old["asserted"], band["asserted"]),
                           decay_rate=min(old["decay_rate"], band["decay_rate"]))
        if old["type"] == "decision" and not old["source_episodes"]:
            # written at once by `engram decide` / save_decision (record_decision): this
            # episode is the one that recorded the same statement, not a second statement
            changes.update(source_episodes=[self.episode_id], episode_count=0, sessions_without_reinforcement=0,
                           last_reinforced_session=self.session)
            store.update_node(self.conn, nid, **changes)
            self.counts["merged"] += 1
            return nid
        store.update_node(self.conn, nid, **changes)
        counted = old["type"] != "decision" and _counts_outcome(old)
        decay.reinforce(self.conn, nid, episode_id=self.episode_id, session_id=self.session,
                        outcome=self.outcome if counted else None, causal=True if old["type"] == "error" else None)
        self.counts["merged"] += 1
        return nid

    def superseded_match(self, res: Resolution, n: dict[str, Any]) -> str:
        """Un-supersede on fresh, strong evidence; otherwise annotate and reinforce the successor.

        A decision met again is fresh evidence only when it was stated after the decision
        that replaced it: the consolidation of a session that stated A, then B instead of
        A (`engram decide` twice, written at once) meets A again, and must not bring it
        back over B. Its episode is attached and it stays superseded.
        """
        old = store.get_node(self.conn, res.node_id)  # type: ignore[arg-type]
        assert old is not None
        if n["type"] == "decision" and old["type"] == "decision" and self._stated_before_replaced(old, n):
            store.update_node(self.conn, old["id"], source_episodes=[self.episode_id], data=_merged_data(old, n),
                              episode_count=old["episode_count"])  # the same statement, not a second one
            self.counts["merged"] += 1
            return old["id"]
        explicit = n["type"] == "decision" and n["data"].get("explicit")
        seen_again = n["data"].get("kind") in ("command", "gotcha", "instruction", "unfinished")  # observed
        if explicit or seen_again or (n["type"] != "decision" and self.outcome == "success" and n.get("files")):
            supersession.unsupersede(self.conn, old["id"], episode_id=self.episode_id,
                                     reason=f"re-asserted by episode {self.episode_id} ({n['name'][:60]})")
            self.counts["recovered"] += 1
            return self.merge(old["id"], n)
        history = list((old["data"] or {}).get("history") or []) + [{
            "event": "reappeared", "episode_id": self.episode_id, "name": n["name"],
            "similarity": round(res.similarity, 3), "at": store.now()}]
        store.update_node(self.conn, old["id"], data={"history": history}, source_episodes=[self.episode_id])
        self.counts["annotated"] += 1
        successor = old.get("superseded_by")
        if successor and store.get_node(self.conn, successor):
            return self.merge(successor, {**n, "op": "create"})
        return old["id"]

    def _stated_before_replaced(self, old: dict[str, Any], n: dict[str, Any]) -> bool:
        """This statement of a superseded decision is the one its written-at-once node
        recorded, or was made before the decision that replaced it was."""
        data = old["data"] if isinstance(old["data"], dict) else {}
        if data.get("source") in ("cli", "mcp") and not old["source_episodes"] and (
                store.normalise_name(n["name"]) == store.normalise_name(old["name"])):
            return True
        successor = store.get_node(self.conn, old["superseded_by"]) if old.get("superseded_by") else None
        when = supersession.stated_at(successor) if successor else supersession.superseded_at(old)
        return bool(n["data"].get("stated_at")) and bool(when) and supersession.ms(n["data"]["stated_at"]) <= when


def _counts_outcome(n: dict[str, Any]) -> bool:
    """Whether the episode's outcome counts toward the node's strength: not for an error (its
    failures make it causal) nor a knowledge item (observed either way: graph/strength.py)."""
    return n["type"] != "error" and (n.get("data") or {}).get("kind") not in strength.OBSERVED_KINDS


def _upgrades(old: dict[str, Any], n: dict[str, Any]) -> bool:
    """An explicit statement of what was only an observed pattern replaces its framing."""
    return old["type"] == "decision" and not (old["data"] or {}).get("explicit") and bool(n["data"].get("explicit"))


def _merged_data(old: dict[str, Any], n: dict[str, Any]) -> dict[str, Any]:
    data = dict(n["data"])
    prev = old["data"] if isinstance(old["data"], dict) else {}
    if old["type"] == "decision" and prev.get("explicit") and not data.get("explicit"):
        data = {k: v for k, v in data.items() if k not in ("explicit", "rationale")}
    seqs = list(prev.get("evidence_seqs") or []) + list(data.get("evidence_seqs") or [])
    data["evidence_seqs"] = seqs[-50:]
    versions = list(dict.fromkeys([*(prev.get("versions") or []), *(data.get("versions") or [])]))
    if versions:  # every version the thing was met at, in the order first met
        data["versions"] = versions[-VERSIONS_MAX:]
    stated = [str(d["stated_at"]) for d in (prev, data) if d.get("stated_at")]
    if stated:  # the latest statement: a session consolidated late must not date it back
        data["stated_at"] = max(stated, key=supersession.ms)
    return data


def _place(w: _Writer, p: Planned) -> str:
    res = p.res
    if res.action == "new":  # re-check: another worker may have created it since plan()
        again = store.find_by_name(w.conn, p.node["name"], type=p.node["type"], limit=1)
        if again:
            res = Resolution("merge", again[0]["id"], 1.0, "exact", again[0]["status"] == "superseded")
    if res.action == "merge" and res.superseded:
        return w.superseded_match(res, p.node)
    if res.action == "merge":
        return w.merge(res.node_id, p.node)  # type: ignore[arg-type]
    nid = w.new_node(p.node)
    if res.action == "child":
        store.upsert_edge(w.conn, nid, res.node_id, "version_of", strength=round(res.similarity, 3),  # type: ignore[arg-type]
                          source_episodes=[w.episode_id], data={"similarity": round(res.similarity, 3)})
        w.counts["children"] += 1
    return nid


def apply(conn: Any, *, session: str, from_seq: int, to_seq: int, record: dict[str, Any],
          request: dict[str, Any], planned: list[Planned],
          passages: list[tuple[int, str, str]] = ()) -> Applied | None:
    """Write one consolidation atomically, with the range's `passages` (consolidate/knowledge/replies.py);
    None when this range was already applied."""
    ep = request["episode"]
    with store.transaction(conn):
        if store.range_applied(conn, session, to_seq):
            return None
        episode_id = record["id"]
        store.insert_episode(conn, id=episode_id, session_id=session, outcome=ep["outcome"], goal=ep["goal"],
                             approach=ep.get("approach", ""), episode_data=record)
        w = _Writer(conn, session, episode_id, ep["outcome"])
        ep_node = _episode_node(w, record)
        w.ids[EPISODE_KEY] = ep_node
        for p in planned:
            w.ids[p.node["key"]] = _place(w, p)
        _supersede_in_order(w, planned)
        _replace_keys(w, planned, request["graph"].get("retire") or [])
        _edges(w, request["graph"]["edges"], ep_node)
        store.insert_passages(conn, session, list(passages))
        crash_at("graph:in_transaction")
        store.record_consolidation(conn, session, from_seq, to_seq, episode_id)
        w.touched = list(dict.fromkeys(w.ids.values()))
        decay.apply_session(conn, session, w.touched)
        return Applied(episode_id, ep_node, w.counts)


def _supersede_in_order(w: _Writer, planned: list[Planned]) -> None:
    """"Use B instead of A", "X is now Y": the replaced decisions go, in the order they were
    stated (their latest evidence; a decision without evidence counts as stated last). A
    decision never retires one stated after it in the same range: that one retires it."""
    decisions = [p for p in planned if p.node["type"] == "decision"]
    decisions.sort(key=lambda p: max(p.node["data"]["evidence_seqs"] or [float("inf")]))
    ids = list(dict.fromkeys(w.ids[p.node["key"]] for p in decisions))
    for i, nid in enumerate(ids):
        supersession.supersede_replaced(w.conn, nid, episode_id=w.episode_id, later=set(ids[i + 1:]))


def _replace_keys(w: _Writer, planned: list[Planned], retire: list[dict[str, Any]]) -> None:
    """A node with a data.key replaces the other live nodes of its key; a retire entry closes
    the live nodes of a key, or the live node of a name (any type but an episode: the model
    path's "this is no longer true"), with its reason, by the node it names as successor."""
    by_key = {}
    for p in planned:
        key = (p.node.get("data") or {}).get("key")
        if key:
            by_key[key] = w.ids[p.node["key"]]
    for key, nid in by_key.items():
        for old in store.active_with_key(w.conn, key):
            if old != nid:
                supersession.supersede(w.conn, old, nid, reason=f"replaced by a newer {key}", episode_id=w.episode_id)
    written = set(w.ids.values())
    for r in retire:
        successor = (by_key.get(r["by"]) or w.ids.get(r["by"])) if r.get("by") else None
        olds = store.active_with_key(w.conn, r["key"]) if r.get("key") else [
            n["id"] for n in store.find_by_name(w.conn, r["name"], include_superseded=False) if n["type"] != "episode"]
        for old in olds:
            if old != successor and old not in written:
                supersession.supersede(w.conn, old, successor, reason=r.get("reason") or "retired",
                                       episode_id=w.episode_id)


def _episode_node(w: _Writer, record: dict[str, Any]) -> str:
    name = "Episode: " + record["goal"]
    desc = f"{record['goal']} — {record.get('approach', '')} Outcome: {record['outcome']}."
    nid = store.create_node(
        w.conn, name=clip_words(name, NAME_MAX), type="episode", description=clip_words(desc, 600),
        summary=_summary(desc),
        affected_files=record.get("files_modified", [])[:50], source_episodes=[w.episode_id],
        data={"episode_id": w.episode_id, "session": w.session, "outcome": record["outcome"],
              "from_seq": record["from_seq"], "to_seq": record["to_seq"], "kind": record["kind"],
              "ended_at": record.get("ended_at") or "", "outcome_known": record.get("outcome_known", True)},
        strength=strength.compute_strength(1), last_reinforced_session=w.session,
    )  # fmt: skip
    return nid


def _edges(w: _Writer, edges: list[dict[str, Any]], ep_node: str) -> None:
    for e in edges:
        a, b = w.ids.get(e["from"]), w.ids.get(e["to"])
        if a and b and a != b:
            store.upsert_edge(w.conn, a, b, e["type"], strength=e["strength"], source_episodes=[w.episode_id])
            w.counts["edges"] += 1
    for key, nid in w.ids.items():
        if key != EPISODE_KEY and nid != ep_node:
            store.upsert_edge(w.conn, nid, ep_node, "discovered_during", strength=0.5,
                              source_episodes=[w.episode_id])
            w.counts["edges"] += 1
