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
    """A pattern compiled on its first use, once. Compiling all of this module's patterns at import cost
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


_SENTENCE = _Lazy(r"(?<=[.!?;])\s+|(?<=[\u3002\uff01\uff1f])\s*|\n+")  # 。！？ end a sentence unspaced
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


# A sentence that only names what is ruled out ("… can we try it. instead of npm publish"): the
# choice is in a sentence before it, so alone it is a fragment, no decision.
_FRAGMENT = ("instead of ", "rather than ", "so we can ", "so that ", "so it ")  # a purpose clause alone
# A sentence asking to find something out is a question whatever its mark: "I want to know if
# we can add a second icon instead of the arrow", "research whether we can use X instead of Y".
_INQUIRY = _Lazy(r"\b(?:want to know|wondering|find out|figure out|(?:research|see|check|look into|investigate)"
                 r"(?:ing)? (?:if|whether))\b", re.I)


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
        if s.rstrip().endswith("?") or len(s) > 300 or s.lstrip().lower().startswith(_FRAGMENT) \
                or _INQUIRY.search(s):
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
        if m and not _not_chosen(s[: m.start()], m.group(0)):
            out.append({"text": s[:300], "chosen": _clean(m.group(1)), "alternative": _clean(m.group(2))})
    return out


# What comes before the verb when no choice was made: a guess or a step not yet taken ("the
# issue is likely that I need to use X instead of Y"), an option offered ("Or switch to using
# X instead of Y"), someone's wish ("the user wants to use X instead of Y"), or what another party does ("Railway is using Railpack instead of the
# Dockerfile": an observation, not the agent's choice).
_UNMADE = re.compile(r"\b(?:likely|probably|maybe|perhaps|might|could|should|would|need to|needs to|wants?|"
                     r"if|whether|or|option|alternatively)\b", re.I)  # "Or switch to using X instead of Y": offered
_OTHERS_DOING = re.compile(r"\b(?:is|are|was|were)\s*$", re.I)
_FIRST_PERSON = re.compile(r"\b(?:i|we|i'm|we're|i've|we've)\b", re.I)


def _not_chosen(before: str, said: str) -> bool:
    if _UNMADE.search(before):
        return True
    return said.lower().startswith("using") and bool(_OTHERS_DOING.search(before)) and not _FIRST_PERSON.search(before)


# -- what a decision is about ------------------------------------------------------------
#
# Supersession asks two questions of a pair of decisions (graph/supersession.py): are they
# about the same concern (the thing decided: "the job queue", "the default page size"),
# and do they conflict (another choice or value for it, or the old choice ruled out)?
# `statement` reads a decision as {subject, choice, ruled_out, dropped}: the choice and the
# ruled-out alternatives are phrases; the subject is the concern, what is left of the
# decision's main clause once they, the decision, linking and purpose verbs and the function
# words are taken out, as a set of stemmed words in their canonical names, so "Use Redis for
# the job queue", "The job queue now uses Redis" and "Switch the job queue to SQS" share one
# subject {job, queue}, "auth is handled by Auth0" and "switching authentication from Auth0
# to Clerk" one {authentic}. People phrase one decision many ways; the patterns below are the
# shapes of issue 30's classes, each general: a copula or a linking verb and its complement
# ("S is X", "S is done with X", "S goes through X"), a change verb and its destination
# ("move S to X", "upgrade S to X"), a doing verb and its tool ("hash S with X", "deploy S to X").

_PHRASE = r"([\w.+#/@'<>-]+(?:\s+(?:&\s+)?[\w.+#/@'<>-]+){0,5}?)"
_END = (r"(?=\s+(?:for|as|to|in|into|on|onto|with|instead|rather|because|since|when|if|now|over|from|not|"
        r"but|so|via|through|using|against|anymore|again|going|across|everywhere|between|among|per|at)(?![\w-])|\s*[,;:!?]|\s*\.(?!\w)|\s*$)")
_TO = r"(?:to|with|through|via|on|onto|in|into|using|by|from|over|against|behind)"
# Ruled out for this concern only ("use X instead of Y", "move S from Y to X", "X, not Y")...
_RULED_HERE = [
    _Lazy(r"\b(?:instead of|rather than)\s+(?:using\s+|on\s+|in\s+|with\s+)?" + _PHRASE + _END),
    _Lazy(r"^not\s+(?:in\s+|on\s+|with\s+|through\s+|via\s+)?" + _PHRASE + _END),
    _Lazy(r"\b(?:prefer(?:s|red)?|cho(?:ose|se|sen)|pick(?:s|ed)?)\s+.+?\s+over\s+" + _PHRASE + _END),
]
# ... or moved away from: for this concern, or, when the clause names none, everywhere ("We're
# switching from Docker to Podman", "moving off Heroku"): then the earlier choice is gone.
_MOVED = [
    _Lazy(r"\bfrom\s+" + _PHRASE + r"\s+to\s+"),
    _Lazy(r"\b(?:mov|migrat|switch|gett?|com)\w*\s+(?:.+?\s)?(?:off(?:\s+of)?|away\s+from)\s+" + _PHRASE + _END),
]
# ... and the earlier choice itself gone ("replace Y with X", "drop Y", "Y is retired", "no more Y").
_DROPPED = [
    _Lazy(r"\b(?:replac(?:e|es|ed|ing)|swap(?:s|ped|ping)?)\s+" + _PHRASE + r"\s+(?:with|for|by)\b"),
    _Lazy(r"\b(?:drop|dropping|ditch|ditching|abandon|remove|removing|stop using|don'?t use|do not use|never use|"
          r"no longer use|no more|get rid of|rip out|ripping out|phase out|phasing out|sunset|sunsetting|"
          r"decommission|decommissioning|retire|retiring|scrap|scrapping|deprecate|deprecating)\s+" + _PHRASE + _END),
    _Lazy(r"^" + _PHRASE + r"\s+(?:goes|go|is going|are going)\s+away\b"),
    # a product's end: "HockeyApp is shutting down", "Vue 2 is EOL", "jenkins gets shut down"
    _Lazy(r"^" + _PHRASE + r"\s+(?:is|are|gets?|got|will be|(?:is|are) being)\s+(?:shut(?:ting)? down|"
          r"eol|end[ -]of[ -]life|retiring|sunsetting)\b"),
    _Lazy(r"^" + _PHRASE + r"\s+(?:is|are|was|were|gets?|got|ha(?:s|ve) been|will be|should be)\s+(?:now\s+)?"
          r"(?:replaced|retired|deprecated|gone|removed|out|dead|dropped|deleted|decommissioned|sunset|"
          r"phased out|ripped out|scrapped|abandoned)\b"),
    _Lazy(r"\b(?:replaces|replacing|supersedes)\s+" + _PHRASE + _END),
    _Lazy(r"^no\s+" + _PHRASE + r"\s*$"),  # "No merge commits."
]
_RETIRED = frozenset(("retired", "deprecated", "gone", "removed", "out", "dead", "dropped", "deleted",
                      "decommissioned", "sunset", "scrapped", "abandoned"))
# A rule ("X must never Y", "always Z") constrains its subject; it does not choose for it.
_MODAL = _Lazy(r"\b(?:must|never|always|cannot|can't|may not|mustn'?t|shouldn'?t|don'?t|do not)\b")
_NEGATED = _Lazy(r"^(?:no longer|don'?t|do not|never|stop|avoid|no more)\s+")
_PARTICIPLE = r"(?:\w+ed|\w+en|\w+own|\w*built|\w*done|run|sent|kept|made|held|set|put|hosted)"
# "use X" chooses even under a modal ("X must use Y"); the other shapes do not.
_USE = _Lazy(r"(?<!don't )(?<!dont )(?<!not )(?<!never )(?<!stop )\b(?:use|uses|using|speaks?|follows?)\s+" + _PHRASE + _END)
_CHOICE = [
    _USE,
    _Lazy(r"\b(?:in favou?r of|replac(?:e|es|ed|ing)\s+.+?\s+with|swap(?:s|ped|ping)?\s+.+?\s+for|switch(?:ed|ing)? to|(?:go|going|went) with|"
          r"stick(?:ing)? with|stuck with|adopt(?:s|ed|ing)?|prefer(?:s|red)?|cho(?:ose|se|sen)|pick(?:s|ed)?|agreed? on|"
          r"standardi[sz]ed? on|settled? on|opt(?:ed)? for|decided on|(?:go|going|went) back to|pin(?:s|ned|ning)?)\s+"
          + _PHRASE + _END),
    _Lazy(r"(?:^target|\btargets)\s+" + _PHRASE + _END),  # "Target Python 3.13", "the app targets iOS 16" (not "the build target is ...")
    # a change verb's destination: "move S to X", "S moves from Y to X", "upgrade S to X"
    _Lazy(r"\b(?:(?:switch|lower|bump|convert|port|point)(?:es|s|ed|ing)?|(?:mov|migrat|chang|rais|increas|reduc|"
          r"upgrad|downgrad)(?:e|es|ed|ing)|set(?:s|ting)?|go(?:es|ing)?|went)\b(?:.*?\s)?to\s+" + _PHRASE + _END),
    # a linking verb's complement: "S is done with X", "S goes through X", "S runs on X"
    _Lazy(r"\b(?:is|are|be|been|gets?)\s+(?:now\s+)?" + _PARTICIPLE + r"\s+" + _TO + r"\s+" + _PHRASE + _END),
    # "dates are shown as ISO 8601" (not "Redis is used as the cache": the name before it is chosen)
    _Lazy(r"\b(?:is|are|be|been|gets?)\s+(?:now\s+)?(?!used\b)" + _PARTICIPLE + r"\s+as\s+" + _PHRASE + _END),
    _Lazy(r"\b(?:goes|go|moves?|runs?|lives?|happens?|sits?|comes?|points?|flows?|talks?|relies|rely|depends?)"
          r"\s+(?:now\s+)?" + _TO + r"\s+" + _PHRASE + _END),
    _Lazy(r"^" + _PHRASE + r"\s+(?:replaces|supersedes)\b"),  # "Renovate replaces Dependabot"
    _Lazy(r"\bfor\s+(\d[\w.]*(?:\s+[a-z]+)?)\b"),
]
# "S is X", "S should be X": a choice; after "should be" / "will be" only when X names a
# thing or a value (_names_thing): "Background jobs should be idempotent" is a rule about
# them, not a choice for them.
_COPULA = _Lazy(r"\b(?:is|are|becomes?|(?:should|will|shall|can|could)\s+(?:be|become))\s+(?:now\s+)?(?:up to\s+|[a-z]+ed\s+(?:at|to)\s+(?=\d))?"
                + _PHRASE
                + r"(?=\s+(?:now|instead|rather|over)\b|\s*$)")
# A sentence that opens with another verb says how something is done: "Hash passwords with
# bcrypt", "Deploy the frontend to Vercel": the phrase after the instrument's or the
# destination's preposition is the choice, the verb and its object the subject.
_DOING = _Lazy(r"^(?!use\b|uses\b|let\b|we\b|the\b|our\b|a\b|an\b)[a-z-]+\s+(?:.+?\s)?(?:with|through|via|on|onto|"
               r"in|into|to|as|using|from|behind|against)\s+" + _PHRASE + _END)
# A tool or a place named right after the choice is chosen with it: "Use ESLint with the
# Airbnb config", "switch logging to Log4j2 with the JSON layout".
_WITH = _Lazy(r"(?<!\s)\s+(?:with|via|using|behind|over|on top of)\s+" + _PHRASE + _END)
# A version said after the thing chosen: "Pin Postgres at major version 16", "pin Python to 3.12".
_AT_VERSION = _Lazy(r"\s+(?:at|to)\s+(?:(?:major|minor)\s+)?(?:version\s+)?(v?\d+(?:\.\d+)*)"
                    r"(?=\s*$|\s*[,;]|\s+(?:for|in|on|across|everywhere)\b)")
# A decision said as a headline, without a verb: "Node 20 for the backend", "pnpm instead of npm",
# "Kibana for log search": what comes before "for" is chosen, known to the table or not.
_HEADLINE = _Lazy(r"^" + _PHRASE + r"\s+(?:for|instead of|rather than)\s+\S")
# A thing named after a preposition, whatever the verb before it: "Backend tests run under Jest
# now", "The Java services build with Gradle", "Releases are cut by semantic-release".
_NAMED_AFTER = _Lazy(r"\b(?:with|via|through|using|by|under|on|onto|in|into|to|at)\s+" + _PHRASE + _END)
_PURPOSE = _Lazy(r"\s+(?:to|so as to|in order to)\s+[a-z]")
_PURPOSE_VERB = _Lazy(r"\b(?:use|uses|using|used)\s+\S+(?:\s+\S+){0,2}?\s+to\s+([a-z]+)\s+[a-z]")
_PASSIVE = _Lazy(r"\b(?:is|are|was|were|be|been|being|gets?|got)\s+(?:now\s+|being\s+|also\s+)?(" + _PARTICIPLE + r")\b")
_BARE = _Lazy(r"^([^,;:]{1,40})$")  # "pytest from now on": a name alone is chosen
_VERSIONED = _Lazy(r"^([a-z][\w.+#-]*(?:\s+[a-z][\w.+#-]*)?\s+v?\d+(?:\.\d+)*)(?!\S)")  # "node 22 everywhere"
_VALUE = _Lazy(r"\b\d+(?:\.\d+)?\s*(?:%|[a-z]+\b)?")
_LEAD = _Lazy(r"^(?:(?:ok(?:ay)?|so|and|also|yes|actually|nah|well|alright|right|hmm)[,!.]?(?:\s+|$)|(?:from now on|going forward),?\s+|"
              r"(?:let'?s|let us|we(?:'ll| will| should| must| shall|'re| are|'ve| have)?|please|always|"
              r"i(?:'d| would) like to)\s+)+")
# A label, not a concern: "ADR 12:", "Decision:", a commit's type ("chore:", "feat(api)!:"), a
# Markdown heading ("## Decision").
_LABEL = _Lazy(r"^(?:#+\s*(?:decision\b\s*)?|(?:(?:(?>\d[\w-]*|[a-z]+-\d[\w-]*)|adr|rfc|decision|update|note)(?:\s+(?>\d[\w-]*))?"
               r"|(?:feat|fix|chore|refactor|perf|style|revert)(?:\([^)]*\))?!?)\s*:\s*)")
_HEADED = _Lazy(r"^([a-z][\w -]{1,40}?):\s+")  # "Message queue: RabbitMQ ..." is "message queue is ..."
_CLAUSES = _Lazy(r"(?<=[.!?])\s+|(?:(?<!\s)\s+)?[;,\u2014\u2013]\s*|(?<!\s)\s+-+\s+|"
                 r"(?<!\s)\s+and\s+(?:then\s+)?(?=(?:use|switch|move|migrate|go|adopt|keep|stick|pick|choose|put|run|"
                 r"store|host|deploy|serve|send|ship|build|write)\s)|"
                 r"(?<!\s)\s+(?:because|since|now that|so that|given that|but)\s+|(?<!\s)\s+so\s+(?=(?:we|i|they)\s)")
# Chat shorthand: "replace apollo w/ urql", "switch to godot bc of the fee".
_SHORT = {"w/": "with", "w/o": "without", "bc": "because", "b/c": "because", "cuz": "because", "coz": "because"}
_SHORTHAND = _Lazy(r"(?<![\w/])(?:w/o|w/|b/c|bc|cuz|coz)(?![\w/])")
_ASIDES = _Lazy(r"\([^)]*\)|\b(?:from now on|going forward|for now|anymore|lts|after all)\b|\s+now\s*$"
                r"|(?<=\d)\s+(?:and up|or later|or newer|or above|or higher)\b")  # "iOS 15 and up" is iOS 15


def _words_of(text: str) -> list[str]:
    return [w.removesuffix("'s").strip(".-'") for w in re.split(r"[^\w.+#/@'<>&-]+", text.replace("'s ", " ").casefold())
            if w.removesuffix("'s").strip(".-'") and w != "&"]


def _phrase(text: str) -> str:
    return " ".join(w for w in _words_of(text) if w not in ("the", "a", "an", "our", "its", "it", "their"))


def _names_thing(phrase: str, original: str) -> bool:
    """Whether a complement names a thing or a value (a number, a known name, a capitalised
    word in the original), not a quality ("idempotent", "protected")."""
    from engram.language import aliases

    if any(ch.isdigit() for ch in phrase):
        return True
    words = phrase.split()
    table = aliases.table()
    if any(table.canonical(" ".join(words[i:j])) for i in range(len(words)) for j in range(i + 1, len(words) + 1)):
        return True
    at = original.casefold().find(phrase)
    return at > 0 and any(ch.isupper() for ch in original[at:at + len(phrase)])


def _headword(phrase: str) -> bool:
    """Whether the words before a headline's "for" can be a name chosen: a known tool, or up to
    three words none of which is a verb or a function word ("Lodash", "Kibana", "trunk-based
    development"; not "tests must pass", "we rely on Claude")."""
    from engram.language import aliases
    from engram.text import STOPWORDS

    words = phrase.split()
    return _tool(phrase) or (0 < len(words) <= 3 and not any(
        w in aliases.CONCERN_VERBS or w in STOPWORDS or w.endswith(("ing", "ed")) for w in words))


def _tool(phrase: str) -> bool:
    """Whether a phrase is one name of a thing a decision chooses, at a version or not ("pnpm",
    "Node 20"): a name the table knows, of a kind (aliases.kinds), not a practice ("linting")."""
    from engram.language import aliases

    words = phrase.split()
    if words and _VERSION.fullmatch(words[-1]) and len(words) > 1:
        words = words[:-1]
    name = " ".join(words)
    return 0 < len(words) <= 3 and aliases.table().canonical(name) is not None and bool(aliases.kinds(name))


_VERSION = _Lazy(r"v?\d+(?:\.\d+)*(?:\.x)?")
_POINTER = _Lazy(r"\b(?:it|them|this|that)\b")  # "switch it to SQS": the concern is the one just discussed
# "Vitest is our test runner now": a known name before the copula and the concern after it,
# said the other way round ("our test runner is Vitest"); any name before "our new ...".
_INVERTED = _Lazy(r"^([\w.+#/@-]+(?:\s+[\w.+#/@-]+){0,2})\s+(?:is|are)\s+(?:now\s+)?(?:the|our)\s+(new\s+)?(.+?)(?:\s+now)?$")
# "Let Dependabot open the update PRs": a tool let do a job is chosen for it ("use Dependabot to ...");
# so is one said to do it ("Renovate handles dependency updates", "Vite builds the frontend").
_LET = _Lazy(r"^let\s+(\S+(?:\s+\S+){0,2}?)\s+(?=[a-z])")
_ACTS = _Lazy(r"^(\S+(?:\s+\S+){0,2}?)\s+(?:now\s+)?(?=(?:handles|manages|runs|builds|hosts|serves|powers|stores|sends|"
              r"owns|does|checks|formats|lints|deploys|tests|schedules|processes|bundles|compiles|tracks|collects|"
              r"ships|publishes|generates|provisions|orchestrates|takes care of|covers|drives|backs)\s)")


# "We're on Python 3.12 now" once its lead is read: being on a named thing is using it.
_ON = _Lazy(r"^(?:now\s+|all\s+)?(?:on|onto)\s+(.+)$")
# "Redis is used as the cache": the name used is chosen for what it is used as.
_USED_AS = _Lazy(r"^(\S+(?:\s+\S+){0,2}?)\s+(?:is|are)\s+(?:now\s+)?used\s+(?:as|for)\s+(.+)$")
# "Make Playwright the default for browser tests": a name made the default is chosen.
_MADE = _Lazy(r"^make\s+(\S+(?:\s+\S+){0,2}?)\s+(?:the|our)\s+(?:new\s+)?(?:default|standard|go-to)\b\s*(?:for\s+)?(.*)$")
# "Production runs Postgres 16", "Run Postgres 14 in production": running a named thing is using it.
_RUNS = _Lazy(r"^(?:(\S+(?:\s+\S+)*?)\s+(?:now\s+)?runs|run)\s+(\S+(?:\s+\S+){0,2}?)(?:\s+(?:in|on|for)\s+(.+))?$")
# "CI → GitHub Actions": an arrow is a move.
_ARROW = _Lazy(r"^(.+?)\s*(?:\u2192|->|=>)\s*(.+)$")


def _reworded(clause: str, original: str) -> str:
    """A clause in the shape the choice patterns read: an inverted copula turned round, a
    tool that is let do something, made the default, run, used as something or been on used
    for it, an arrow a move."""
    if (m := _INVERTED.match(clause)) and (_tool(m.group(1)) or m.group(2) and _headword(m.group(1))) and not _tool(m.group(3)):
        return f"{m.group(3)} is {m.group(1)}"  # "our *new* issue tracker": a name, known or not
    if (m := _ON.match(clause)) and _tool(m.group(1)):
        return f"use {m.group(1)}"
    if (m := _USED_AS.match(clause)) and _tool(m.group(1)):
        return f"use {m.group(1)} for {m.group(2)}"
    if (m := _MADE.match(clause)) and _headword(m.group(1)):
        return f"use {m.group(1)} for {m.group(2)}" if m.group(2) else f"use {m.group(1)}"
    if (m := _RUNS.match(clause)) and _tool(m.group(2)) and not (m.group(1) and m.group(3)):
        scope = m.group(1) or m.group(3)
        return f"use {m.group(2)} for {scope}" if scope else f"use {m.group(2)}"
    if m := _ARROW.match(clause):
        return f"switch from {m.group(1)} to {m.group(2)}" if _tool(m.group(1)) else f"move {m.group(1)} to {m.group(2)}"
    if (m := _LET.match(clause) or _ACTS.match(clause)) and _tool(m.group(1)):
        return f"use {m.group(1)} to {clause[m.end():]}"
    return clause


def _named_version(choice: list[str], words: list[str], clause: str, left: list[str], original: str
                   ) -> tuple[list[str], list[str]]:
    """A bare version chosen for one named thing is that thing's version: ("python 3.12", no
    concern left) for "Upgrade Python to 3.12", "Bump Node to 22 across services" (the name
    just before "to", known to the table or written as a name: "Upgrade Storybook to 8"), "Bump
    the API's Python to 3.12" (a dotted version, one name), "Move off
    Java 8 to 11" (the name of what it leaves, `left`); "Redis's retry limit is now 5" is a value."""
    from engram.language.aliases import concern_words

    bare = [c for c in choice if _VERSION.fullmatch(c)]
    if len(bare) != 1:
        return choice, words
    def before(w: str) -> bool:  # "<w> to <version>"
        return bool(re.search(rf"\b{re.escape(w)}\s+to\s+v?{re.escape(bare[0])}\b", clause))

    named = [w for w in words if _tool(w)] or [w for w in words if _names_thing(w, original) and before(w)]
    if len(named) == 1 and ("." in bare[0] or concern_words(words) == concern_words(named) or before(named[0])):
        name, words = named[0], [w for w in words if w != named[0]]
    elif not named and (gone := [p.rsplit(" ", 1)[0] for p in left if " " in p and _tool(p)]):
        name = gone[0]
    else:
        return choice, words
    return [f"{name} {c}" if c == bare[0] else c for c in choice], words


def _read(clause: str, original: str) -> dict[str, Any]:
    """One clause's choice, ruled-out and dropped phrases (with their spans) and leftover words."""
    from engram.language.aliases import concern_words

    spans: list[tuple[int, int]] = []
    ruled: list[str] = []
    dropped: list[str] = []

    def take(m: "re.Match[str]", into: list[str]) -> None:
        into.append(m.group(1))
        spans.append(m.span(1))

    for rx in _RULED_HERE:
        for m in rx.finditer(clause):
            take(m, ruled)
    moved: list[str] = []
    for rx in _MOVED:
        for m in rx.finditer(clause):
            take(m, moved)
    for rx in _DROPPED:
        for m in rx.finditer(clause):
            take(m, dropped)
    negated = _NEGATED.match(clause)
    body = clause[negated.end():] if negated else clause
    off = len(clause) - len(body)
    modal = _MODAL.search(body)
    found: list["re.Match[str]"] = []
    for rx in ([_USE] if modal else _CHOICE):
        found += list(rx.finditer(body))
    if not found and not modal and (m := _COPULA.search(body)) and (_names_thing(_phrase(m.group(1)), original) or (
            m.group(0).startswith(("is", "are")) and _headword(_phrase(m.group(1))))):
        found = [m]
    doing = False
    if not found and not modal and (m := _DOING.search(body)):
        found, doing = [m], True
    if not found and not modal and (m := _HEADLINE.match(body)) and _headword(_phrase(m.group(1))):
        found = [m]
    if not found and not modal and (m := _VERSIONED.match(body) or _BARE.match(body)) and _tool(_phrase(m.group(1))):
        found = [m]
    if not found and not modal:
        found = [m for m in _NAMED_AFTER.finditer(body)  # not a scope said first: "in CI only, ..."
                 if m.start() and _names_thing(_phrase(m.group(1)), original)][:1]
    choice = []
    for m in found:
        if m.group(1) in _RETIRED or any(a <= m.start(1) + off < b for a, b in spans):
            continue
        said, end = _measured(m)
        if not said[:1].isdigit() and (v := _AT_VERSION.match(body, end)):
            said, end = f"{said} {v.group(1)}", v.end()
        (dropped if negated else choice).append(said)
        spans.append((m.start(1) + off, end + off))
        if _PURPOSE.match(body, m.end(1)) and concern_words(_words_of(body[:m.start(1)])):
            spans.append((m.end(1) + off, len(clause)))  # "S is done with X to shrink payloads": a reason
        if (w := _WITH.match(body, m.end(1))) and not negated and not any(a <= w.start(1) + off < b for a, b in spans):
            choice.append(w.group(1))
            spans.append((w.start(1) + off, w.end(1) + off))
    if not choice and not negated and (m := _VALUE.search(clause)):  # "coverage must be at least 70 percent"
        choice.append(m.group(0))
        spans.append(m.span(0))
    gone = {i for a, b in spans for i in range(a, b)}  # two patterns may take one phrase
    left = "".join(" " if i in gone else ch for i, ch in enumerate(clause))
    choice, words = _named_version(choice, _words_of(left), clause, [_phrase(p) for p in ruled + moved + dropped], original)
    subject = concern_words(words)
    return {"choice": choice, "ruled": ruled + moved * bool(subject), "dropped": dropped + moved * (not subject),
            "subject": subject, "refers": not subject and bool(_POINTER.search(left)),
            "verbs": subject & _verbs(body, doing)}


def _measured(m: "re.Match[str]") -> tuple[str, int]:
    """A chosen phrase and where it ends: a value only up to its unit ("1 week" of "1 week long",
    of "every 1 week"), the words after it left to the concern."""
    said, start = m.group(1), m.start(1)
    if said.startswith("every ") and said[6:7].isdigit():  # "every 2 weeks" is "2 weeks"
        said, start = said[6:], start + 6
    v = _VALUE.match(said) if said[:1].isdigit() else None
    if v is None or not (said[v.end():].startswith(" ") or start > m.start(1)):  # "3.11.4" is one version
        return said, m.end(1)
    return v.group(0).strip(), start + len(v.group(0).rstrip())


def _verbs(clause: str, doing: bool) -> set[str]:
    """The concern words of a clause that say how its choice does the job rather than which job:
    a passive participle ("emails are *delivered* by SES"), a purpose's verb ("use Mailgun to
    *send* email"), the verb an instruction opens with ("*store* feature flags in Unleash",
    when the clause is read as one, `doing`). Two choices of one kind for "feature flags" are
    alternatives whether the flags are stored or served there (supersession.concerns)."""
    from engram.language.aliases import concern_words

    words = [m.group(1) for rx in (_PASSIVE, _PURPOSE_VERB) for m in rx.finditer(clause)]
    if doing:
        words.append(clause.split(" ", 1)[0])
    return concern_words(words)


def _instruction(text: str) -> bool:
    """Whether a text opens as an instruction does ("use X", "switch S to X", "rewrite it in X"),
    not as a name or a value ("RabbitMQ", "90 days")."""
    from engram.language.aliases import CONCERN_VERBS

    first = text.split(" ", 1)[0]
    return bool(_OPENER.match(text)) or (first in CONCERN_VERBS and first not in _LINKING)


_SCOPE = _Lazy(r"^(?:in|for|on|at|within|inside|outside|across|during|under)\s")
_LINKING = frozenset(("is", "are", "was", "were", "be", "been", "has", "have", "had", "out", "more", "away", "back",
                      "instead", "rather", "longer", "we", "we're", "i'd", "let's", "against", "behind", "onto",
                      "across", "within", "towards", "forward", "anymore", "again"))


_NUMBERS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())} | {
    "fifteen": "15", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "ninety": "90",
    "hundred": "100", "a": "1", "an": "1"}
_TIME_UNIT = r"(?:second|minute|hour|day|week|month|quarter|year)s?\b"
# A count in words is the value in digits ("keep logs for two weeks", "sprints are one week long",
# "reviews need one approval"): "one" and "a" only before a unit of time or after a word asking
# for a number, where they cannot be a pronoun or an article ("the one we evaluated", "a cache").
_NUMBER_WORD = _Lazy(
    r"\b(?:(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|"
    r"ninety|hundred)(?=\s+(?!of\b|more\b|or\b|and\b)[a-z])"
    r"|(?:one|a|an)(?=\s+" + _TIME_UNIT + r")"
    r"|(?:need|needs|require|requires|least|most|exactly|only|just)\s+one(?=\s+[a-z]))\b")


# A frequency said as an adverb ending its clause is a value: "we release weekly" is "every 1 week"
# ("weekly releases", "nightly builds" name things and stay).
_EVERY = {"hourly": "1 hour", "daily": "1 day", "nightly": "1 day", "weekly": "1 week", "monthly": "1 month",
          "quarterly": "1 quarter", "yearly": "1 year", "annually": "1 year"}
_FREQUENCY = _Lazy(r"\b(?:" + "|".join(_EVERY) + r")$")


def _numerals(text: str) -> str:
    """A text with its counts in words written in digits (_NUMBER_WORD) and "%" as "percent", so
    that a value said either way is read as one (_VALUE) and compared as one (supersession._value)."""
    def digits(m: "re.Match[str]") -> str:
        head, _, word = m.group(0).rpartition(" ")
        return f"{head} {_NUMBERS[word]}" if head else _NUMBERS[word]

    return _NUMBER_WORD.sub(digits, text).replace("%", " percent")


def _clauses(text: str) -> list[str]:
    t = _ASIDES.sub(" ", _numerals(" ".join(str(text).split()).casefold().rstrip(" .!"))).strip(" .!")
    t = _LABEL.sub("", _SHORTHAND.sub(lambda m: _SHORT[m.group(0)], t))
    if (m := _HEADED.match(t)) and not set(m.group(1).split()) & {"is", "are", "be", "should", "must", "use"}:
        rest = t[m.end():]
        # "i18n: use FormatJS instead" is "use FormatJS instead for i18n": a topic, then an instruction
        # (its first clause's: "docs: port to mkdocs, markdown is easier" is about the docs)
        first = _CLAUSES.search(rest)
        t = (f"{rest[:first.start()]} for {m.group(1)}{rest[first.start():]}" if first else f"{rest} for {m.group(1)}") \
            if _instruction(rest) else f"{m.group(1)} is {rest}"
    clauses = (_LEAD.sub("", _FREQUENCY.sub(lambda m: f"every {_EVERY[m.group(0)]}", _ASIDES.sub(" ", c).strip(" .!:")))
               for c in _CLAUSES.split(t.replace(":", ";")))
    return [_reworded(c, " ".join(str(text).split())) for c in clauses if c]


def statement(text: str) -> dict[str, Any]:
    """{"subject": sorted stems, "choice": [...], "ruled_out": [...], "dropped": [...], "refers": bool,
    "also": [[subject, values], ...]} of a decision.

    The subject is its main clause's (the first that says something); a later clause adds
    what it rules out, and its choice when it is about the same thing ("we no longer deploy
    the web app to Heroku; deploy it to Fly.io"), not its reasons ("..., mongo was too
    slow"). `dropped` are the ruled-out phrases said to be gone for good ("replace Y with X",
    "drop Y", "Y is retired", "no more Y"), also in `ruled_out`. `refers`: the main clause
    names no concern but points back at one ("Actually, switch it to SQS"). `also`: the
    values a later clause sets for a concern of its own, [subject, values] ("Format with
    Black, line length 88": [["length", "lin"], ["88"]]). Pure and
    English-only, like the rest of this module: a sentence it cannot read gives an empty
    choice, and supersession then retires nothing on its account.
    """
    original = " ".join(str(text).split())
    choice: list[str] = []
    ruled: list[str] = []
    dropped: list[str] = []
    subject: set[str] | None = None
    refers = False
    verbs: set[str] = set()
    main = ""
    also: list[list[list[str]]] = []
    for clause in _clauses(text):
        part = _read(clause, original)
        ruled += part["ruled"]
        dropped += part["dropped"]
        if subject is None and (part["subject"] or part["choice"] or part["ruled"] or part["dropped"]) or (
                not choice and part["choice"] and (not subject or not (ruled or dropped))):
            # a main clause that chose nothing gives way to one that does: "We're ditching Varnish;
            # responses get cached in ...", "Kafka is too heavy for us - use NATS for messaging";
            # a scope said first stays its scope ("In tests only, use SQLite")
            scope = subject if subject and _SCOPE.match(main) else set()
            subject, refers, verbs, main = scope | part["subject"], part["refers"], part["verbs"], clause
            choice += part["choice"]
        elif subject is not None and part["subject"] <= subject:
            choice += part["choice"]
        elif subject and (values := [_phrase(c) for c in part["choice"] if c[:1].isdigit()]):
            also.append([sorted(part["subject"]), values])
    dropped = list(dict.fromkeys(p for p in map(_phrase, dropped) if p))
    ruled = list(dict.fromkeys([p for p in map(_phrase, ruled) if p] + dropped))
    choice = list(dict.fromkeys(p for p in map(_phrase, choice) if p and p not in ruled))
    return {"subject": sorted(subject or ()), "choice": choice, "ruled_out": ruled, "dropped": dropped,
            "refers": refers, "also": also, "verbs": sorted(verbs)}
