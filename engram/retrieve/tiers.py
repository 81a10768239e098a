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
from engram.redact.injection import withhold
from engram.text import cjk_count, clip, inert

FULL, SUMMARY, LOW = 3, 2, 1
TIER_NAMES = {FULL: "full", SUMMARY: "summary", LOW: "low"}
HIGH_CUT, MEDIUM_CUT = 0.7, 0.3
MAX_DESCRIPTION = 600
MAX_SUMMARY = 200
LOW_PREFIX = "Also in memory (details via the query_knowledge tool): "
# Knowledge kinds whose description is written to be shown whole (consolidate/knowledge).
STANDING_KINDS = ("unfinished", "command", "command_run", "gotcha", "instruction")
SELF_CONTAINED = ("unfinished", "command", "command_run", "gotcha")  # their description says all the name does
# Kinds whose name is what a session needs: a library's description only lists the files importing
# it ("Third-party library pytest, imported in …"), 30 words where its name says it.
NAMED_ONLY = ("library",)
LABELS = {"decision": "Decision", "error": "Past error", "finding": "Finding", "concept": "Concept",
          "episode": "Earlier session", "pattern": "Recurring pattern"}  # fmt: skip


def tier(activation: float) -> int:
    if activation > HIGH_CUT:
        return FULL
    if activation >= MEDIUM_CUT:
        return SUMMARY
    return LOW


def level(node: dict, activation: float) -> int:
    """The tier a node is shown at: an episode or a self-contained kind reads the same at
    the full and the summary tier, so it never counts as new when activation rises."""
    kind = data_of(node).get("kind")
    if kind in NAMED_ONLY:
        return min(tier(activation), LOW)
    if node.get("type") == "episode" or kind in SELF_CONTAINED:
        return min(tier(activation), SUMMARY)
    return tier(activation)


def tokens(text: str) -> int:
    """The tokens `text` counts as: 4 characters a token (a CJK character one: a tokenizer cuts
    those scripts about a character a token), or 1.9 a word where its words are short (lists
    of names and flags), whichever is more, so that a budget in tokens also bounds the words a
    session is shown (firstTurnTokenBudget's 1,900 tokens: 1,000 words)."""
    return tokens_of(len(text), len(text.split()), cjk_count(text))


def tokens_of(chars: int, words: int, cjk: int = 0) -> int:
    """The tokens a text of `chars` characters (`cjk` of them CJK) and `words` words counts as
    (see `tokens`)."""
    return max((chars - cjk + 3) // 4 + cjk, (words * 19 + 9) // 10)


def data_of(node: dict) -> dict:
    """The node's `data`, parsed once: the parse replaces the JSON text in the node (a row's
    dict, read for this retrieval), since rendering a node asks for it a dozen times."""
    raw = node.get("data")
    if isinstance(raw, dict):
        return raw
    try:
        d = jsonio.loads(raw) if isinstance(raw, str) and raw else {}
    except ValueError:
        d = {}
    d = d if isinstance(d, dict) else {}
    node["data"] = d
    return d


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


FRAMINGS = ("Decision: ", "Observed pattern: ")
KIND_LABELS = {"unfinished": "Unfinished", "command": "Command that works", "gotcha": "Known problem",
               "instruction": "User instruction", "file": "File"}


def label(node: dict) -> str:
    kind = data_of(node).get("kind")
    if kind in KIND_LABELS:
        return KIND_LABELS[kind]
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
    if not files or n <= 0:
        return ""
    more = f" +{len(files) - n}" if len(files) > n else ""
    return f" [files: {', '.join(files[:n])}{more}]"


REPLY = " Its last reply: "  # where the last-session node's quote of the user ends (knowledge/nodes.py)


def guarded(node: dict, text: str) -> str:
    """The last guard before text is served: a sentence addressing the agent (engram/injection.py)
    is withheld unless the user said it (an instruction node, the request the last session's
    node quotes); what is withheld is named as tool output."""
    data = data_of(node)
    if data.get("source") == "user":
        return text
    if data.get("key") == "last-session" and REPLY in text:
        asked, reply = text.split(REPLY, 1)
        return asked + REPLY + withhold(reply, "the agent's reply")
    return withhold(text, "tool output")


def _loose(text: str) -> str:
    return " ".join(text.casefold().replace("`", "").strip("…").split())  # a long path is cut from its start


def _head_and_body(name: str, text: str) -> tuple[str, str]:
    """Say the name once: a body that holds the name (framing aside) replaces it. Both are
    compared as stored (raw), so a name with `>` or a newline is found in its description;
    the head is neutralised after (`inert`), like the body."""
    stem, loose = _loose(name), _loose(text)
    if text and stem and stem in loose:
        return "", text
    return inert(name, 160), ("" if loose == stem else text)  # the caller guards both


def _episode_body(node: dict) -> str:
    """An earlier session as its goal, outcome (when a test or build run said it) and day: its
    events' (a replayed transcript's own), else the node's (its activity counts are not shown)."""
    goal = str(node.get("description") or "").split(" — ", 1)[0] or str(node.get("name") or "")
    data = data_of(node)
    outcome = data.get("outcome") if data.get("outcome_known", True) else None  # no verdict: no outcome
    day = str(data.get("ended_at") or node.get("updated_at") or "")[:10]
    said = [f"outcome: {outcome}"] if outcome else []
    said += [day] if day else []
    return inert(goal, MAX_SUMMARY - 30) + (f" ({', '.join(said)})" if said else "")


def body(node: dict, level: int) -> str:
    """What a node says at a tier, cut at a word boundary, without its name when it holds it."""
    if node.get("type") == "episode":
        return _episode_body(node)
    if data_of(node).get("rules"):  # a file of the project's rules for the agent
        role = guarded(node, str(data_of(node).get("role") or ""))
        role = "" if role.strip("# ").casefold() == str(node.get("name") or "").rsplit("/", 1)[-1].casefold() else role
        return inert(f"The project's rules for the agent are in {node.get('name')}" + (f": {role}" if role else ""),
                     MAX_DESCRIPTION)
    desc = " ".join(str(node.get("description") or "").split())
    kind = data_of(node).get("kind")
    if level == FULL or kind in STANDING_KINDS:
        text = desc
        rationale = data_of(node).get("rationale")
        if node.get("type") == "decision" and isinstance(rationale, str) and rationale and rationale not in desc:
            text = (text + " " if text else "") + "Because: " + rationale
        limit = MAX_DESCRIPTION if level == FULL or kind in SELF_CONTAINED else MAX_SUMMARY
    else:
        text = " ".join(str(node.get("summary") or "").split()) or first_sentence(desc)
        limit = MAX_SUMMARY
    text = guarded(node, _with_versions(node, text))
    head, text = ("", text) if kind in SELF_CONTAINED and text else _head_and_body(name_of(node), text)
    return " — ".join(p for p in (head, _asked_and_reply(text, limit) if REPLY in text else inert(text, limit)) if p)


def _asked_and_reply(text: str, limit: int) -> str:
    """The last session's line within `limit`: what it was asked gives way before its last reply,
    which says where it stopped (four long requests had left "Its last reply: "Good, confirmed…")."""
    asked, reply = text.split(REPLY, 1)
    reply = inert(reply, max(limit // 2, limit - len(asked) - len(REPLY)))
    return inert(asked, max(limit - len(reply) - len(REPLY), 80)) + REPLY + reply


def _with_versions(node: dict, text: str) -> str:
    """A thing's text and the versions it was met at (entity resolution keeps "SQLite 3.53.0" as
    SQLite, its version in `data.versions`): which version a memory is about is what may matter."""
    listed = data_of(node).get("versions")
    versions = [str(v) for v in listed if isinstance(v, (str, int, float))] if isinstance(listed, list) else []
    if not versions:
        return text
    shown = ", ".join(versions[-5:])
    return f"{text} (versions seen: {shown})" if text else f"versions seen: {shown}"


def name_of(node: dict) -> str:
    """The node's name as it may be shown: guarded (`guarded`), not yet inert."""
    return guarded(node, str(node.get("name") or ""))


def with_note(node: dict, note: str) -> dict:
    """The node with `note` ("(related decision: NAME)") after its summary and its description,
    each first cut to leave room for it within its tier's limit."""
    out = dict(node)
    for key, limit in (("summary", MAX_SUMMARY), ("description", MAX_DESCRIPTION)):
        text = str(node.get(key) or node.get("summary") or node["name"])
        out[key] = clip(text, max(40, limit - len(note) - 1)) + " " + note
    return out


def _files_shown(node: dict, level: int) -> int:
    """How many of a node's files its line names at a tier above LOW."""
    return 0 if data_of(node).get("kind") in ("file", "command") or node.get("type") == "episode" else (
        3 if level == FULL else 2)


def least(node: dict, level: int) -> int:
    """The fewest tokens `line(node, level)` can count (level above LOW): its dash and its files,
    whatever its body. Rendering stops at a group's share of the budget, so most lines the
    first pass would render do not fit (~85 of ~115 a prompt); what this rules out is not
    rendered. A lower bound: the line holds these characters and words, and more."""
    suffix = _files_suffix(node, _files_shown(node, level))
    shown = inert(suffix.strip(), 400) if suffix else ""
    return tokens_of(2 + len(shown) + (1 if shown else 0), 1 + len(shown.split()))


def line(node: dict, level: int, labelled: bool = True) -> str:
    """One bullet for a node at a tier (LOW gives just the name); `labelled` prefixes its kind.

    Injection point: every field is tool-derived text, shown through `inert` (markup and
    fences neutralised, newlines escaped, cut at a word), so none can close the block it is in.
    """
    if level == LOW:
        return inert(name_of(node), 160)
    files = _files_shown(node, level)
    text = body(node, level)
    prefix = ""
    if labelled:
        prefix = f"{label(node)}: "
        for framing in FRAMINGS:  # "Decision: Decision: …" says it twice
            text = text[len(framing):] if text.startswith(framing) else text
    suffix = _files_suffix(node, files)
    return f"- {prefix}{text}" + (" " + inert(suffix.strip(), 400) if suffix else "")
