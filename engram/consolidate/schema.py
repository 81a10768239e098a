"""Hand-written validators for what the models return (and what the offline builder makes).

A model's JSON is untrusted input headed for the graph: every string is bounded, every
enum checked, every evidence seq must be a real event of the range being consolidated.
A validator returns the cleaned object or raises `Invalid` with a message short and
precise enough to send back to the model as its one repair instruction.
"""

from __future__ import annotations

from typing import Any, Callable

NAME_MAX = 80
DESC_MAX = 600
TEXT_MAX = 400
WINDOW_OUTCOMES = ("progress", "debugging", "blocked", "completed")
OUTCOMES = ("success", "partial", "failure")
NODE_TYPES = ("concept", "decision", "finding", "error")
EDGE_TYPES = ("requires", "interacts_with", "discovered_during", "caused_by", "resolved_by",
              "similar_to", "contradicts", "version_of")
EPISODE_KEY = "episode"
# The knowledge kinds a node may carry in data.kind (docs/knowledge.md); "file", "tool",
# "library" and "technology" are the offline builder's concept kinds.
KINDS = ("command", "command_run", "gotcha", "unfinished", "instruction", "mention", "file", "tool", "library", "technology")
KEY_MAX = 200


class Invalid(ValueError):
    """The object does not match the schema; the message says where and why."""


def _obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Invalid(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _str(value: Any, where: str, limit: int, *, required: bool = True) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise Invalid(f"{where}: expected a non-empty string")
    value = " ".join(value.split())
    if len(value) > limit:
        raise Invalid(f"{where}: {len(value)} characters, at most {limit} allowed")
    return value


def _enum(value: Any, where: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise Invalid(f"{where}: {value!r} is not one of {', '.join(allowed)}")
    return value


def _list(value: Any, where: str, limit: int, item: Callable[[Any, str], Any],
          dropped: list[str] | None = None) -> list[Any]:
    """The list's items validated; with `dropped` (our own rules' output, not a model's), an
    item that fails and items past `limit` are left out and said there instead of raising."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise Invalid(f"{where}: expected a list")
    if len(value) > limit:
        if dropped is None:
            raise Invalid(f"{where}: {len(value)} items, at most {limit} allowed")
        dropped.append(f"{where}: {len(value)} items, the last {len(value) - limit} left out")
        value = value[:limit]
    out = []
    for i, v in enumerate(value):
        try:
            out.append(item(v, f"{where}[{i}]"))
        except Invalid as exc:
            if dropped is None:
                raise
            dropped.append(str(exc))
    return out


def _float01(value: Any, where: str, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise Invalid(f"{where}: expected a number between 0 and 1")
    return float(value)


def _evidence(seqs: set[int] | None, *, required: bool) -> Callable[[Any, str], list[int]]:
    def check(value: Any, where: str) -> list[int]:
        out = _list(value, where, 50, lambda v, w: v if isinstance(v, int) and not isinstance(v, bool)
                    else _bad(w, "expected an event seq (integer)"))
        if required and not out:
            raise Invalid(f"{where}: cite at least one event seq")
        if seqs is not None:
            unknown = [s for s in out if s not in seqs]
            if unknown:
                raise Invalid(f"{where}: seq {unknown[0]} is not an event of this range "
                              f"(valid: {min(seqs)}..{max(seqs)})")
        return out
    return check


def _bad(where: str, why: str) -> Any:
    raise Invalid(f"{where}: {why}")


def _strs(limit_items: int, limit_len: int) -> Callable[[Any, str], list[str]]:
    return lambda v, w: _list(v, w, limit_items, lambda x, ww: _str(x, ww, limit_len))


# -- Pass 1 ------------------------------------------------------------------------


def window_summary(value: Any, seqs: set[int]) -> dict[str, Any]:
    o = _obj(value, "summary")
    return {
        "intent": _str(o.get("intent"), "summary.intent", 300),
        "what_happened": _str(o.get("what_happened"), "summary.what_happened", 1200),
        "files_modified": _strs(50, 300)(o.get("files_modified"), "summary.files_modified"),
        "decisions": _strs(10, 300)(o.get("decisions"), "summary.decisions"),
        "outcome": _enum(o.get("outcome"), "summary.outcome", WINDOW_OUTCOMES),
        "evidence": _evidence(seqs, required=False)(o.get("evidence"), "summary.evidence"),
    }


# -- Pass 2 ------------------------------------------------------------------------


def episode(value: Any, seqs: set[int] | None, dropped: list[str] | None = None) -> dict[str, Any]:
    """The episode validated; `dropped` as in `_list` (a discovery, decision or error that breaks
    a bound is left out, not the session)."""
    o = _obj(value, "episode")
    ev_req, ev_opt = _evidence(seqs, required=True), _evidence(seqs, required=False)
    return {
        "goal": _str(o.get("goal"), "episode.goal", 300),
        "approach": _str(o.get("approach"), "episode.approach", 1200, required=False),
        "outcome": _enum(o.get("outcome"), "episode.outcome", OUTCOMES),
        "discoveries": _list(o.get("discoveries"), "episode.discoveries", 20, lambda d, w: {
            "text": _str(_obj(d, w).get("text"), w + ".text", TEXT_MAX),
            "evidence": ev_req(d.get("evidence"), w + ".evidence"),
            "confidence": _float01(d.get("confidence"), w + ".confidence", 0.5),
        }, dropped),
        "decisions": _list(o.get("decisions"), "episode.decisions", 20, lambda d, w: {
            "text": _str(_obj(d, w).get("text"), w + ".text", 300),
            "kind": _enum(d.get("kind"), w + ".kind", ("explicit", "implicit")),
            "rationale": _str(d.get("rationale"), w + ".rationale", TEXT_MAX, required=False),
            "alternatives": _strs(5, 200)(d.get("alternatives"), w + ".alternatives"),
            "files": _strs(20, 300)(d.get("files"), w + ".files"),
            "evidence": ev_opt(d.get("evidence"), w + ".evidence"),
        }, dropped),
        "errors": _list(o.get("errors"), "episode.errors", 20, lambda d, w: {
            "text": _str(_obj(d, w).get("text"), w + ".text", TEXT_MAX),
            "root_cause": _str(d.get("root_cause"), w + ".root_cause", TEXT_MAX, required=False),
            "resolution": _str(d.get("resolution"), w + ".resolution", TEXT_MAX, required=False),
            "files": _strs(20, 300)(d.get("files"), w + ".files"),
            "evidence": ev_req(d.get("evidence"), w + ".evidence"),
        }, dropped),
    }


def _node(seqs: set[int] | None) -> Callable[[Any, str], dict[str, Any]]:
    def check(value: Any, where: str) -> dict[str, Any]:
        o = _obj(value, where)
        node = {
            "key": _str(o.get("key"), where + ".key", 40),
            "op": _enum(o.get("op", "create"), where + ".op", ("create", "update")),
            "name": _str(o.get("name"), where + ".name", NAME_MAX),
            "type": _enum(o.get("type"), where + ".type", NODE_TYPES),
            "description": _str(o.get("description"), where + ".description", DESC_MAX, required=False),
            "files": _strs(20, 300)(o.get("files"), where + ".files"),
            "evidence": _evidence(seqs, required=False)(o.get("evidence"), where + ".evidence"),
        }
        if node["key"] == EPISODE_KEY:
            raise Invalid(f"{where}.key: {EPISODE_KEY!r} is reserved for the episode node")
        if node["type"] == "decision":
            if not isinstance(o.get("explicit"), bool):
                raise Invalid(f"{where}.explicit: a decision node needs explicit true or false")
            node["explicit"] = o["explicit"]
            node["rationale"] = _str(o.get("rationale"), where + ".rationale", TEXT_MAX, required=False)
            node["alternatives"] = _strs(5, 200)(o.get("alternatives"), where + ".alternatives")
        if node["type"] == "finding":
            node["confidence"] = _float01(o.get("confidence"), where + ".confidence", 0.5)
        if isinstance(o.get("data"), dict):  # structured extras: a knowledge kind and its key
            node["data"] = _data(o["data"], where + ".data")
        return node
    return check


def _data(value: dict[str, Any], where: str) -> dict[str, Any]:
    data = dict(value)
    if "kind" in data:
        _enum(data["kind"], where + ".kind", KINDS)
    if "key" in data:
        data["key"] = _str(data["key"], where + ".key", KEY_MAX)
    return data


def _retire(keys: set[str]) -> Callable[[Any, str], dict[str, Any]]:
    """{"key": a data.key, or "name": an existing node's name; "by": the key or data.key of a
    node in graph.nodes that replaces it (optional); "reason"} (required with "name")."""
    def check(value: Any, where: str) -> dict[str, Any]:
        o = _obj(value, where)
        by = _str(o.get("by"), where + ".by", KEY_MAX, required=False) or None
        if by is not None and by not in keys:
            raise Invalid(f"{where}.by: {by!r} is not the key of a node in graph.nodes")
        if ("key" in o) == ("name" in o):
            raise Invalid(f"{where}: give either key (a data.key) or name (an existing node's name)")
        out = {"by": by, "reason": _str(o.get("reason"), where + ".reason", TEXT_MAX, required="name" in o)}
        if "name" in o:
            return {"name": _str(o["name"], where + ".name", NAME_MAX), **out}
        return {"key": _str(o.get("key"), where + ".key", KEY_MAX), **out}
    return check


def _edge(keys: set[str]) -> Callable[[Any, str], dict[str, Any]]:
    def check(value: Any, where: str) -> dict[str, Any]:
        o = _obj(value, where)
        edge = {
            "from": _str(o.get("from"), where + ".from", 40),
            "to": _str(o.get("to"), where + ".to", 40),
            "type": _enum(o.get("type"), where + ".type", EDGE_TYPES),
            "op": _enum(o.get("op", "create"), where + ".op", ("create", "update")),
            "strength": _float01(o.get("strength"), where + ".strength", 0.5),
        }
        for end in ("from", "to"):
            if edge[end] not in keys:
                raise Invalid(f"{where}.{end}: {edge[end]!r} is not the key of a node in graph.nodes "
                              f"nor {EPISODE_KEY!r}")
        return edge
    return check


def change_request(value: Any, seqs: set[int] | None, dropped: list[str] | None = None) -> dict[str, Any]:
    """The graph changes validated; `dropped` as in `_list` (an edge or a retire entry naming a
    node left out goes too)."""
    o = _obj(value, "graph")
    nodes = _list(o.get("nodes"), "graph.nodes", 40, _node(seqs), dropped)
    keys = [n["key"] for n in nodes]
    if len(set(keys)) != len(keys):
        raise Invalid("graph.nodes: two nodes share a key")
    edges = _list(o.get("edges"), "graph.edges", 80, _edge(set(keys) | {EPISODE_KEY}), dropped)
    data_keys = {n["data"]["key"] for n in nodes if "key" in n.get("data", {})}
    retire = _list(o.get("retire"), "graph.retire", 40, _retire(data_keys | set(keys)), dropped)
    return {"nodes": nodes, "edges": edges, "retire": retire}


def pass2(value: Any, seqs: set[int] | None, dropped: list[str] | None = None) -> dict[str, Any]:
    o = _obj(value, "response")
    return {"episode": episode(o.get("episode"), seqs, dropped), "graph": change_request(o.get("graph"), seqs, dropped)}


# -- discussion ----------------------------------------------------------------------


def discussion(value: Any, seqs: set[int] | None) -> dict[str, Any]:
    o = _obj(value, "discussion")
    ev = _evidence(seqs, required=False)
    return {
        "topics": _strs(10, NAME_MAX)(o.get("topics"), "discussion.topics"),
        "decisions": _list(o.get("decisions"), "discussion.decisions", 10, lambda d, w: {
            "text": _str(_obj(d, w).get("text"), w + ".text", 300),
            "rationale": _str(d.get("rationale"), w + ".rationale", TEXT_MAX, required=False),
            "evidence": ev(d.get("evidence"), w + ".evidence"),
        }),
        "constraints": _list(o.get("constraints"), "discussion.constraints", 10, lambda d, w: {
            "text": _str(_obj(d, w).get("text"), w + ".text", 300),
            "evidence": ev(d.get("evidence"), w + ".evidence"),
        }),
    }
