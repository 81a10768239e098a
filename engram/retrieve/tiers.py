"""Activation tiers and the text injected into the agent's context, within a token budget.

Tiers (docs/spec.md, "Pre-execution retrieval"): activation > 0.7 -> the full description; 0.3-0.7 -> the summary;
activationThreshold-0.3 -> the name only, listed as available through query_knowledge.
Text is written as plain facts ("Decision: ...", "Past error: ..."), never as orders to
the agent: harnesses treat injected imperatives as possible prompt injection, and the
agent stays free to ignore memory. An implicit decision (node data `explicit: false`)
keeps the spec's (docs/spec.md) framing: "Observed pattern", not "Decision".

Tokens are estimated as characters / 4 (rounded up). When an entry does not fit at its
tier it is tried at the next lower one before being dropped, so the budget buys as
many distinct facts as it can. Order is deterministic: activation, then node id.
"""

from __future__ import annotations

from engram import jsonio
from engram.text import inert

FULL, SUMMARY, LOW = 3, 2, 1
TIER_NAMES = {FULL: "full", SUMMARY: "summary", LOW: "low"}
HIGH_CUT, MEDIUM_CUT = 0.7, 0.3
MAX_DESCRIPTION = 600
MAX_SUMMARY = 200
LOW_PREFIX = "Also in memory (details via the query_knowledge tool): "
LABELS = {"decision": "Decision", "error": "Past error", "finding": "Finding", "concept": "Concept",
          "episode": "Earlier session", "pattern": "Recurring pattern"}  # fmt: skip


def tier(activation: float) -> int:
    if activation > HIGH_CUT:
        return FULL
    if activation >= MEDIUM_CUT:
        return SUMMARY
    return LOW


def tokens(text: str) -> int:
    return (len(text) + 3) // 4


def data_of(node: dict) -> dict:
    raw = node.get("data")
    if isinstance(raw, dict):
        return raw
    try:
        d = jsonio.loads(raw) if isinstance(raw, str) and raw else {}
    except ValueError:
        return {}
    return d if isinstance(d, dict) else {}


def json_strings(raw) -> list[str]:
    """The strings of a JSON-array column (already decoded or still text); [] if malformed."""
    if isinstance(raw, str):
        try:
            raw = jsonio.loads(raw) if raw else []
        except ValueError:
            return []
    return [x for x in raw if isinstance(x, str)] if isinstance(raw, list) else []


def files_of(node: dict) -> list[str]:
    return json_strings(node.get("affected_files"))


def label(node: dict) -> str:
    if node.get("type") == "decision" and data_of(node).get("explicit") is False:
        return "Observed pattern (implemented without a stated decision)"
    return LABELS.get(node.get("type") or "", "Note")


def first_sentence(text: str) -> str:
    text = " ".join(str(text or "").split())
    for i, ch in enumerate(text):
        if ch in ".!?" and (i + 1 == len(text) or text[i + 1] == " ") and i > 20:
            return text[: i + 1]
    return text


def _files_suffix(node: dict, n: int) -> str:
    files = files_of(node)
    if not files:
        return ""
    more = f" +{len(files) - n}" if len(files) > n else ""
    return f" [files: {', '.join(files[:n])}{more}]"


def _head_and_body(name: str, text: str) -> tuple[str, str]:
    """Avoid saying the name twice: a body that starts with the name replaces it."""
    stem = name[:-1] if name.endswith("…") else name
    if text and stem and text.startswith(stem):
        return "", text
    return name, ("" if text == name else text)


def line(node: dict, level: int) -> str:
    """One bullet for a node at a tier (LOW gives just the name).

    Injection point: every field is tool-derived text, shown through `inert` (markup and
    fences neutralised, newlines escaped, clipped), so none can close the block it is in.
    """
    name = inert(node.get("name"), 160)
    if level == LOW:
        return name
    desc = " ".join(str(node.get("description") or "").split())
    if level == FULL:
        body = desc
        rationale = data_of(node).get("rationale")
        if node.get("type") == "decision" and isinstance(rationale, str) and rationale and rationale not in desc:
            body = (body + " " if body else "") + "Because: " + rationale
        limit, n_files = MAX_DESCRIPTION, 3
    else:
        body = " ".join(str(node.get("summary") or "").split()) or first_sentence(desc)
        limit, n_files = MAX_SUMMARY, 2
    head, body = _head_and_body(name, inert(body, limit))
    text = " — ".join(p for p in (head, body) if p)
    files = _files_suffix(node, n_files)
    return f"- {label(node)}: {text}" + (" " + inert(files, 400) if files else "")


def render(items: list[tuple[dict, float]], budget: int, header: str,
           low_prefix: str = LOW_PREFIX) -> tuple[str | None, list[tuple[str, int]]]:
    """(text or None, [(node id, tier shown)]) for ranked (node, activation) pairs."""
    used = tokens(header) + 1
    groups: dict[int, list[str]] = {FULL: [], SUMMARY: [], LOW: []}
    shown: list[tuple[str, int]] = []
    for node, act in items:
        # The name alone is the cheapest form: if even that does not fit, skip the node
        # without building (and JSON-decoding) its longer lines.
        name = line(node, LOW)
        if used + tokens(name) + 1 > budget:  # every form holds the name (or a body starting with it)
            continue
        low_cost = tokens(name + "; ") + (0 if groups[LOW] else tokens(low_prefix) + 1)
        for level in range(tier(act), 0, -1):
            text = name if level == LOW else line(node, level)
            cost = low_cost if level == LOW else tokens(text) + 1
            if used + cost <= budget:
                used += cost
                groups[level].append(text)
                shown.append((node["id"], level))
                break
    if not shown:
        return None, []
    lines = [header] + groups[FULL] + groups[SUMMARY]
    if groups[LOW]:
        lines.append(low_prefix + "; ".join(groups[LOW]) + ".")
    return "\n".join(lines), shown
