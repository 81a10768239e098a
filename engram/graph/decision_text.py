"""Decisions in plain sentences: which sentences are decisions, what they require and forbid.

Used twice: the offline consolidator finds decision-shaped sentences in prompts ("let's
use X", "we should never Y", "use X instead of Y", "always Z"), and every decision node,
from any provider, gets `data.requires` / `data.forbids` parsed from its text so the
contradiction checker can compare a diff against what a decision allows. The patterns are
English-only and deliberately narrow: a missed decision costs less than a false one.
"""

from __future__ import annotations

import re
from typing import Any

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_STOPPERS = (r"\s+(?:for|because|since|so that|so|to|when|whenever|if|in|inside|within|as|unless|until|"
             r"instead of|rather than|over|from now on|going forward|here|there|anymore|again)\b|[,.;:!?()]")
_OBJECT = r"([^,.;:!?()]{1,80}?)(?=" + _STOPPERS + r"|$)"
_REQUIRE = [
    re.compile(r"\b(?:let'?s|let us|we(?:'ll| will| should| must| shall)|i(?:'d| would) like to|"
               r"please|you should|make sure to|we need to|go ahead and)\s+(?:always\s+)?"
               r"(?:use|switch to|go with|stick with|adopt|prefer|keep)\s+" + _OBJECT, re.I),
    re.compile(r"(?:^|\b(?:from now on|going forward),?)\s*(?:use|switch to|go with|stick with|prefer)\s+"
               + _OBJECT, re.I),
    re.compile(r"\b(?:use|prefer|choose|pick)\s+(.{1,60}?)\s+(?:instead of|rather than|over)\s+", re.I),
]
_FORBID = [
    re.compile(r"\b(?:never|don'?t|do not|must not|mustn'?t|should not|shouldn'?t|stop|avoid|no more)\s+"
               r"(?:ever\s+)?(?:use|using|call|calling|add|adding|import|importing|touch|touching)?\s*" + _OBJECT,
               re.I),
    re.compile(r"\b(?:instead of|rather than)\s+" + _OBJECT, re.I),
    re.compile(r"\bover\s+" + _OBJECT + r"(?<=\S)", re.I),
]
_ALWAYS = re.compile(r"\balways\s+" + _OBJECT, re.I)
_RATIONALE = re.compile(r"\b(?:because|since|so that|as it|as they)\s+(.{3,300})$", re.I)
_DECISION_SHAPED = re.compile(
    r"\b(?:let'?s|let us|we(?:'ll| will| should| must| shall)|from now on|going forward|always|never|"
    r"don'?t|do not|must not|instead of|rather than|prefer)\b", re.I)
# A decision is addressed by someone to someone: it opens with its subject or its verb.
_OPENER = re.compile(
    r"^(?:(?:ok(?:ay)?|so|and|but|also|then|yes|no|great|fine|good)[,!.]?\s+)*(?:[a-z][\w -]{0,30},\s+)?"
    r"(?:let'?s|let us|we\b|you\b|please|always|never|don'?t|do not|use\b|prefer|from now on|going forward|"
    r"i(?:'d| would)? (?:like|want|prefer)|make sure|instead|avoid|stop)", re.I)
_FILLER = ("the ", "a ", "an ")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text or "") if s and len(s.strip()) > 3]


def _clean(phrase: str) -> str:
    p = " ".join(phrase.split()).strip(" '\"`")
    low = p.lower()
    for f in _FILLER:
        if low.startswith(f):
            p = p[len(f):]
            break
    return p[:80]


def parse(text: str) -> dict[str, Any]:
    """{"requires": [...], "forbids": [...], "rationale": str} read from a decision's text."""
    requires: list[str] = []
    forbids: list[str] = []
    for s in sentences(text) or [text]:
        for rx in _REQUIRE:
            requires += [_clean(m.group(1)) for m in rx.finditer(s)]
        requires += [_clean(m.group(1)) for m in _ALWAYS.finditer(s)]
        if re.search(r"\b(?:instead of|rather than|over)\b", s, re.I) or _FORBID[0].search(s):
            for rx in _FORBID[:2] + ([_FORBID[2]] if re.search(r"\b(?:prefer|choose|pick)\b", s, re.I) else []):
                forbids += [_clean(m.group(1)) for m in rx.finditer(s)]
    m = _RATIONALE.search(" ".join(text.split()))
    forbidden = {f.lower() for f in forbids}
    requires = [r for r in dict.fromkeys(requires) if r and r.lower() not in forbidden]
    return {"requires": requires[:5], "forbids": [f for f in dict.fromkeys(forbids) if f][:5],
            "rationale": m.group(1).strip().rstrip(".!") if m else ""}


def decision_sentences(text: str) -> list[dict[str, Any]]:
    """The decision-shaped sentences of a prompt, each with what it requires / forbids.

    A sentence counts only when it opens like an instruction ("let's", "we", "never",
    "use", ...), has a decision cue AND something parseable to require or forbid;
    questions and pasted logs do not count ("should we use X?" is not a decision).
    """
    out = []
    for s in sentences(text):
        if s.rstrip().endswith("?") or len(s) > 300 or not _OPENER.match(s) or not _DECISION_SHAPED.search(s):
            continue
        parsed = parse(s)
        if parsed["requires"] or parsed["forbids"]:
            out.append({"text": s[:300], **parsed})
    return out


def alternative_choices(text: str) -> list[dict[str, Any]]:
    """Agent sentences naming an unchosen alternative ("I used X instead of Y").

    These are the only implicit decisions the offline consolidator records: the spec
    admits an implicit decision only when the agent's text references the alternative.
    """
    out = []
    for s in sentences(text):
        m = re.search(r"\b(?:used?|using|chose|choose|went with|switched to|picked|implemented|kept)\s+"
                      r"(.{2,60}?)\s+(?:instead of|rather than|over)\s+" + _OBJECT, s, re.I)
        if m:
            out.append({"text": s[:300], "chosen": _clean(m.group(1)), "alternative": _clean(m.group(2))})
    return out
