"""What a decision forbids, requires and limits, in a form a diff can be checked against.

`engram.language.decision_text.parse` (consolidation's parser) gives each decision node
`data.requires` / `data.forbids` as phrases. The contradiction checker needs more, so
this module builds on it rather than replacing it:

* phrases become *terms* to look for in code: articles and generic nouns go ("the
  logging module" -> `logging`), known names get their spellings (`moment.js` ->
  `moment`, `moment-timezone`; `PostgreSQL` -> `psycopg2`, `pgx`, ...), and phrases that
  are actions rather than things ("run containers", "build SQL with f-strings") are
  dropped: matching their words would warn about any container or any SQL;
* conditional prohibitions are dropped too: "never call datetime.now() without a
  timezone" does not forbid `datetime.now(timezone.utc)`;
* it adds the shapes the consolidation parser does not read: "Use A, not B",
  "no console output", "hashed with bcrypt", and limits ("max 3 retries", "timeout at
  most 5 seconds", "at least 12 rounds");
* it reads whether the decision is about the tests (where each clause holds: `clauses.py`).

The rules that read a decision's words by a cue of their own (parameterised SQL, hard-coded
secrets, ...) hold their cue beside their check, in the catalogue (`engram.monitor.rules`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from engram.language import decision_text
from engram.monitor import practices, tech_terms
from engram.monitor import scope as scope_lib
from engram.text import singular

_NEG = r"(?:never|don'?t|do not|must not|mustn'?t|should not|shouldn'?t|cannot|can'?t|no longer|not)"
_VERB = (r"(?:use|using|call|calling|add|adding|import|importing|depend on|introduce|bring back|bring in|"
         r"include|rely on|reintroduce|pull in|access|accessing|instantiate|commit)")
_PHRASE = r"([A-Za-z_@`'\"][\w.\-/+#@*`'\"]*(?:::[\w]+)*(?:\(\))?!?(?:\s+[A-Za-z_`'\"][\w.\-/`'\"]*(?:\(\))?){0,3})"
_FORBID = [
    re.compile(rf"\b{_NEG}\s+(?:ever\s+)?{_VERB}\s+{_PHRASE}", re.I),
    re.compile(rf"\b(?:instead of|rather than|avoid|avoiding)\s+{_PHRASE}", re.I),
    re.compile(rf"(?:^|,|;|\(|\band\b)\s*(?:but\s+)?not\s+{_PHRASE}", re.I),
    re.compile(r"\bno\s+(?!more\b|longer\b|less\b|fewer\b|than\b|later\b)" + _PHRASE, re.I),
    re.compile(rf"\bnever\s+{_PHRASE}", re.I),
]
# "never run npm install, npx or yarn": what is run must be a command, not "containers as root".
_RUN = re.compile(rf"\b{_NEG}\s+(?:ever\s+)?(?:run|execute|invoke)\s+{_PHRASE}", re.I)
_FROM = re.compile(rf"\b(?:never|not|don'?t|do not|must not)\s+(?:import\s+)?from\s+{_PHRASE}", re.I)
_RETIRE = re.compile(rf"\b(?:drop|remove|get rid of|phase out|retire|rip out|migrate (?:away )?from|move off)\s+"
                     rf"{_PHRASE}", re.I)
_OVER = re.compile(rf"\bover\s+{_PHRASE}", re.I)
# "requests is not used", "eval() is forbidden": the subject of a passive prohibition.
_PASSIVE = re.compile(rf"^\s*(?:the\s+|any\s+|using\s+)?{_PHRASE}\s+(?:is|are)\s+(?:strictly\s+|also\s+)?"
                      rf"(?:forbidden|prohibited|banned|disallowed|not allowed|not permitted|not used|deprecated)\b", re.I)
# "lint checks via flake8", "enforced through golangci-lint": the tool a required practice runs through.
_VIA = re.compile(rf"\b(?:via|through)\s+{_PHRASE}", re.I)
_MODAL = re.compile(r"\b(?:must|should|shall|always|required|need to|enforce[sd]?|only)\b", re.I)
# The next items of a list the first phrase of a prohibition opens ("never run npm install, npx or yarn").
_LIST_SEP = re.compile(r"\s++(?:,\s*+(?:and\s+|or\s+|nor\s+)?|(?:or|and|nor)\s+)|,\s*+(?:and\s+|or\s+|nor\s+)?")
_REQUIRE = [
    re.compile(rf"(?<![\w'])(?:use|using|prefer|choose|chose|picked|adopt|switch to|go with|stick with|stick to|keep using|"
               rf"migrate to|standardi[sz]e on)\s+{_PHRASE}", re.I),
    re.compile(rf"\b(?:hashed|stored|handled|done|written|implemented|built|encoded|serialized|signed|kept|validated|"
               rf"checked|run|managed|formatted|linted)\s+(?:with|using|via|in|as|for|by)\s+{_PHRASE}", re.I),
    re.compile(rf"\b(?:default to|defaults to|rely on|relies on|we use|uses)\s+{_PHRASE}", re.I),
]
_STOP = {"for", "in", "because", "to", "when", "with", "instead", "rather", "over", "as", "on", "unless",
         "until", "without", "except", "since", "so", "and", "or", "but", "at", "from", "inside", "within",
         "if", "whenever", "anymore", "again", "here", "there", "everywhere", "anywhere", "now", "by", "via",
         "across", "outside", "only", "into", "of", "against", "+", "exclusively", "everywhere", "throughout"}
_GENERIC = {"library", "libraries", "module", "modules", "package", "packages", "crate", "crates", "dependency",
            "dependencies", "client", "clients", "driver", "drivers", "call", "calls", "statement", "statements",
            "tag", "tags", "function", "functions", "method", "methods", "code", "output", "sdk", "framework",
            "directly", "itself", "api", "apis", "backend", "server", "service", "tool", "keyword", "type",
            "config", "configuration", "checks", "check", "hooks", "hook", "settings", "command", "commands"}
_VERBS = {"run", "build", "hardcode", "hard-code", "store", "drop", "pass", "call", "write", "commit", "put",
          "keep", "log", "make", "create", "return", "throw", "catch", "pin", "verify", "send", "read", "load",
          "save", "use", "using", "add", "import", "expose", "mix", "block", "leave", "skip", "change", "touch",
          "edit", "modify", "delete", "remove", "rename", "check", "mutate", "share", "hash", "encrypt", "let",
          "bypass", "disable", "hold", "do", "go", "be", "have", "get", "set", "print-debug", "imports", "uses", "calls"}
_NOT_TERMS = {"it", "this", "that", "them", "these", "those", "anything", "something", "everything", "one",
              "more", "less", "way", "ever", "longer", "matter", "other", "others", "new", "old", "same",
              "longer", "own", "two", "select", "insert", "update", "delete", "where", "null", "true", "false",
              "tests", "test", "comments", "docs", "secrets", "secret", "passwords", "password", "root",
              "unused", "dead", "legacy", "existing", "generated", "raw", "plain", "sensitive", "magic", "all",
              "the", "a", "an"}
# "X for <data>": a prohibition about what flows where, visible on the line only with the data's name.
SCOPED_DATA = {
    "token": ("token", "jwt", "auth", "bearer", "session"),
    "secret": ("secret", "password", "passwd", "pwd", "credential", "token", "api_key", "apikey"),
    "money": ("money", "price", "amount", "cents", "cost", "fee", "balance", "currency", "payment", "invoice"),
}
_SCOPE_WORDS = {"token": "token", "tokens": "token", "auth": "token", "jwt": "token", "jwts": "token",
                "session": "token", "sessions": "token", "secret": "secret", "secrets": "secret",
                "password": "secret", "passwords": "secret", "credential": "secret", "credentials": "secret",
                "money": "money", "price": "money", "prices": "money", "amount": "money", "amounts": "money",
                "currency": "money", "payment": "money", "payments": "money", "monetary": "money"}
# Lint rules a configuration names ("'no-console'", "unicorn/no-process-exit"): what each rules out.
LINT_RULES = {"console": "console", "process-exit": "process.exit", "eval": "eval", "alert": "alert",
              "debugger": "debugger"}
_LINT_RULE = re.compile(r"(?:^|[\s'\"`(/])no-([a-z]+(?:-[a-z]+)*)(?=[\s'\"`),:;]|$)")
# "Only the repository module may import sqlalchemy", "sqlalchemy may only be imported in the db layer": the
# thing is ruled out everywhere but that place.
_ONLY_PLACE_MAY = re.compile(rf"^\W*only\s+[^,;]{{1,60}}?\s+(?:may|can|is\s+allowed\s+to|are\s+allowed\s+to)\s+"
                             rf"{_VERB}\s+{_PHRASE}", re.I)
_MAY_ONLY_BE = re.compile(rf"^\W*+(?:the\s+)?{_PHRASE}\s+(?:may|can|should|must|shall)\s+only\s+be\s+"
                          r"(?:imported|used|called|accessed|instantiated|referenced)\b", re.I)
# Command-line tools: "<tool> <subcommand>" names a command ("npm install", "uv add", "docker run").
CLI_TOOLS = frozenset("""npm npx pnpm yarn bun pip pip3 pipx uv poetry pipenv conda docker podman kubectl helm git cargo
gem bundle brew apt apt-get prisma supabase terraform""".split())
# "unless explicitly requested": a permission the user gives, not a condition the code can meet.
UNLESS_ASKED = r"unless(?!\s+(?:explicitly|specifically|expressly|requested|asked|approved|instructed|told)\b)"
# "outside cli/", "except in tests", "outside the db layer": a place the decision exempts (`scope.py`), no condition.
_EXEMPT_PLACE = (r"(?:[`'\"]?[\w.\-]+/|[\w\-]+\s+(?:layer|module|package|folder|directory)\b|(?:tests?|specs?|"
                 + "|".join(sorted(scope_lib.LAYER_WORDS)) + r")\b)")
_CONDITIONAL = re.compile(rf"^\s*(?:without|{UNLESS_ASKED}|except|other than|outside|only|if|when|apart from)\b"
                          rf"(?!\s+(?:be\s+\w+\s+)?(?:of\s+|in\s+|under\s+|from\s+)?(?:the\s+)?{_EXEMPT_PLACE})", re.I)
_LEADING = ("the ", "a ", "an ", "any ", "our ", "your ", "its ")

# limits ------------------------------------------------------------------------------------
_NUM = r"(\d+(?:[.,_]\d+)?)"
_UNIT = r"(ms|milliseconds?|millis|s|secs?|seconds?|minutes?|mins?|m|hours?|hrs?|h)?"
_MAX = re.compile(rf"\b(max(?:imum)?\.?|at most|no more than|not more than|up to|limit(?:ed)?(?:\s+\w+){{0,4}}\s+to|"
                  rf"cap(?:ped)?(?:\s+\w+){{0,4}}\s+at)\s+{_NUM}\s*{_UNIT}\b\s*([a-z_][a-z_\-]*(?: (?!and\b)[a-z_][a-z_\-]*){{0,4}})?",
                  re.I)
# "a maximum line length of 120 characters", "a minimum password length of 12"
_MAX_OF = re.compile(rf"\b(max(?:imum)?|min(?:imum)?)\s+((?:[a-z][a-z_\-]*\s+){{0,2}}[a-z][a-z_\-]*)\s+(?:of|is|=)\s+"
                     rf"{_NUM}\s*{_UNIT}\b", re.I)
# "MAX_PAGE_SIZE: 100", "MAX_TIMEOUT_MS = 600_000": a constant a decision states as its limit
_CONSTANT = re.compile(rf"\b(MAX|MIN)_([A-Z][A-Z0-9]*(?:_(?!MS\b|S\b|SECONDS\b|SECS?\b|MINUTES\b)[A-Z0-9]+)*)"
                       rf"(?:_(MS|S|SECONDS|SECS?|MINUTES))?\s*[:=]\s*{_NUM}")
# "must not exceed 300 seconds" (at most), "under 100 items per page", "below 4" (less than)
_EXCEED = re.compile(rf"\b((?:must|should|shall|may|can)\s*(?:not|never)\s+exceed|cannot exceed|never exceed|not to exceed)"
                     rf"\s+{_NUM}\s*{_UNIT}\b\s*([a-z_][a-z_\-]*(?: (?!and\b)[a-z_][a-z_\-]*){{0,4}})?", re.I)
_BELOW = re.compile(rf"\b(under|below|less than|fewer than|smaller than|lower than)\s+{_NUM}\s*{_UNIT}\b"
                    rf"\s*([a-z_][a-z_\-]*(?: (?!and\b)[a-z_][a-z_\-]*){{0,4}})?", re.I)
# "file ≤ 300 LOC, parameters ≤ 5": a subject, a comparison sign, a number
_SIGN = re.compile(rf"(?:^|[,;:(]\s*|\band\s+)((?:[A-Za-z][\w\-]*\s+){{0,2}}[A-Za-z][\w\-]*)\s*(≤|<=|<|≥|>=)\s*{_NUM}"
                   rf"\s*{_UNIT}\b\s*([A-Za-z_]+)?", re.I)
# Units that make a limit a length: "functions under 20 lines", "function ≤ 50 LOC".
_LENGTH_UNITS = {"line", "lines", "loc", "sloc"}
_PER_FILE = re.compile(r"\b(\d+)\s*(?:lines|LOC|loc|sloc)\s+(?:per|a|each|for\s+each|in\s+a)\s+(?:source\s+)?(?:file|module)\b|"
                       r"\b(?:no|never\s+a)\s+(?:source\s+)?(?:file|module)\s+(?:longer|larger|bigger|over)\s+(?:than\s+)?(\d+)\s*"
                       r"(?:lines|LOC)\b", re.I)
# "Short-lived JWTs (15 min)", "Default timeouts (10s) and retries (3, exponential backoff)": a value in
# parentheses after what it sets; a count needs a head the synonyms know (retries, timeouts, workers).
_PAREN = re.compile(rf"\b([A-Za-z][\w\-]*)\s*\(\s*{_NUM}\s*{_UNIT}\s*(?=[),;])", re.I)
_MIN = re.compile(rf"\b(at least|min(?:imum)?\.?(?:\s+of)?|no fewer than|no less than)\s+{_NUM}\s*{_UNIT}\b"
                  rf"\s*([a-z_][a-z_\- ]{{0,40}})?", re.I)
_SECONDS = {"ms": 0.001, "millisecond": 0.001, "milliseconds": 0.001, "millis": 0.001, "s": 1, "sec": 1, "secs": 1,
            "second": 1, "seconds": 1, "minute": 60, "minutes": 60, "min": 60, "mins": 60, "m": 60, "hour": 3600,
            "hours": 3600, "hr": 3600, "hrs": 3600, "h": 3600}
# Heads too vague to name a setting alone: "page size" needs "page" as well.
_GENERIC_HEADS = {"size", "count", "limit", "length", "number", "total", "amount", "max", "value", "level", "depth"}
SYNONYMS = {
    "retry": {"retry", "retries", "attempt", "attempts", "tries", "try"},
    "timeout": {"timeout", "timeouts", "deadline"},
    "connection": {"connection", "connections", "pool", "conn", "conns", "poolsize"},
    "worker": {"worker", "workers", "concurrency", "parallelism"},
    "round": {"round", "rounds", "cost", "workfactor"},
}
_SUBJECT_SKIP = {"the", "a", "an", "for", "of", "to", "per", "on", "in", "at", "is", "be", "and", "or", "with", "not",
                 "exceed", "enforce", "limits", "limit",
                 "are", "was", "were", "been",
                 "keep", "kept", "set", "use", "allow", "allowed", "must", "should", "stay", "remain", "only",
                 "never", "always", "than", "total", "call", "calls", "hold", "holds", "contain", "contains", "take",
                 "takes", "accept", "accepts", "carry", "carries"}

@dataclass
class Term:
    """A thing a decision names: what it was called, and the spellings to look for.

    `scope`: when the decision rules the thing out only for some data ("localStorage
    for auth tokens"), words one of which the changed line must mention as well.
    `command`: a command line ("pip install"), which counts only where a command starts.
    `places`: folder names the phrase itself puts the prohibition in ("in development seeds").
    """

    phrase: str
    canon: str | None
    forms: tuple[str, ...]
    distinct: bool
    scope: tuple[str, ...] = ()
    command: bool = False
    places: tuple[str, ...] = ()  # "`destroy_all` in development seeds": the folders the prohibition holds in


@dataclass
class Limit:
    """`subject op value` ("retries <= 3", "timeout <= 5 s", "rounds >= 12")."""

    subject: str
    words: frozenset[str]
    synonyms: frozenset[str]
    op: str
    value: float
    duration: bool
    text: str
    measure: str = ""  # "lines": each <subject> is at most N lines long; "parameters": takes at most N; "": a value


@dataclass
class Rules:
    """Everything the offline checker tests a diff against, for one decision."""

    id: str
    text: str
    forbids: list[Term] = field(default_factory=list)
    requires: list[Term] = field(default_factory=list)
    limits: list[Limit] = field(default_factory=list)
    about_tests: bool = False
    required: list[str] = field(default_factory=list)  # identifiers of a required practice
    tools: list[str] = field(default_factory=list)  # names of required tools, dropped from a configuration
    shape: str | None = None  # the kind of line an "ALL <things> MUST" decision governs
    universal: bool = False  # the required practice holds everywhere ("all", "every", "must", "always")
    states_choice: bool = False  # it says what to use ("use native array methods"), known to the tables or not
    tests_only: bool = False  # its subject is the tests ("Tests must not sleep"): production code is not governed


def decision_text_of(node: dict[str, Any]) -> str:
    """The words of a decision node: its name, plus its description when that says more."""
    name = str(node.get("name") or "").strip()
    desc = str(node.get("description") or "").strip()
    if desc and desc.lower() not in name.lower():
        return f"{name}. {desc}" if name else desc
    return name or desc


def rules_for(node: dict[str, Any]) -> Rules:
    """Rules of one decision node ({"id", "name", "description", "data"})."""
    text = decision_text_of(node)
    data = node.get("data") if isinstance(node.get("data"), dict) else {}
    parsed = decision_text.parse(text)
    r = Rules(id=str(node.get("id") or ""), text=text)
    forbid_phrases = _phrases(data.get("forbids")) + parsed["forbids"]
    require_phrases = _phrases(data.get("requires")) + parsed["requires"]
    for clause in _clauses(text):
        forbid_phrases += _forbids_in(clause)
        require_phrases += _requires_in(clause)
    forbid_phrases += _lint_rule_forbids(text)
    require_phrases += stack_names(text)
    r.forbids = _terms([p for p in forbid_phrases if not _is_conditional(text, p)], text)
    modules = {f.split(".")[0] for t in r.forbids for f in t.forms if re.fullmatch(r"\w+\.\w+", f)}
    r.forbids = [t for t in r.forbids if not set(t.forms) <= modules]  # "never `time.sleep()`" bans no `import time`
    scope = decision_scope(text)
    for t in r.forbids:  # "Use Decimal for currency calculations, never float": floats for currency
        if scope and not t.scope and not t.distinct:
            t.scope = scope
    forbidden = {t.canon or t.forms[0] for t in r.forbids}
    r.requires = [t for t in _terms(require_phrases, text) if (t.canon or t.forms[0]) not in forbidden]
    r.states_choice = bool(r.requires) or any(rx.search(c) for c in _clauses(text) for rx in _REQUIRE[:1])
    r.tools = [f for t in r.requires for f in t.forms if re.fullmatch(r"[a-z][\w.\-]{1,30}", f)]
    r.tools += [m.group(1).lower() for m in _MUST_INCLUDE.finditer(text)]
    r.limits = limits_in(text)
    r.about_tests = bool(re.search(r"\b(?:tests?|testing|fixtures?|specs?|mocks?)\b", text, re.I)) or any(
        t.canon in tech_terms.ROLES["test framework"] for t in r.forbids + r.requires)
    requiring = " ".join(c for x in decision_text.sentences(text) or [text] for c in re.split(r";\s+", x)
                         if not PROHIBITIVE.search(c))  # "...; no API may bypass it" requires nothing, the rest may
    r.required = practices.required_identifiers(requiring, forbidden | {f for t in r.forbids for f in t.forms})
    r.shape = practices.shape_of(text) if r.required else None
    r.universal = bool(r.required) and re.search(r"\b(?:all|every|each|always|must|MUST|required)\b", text) is not None
    r.tests_only = _TESTS_SUBJECT.search(text) is not None
    return r


# "`mechanisms` - MUST include "oauthbearer"": a value a configuration's list must keep.
_MUST_INCLUDE = re.compile(r"\b(?:must|shall)\s+(?:always\s+)?(?:include|contain|list|keep)\s+[\"'`]([A-Za-z][\w\-]{1,30})[\"'`]",
                           re.I)


# "Tests must not sleep": the decision's subject is the tests, so it says nothing of production code.
_TESTS_SUBJECT = re.compile(r"^\W*(?:(?:unit|integration|e2e|end-to-end)\s+)?tests?\s+(?:code\s+)?(?:must|should|shall|may|can)"
                            r"(?:\s+not|\s+never|n'?t)\b", re.I)


# A clause that forbids ("never use eval", "UPDATE on audit_log is not allowed") requires nothing.
PROHIBITIVE = re.compile(rf"\b(?:{_NEG[3:-1]}|avoid|no|forbidden|prohibited|banned|disallowed)\b", re.I)


def _phrases(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _clauses(text: str) -> list[str]:
    return [c for s in decision_text.sentences(text) or [text] for c in re.split(r"[;:]\s+", s) if c.strip()]


def _negated(clause: str, start: int) -> bool:
    return bool(re.search(rf"\b{_NEG}\s+(?:ever\s+)?$|\b(?:avoid|stop)\s+$", clause[:start], re.I))


def _matches(rx: re.Pattern, clause: str) -> list[re.Match]:
    """Every match starting at a word, overlapping ones too: "adopt structured logging using
    structlog" holds a second cue ("using") inside the first one's phrase."""
    found = list(rx.finditer(clause)) + [rx.match(clause, w.start()) for w in re.finditer(r"(?<![\w'])[\w@`'\"]", clause)]
    return list({(m.start(1), m.group(1)): m for m in found if m}.values())


def _listed(clause: str, m: re.Match) -> list[str]:
    """The phrase a cue names and the items listed after it ("npm install, npx or yarn")."""
    first = m.group(1)
    items = re.split(r"(?<!\s)\s+(?:or|and|nor)\s+", first)
    if to_term(items[0]) is None:
        return [first]  # "floating versions, ranges or latest": the list is of words, not of things
    rest = clause[m.end(1):]
    while (sep := _LIST_SEP.match(rest)) and (nxt := re.match(_PHRASE, rest[sep.end():])):
        item = re.split(r"\s+(?:or|and|nor)\s+", nxt.group(1))
        if any(w.lower() in _STOP or w.lower() in _VERBS for x in item for w in x.split()[:1]):
            break
        items += item
        rest = rest[sep.end() + nxt.end():]
    simple = [x for x in items if not any(w.lower() in _STOP for w in x.split())]
    return [first] + [x for x in items[1:] if x in simple] if len(items) > 1 else [first]


def _is_command(phrase: str) -> bool:
    words = phrase.strip("`'\"").split()
    return bool(words) and words[0].strip("`'\".,;:!?").lower() in CLI_TOOLS


def _forbids_in(clause: str) -> list[str]:
    out = [p for rx in _FORBID + [_FROM] for m in _matches(rx, clause) for p in _listed(clause, m)]
    out += [p for m in _matches(_RUN, clause) for p in _listed(clause, m) if _is_command(p)]
    out += [m.group(1) for m in _RETIRE.finditer(clause) if not _negated(clause, m.start())]
    if re.search(r"\b(?:prefer|prefers|preferred|choose|chose|chosen|pick|picked|select|selected|went with)\b",
                 clause, re.I):
        out += [m.group(1) for m in _OVER.finditer(clause)]
    if m := _PASSIVE.match(clause):
        out += re.split(r"(?<!\s)\s+(?:or|and|nor)\s+|,\s*", m.group(1))
    out += [m.group(1) for m in _VIA.finditer(clause) if re.search(rf"\b{_NEG}\b", clause[:m.start()], re.I)]
    only = [m.group(1) for rx in (_ONLY_PLACE_MAY, _MAY_ONLY_BE) if (m := rx.match(clause))]
    if only and scope_lib.scope_of(clause).exempt:  # the place that may is exempt; everywhere else may not
        out += only
    return out


# A clause that states a choice of tools: "TechStack: Next.js 16, React 19, Drizzle ORM, PostgreSQL",
# "We use Prisma ORM against PostgreSQL 16", "Async-only networking (httpx.AsyncClient)".
_CHOICE = re.compile(r"\b(?:use|uses|using|adopt\w*|prefer\w*|stack|techstack|built (?:with|on)|standardi[sz]e\w* on|"
                     r"runs on|against|\w+-only)\b|^\s*[A-Za-z][\w &/]{1,30}:\s", re.I)
_NEGATIVE_TAIL = re.compile(r"\b(?:instead of|rather than|not|no|never|avoid|over|replac\w*|don'?t|do not|without)\b.*$",
                            re.I | re.S)


def stack_names(text: str) -> list[str]:
    """The technologies a clause that states a choice names, before any negation ("instead of X").
    Names that are also common words (log, print, json) are left to the verbs that govern them."""
    out = []
    for clause in [c for x in decision_text.sentences(text) or [text] for c in re.split(r";\s+", x)]:
        if not _CHOICE.search(clause):
            continue
        words = re.findall(r"[\w.@/+#\-]+", _NEGATIVE_TAIL.sub("", clause))
        for n in (3, 2, 1):
            for i in range(len(words) - n + 1):
                phrase = " ".join(words[i:i + n]).strip(".,-")
                canon = tech_terms.canonical(phrase)
                if canon in tech_terms.ALIASES and canon not in tech_terms.AMBIGUOUS:
                    out.append(phrase)
    return out


def _lint_rule_forbids(text: str) -> list[str]:
    """What the lint rules a decision names rule out, unless it says they are off everywhere (an
    override "for files X ... off" keeps them on elsewhere)."""
    if re.search(r"\b(?:off|disabled|allowed)\b", text) and not re.search(r"\bfor\s+files?\b", text):
        return []
    return [LINT_RULES[m.group(1)] for m in _LINT_RULE.finditer(text) if m.group(1) in LINT_RULES]


def _requires_in(clause: str) -> list[str]:
    out = [m.group(1) for rx in _REQUIRE for m in _matches(rx, clause) if not _negated(clause, m.start())]
    if _MODAL.search(clause):
        out += [m.group(1) for m in _VIA.finditer(clause) if not re.search(rf"\b{_NEG}\b", clause[:m.start()], re.I)]
    return out


def decision_scope(text: str) -> tuple[str, ...]:
    """The data a whole decision is about ("for currency calculations"), as words to look for."""
    groups = {_SCOPE_WORDS[w] for m in re.finditer(r"\bfor\s+((?:\w+\s+){0,2}\w+)", text, re.I)
              for w in m.group(1).lower().split() if w in _SCOPE_WORDS}
    return tuple(dict.fromkeys(k for g in sorted(groups) for k in SCOPED_DATA[g]))


def _is_conditional(text: str, phrase: str) -> bool:
    """Whether a prohibition of `phrase` holds only under a condition ("X without a timezone")."""
    i = text.lower().find(phrase.lower())
    if i < 0:
        return False
    after = text[i + len(phrase):]
    # a period that ends the sentence ("unittest directly. When ...") ends the phrase too
    return re.match(r"^(?:[\w()!\-/]|\.(?=\S))*(?:\s+\w+){0,2}?\s+" + _CONDITIONAL.pattern[4:], after, re.I) is not None


def _normal(word: str) -> str:
    w = word.strip("`'\"").lower()
    w = w[:-2] if w.endswith((".*", "/*")) else w  # "bidcvc.models.*": the package
    w = w[:-2] if w.endswith("()") else w
    return w.rstrip("!").rstrip(".")


def _terms(phrases: list[str], text: str) -> list[Term]:
    out: dict[str, Term] = {}
    for p in [x for p in phrases for x in _alternatives_of(p)]:
        t = to_term(p, text)
        if t is None:
            continue
        key = t.canon or t.forms[0]
        if key not in out or (t.scope and not out[key].scope):  # a scope, once stated, narrows the rule
            out[key] = t
    return list(out.values())


def _alternatives_of(phrase: str) -> list[str]:
    """ "Prisma/ORM": two things when one of them is a known name; "scripts/", "CI/CD": one."""
    parts = phrase.split("/")
    if len(parts) == 2 and all(re.fullmatch(r"[A-Za-z][\w.\-]*", p) for p in parts) and any(
            tech_terms.canonical(p) for p in parts):
        return parts
    return [phrase]


def to_term(phrase: str, text: str = "") -> Term | None:
    """A matchable term for a phrase, or None when the phrase is an action, vague or generic."""
    words = [w.strip("`'\"").rstrip(".,;:!?") or w for w in phrase.split()]
    low = " ".join(words).lower() + " "
    for lead in _LEADING:
        if low.startswith(lead) and len(words) > 1:
            words, low = words[1:], low[len(lead):]
    if _called_with_arguments(words[0], text):
        return None  # `subprocess(shell=True)`: one use of subprocess, which no term of it rules out
    if setting := _given_a_value(words[0], text):
        return Term(phrase=setting, canon=None, forms=(setting.lower(),), distinct=True)  # "never shell=True"
    cut = list(words)
    scope: tuple[str, ...] = ()
    places: tuple[str, ...] = ()
    for i, w in enumerate(cut):
        if i and w.lower() in _STOP:
            rest = " ".join(cut[i:])
            if _CONDITIONAL.match(text[text.find(rest):] if rest in text else rest):
                return None  # "datetime.now() without a timezone" forbids only the bare call
            if w.lower() == "for":
                groups = {_SCOPE_WORDS[x.lower()] for x in cut[i + 1:] if x.lower() in _SCOPE_WORDS}
                scope = tuple(dict.fromkeys(k for g in sorted(groups) for k in SCOPED_DATA[g]))
            if w.lower() in ("in", "inside", "within", "under"):
                places = _places(text, rest)
            cut = cut[:i]
            break
    cut = [c.rstrip(":,") for c in cut if c.rstrip(":,")]
    while len(cut) > 1 and cut[-1].lower() in _GENERIC:
        cut = cut[:-1]
    if not cut or cut[0].lower() in _VERBS:
        return None
    joined = " ".join(cut)
    if 1 < len(cut) <= 3 and cut[0] in CLI_TOOLS and all(re.fullmatch(r"[a-z][\w\-]*", w) for w in cut[1:]):
        return Term(phrase=joined, canon=None, forms=(joined,), distinct=True, command=True)  # "pip install"
    canon = tech_terms.canonical(joined) or (tech_terms.canonical(cut[0]) if len(cut) > 1 else None)
    if canon is None and len(cut) > 1 and _proper(cut[0], text) and not (cut[0].istitle() and cut[1].istitle()):
        cut = cut[:1]  # "GraphQL endpoints", "CircleCI config": the name is the thing; "Pages Router" is one name
    if canon is None and (len(cut) > 2 or (len(cut) == 2 and cut[1].lower() not in _GENERIC)):
        return None
    word = _normal(cut[0]) if canon is None else canon
    if canon is None and (len(word) < 2 or word in _NOT_TERMS or word in _GENERIC or word in _STOP):
        return None
    if canon:
        forms = tuple(dict.fromkeys((canon,) + tech_terms.ALIASES.get(canon, ())))
    else:  # "floats" is written `float` in code
        forms = (word, singular(word)) if singular(word) != word and len(word) > 4 and word.isalpha() else (word,)
    # A capitalised name the tables do not know ("Elasticsearch") is taken to be distinctive.
    distinct = (canon is None and len(word) >= 4 and _proper(cut[0], text)) or any(f in tech_terms.DISTINCT for f in forms)
    return Term(phrase=" ".join(cut), canon=canon, forms=forms, distinct=distinct, scope=scope, places=places)


def _called_with_arguments(word: str, text: str) -> bool:
    """Whether the decision writes the name only as a call with arguments (`subprocess(shell=True)`):
    then it rules out that call, not every use of the name."""
    found = list(re.finditer(rf"(?<![\w.]){re.escape(word.strip('`')).rstrip('(')}(?![\w.])(\((?!\)))?", text))
    return bool(found) and all(m.group(1) for m in found)


def _given_a_value(word: str, text: str) -> str | None:
    """"never shell=True", "no key=value syntax": the name with its value ("shell=True"), which is what
    the decision rules out, when the decision writes the name only that way."""
    name = re.escape(word.strip("`").rstrip("("))
    found = list(re.finditer(rf"(?<![\w.]){name}(?![\w.])(=[\w\"']+)?", text))
    return found[0].group(0) if found and all(m.group(1) for m in found) else None


# Folders a prohibition may be placed in ("in development seeds", "in controllers"); "in production
# code", "in the repository" place nothing.
_PLACE_WORDS = scope_lib.LAYER_WORDS - {"repository", "api", "endpoint", "endpoints"} | {
    "seed", "seeds", "seeders", "fixtures", "templates", "jobs", "workers", "tasks"}


def _places(text: str, rest: str) -> tuple[str, ...]:
    """The folder words of "in <words>" after a forbidden phrase, read up to the clause's end."""
    at = text.find(rest)
    tail = text[at:] if at >= 0 else rest
    words = re.match(r"\w+\s+((?:[\w\-]+\s*){1,4})", tail)
    found = [w.lower() for w in re.findall(r"[\w\-]+", words.group(1))] if words else []
    return tuple(w for w in found if w in _PLACE_WORDS)


def _proper(word: str, text: str) -> bool:
    """A name written with capitals (Redis, GraphQL, CircleCI) that does not just start the sentence."""
    w = word.strip("`'\"")
    return len(w) >= 3 and any(c.isupper() for c in w) and not text.startswith(w) and not w.isupper() or (
        w.isupper() and len(w) >= 4 and not text.startswith(w))


def limits_in(text: str) -> list[Limit]:
    """Numeric limits a decision states ("max 3 retries", "timeout at most 5 seconds", "a maximum
    line length of 120", "MAX_PAGE_SIZE: 100")."""
    out = []
    for op, rx in (("<=", _MAX), (">=", _MIN)):
        for m in rx.finditer(text):
            label, words = _subject(text[: m.start()], m.group(4) or "", bool(m.group(3)))
            out += _limit(label, words, op, m.group(2), m.group(3), m.group(0))
    for op, rx in (("<=", _EXCEED), ("<", _BELOW)):
        for m in rx.finditer(text):
            after = m.group(4) or ""
            label, words = _subject(text[: m.start()], "" if _length_unit(after) else after, bool(m.group(3)))
            out += _limit(label, words, op, m.group(2), m.group(3), m.group(0), _length_unit(after))
    for m in _SIGN.finditer(text):
        op = {"≤": "<=", "≥": ">="}.get(m.group(2), m.group(2))
        label, words = _subject(m.group(1), "", True)
        out += _limit(label, words, op, m.group(3), m.group(4), m.group(0).strip(" ,;:("), _length_unit(m.group(5) or ""))
    for m in _MAX_OF.finditer(text):
        label, words = _subject(m.group(2), "", bool(m.group(4)))
        out += _limit(label, words, "<=" if m.group(1).lower().startswith("max") else ">=", m.group(3), m.group(4),
                      m.group(0))
    for m in _PAREN.finditer(text):
        head = _noun(m.group(1).lower())
        if m.group(3) or any(head in s for s in SYNONYMS.values()):
            out += _limit(m.group(1).lower(), {head}, "<=", m.group(2), m.group(3), m.group(0) + ")")
    for m in _PER_FILE.finditer(text):  # "aim for ~500 lines per file", "no file longer than 800 lines"
        out += _limit("file", {"file"}, "<=", m.group(1) or m.group(2), None, m.group(0), "lines")
    for m in _CONSTANT.finditer(text):
        words = [w.lower() for w in m.group(2).split("_")]
        label = " ".join(words)
        out += _limit(label, {singular(w) for w in words}, "<=" if m.group(1) == "MAX" else ">=", m.group(4),
                      (m.group(3) or "").lower() or None, m.group(0))
    return out


# Units no limit here converts: "smaller than 1 MB" says nothing about a constant of 512000.
_UNREAD_UNITS = {"mb", "kb", "gb", "tb", "kib", "mib", "gib", "byte", "bytes", "%", "percent", "mbps", "px", "em", "rem"}


def _length_unit(after: str) -> str:
    """ "lines" when the words after a limit's number make it a length in lines ("20 lines", "50 LOC")."""
    first = after.split()[0].lower() if after.split() else ""
    return "lines" if first in _LENGTH_UNITS else ""


def _limit(label: str, words: set[str], op: str, number: str, unit: str | None, text: str,
           measure: str = "") -> list[Limit]:
    after_number = text[text.find(number) + len(number):].split()
    if after_number and after_number[0].lower().strip(".,;)") in _UNREAD_UNITS:
        return []
    if not words or words <= _GENERIC_HEADS:
        return []  # "a maximum length of 12": the length of what?
    value = float(number.replace(",", ".").replace("_", ""))
    unit = (unit or "").lower()
    duration = unit in _SECONDS
    if duration:
        value *= _SECONDS[unit]
    head = label.split()[-1]
    syn = set() if len(words) > 1 else next((s for s in SYNONYMS.values() if head in s), set())
    if measure or head in ("parameter", "parameters", "param", "params", "argument", "arguments"):
        measure = measure or "parameters"
    return [Limit(subject=label, words=frozenset(words), synonyms=frozenset(syn - set(words)), op=op, value=value,
                  duration=duration, text=text.strip(), measure=measure)]


def _noun(word: str) -> str:
    """The singular of a counted noun: "batches" -> "batch", "retries" -> "retry"."""
    return word[:-2] if word.endswith(("ches", "shes", "xes", "sses")) else singular(word)


def _subject(before: str, after: str, has_unit: bool) -> tuple[str, set[str]]:
    """(what is limited, the stems an identifier must contain to name it).

    "3 retries" names the subject after the number; "page size must be at most 100
    items" before the cue (the noun after it is only a unit of counting). A generic
    head ("size", "count") needs its modifier too: `page size` must not match BUFFER_SIZE.
    """
    per = re.search(r"\bper\s+([a-z_]+)", after.lower())
    if per:  # "100 items per page": PER_PAGE, perPage
        return f"per {per.group(1)}", {"per", singular(per.group(1))}
    after_words = []
    for w in re.findall(r"[a-z_]+", after.lower()):  # "3 bcrypt rounds for ..." -> [bcrypt, rounds]
        if w in _SUBJECT_SKIP:
            break
        after_words.append(w)
    participle = re.search(r"\b(?:is|are|be|get|gets)\s+([a-z]+?)(?:ied|ed)\s*$", before.lower())
    if participle and (not after_words or after_words[0] in ("time", "times")):  # "conflicts are retried at most 3 times": the retries
        stem = participle.group(1) + ("y" if before.lower().rstrip().endswith("ied") else "")
        return stem, {stem}
    copula = re.search(r"\b(?:must|should|shall|will|can|may)?\s*(?:be|stay|remain)\s*$|\b(?:is|are)\s*$|"
                       r"\b(?:hold|holds|contain|contains|take|takes|accept|accepts|carry|carries)\s*$",
                       before.lower()) is not None
    before_words = [w for w in re.findall(r"[a-z_]+", before.lower()) if w not in _SUBJECT_SKIP]
    if before_words and (copula or has_unit or not after_words):
        words = before_words
        head = _noun(words[-1])
        if head in _GENERIC_HEADS and len(words) > 1:
            return f"{words[-2]} {words[-1]}", {singular(words[-2]), head}
        return words[-1], {head}
    if after_words:
        return after_words[-1], {singular(after_words[-1])}
    return "", set()
