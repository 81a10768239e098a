"""The constructs family: code a decision bans by kind, not by name: discarded errors, floats for
money, the legacy SQLAlchemy Query API, secrets sent to the browser, catch-all handlers.

"Handle all errors; never discard one with `_`" names no library, so term matching cannot see
`data, _ := os.ReadFile(p)`; each check here knows the shapes of one such construct. Like every
rule (engram.monitor.rules), it runs only when the decision's words call for it (its `cue`) and
only on added lines; comments and string contents do not count as code (engram.monitor.code_lines).
"""

from __future__ import annotations

import re

from engram.monitor.code_lines import Line
from engram.monitor.rules import Hit, Rule, on_lines

_DISCARD = {"rust": re.compile(r"^\s*let\s+_\s*(?::\s*[\w<>]+\s*)?=\s*\S|\.ok\(\)\s*;\s*$"),
            "go": re.compile(r"^\s*_\s*=\s*[\w.]+\(|^\s*(?!for\b)[\w.]+\s*,\s*_\s*:?=\s*[\w.]+\(")}
_MONEY = frozenset("amount amounts price prices cents balance cost costs fee fees subtotal tax salary payment money".split())
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|[A-Z]+")
_FLOATING = re.compile(r"\bparseFloat\(|\bNumber\(|\bfloat\(|\bFloat\b|\bDouble\b|\bdouble\b|\bf64\b|\bf32\b|"
                       r"/\s*100(?:\.0)?\b")
_FORMATTING = re.compile(r"\btoLocaleString\(|\btoFixed\(|\bIntl\.|\bformat\w*\(")  # money shown, not computed
_LEGACY_QUERY = re.compile(r"\b\w*session\w*\s*\.\s*query\(|\b[A-Z]\w*\.query\.(?:filter|filter_by|get|all|first|order_by)\b")
_PUBLIC_SECRET = re.compile(r"\b(?:NEXT_PUBLIC|VITE|REACT_APP|EXPO_PUBLIC|PUBLIC)_\w*(?:SECRET|PRIVATE|SERVICE_ROLE)\w*")
_SERVER_SECRET = re.compile(r"\bprocess\.env\.\w*(?:SECRET|PRIVATE|SERVICE_ROLE)\w*")


_GENERIC_CATCH = {
    "python": re.compile(r"^\s*except\s*(?:\(?\s*(?:Exception|BaseException)\b[^:]*)?:"),
    "clike": re.compile(r"\bcatch\s*\(\s*(?:final\s+)?(?:System\.|\\)?(?:Exception|Throwable)\b\s*\w*\s*\)|"
                        r"\bcatch\s*\(\s*\w+\s*:\s*(?:Exception|Throwable)\s*\)"),
}
_RETHROWS = re.compile(r"\bunless\s+(?:you\s+)?re-?(?:throw|rais)\w*|\bexcept\s+to\s+re-?(?:throw|rais)", re.I)
_RETHROW = re.compile(r"\bthrow\b|\braise\b")


def _added(lines: list[Line]) -> list[Line]:
    return [ln for ln in lines if ln.side == "+" and not ln.prose]


def discarded_errors(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """A result or error thrown away (`let _ =`, `_ = f()`, `x, _ := f()`, `.ok();`), unless the
    decision allows it with a reason and one is written on the line or the comment above."""
    rx = _DISCARD.get(lang)
    if rx is None:
        return []
    reason_ok = re.search(r"documented|reason|justif|comment", decision, re.I) is not None
    new_side = [ln for ln in lines if ln.side != "-"]
    out = []
    for i, ln in enumerate(new_side):
        if ln.side != "+" or ln.prose or not rx.search(ln.code):
            continue
        above = new_side[i - 1] if i else None
        if reason_ok and (ln.comment or (above is not None and above.prose)):
            continue
        out.append(("direct", ln, "discards an error instead of handling it"))
    return out + _error_returns_dropped(lines) if lang == "go" else out


def _error_returns_dropped(lines: list[Line]) -> list[Hit]:
    """Go: a `return ..., err` (or a wrapped error) replaced by a `return ..., nil` (or `return nil`) where
    it stood, a logging line before it or not."""
    out = []
    for i, ln in enumerate(lines):
        if ln.side != "-" or not re.search(r"^\s*return\b(?:.*,)?\s*(?:err\b|fmt\.Errorf\(|errors\.)", ln.code):
            continue
        after = [x for x in lines[i + 1:] if x.side != "-"][:3]  # the replacement: a log line may come first
        replaced = after[:next((k for k, x in enumerate(after) if x.side != "+"), len(after))]
        nil = next((x for x in replaced if re.search(r"^\s*return\b(?:.*,)?\s*nil\s*$", x.code)), None)
        if nil is not None:
            out.append(("direct", nil, "returns nil where the error was returned: the error is swallowed"))
    return out


def float_money(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    return [("direct", ln, "computes or stores money as a floating-point number") for ln in _added(lines)
            if _FLOATING.search(ln.code) and _names_money(ln.code) and not _FORMATTING.search(ln.code)]


def _names_money(code: str) -> bool:
    """An identifier of the line is about money (amountCents, unit_price), not a count or a ratio."""
    return any(p.lower() in _MONEY for tok in re.findall(r"[A-Za-z_]\w*", code) for p in _PART.findall(tok))


def legacy_query(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    if lang != "python":
        return []
    return [("direct", ln, "uses the legacy Query API (session.query) instead of select()") for ln in _added(lines)
            if _LEGACY_QUERY.search(ln.code)]


def secrets_in_client(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """A secret read where the browser sees it: a public env prefix, or a 'use client' module."""
    client = any(ln.side != "-" and re.match(r"\s*['\"]use client['\"]", ln.text) for ln in lines)
    out = []
    for ln in _added(lines):
        if _PUBLIC_SECRET.search(ln.code) or (client and _SERVER_SECRET.search(ln.code)):
            out.append(("direct", ln, "puts a secret in code that runs in the browser"))
    return out


def generic_catch(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """A handler of every exception (`except Exception:`, bare `except:`, `catch (Exception e)`), unless
    the decision allows one that re-throws and its block does."""
    rx = _GENERIC_CATCH.get(lang)
    if rx is None:
        return []
    kept = [ln for ln in lines if ln.side != "-"]
    out = []
    for i, ln in enumerate(kept):
        if ln.side != "+" or ln.prose or not rx.search(ln.code):
            continue
        if _RETHROWS.search(decision) and any(_RETHROW.search(x.code) for x in kept[i + 1:i + 8]):
            continue
        out.append(("direct", ln, "catches every exception instead of a specific one"))
    return out


RULES = (
    Rule("detector:discarded_errors", "an error or a result thrown away (`let _ =`, `x, _ := f()`, a `return nil` for `return err`)", on_lines(discarded_errors),
         re.compile(r"\b(?:discard|swallow|ignor|drop)\w*\s+(?:\w+\s+){0,3}?(?:errors?|results?|return values?)\b|"
                                   r"`let _ =`|`_ =`|\bunchecked errors?\b|\berrcheck\b|\b(?:do not|don'?t|never)\s+use\s+`_`|\bblank identifier\b|"
                                   r"\bhandle all errors\b|\berrors?\s+(?:must|should)\s+(?:always\s+)?be\s+(?:handled|checked)",
                                   re.I)),
    Rule("detector:float_money", "money computed or stored as a floating-point number", on_lines(float_money),
         re.compile(r"\b(?:float\w*|floating[- ]point|double|number)\b[^.;]{0,40}\b(?:money|monetary|currency|"
                              r"amounts?|prices?|cents)\b|\b(?:money|monetary|currency|amounts?|prices?|cents)\b[^;]{0,50}"
                              r"\b(?:float\w*|floating[- ]point|double)\b", re.I)),
    Rule("detector:legacy_query", "SQLAlchemy's legacy Query API (`session.query`) against a decision for 2.0-style `select()`", on_lines(legacy_query),
         re.compile(r"\bsqlalchemy\s+2(?:\.0|\.x)?\b|\b2\.0[- ]style\b|\blegacy\s+(?:session\.)?query\b", re.I)),
    Rule("detector:secrets_in_client", "a secret read in code the browser runs (a public env prefix, a 'use client' module)", on_lines(secrets_in_client),
         re.compile(r"\bsecrets?\b[^.;]{0,40}\b(?:client|browser|frontend|front-end)\b|"
                                    r"\b(?:client-side|browser|frontend|front-end)\b[^.;]{0,40}\bsecrets?\b", re.I)),
    Rule("detector:generic_catch", "a handler of every exception (`except Exception:`, `catch (Exception e)`)", on_lines(generic_catch),
         re.compile(r"\b(?:never|don'?t|do not|no|avoid|must not)\b.{0,30}\b(?:generic|broad|base|bare)\s+"
                                r"(?:`?except`?\s+|catch\s+)?exceptions?\b|\bcatch-all\s+(?:exception|handler)s?|"
                                r"\bexceptions?\b[^.;]{0,20}\btoo generic\b|\bprefer catching specific exceptions?\b", re.I)),
)
