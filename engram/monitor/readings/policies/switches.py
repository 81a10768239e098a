"""The switches family: protections a decision keeps on, switched off: "TypeScript strict mode"
against `"strict": false`, "CSRF protection on all forms" against `@csrf_exempt`.

Each entry of SWITCHES is a fact about one protection: the decision's words that name it, the
settings an added line turns it off with, and the lines whose removal takes it away (counted only
when no added line brings the same back). `detector:flag_off` (engram.monitor.detectors) reads the generic
"keep X on" phrasing for any setting; this table knows the protections by name, so the decision
need not say "keep ... on".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram.monitor.code_lines import Line
from engram.monitor.rules import Hit, Rule, on_lines

_TS_STRICT_FLAGS = ("strict|noImplicitAny|strictNullChecks|strictFunctionTypes|strictBindCallApply|"
                    "strictPropertyInitialization|noImplicitThis|alwaysStrict|useUnknownInCatchVariables")


@dataclass(frozen=True)
class Switch:
    """A protection: what names it in a decision, how an added line turns it off, which removed
    line takes it away."""

    label: str
    cue: re.Pattern[str]
    off: re.Pattern[str] | None
    removed: re.Pattern[str] | None = None
    near: re.Pattern[str] | None = None  # what the turned-off line or the few above it must mention


SWITCHES = {
    "ts_strict": Switch(
        "TypeScript strict mode",
        re.compile(r"\b(?:typescript|tsconfig|tsc)\b[^.;]{0,30}\bstrict\b|\bstrict\s+mode\b[^.;]{0,30}\b(?:typescript|tsconfig)\b|"
                   r"[\"']strict[\"']\s*:\s*true", re.I),
        re.compile(rf"[\"'](?:{_TS_STRICT_FLAGS})[\"']\s*:\s*false\b"),
        re.compile(r"[\"']strict[\"']\s*:\s*true\b")),
    "csrf": Switch(
        "CSRF protection",
        re.compile(r"\b(?:csrf|xsrf)\b|\bcross-site request forgery\b", re.I),
        re.compile(r"@csrf_exempt\b|\bcsrf_exempt\s*\(|\b(?:WTF_)?CSRF_ENABLED\s*=\s*False\b|\.csrf\(\)\.disable\(\)|"
                   r"\bcsrf\s*\(\s*\w+\s*->\s*\w+\.disable\(\)\s*\)|\bcsrf\s*\(\s*AbstractHttpConfigurer::disable\s*\)|"
                   r"\bskip_before_action\s+:verify_authenticity_token\b|\bskip_forgery_protection\b|"
                   r"\bcsrf(?:Protection)?\s*:\s*false\b|\b@CsrfExempt\b", re.I),
        re.compile(r"CsrfViewMiddleware|\bprotect_from_forgery\b|\bcsurf\b|\bCSRFProtect\(|\bcsrfProtection\b|"
                   r"\bVerifyCsrfToken\b")),
}


def _code(ln: Line) -> str:
    """Settings live in strings too (`"strict": false`): the line as written, unless it is prose."""
    return "" if ln.prose else ln.text


_NEAR = 3


def _near(switch: Switch, ln: Line, lines: list[Line]) -> bool:
    if switch.near is None:
        return True
    after = [x for x in lines if x.side != "-"]
    i = next((k for k, x in enumerate(after) if x is ln), 0)
    return any(switch.near.search(x.text) for x in after[max(0, i - _NEAR):i + 1])


def _detector(switch: Switch):
    def detect(lines: list[Line], lang: str, decision: str) -> list[Hit]:
        out: list[Hit] = []
        added = [ln for ln in lines if ln.side == "+"]
        if switch.off:
            out += [("direct", ln, f"turns off {switch.label}, which the decision keeps on") for ln in added
                    if switch.off.search(_code(ln)) and _near(switch, ln, lines)]
        if switch.removed and not any(switch.removed.search(_code(ln)) for ln in added):
            out += [("direct", ln, f"removes {switch.label}, which the decision keeps on") for ln in lines
                    if ln.side == "-" and switch.removed.search(_code(ln))]
        return out
    detect.__doc__ = f"{switch.label} switched off or removed."
    return detect


RULES = tuple(Rule(f"detector:{name}", f"{s.label} switched off or removed, which the decision keeps on",
                   on_lines(_detector(s)), s.cue) for name, s in SWITCHES.items())
