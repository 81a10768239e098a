"""What one rule of the offline checker is: a unit with an id, the decision words that switch it on,
its check, and a one-line why (docs/monitoring.md, "The rule catalogue").

A rule is declared once, beside its check, in its family's module (`RULES` at the module's foot);
`registry.py` lists the families and the offline checker loops over `registry.RULES`. Adding a rule
is adding a `Rule` to one family, with its fixtures in tests/monitor/rule_fixtures/<family>.py:
no cue table, no field of `decision_rules.Rules` and no call in the checker to add as well.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from engram.monitor.code_lines import Line

# (kind, line, why); a fourth item names what matched ("forbid:redis"), else the rule's id is used.
Hit = tuple[str, Line, str] | tuple[str, Line, str, str]


@dataclass(frozen=True)
class Write:
    """One written file, as every rule sees it."""

    path: str
    lang: str
    all_lines: list[Line]  # the diff's lines, context included
    lines: list[Line]  # the changed lines (an inline Rust test module's left out unless the decision is about tests)
    new_file: bool
    assigned: frozenset[str]  # names the diff binds as variables: a common word bound so is no library
    ignore_file: bool  # `.gitignore` and its kin: an added line keeps a thing out rather than bringing it in


@dataclass(frozen=True)
class Rule:
    """One rule. `cue`: the decision words that switch it on (None: its check reads the decision's
    parsed form, `decision_rules.Rules`, and finds nothing in a decision that states no such rule).
    `reach`: "scope" the files the decision applies to (tests only when it is about tests); "own" the
    places its own reading governs; "any" every file but documentation (a protected path)."""

    id: str
    why: str
    check: Callable[[Write, Any], list[Hit]]  # (the write, the decision: decision_rules.Rules)
    cue: Any = None  # an object with `.search(text)`: a compiled pattern, or a catalogue's cue
    reach: str = "scope"
    in_ignore_files: bool = True

    def cued(self, text: str) -> bool:
        return self.cue is None or bool(self.cue.search(text))


def on_lines(fn: Callable[..., list[Hit]], path: bool = False) -> Callable[[Write, Any], list[Hit]]:
    """A check of the shape `fn(lines, lang, decision[, path=])` over the write's lines, context included."""
    if path:
        return lambda w, r: fn(w.all_lines, w.lang, r.text, path=w.path)
    return lambda w, r: fn(w.all_lines, w.lang, r.text)
