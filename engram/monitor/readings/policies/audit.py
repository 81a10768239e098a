"""Auditability a decision keeps, reduced: "never remove audit logs" against a deleted
`audit.record(...)`, "do not reduce log detail" against a log call that loses its fields.

An audit call is a call on something named audit (`audit.record(`, `audit_log(`, `AuditLog.create(`,
`self.audit(`); it is taken away when the change removes more of them than it adds (a call moved or
reworded stays). A log call loses detail when the change replaces it, in place, by the same call with
fewer arguments.
"""

from __future__ import annotations

import re

from engram.monitor.code_lines import Line

Hit = tuple[str, Line, str]

_AUDIT_CUE = re.compile(r"\bauditab\w*|\baudit(?:ing)?\s+(?:logs?|logging|trails?|records?|events?|entries)\b|"
                        r"\b(?:remov|reduc|delet|drop|disabl)\w*\s+(?:the\s+|any\s+)?audit", re.I)
_DETAIL_CUE = re.compile(r"\b(?:reduc\w*|less(?:en\w*)?|lower\w*|drop\w*|remov\w*|los\w*)\s+(?:the\s+)?(?:log(?:ging)?|audit)\s+"
                         r"(?:detail|context|fields?|information|verbosity)\b", re.I)
_AUDIT_CALL = re.compile(r"(?<![\w.])(?:self\.|this\.)?\w*audit\w*(?:\.\w+)*\s*\(", re.I)
_LOG_CALL = re.compile(r"\b(?:log|logger|logging|LOG|Log|slog|console)\s*\.\s*(\w+)\s*\((.*)$")


def _audit_calls(lines: list[Line], side: str) -> list[Line]:
    return [ln for ln in lines if ln.side == side and not ln.prose and not ln.imports and _AUDIT_CALL.search(ln.code)]


def audit_removed(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """Audit calls the change deletes without writing as many back."""
    removed, added = _audit_calls(lines, "-"), _audit_calls(lines, "+")
    if len(removed) <= len(added):
        return []
    return [("direct", ln, "removes an audit record, which the decision keeps") for ln in removed[len(added):]]


def _arguments(call: str) -> int:
    """Top-level arguments of a call's text (from after its parenthesis), strings and brackets skipped."""
    depth, count, quote, seen = 0, 0, "", False
    for ch in call:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'`":
            quote, seen = ch, True
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif ch == "," and depth == 0:
            count += 1
        elif not ch.isspace():
            seen = True
    return count + 1 if seen else 0


def log_detail_reduced(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """A log call replaced, on the next line, by the same call with fewer arguments."""
    out = []
    for before, after in zip(lines, lines[1:]):
        if before.side != "-" or after.side != "+":
            continue
        old, new = _LOG_CALL.search(before.text), _LOG_CALL.search(after.text)
        if old and new and old.group(1) == new.group(1) and _arguments(new.group(2)) < _arguments(old.group(2)):
            out.append(("direct", after, "logs the event with less detail than before, which the decision rules out"))
    return out


CUES = {"audit_removed": _AUDIT_CUE, "log_detail_reduced": _DETAIL_CUE}
DETECTORS = {"audit_removed": audit_removed, "log_detail_reduced": log_detail_reduced}
PATH_DETECTORS: frozenset[str] = frozenset()
