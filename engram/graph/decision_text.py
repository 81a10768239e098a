"""Decisions in plain sentences: which sentences are decisions, what they require and forbid.

Used twice: the offline consolidator finds decision-shaped sentences in prompts ("let's
use X", "we should never Y", "use X instead of Y", "always Z"), and every decision node,
from any provider, gets `data.requires` / `data.forbids` parsed from its text so the
contradiction checker can compare a diff against what a decision allows. The patterns are
English-only and deliberately narrow: a missed decision costs less than a false one.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # `typing` costs ~3 ms of import (engram query, the hooks); annotations only
if TYPE_CHECKING:
    from typing import Any


class _Lazy:
    """A pattern compiled on its first use, once. Compiling this module's 26 at import cost
    every importer ~10 ms, `engram query` among them (through retrieve/pending.py), which
    needs one only when a recent prompt or decision event is read."""

    __slots__ = ("_source", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:  # search, match, finditer, split, sub
        if self._compiled is None:
            self._compiled = re.compile(*self._source)
        return getattr(self._compiled, name)


_SENTENCE = _Lazy(r"(?<=[.!?;])\s+|\n+")
_STOPPERS = (r"\s+(?:for|because|since|so that|so|to|when|whenever|if|in|inside|within|as|unless|until|"
             r"instead of|rather than|over|from now on|going forward|here|there|anymore|again)\b|[,.;:!?()]")
_OBJECT = r"([^,.;:!?()]{1,80}?)(?=" + _STOPPERS + r"|$)"
_REQUIRE = [
    _Lazy(r"\b(?:let'?s|let us|we(?:'ll| will| should| must| shall)|i(?:'d| would) like to|"
          r"please|you should|make sure to|we need to|go ahead and)\s+(?:always\s+)?"
          r"(?:use|switch to|go with|stick with|adopt|prefer|keep)\s+" + _OBJECT, re.I),
    _Lazy(r"(?:^|\b(?:from now on|going forward),?)\s*(?:use|switch to|go with|stick with|prefer)\s+"
          + _OBJECT, re.I),
    _Lazy(r"\b(?:use|prefer|choose|pick)\s+(.{1,60}?)\s+(?:instead of|rather than|over)\s+", re.I),
]
_FORBID = [
    _Lazy(r"\b(?:never|don'?t|do not|must not|mustn'?t|should not|shouldn'?t|stop|avoid|no more)\s+"
          r"(?:ever\s+)?(?:use|using|call|calling|add|adding|import|importing|touch|touching)?\s*" + _OBJECT,
          re.I),
    _Lazy(r"\b(?:instead of|rather than)\s+" + _OBJECT, re.I),
    _Lazy(r"\bover\s+" + _OBJECT + r"(?<=\S)", re.I),
]
_ALWAYS = _Lazy(r"\balways\s+" + _OBJECT, re.I)
_RATIONALE = _Lazy(r"\b(?:because|since|so that|as it|as they)\s+(.{3,300})$", re.I)
_DECISION_SHAPED = _Lazy(
    r"\b(?:let'?s|let us|we(?:'ll| will| should| must| shall)|from now on|going forward|always|never|"
    r"don'?t|do not|must not|instead of|rather than|prefer)\b", re.I)
# A decision is addressed by someone to someone: it opens with its subject or its verb.
_OPENER = _Lazy(
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


# A setting stated as changed: "Redis's retry limit is now 5", "The pool size of SQLAlchemy
# is now 20", "The job queue now uses SQS". Only these "now" shapes: "the build is now
# green" names no setting (no possessive, no "of", no "uses").
_NOW_SETTING = _Lazy(
    r"^(?:the\s+)?(?:[\w.+/-]+'s\s+[\w .-]{2,40}?|[\w .-]{2,40}?\s+of\s+[\w.+/-]+)\s+(?:is|are)\s+now\s+\S"
    r"|^(?:the\s+)?[\w .-]{2,40}?\s+now\s+uses?\s+\S", re.I)


def decision_sentences(text: str) -> list[dict[str, Any]]:
    """The decision-shaped sentences of a prompt, each with what it requires / forbids.

    A sentence counts only when it opens like an instruction ("let's", "we", "never",
    "use", ...), has a decision cue AND something parseable to require or forbid, or
    states a setting as changed (_NOW_SETTING); questions and pasted logs do not count
    ("should we use X?" is not a decision).
    """
    out = []
    said = sentences(text)
    for i, s in enumerate(said):
        if s.rstrip().endswith("?") or len(s) > 300:
            continue
        now = _NOW_SETTING.match(s)
        if not (now or (_OPENER.match(s) and _DECISION_SHAPED.search(s))):
            continue  # the cheap tests first: parse() compiles a dozen more patterns
        parsed = parse(s)
        if now or parsed["requires"] or parsed["forbids"]:
            out.append({"text": with_antecedent(said, i)[:300], **parsed})
    return out


_PRONOUN = re.compile(r"\b(?:it|this|that|them|these|those)\b", re.I)


def with_antecedent(said: list[str], i: int) -> str:
    """Sentence `i`, after the sentence before it when it is a short one pointing back with a
    pronoun ("THIS RAILWAY CONFIG NOW WORKS. DO NOT TOUCH IT AGAIN."): a fragment alone says
    nothing a next session can act on."""
    s = said[i]
    if i and len(s.split()) <= 8 and _PRONOUN.search(s) and not said[i - 1].rstrip().endswith("?"):
        return f"{said[i - 1].strip()} {s.strip()}"
    return s


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


# -- what a decision is about ------------------------------------------------------------
#
# Supersession asks two questions of a pair of decisions (graph/supersession.py): are they
# about the same subject (the thing decided: "the job queue", "the default page size"),
# and do they conflict (another choice or value for it, or the old choice ruled out)?
# `statement` reads a decision as {subject, choice, ruled_out}: the choice and the ruled-out
# alternatives are phrases; the subject is what is left of the sentence once they, the
# decision verbs and the function words are taken out, as a set of stemmed words, so
# "Use Redis for the job queue", "The job queue now uses Redis" and "Switch the job queue
# to SQS" share one subject {job, queue}.

_PHRASE = r"([\w.+#/@'-]+(?:\s+[\w.+#/@'-]+){0,5}?)"
_END = (r"(?=\s+(?:for|as|to|in|into|on|with|instead|rather|because|since|when|if|now|over|from|not|and|"
        r"but|so|via|through|using|anymore|again)(?![\w-])|\s*[,;:.!?]|\s*$)")
_RULED_OUT = [
    _Lazy(r"\b(?:instead of|rather than)\s+(?:using\s+|on\s+|in\s+|with\s+)?" + _PHRASE + _END),
    _Lazy(r"\breplace\s+" + _PHRASE + r"\s+with\b"),
    _Lazy(r"\bfrom\s+" + _PHRASE + r"\s+to\s+"),
    _Lazy(r"\b(?:drop|ditch|abandon|stop using|don'?t use|do not use|never use|no longer use)\s+" + _PHRASE + _END),
    _Lazy(r"\b" + _PHRASE + r"\s+(?:is|are)\s+(?:now\s+)?(?:retired|deprecated|gone|removed)\b"),
    _Lazy(r",\s*not\s+(?:in\s+|on\s+|with\s+|through\s+)?" + _PHRASE + _END),
]
_RETIRED = frozenset(("retired", "deprecated", "gone", "removed"))
# A rule ("X must never Y", "always Z") constrains its subject; it does not choose for it.
_MODAL = _Lazy(r"\b(?:must|should|never|always|can(?:not)?|may|don'?t|do not)\b")
_CHOICE = [
    _Lazy(r"\b(?:in favou?r of|replace\s+.+?\s+with|switch to|go with|stick with|adopt|prefer|choose|pick)\s+"
          + _PHRASE + _END),
    _Lazy(r"(?<!don't )(?<!dont )(?<!not )(?<!never )(?<!stop )\b(?:use|uses)\s+" + _PHRASE + _END),
    _Lazy(r"\b(?:switch|move|migrate|change|set|raise|lower|increase|reduce|bump)\b.*?\bto\s+" + _PHRASE
          + r"\s*(?:instead\s*)?[.!]?$"),
    _Lazy(r"\b(?:is|are|has|have)\s+(?:now\s+)?" + _PHRASE + r"\s*(?:now\s*)?[.!]?$"),
    _Lazy(r"\bfor\s+(\d[\w.]*(?:\s+[a-z]+)?)\b"),
]
# A sentence that opens with another verb says how something is done: "Hash passwords with
# bcrypt", "Bundle the frontend with esbuild": the phrase after the instrument's preposition
# is the choice, the verb and its object the subject.
_DOING = _Lazy(r"^(?!use\b|uses\b|let\b|we\b|the\b|our\b|a\b|an\b)[a-z]+\s+.+?\s(?:with|through|via|on|in|as)\s+"
               + _PHRASE + _END)
_LEAD = _Lazy(r"^(?:(?:ok(?:ay)?|so|and|also|yes)[,!.]?\s+|(?:from now on|going forward),?\s+|"
              r"(?:let'?s|let us|we(?:'ll| will| should| must| shall)?|please|always|i(?:'d| would) like to)\s+)+")
_VERBS = frozenset("""
use uses used using switch switched move moved migrate migrated change changed set raise lower increase
reduce bump replace replaced drop ditch abandon keep go adopt prefer stick choose pick run runs instead
rather favour favor longer retired deprecated gone removed from now let lets we will should must always
never don't dont stop is are has have be anymore again
""".split())
_NOISE = frozenset(("'s", "s"))


def _words_of(text: str) -> list[str]:
    return [w.strip(".-'") for w in re.split(r"[^\w.+#/@'-]+", text.replace("'s ", " ").casefold()) if w.strip(".-'")]


def _phrase(text: str) -> str:
    return " ".join(w for w in _words_of(text) if w not in ("the", "a", "an", "our", "its", "it"))


def statement(text: str) -> dict[str, Any]:
    """{"subject": sorted stems, "choice": [phrases], "ruled_out": [phrases]} of a decision.

    Pure and English-only, like the rest of this module: a sentence it cannot read gives
    an empty choice, and supersession then retires nothing on its account.
    """
    from engram.text import STOPWORDS, stem

    choice: list[str] = []
    ruled: list[str] = []
    rest: list[str] = []
    for clause in re.split(r"\s*;\s*", " ".join(str(text).split()).casefold().rstrip(" .!")):
        clause = _LEAD.sub("", clause)
        ruled += [m.group(1) for rx in _RULED_OUT for m in rx.finditer(clause)]
        modal = _MODAL.search(clause)  # under a modal only a plain "use X" still chooses
        found = [m.group(1) for rx in (_CHOICE[1:2] if modal else _CHOICE) for m in rx.finditer(clause)]
        if not found and not modal and (m := _DOING.search(clause)):
            found = [m.group(1)]
        choice += [f for f in found if f not in _RETIRED]
        rest.append(clause)
    ruled = list(dict.fromkeys(p for p in map(_phrase, ruled) if p))
    choice = list(dict.fromkeys(p for p in map(_phrase, choice) if p and p not in ruled))
    left = " " + " ".join(" ".join(_words_of(c)) for c in rest) + " "
    for p in sorted(choice + ruled, key=len, reverse=True):  # each phrase's words out once
        left = left.replace(f" {p} ", " ", 1)
    subject = {stem(w) for w in left.split() if w not in _VERBS and w not in STOPWORDS and w not in _NOISE}
    return {"subject": sorted(subject), "choice": choice, "ruled_out": ruled}
