"""Where each clause of a decision holds: a path, a language or a side of the application stated in
one clause governs that clause, not the whole decision.

"Use Decimal for money in billing/, and never log card numbers": billing/ scopes the first rule;
card numbers are never logged anywhere. So the offline checker reads, for a write, only the clauses
that hold at its path (`holding`). What is not a separate rule keeps the scope of the clause it
belongs to (docs/monitoring.md, "Where a decision holds"):

* a heading ("Scope: `src/util/**`", "paths: ...") scopes every clause, a sentence's lead ("In
  billing/, ...") every clause of its sentence;
* a clause that continues another ("They call repositories", "Use of "as" is prohibited" after
  "never use "as" in TypeScript": a pronoun, or a word of a scoped clause), or that only says what to
  use ("...; use httpx"), takes the scope of the nearest scoped clause;
* an exemption is granted to the decision: "Never use print(). print is allowed in scripts/"
  exempts scripts/ from the first sentence too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from engram.language import decision_text
from engram.monitor.decision_rules import PROHIBITIVE
from engram.monitor.scope import Scope, scope_of

# "..., and never log card numbers", "...; no raw SQL": a second rule inside one sentence.
_BREAK = re.compile(r";\s+|,\s+(?:and|but)\s+(?=(?:never|always|do\s+not|don'?t|avoid|no|must)\b)", re.I)
_HEADING = re.compile(r"^\W*(?:scope|paths?|files|applies\s+(?:only\s+)?to)\s*:", re.I)
_LEAD = re.compile(r"^\W*(?:in|under|inside|within)\s+(?:the\s+)?[^\s,]+(?:\s+(?:code|files?|layer|folder))?\s*,", re.I)
_CONTINUES = re.compile(r"^\W*(?:it|its|they|them|their|this|these|those|that|which|so|because|otherwise|instead|"
                        r"there|here|such)\b", re.I)
_WORD = re.compile(r"[\"'`]([^\"'`\s]{1,30})[\"'`]|([a-z][\w.]{3,})", re.I)
_COMMON = frozenset("""never always must should shall using avoid code file files with without from into only when where
which this that there their they them these those allowed forbidden prohibited strictly instead rather other every each
also does have been being over under inside within outside except use uses used make sure keep all any not""".split())


@dataclass(frozen=True)
class Clause:
    """One clause's words and where it holds."""

    text: str
    scope: Scope


def holding(text: str, path: str) -> str | None:
    """The words of the decision that hold at `path`: all of it when every clause does (one clause,
    or several with one scope), the clauses that do when only some do, None when none does."""
    clauses = clauses_of(text)
    held = [c.text for c in clauses if c.scope.applies(path)]
    if not held:
        return None
    return text if len(held) == len(clauses) else " ".join(held)


def in_its_languages(text: str, path: str) -> bool:
    """Whether some clause holds for the language of `path` (the rules that read their own places,
    and so no clause's path, still keep to "in TypeScript")."""
    return any(Scope(languages=c.scope.languages).applies(path) for c in clauses_of(text))


@lru_cache(maxsize=512)
def clauses_of(text: str) -> tuple[Clause, ...]:
    """The decision's clauses, each with the scope it holds in; exemptions are the decision's."""
    parts: list[tuple[str, Scope | None]] = []
    for sentence in decision_text.sentences(text) or [text]:
        lead = scope_of(sentence.split(",", 1)[0]) if _LEAD.match(sentence) else None
        parts += [(c, lead) for c in _BREAK.split(sentence) if c.strip()]
    if len(parts) < 2:
        return (Clause(text, scope_of(text)),)
    own = [scope_of(c) for c, _ in parts]
    exempt = tuple(dict.fromkeys(e for s in own for e in s.exempt))
    heading = [s for (c, _), s in zip(parts, own) if _HEADING.match(c) and s.placed()]
    scopes = [_merged(heading) if heading and not s.placed() else s for s in own]
    scopes = [lead if lead and not s.placed() else s for (_, lead), s in zip(parts, scopes)]
    scopes = [_inherited(i, parts, scopes) for i in range(len(parts))]
    return tuple(Clause(c, replace(s, exempt=exempt)) for (c, _), s in zip(parts, scopes))


def _inherited(i: int, parts: list[tuple[str, Scope | None]], scopes: list[Scope]) -> Scope:
    """A clause's scope, or, when it states none and is no rule of its own, the nearest scoped clause's."""
    text = parts[i][0]
    scoped = [j for j, s in enumerate(scopes) if s.placed()]
    if scopes[i].placed() or not scoped:
        return scopes[i]
    words = _words(text)
    if _CONTINUES.match(text) or not PROHIBITIVE.search(text) or any(words & _words(parts[j][0]) for j in scoped):
        return scopes[min(scoped, key=lambda j: (abs(j - i), j > i))]
    return scopes[i]


def _words(text: str) -> set[str]:
    """The words that tie two clauses to one subject: quoted ones, and longer ones but common words."""
    return {(m.group(1) or m.group(2)).lower().rstrip(".") for m in _WORD.finditer(text)} - _COMMON


def _merged(scopes: list[Scope]) -> Scope:
    return Scope(tuple(w for s in scopes for w in s.within), (), tuple(x for s in scopes for x in s.languages),
                 tuple(x for s in scopes for x in s.sides))
