"""Protections a decision keeps on, switched off: "TypeScript strict mode" against `"strict": false`,
"CSRF protection on all forms" against `@csrf_exempt`, "cookies are Secure and HttpOnly" against
`httpOnly: false`, "mypy --strict" against `disallow_untyped_defs = False`, "security headers via
helmet" against a removed `app.use(helmet())`, "React StrictMode" against its removed wrapper.

Each entry of SWITCHES is a fact about one protection: the decision's words that name it, the
settings an added line turns it off with, and the lines whose removal takes it away (counted only
when no added line brings the same back). `flag_off` (engram.monitor.detectors) reads the generic
"keep X on" phrasing for any setting; this table knows the protections by name, so the decision
need not say "keep ... on".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram.monitor.code_lines import Line

Hit = tuple[str, Line, str]

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
    "mypy_strict": Switch(
        "mypy's strict checking",
        re.compile(r"\bmypy\b[^.;]{0,30}\bstrict\b|\bstrict\b[^.;]{0,30}\bmypy\b|\bmypy\s+--strict\b", re.I),
        re.compile(r"^\s*(?:strict|disallow_\w+|check_untyped_defs|no_implicit_optional|strict_optional|warn_return_any)"
                   r"\s*=\s*(?:false|False)\b|^\s*ignore_errors\s*=\s*(?:true|True)\b"),
        re.compile(r"^\s*strict\s*=\s*(?:true|True)\b")),
    "csrf": Switch(
        "CSRF protection",
        re.compile(r"\b(?:csrf|xsrf)\b|\bcross-site request forgery\b", re.I),
        re.compile(r"@csrf_exempt\b|\bcsrf_exempt\s*\(|\b(?:WTF_)?CSRF_ENABLED\s*=\s*False\b|\.csrf\(\)\.disable\(\)|"
                   r"\bcsrf\s*\(\s*\w+\s*->\s*\w+\.disable\(\)\s*\)|\bcsrf\s*\(\s*AbstractHttpConfigurer::disable\s*\)|"
                   r"\bskip_before_action\s+:verify_authenticity_token\b|\bskip_forgery_protection\b|"
                   r"\bcsrf(?:Protection)?\s*:\s*false\b|\b@CsrfExempt\b", re.I),
        re.compile(r"CsrfViewMiddleware|\bprotect_from_forgery\b|\bcsurf\b|\bCSRFProtect\(|\bcsrfProtection\b|"
                   r"\bVerifyCsrfToken\b")),
    "secure_cookies": Switch(
        "Secure / HttpOnly cookies",
        re.compile(r"\bcookies?\b[^.;]{0,50}\b(?:secure|httponly|http-only)\b|\b(?:secure|httponly|http-only)\b[^.;]{0,30}"
                   r"\bcookies?\b", re.I),
        re.compile(r"(?<![\w.])(?:secure|httpOnly|httponly|http_only|HttpOnly|Secure)\s*[:=]\s*(?:false|False)\b|"
                   r"\b(?:SESSION|CSRF)_COOKIE_(?:SECURE|HTTPONLY)\s*=\s*False\b"),
        None,
        re.compile(r"cookie|session", re.I)),  # SMTP's `secure: false` is no cookie
    "security_headers": Switch(
        "security headers",
        re.compile(r"\bhelmet\b|\bsecurity headers\b|\bcontent[- ]security[- ]policy\b|\bHSTS\b|\bstrict-transport-security\b",
                   re.I),
        re.compile(r"\bcontentSecurityPolicy\s*:\s*false\b|\bhsts\s*:\s*false\b|\bframeguard\s*:\s*false\b|"
                   r"\bSECURE_HSTS_SECONDS\s*=\s*0\b"),
        re.compile(r"\bhelmet\s*\(|Content-Security-Policy|Strict-Transport-Security|SecurityMiddleware")),
    "react_strict_mode": Switch(
        "React StrictMode",
        re.compile(r"\bStrictMode\b|\breact\b[^.;]{0,20}\bstrict mode\b", re.I),
        None,
        re.compile(r"<(?:React\.)?StrictMode>")),
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


CUES = {name: s.cue for name, s in SWITCHES.items()}
DETECTORS = {name: _detector(s) for name, s in SWITCHES.items()}
PATH_DETECTORS: frozenset[str] = frozenset()
