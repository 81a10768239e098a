"""The offline contradiction checker: deterministic rules, no model, no network.

For each decision (`decision_rules.rules_for`) it runs every rule of the catalogue
(`rules.registry.RULES`) the decision's words switch on, where the rule reaches, over the code
of the lines the diff adds and removes (`code_lines.parse`: comments, docstrings and message
strings are not code), and reports:

* DIRECT: the change introduces a thing the decision forbids (`import redis` against
  "SQLite instead of Redis"), exceeds a limit it names (`MAX_RETRIES = 5` against "max 3
  retries"), or does what a detector finds the decision names (`SELECT *`);
* INDIRECT: the change brings in something that does the same job as what the decision
  requires or forbids (`pika` against the same decision: a different queue), exceeds a
  limit through a synonym (`for attempt in range(10)`), or a detector finds the decision
  undermined without its words (`runAsUser: 0` against "never run as root").

Conservative on purpose, because a wrong warning costs the agent's trust:
"introduces" means more changed lines mention the thing after the change than before
(a rename or a moved line is not an introduction); a common word (`requests`, `print`)
counts only in a library-shaped use (an import, `requests.get(`), never as a variable
the diff assigns; test files are skipped unless the decision is about tests;
documentation is skipped; a required thing that merely disappears is not reported
(code moves between files), only its replacement by an alternative.
"""

from __future__ import annotations

import re
from typing import Any

from engram.monitor import clauses, code_lines, decision_rules
from engram.monitor.code_lines import Line, is_test_path
from engram.monitor.contradiction import DIRECT, INDIRECT, Verdict, no_contradiction
from engram.monitor.decision_rules import Rules
from engram.monitor.readings import code_scope
from engram.monitor.rules import Rule, Write
from engram.monitor.rules.registry import RULES
from engram.monitor.rules.terms import assigned_names
from engram.text import clip_words

MAX_MATCHES = 6
# Mechanisms switched off: their matches are computed (all_matches) but never warn.
GATED: frozenset[str] = frozenset()


class OfflineChecker:
    name = "offline"

    def check(self, decisions: list[dict[str, Any]], path: str, diff: str) -> Verdict:
        return check(decisions, path, diff)


def check(decisions: list[dict[str, Any]], path: str, diff: str) -> Verdict:
    """The verdict for one write against its linked decision nodes."""
    matches = [m for m in all_matches(decisions, path, diff) if m["mechanism"] not in GATED]
    if not matches:
        return no_contradiction()
    direct = [m for m in matches if m["kind"] == "direct"]
    chosen = (direct or matches)[:MAX_MATCHES]
    return Verdict(
        verdict=DIRECT if direct else INDIRECT,
        severity="high" if direct else "medium",
        explanation=_explain(chosen[:3]),
        recommendation=_recommend(chosen[0]),
        decisions=list(dict.fromkeys(m["decision"] for m in chosen)),
        matches=chosen,
        checker="offline",
    )


def all_matches(decisions: list[dict[str, Any]], path: str, diff: str) -> list[dict[str, Any]]:
    """Every match of every rule, before the gate (`bench/contradiction_quality.py --cv` reads them)."""
    lang = code_lines.language(path)
    if lang == "doc":
        return []
    lines = code_lines.parse(diff, path, context=True)
    if not lines:
        return []
    test_file = is_test_path(path)
    new_file = re.search(r"^@@ -0,0 ", diff or "", re.M) is not None
    ignore_file = is_ignore_file(path)
    writes: dict[bool, Write] = {}
    matches: list[dict[str, Any]] = []
    for node in decisions:
        whole = decision_rules.rules_for(node)
        if not clauses.in_its_languages(whole.text, path):
            continue  # "in TypeScript": a Python file is not what it is about
        here = _held(whole, path)
        for rule in RULES:
            reading = here if rule.reach == "scope" else whole  # the other rules read their own places
            if reading is None or (rule.reach != "any" and _skips_tests(reading, test_file)) \
                    or (ignore_file and not rule.in_ignore_files) or not rule.cued(reading.text):
                continue
            if reading.about_tests not in writes:
                writes[reading.about_tests] = _write(path, lang, lines, new_file, reading.about_tests)
            matches += [_match(whole, rule, hit) for hit in rule.check(writes[reading.about_tests], reading)]
    return matches


def _held(whole: Rules, path: str) -> Rules | None:
    """The decision's rules that hold at `path`: all of them, those of the clauses that hold there
    (`clauses.holding`), or None."""
    text = clauses.holding(whole.text, path)
    if text is None or text == whole.text:
        return None if text is None else whole
    return decision_rules.rules_for({"id": whole.id, "name": text})


def _skips_tests(reading: Rules, test_file: bool) -> bool:
    """A test file, against a decision not about tests; production code, against one about tests alone."""
    return (test_file and not reading.about_tests) or (reading.tests_only and not test_file)


def _write(path: str, lang: str, all_lines: list[Line], new_file: bool, about_tests: bool) -> Write:
    changed = [ln for ln in all_lines if ln.side != " "]
    if lang == "rust" and not about_tests:  # an inline `#[cfg(test)]` module is test code
        changed = [ln for ln in changed if not code_scope.in_test_module(ln, all_lines)]
    return Write(path, lang, all_lines, changed, new_file, assigned_names(changed), is_ignore_file(path))


_IGNORE_FILES = re.compile(r"\.(?:git|docker|npm|prettier|eslint|helm|gcloud|vercel|slug|stylelint|hg)ignore")


def is_ignore_file(path: str) -> bool:
    """`.gitignore` and its kin: a line added there keeps the thing it names out, so "never commit
    `.env`" is kept, not broken, by adding `.env` to it."""
    return _IGNORE_FILES.fullmatch(path.replace("\\", "/").rsplit("/", 1)[-1].lower()) is not None


def _match(reading: Rules, rule: Rule, hit: tuple) -> dict[str, Any]:
    kind, ln, why = hit[:3]
    return {"decision": reading.id, "decision_text": reading.text[:300], "kind": kind,
            "rule": hit[3] if len(hit) > 3 else rule.id, "why": why, "side": ln.side, "line": ln.number,
            "text": ln.text.strip()[:200], "mechanism": rule.id}


def _explain(matches: list[dict[str, Any]]) -> str:
    """Each line quoted once, with every reason found on it ("line 15 (added) `x` adds float,
    which the decision rules out, and computes money as a floating-point number")."""
    reasons: dict[tuple[str, int], list[str]] = {}
    quoted: dict[tuple[str, int], str] = {}
    for m in matches:
        at = (m["side"], m["line"])
        quoted.setdefault(at, m["text"])
        if m["why"] not in reasons.setdefault(at, []):
            reasons[at].append(m["why"])
    return "; ".join(f"line {line} ({'added' if side == '+' else 'removed'}) `{clip_words(quoted[side, line], 120)}` "
                     + ", and ".join(reasons[side, line]) for side, line in reasons)


def _recommend(m: dict[str, Any]) -> str:
    """The decision itself is quoted above the suggestion in the warning (contradiction.advisory)."""
    return (f"Rework line {m['line']} to keep to the decision, or, if the decision no longer holds, say so and record "
            f"the new decision.")
