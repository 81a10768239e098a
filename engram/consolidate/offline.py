"""The offline consolidator, part 2: the graph change request, and the two entry points.

`OfflineConsolidator` is what the offline provider (engram.providers.offline) hands the
worker, beside the model-backed `passes.ModelConsolidator`: `consolidate(events, prior)`
returns the same shape as a validated Pass 2 answer ({"episode", "graph"});
`discussion(events)` the same shape as the light discussion call.
What the graph holds (so retrieval can use it): one concept per file written (linked to
that file, with its role), the MCP servers and libraries used, the technologies a decision
requires, decision / error / finding nodes linked to their files, and the edges between
them (resolved_by and caused_by to the files of a fix or a regression, requires from a
decision or a file to what it needs, interacts_with between files written in one turn).
graph_apply adds the episode node and a discovered_during edge from every node to it.
"""

from __future__ import annotations

import re
from typing import Any

from engram.capture import file_role
from engram.consolidate import offline_episode as oe
from engram.consolidate import schema
from engram.consolidate.knowledge import nodes as knowledge_nodes
from engram.consolidate.knowledge import shell_files
from engram.consolidate.knowledge.rules_files import rules_file, said_made, tool_file
from engram.consolidate.schema import NAME_MAX, TEXT_MAX
from engram.language import decision_text
from engram.text import clip_tail, clip_words

MAX_NODES = 40
MAX_EDGES = 80
MAX_RETIRE = 40  # schema.change_request's bound
# unfinished, command, gotcha, instruction, decision, error, required tech, file, tool, library, finding
_PRIORITY = "ucgiderftlx"


class OfflineConsolidator:
    """Consolidation without a model: the episode and the graph changes read off the events."""

    name = "offline"
    models: dict[str, str] = {}
    why = ""

    def full(self, new: list[dict[str, Any]], prior: list[dict[str, Any]], cfg: dict[str, Any],
             usage: Any, known: list[str] = ()) -> dict[str, Any]:
        # Knowledge is read off the whole session (an unfinished request, a check still failing):
        # a slice after a compaction may cite the session's earlier events.
        dropped: list[str] = []  # what our own rules made out of bounds: left out, never the session
        out = schema.pass2(consolidate(new, prior, known), {e["seq"] for e in prior + new}, dropped)
        return {**out, "dropped": dropped} if dropped else out

    def discussion(self, new: list[dict[str, Any]], prior: list[dict[str, Any]], usage: Any) -> dict[str, Any]:
        d = schema.discussion(discussion(new), {e["seq"] for e in new})
        return discussion_request(d, new, prior)


def _name(text: str) -> str:
    return clip_words(text, NAME_MAX)


def _path_name(path: str) -> str:
    return clip_tail(path, NAME_MAX)


class _Graph:
    """Nodes keyed by normalised name, so one concept proposed twice is one node."""

    def __init__(self) -> None:
        self.nodes: list[dict[str, Any]] = []
        self.edges: list[dict[str, Any]] = []
        self.retire: list[dict[str, Any]] = []
        self._by_name: dict[tuple[str, str], str] = {}

    def node(self, prefix: str, name: str, type: str, description: str, **extra: Any) -> str:
        k = (type, " ".join(name.casefold().split()))
        if k in self._by_name:
            return self._by_name[k]
        key = f"{prefix}{len(self.nodes) + 1}"
        self._by_name[k] = key
        self.nodes.append({"key": key, "op": "create", "name": _name(name), "type": type,
                           "description": clip_words(description, 600), "files": extra.pop("files", []),
                           "evidence": extra.pop("evidence", []), **extra})
        return key

    def edge(self, a: str | None, b: str | None, type: str, strength: float) -> None:
        if a and b and a != b:
            self.edges.append({"from": a, "to": b, "type": type, "op": "create", "strength": strength})

    def knowledge(self, events: list[dict[str, Any]], prior: list[dict[str, Any]], known: list[str] = ()) -> None:
        """The knowledge kinds (consolidate/knowledge): commands, gotchas, unfinished work, instructions."""
        found, self.retire = knowledge_nodes.proposals(events, prior, known)
        for p in found:
            p = dict(p)
            self.node(p.pop("prefix"), p.pop("name"), p.pop("type"), p.pop("description"), **p)

    def trimmed(self) -> dict[str, Any]:
        """Within the change request's bounds, keeping the knowledge kinds, decisions and errors first."""
        rank = {p: i for i, p in enumerate(_PRIORITY)}
        nodes = sorted(self.nodes, key=lambda n: rank[n["key"][0]])[:MAX_NODES]
        keys = {n["key"] for n in nodes}
        edges = [e for e in self.edges if e["from"] in keys and e["to"] in keys][:MAX_EDGES]
        kept = {(n.get("data") or {}).get("key") for n in nodes} | keys
        retire = [r if r["by"] is None or r["by"] in kept else {**r, "by": None} for r in self.retire
                  if "name" in r or r["by"] is None or r["by"] in kept]  # a deleted file goes whatever is kept
        return {"nodes": [n for n in self.nodes if n["key"] in keys], "edges": edges, "retire": bounded_retire(retire)}


def bounded_retire(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The retire entries within the change request's bounds, in their order: the knowledge
    rules put the ones that only may close a fact (a program or an option that ran) last, so
    those are what the count cuts; a reason made of a long command line is clipped."""
    return [{**r, "reason": clip_words(r["reason"], TEXT_MAX)} if len(r.get("reason") or "") > TEXT_MAX else r
            for r in entries[:MAX_RETIRE]]


def _deleted(events: list[dict[str, Any]], prior: list[dict[str, Any]]) -> dict[str, str | None]:
    """{path: the path it moved to, or None} for the files this range deleted and did not write
    again: apply_patch's deletes (a move is a delete followed at once by a write of the new
    path) and the shell's `rm`, `git rm`, `mv` and `git mv` (knowledge/shell_files.py), in
    event order."""
    writes = oe._ok_writes(events)
    ops: list[tuple[int, str, str, str | None]] = []
    for i, w in enumerate(writes):
        if w.get("op") == "delete":
            nxt = writes[i + 1] if i + 1 < len(writes) else {}
            moved = nxt.get("seq") == w.get("seq", -2) + 1 and nxt.get("op") != "delete" and nxt["path"] != w["path"]
            ops.append((w["seq"], "gone", w["path"], nxt["path"] if moved else None))
        else:
            ops.append((w["seq"], "write", w["path"], None))
    out: dict[str, str | None] = {}
    for _, kind, path, dest in sorted(ops + shell_files.gone(events, prior), key=lambda o: o[0]):
        if kind == "write":
            out.pop(path, None)
        else:
            out[path] = dest
            out.pop(dest or "", None)
    return out


MAX_SIGNATURES = 2


def _changed_definitions(writes: list[dict[str, Any]]) -> list[str]:
    """The top-level definitions whose line the session's edits of a file wrote, as written
    (the latest first): what the file's interface now is where the session changed it."""
    sigs: list[str] = []
    for w in reversed(writes):
        for line in str(w.get("diff") or "").split("\n"):
            sig = file_role.signature(line[1:]) if line.startswith("+") and not line.startswith("+++") else ""
            if sig and sig not in sigs:
                sigs.append(clip_words(sig, 100))
    return sigs[:MAX_SIGNATURES]


def _file_nodes(g: _Graph, events: list[dict[str, Any]], prior: list[dict[str, Any]], goal: str) -> dict[str, str]:
    """File concepts for the files written; a file deleted (or moved) here retires its node,
    by the node of the path it ends at (made here for a file the shell moved and nothing wrote)."""
    deleted = _deleted(events, prior)
    writes = [w for w in oe._ok_writes(events) if w["path"] not in deleted and not tool_file(w["path"])]
    stats: dict[str, list[int]] = {}
    for w in writes:
        s = stats.setdefault(w["path"], [0, 0, 0, w["seq"]])
        s[0] += 1
        s[1] += int(w.get("lines_added") or 0)
        s[2] += int(w.get("lines_removed") or 0)
    ranked = sorted(stats, key=lambda p: (-stats[p][0] - stats[p][1] / 50, stats[p][3]))[: oe.MAX_FILES]
    roles = oe.file_roles(events)
    out = {}
    for path in sorted(ranked, key=lambda p: stats[p][3]):
        first = stats[path][3]
        created = any(w["path"] == path and w.get("op") == "create" for w in writes)
        desc = f"{path}: {roles[path]}" if roles.get(path) else (
            f"{path}: {'created' if created else 'changed'} while working on \"{clip_words(goal, 120)}\".")
        sigs = [] if created else _changed_definitions([w for w in writes if w["path"] == path])
        desc = desc.rstrip(". ") + f"; changed: {', '.join(f'`{sig}`' for sig in sigs)}." if sigs else desc
        out[path] = g.node("f", _path_name(path), "concept", desc, files=[path], evidence=[first],
                           data={"kind": "file", **({"role": roles[path]} if roles.get(path) else {}),
                                 **({"rules": True} if rules_file(path) else {})})
    turns: dict[Any, list[str]] = {}
    for w in writes:
        if w["path"] in out and w["path"] not in turns.setdefault(w.get("turn"), []):
            turns[w.get("turn")].append(w["path"])
    for paths in turns.values():
        for a, b in zip(paths, paths[1:]):
            g.edge(out[a], out[b], "interacts_with", 0.4)
    for path in _read_files(events, deleted, set(out)):
        desc = f"{path}: {roles[path]}" if roles.get(path) else (
            f"{path}: read while working on \"{clip_words(goal, 120)}\".")
        out[path] = g.node("f", _path_name(path), "concept", desc, files=[path],
                           evidence=[next(e["seq"] for e in events if e.get("path") == path)],
                           data={"kind": "file", **({"role": roles[path]} if roles.get(path) else {}),
                                 **({"rules": True} if rules_file(path) else {})})
    for path, (seq, sentence) in said_made(events).items():  # an export that names no file written
        if path not in out and path not in deleted:
            said = f'the agent said: "{sentence}"'
            out[path] = g.node("f", _path_name(path), "concept", f"{path}: {said}", files=[path], evidence=[seq],
                               data={"kind": "file", "role": said, "rules": True})
    for path, moved in deleted.items():
        while moved in deleted:  # a -> b -> c: a ends at c
            moved = deleted[moved]
        if moved and moved not in out:
            out[moved] = g.node("f", _path_name(moved), "concept", f"{moved}: moved from {path} in this session.",
                                files=[moved], data={"kind": "file"})
        g.retire.append({"name": _path_name(path), "by": out.get(moved) if moved else None,
                         "reason": f"renamed to {moved} in this session" if moved else "deleted in this session"})
    return out


MAX_READ_FILES = 8


def _read_files(events: list[dict[str, Any]], deleted: dict[str, str], written: set[str]) -> list[str]:
    """The files the session kept going back to (read twice or more; a file of the project's
    rules for the agent once) and did not write: what a next session otherwise re-discovers."""
    counts: dict[str, int] = {}
    for e in events:
        path = e.get("path")
        if (e.get("type") == "file_read" and e.get("ok", True) is not False and isinstance(path, str) and path
                and not path.endswith("/")):
            counts[path] = counts.get(path, 0) + 1
    ranked = [p for p, n in sorted(counts.items(), key=lambda kv: -kv[1])
              if (n >= 2 or rules_file(p)) and p not in written and p not in deleted and not tool_file(p)]
    return ranked[:MAX_READ_FILES]


def _tool_nodes(g: _Graph, events: list[dict[str, Any]], prior: list[dict[str, Any]], files: dict[str, str],
                root: str) -> None:
    for name, rec in oe.tools(events).items():
        g.node("t", name, "concept", rec["description"], evidence=rec["evidence"][:10], data={"kind": "tool"})
    for lib, paths in oe.libraries(events, root, prior).items():
        key = g.node("l", lib, "concept", f"Third-party library {lib}, imported in {', '.join(paths[:5])}.",
                     files=paths[:5], data={"kind": "library"})
        for p in paths:
            g.edge(files.get(p), key, "requires", 0.6)


_NAMED = re.compile(r"[A-Z0-9._/@:+#-]")


def _named_thing(term: str) -> bool:
    """A choice that names a thing: a name the alias table knows, or one written as a name
    (a capital, a digit, a dot or slash: "Redis", "Python 3.12", "org/repo"), not a phrase of
    plain words ("all we have": "Let's keep all we have as an admin dashboard")."""
    from engram.language import aliases

    return bool(_NAMED.search(term)) or aliases.table().canonical(term) is not None


def _decision_nodes(g: _Graph, decs: list[dict[str, Any]]) -> None:
    for d in decs:
        key = g.node("d", d["text"], "decision", d["text"], files=d["files"], evidence=d["evidence"],
                     explicit=d["kind"] == "explicit", rationale=d["rationale"], alternatives=d["alternatives"],
                     data={"requires": d["requires"], "forbids": d["forbids"]})
        for term in d["requires"] if d["kind"] == "explicit" else []:
            if 0 < len(term.split()) <= 4 and _named_thing(term):
                why = f"{term}: required by the decision \"{clip_words(d['text'], 200)}\"."
                tech = g.node("r", term, "concept", why, evidence=d["evidence"], data={"kind": "technology"})
                g.edge(key, tech, "requires", 0.8)


def _error_nodes(g: _Graph, errs: list[dict[str, Any]], files: dict[str, str]) -> None:
    for e in errs:
        desc = e["text"].rstrip(".") + (f". Root cause: {e['root_cause']}" if e["root_cause"] else "") + (
            f". {e['resolution']}." if e["resolution"] else "; unresolved when the episode ended.")
        key = g.node("e", e["text"], "error", desc, files=e["files"][:20], evidence=e["evidence"])
        for p in e["files"]:
            if e["resolution"]:
                g.edge(key, files.get(p), "resolved_by", 0.7)
        for p in e["cause_files"]:
            g.edge(key, files.get(p), "caused_by", 0.6)


def _finding_nodes(g: _Graph, finds: list[dict[str, Any]], events: list[dict[str, Any]]) -> None:
    by_seq = {e.get("seq"): e for e in events}
    for f in finds:
        if f.get("activity"):  # "lines 1-40 revised 3 times" stays in the episode, not in the graph
            continue
        paths = [by_seq[s]["path"] for s in f["evidence"] if by_seq.get(s, {}).get("path")]
        g.node("x", decision_text.sentences(f["text"])[0] if decision_text.sentences(f["text"]) else f["text"],
               "finding", f["text"], files=list(dict.fromkeys(paths))[:5], evidence=f["evidence"],
               confidence=f["confidence"])


def consolidate(events: list[dict[str, Any]], prior: list[dict[str, Any]] | None = None,
                known: list[str] = ()) -> dict[str, Any]:
    """{"episode", "graph"} for a range of events; `prior` = earlier events of the session,
    `known` = what the graph holds (worker.known_nodes: a subagent named again is an instruction)."""
    prior = prior or []
    errs = oe.errors(events)
    decs = oe.decisions(events)
    finds = oe.discoveries(events)
    goal = oe.goal(events, prior)
    episode = {
        "goal": goal, "approach": oe.approach(events), "outcome": oe.outcome(events, errs),
        "discoveries": finds,
        "decisions": [{k: d[k] for k in ("text", "kind", "rationale", "alternatives", "files", "evidence")}
                      for d in decs],
        "errors": [{k: e[k] for k in ("text", "root_cause", "resolution", "files", "evidence")} for e in errs],
    }  # fmt: skip
    g = _Graph()
    g.knowledge(events, prior, known)
    files = _file_nodes(g, events, prior, goal)
    root = knowledge_nodes.project_root(prior + events)
    _tool_nodes(g, events, prior, files, root)
    _decision_nodes(g, decs)
    _error_nodes(g, errs, files)
    _finding_nodes(g, finds, events)
    return {"episode": episode, "graph": g.trimmed()}


def with_knowledge(request: dict[str, Any], events: list[dict[str, Any]], prior: list[dict[str, Any]],
                   known: list[str] = ()) -> dict[str, Any]:
    """A model's validated answer plus the knowledge read off the events (commands, gotchas,
    unfinished work, instructions), so both paths produce the same kinds. A proposal whose
    name the model already used is left to the model's node; the request stays in bounds."""
    g = _Graph()
    for n in request["graph"]["nodes"]:
        g._by_name[(n["type"], " ".join(n["name"].casefold().split()))] = n["key"]
    g.knowledge(events, prior, known)
    taken = {n["key"] for n in request["graph"]["nodes"]}
    room = max(0, MAX_NODES - len(request["graph"]["nodes"]))
    ranked = sorted(g.nodes, key=lambda n: _PRIORITY.index(n["key"][0]))[:room]
    fresh = (k for k in (f"k{i}" for i in range(1, 10 * MAX_NODES)) if k not in taken)
    extra = [{**n, "key": next(fresh)} for n in ranked]
    kept = {(n.get("data") or {}).get("key") for n in extra} | {
        (n.get("data") or {}).get("key") for n in request["graph"]["nodes"]}
    retire = [r for r in g.retire if r["by"] is None or r["by"] in kept]
    graph = {**request["graph"], "nodes": request["graph"]["nodes"] + extra,
             "retire": bounded_retire((request["graph"].get("retire") or []) + retire)}
    dropped: list[str] = []  # the model's part was validated as it came; only ours can be left out here
    out = {**request, "graph": schema.change_request(graph, None, dropped)}
    return {**out, "dropped": dropped} if dropped else out


# -- light discussion consolidation ----------------------------------------------------

_TOPIC = re.compile(r"`([^`]{2,60})`|\b(?<!\b[\w./-])([\w./-]+\.[A-Za-z]{1,5})\b|\b([A-Z][a-z]+[A-Z]\w*|[A-Z]{2,}[a-z]*\d*|[A-Za-z]\w*\d\w*)\b")


def topics(text: str) -> list[str]:
    """Code spans, file names, CamelCase / ACRONYM / versioned words: the nameable things."""
    out = [next(g for g in m.groups() if g) for m in _TOPIC.finditer(text or "")]
    return list(dict.fromkeys(t for t in out if len(t) > 1))[:5]


def discussion(events: list[dict[str, Any]]) -> dict[str, Any]:
    """Topics, decisions stated and constraints mentioned, from prompts and agent replies."""
    prompts = [e for e in events if e.get("type") == "user_prompt"]
    text = " ".join(str(e.get("prompt") or "") for e in prompts)
    decisions, constraints = [], []
    for e in prompts:
        for d in decision_text.decision_sentences(str(e.get("prompt") or "")):
            item = {"text": d["text"], "evidence": [e["seq"]]}
            if d["requires"]:
                decisions.append({**item, "rationale": d["rationale"]})
            else:
                constraints.append(item)
    found = topics(text) or ([" ".join(text.split()[:6])] if text.strip() else [])
    return {"topics": [_name(t) for t in found], "decisions": decisions[:10], "constraints": constraints[:10]}


def discussion_request(d: dict[str, Any], events: list[dict[str, Any]], prior: list[dict[str, Any]]) -> dict[str, Any]:
    """A validated discussion answer (from a model or from `discussion`) as {"episode", "graph"}."""
    g = _Graph()
    g.knowledge(events, prior)
    decisions = []
    for item, explicit_rule in [(x, False) for x in d["decisions"]] + [(x, True) for x in d["constraints"]]:
        parsed = decision_text.parse(item["text"])
        rationale = item.get("rationale") or parsed["rationale"]
        decisions.append({"text": item["text"], "kind": "explicit", "rationale": rationale, "alternatives": [],
                          "files": [], "evidence": item["evidence"]})
        g.node("d", item["text"], "decision", item["text"], evidence=item["evidence"], explicit=True,
               rationale=rationale, alternatives=[],
               data={"requires": parsed["requires"], "forbids": parsed["forbids"], "constraint": explicit_rule})
    topic_list = ", ".join(d["topics"]) or "general discussion"
    episode = {"goal": oe.goal(events, prior), "approach": f"Discussion (no tools) about: {topic_list}.",
               "outcome": "success", "discoveries": [], "decisions": decisions, "errors": [],
               "topics": d["topics"]}
    dropped: list[str] = []  # the graph is the rules' own (the model's part was validated): checked like a full one's
    out = {"episode": episode, "graph": schema.change_request(g.trimmed(), None, dropped)}
    return {**out, "dropped": dropped} if dropped else out
