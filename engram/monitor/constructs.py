"""Code constructs a decision bans by kind, not by name: class components, relative imports,
comments, writes without a WHERE, discarded errors, hard-coded URLs, floats for money, DDL
outside migrations, the legacy SQLAlchemy Query API, untyped functions, secrets sent to the
browser.

"Don't use class components" names no library, so term matching cannot see
`class Badge extends React.Component`; each detector here knows the shapes of one such
construct. Like every detector (engram.monitor.detectors), it runs only when the decision's
words call for it (`decision_rules.DETECTOR_CUES`) and only on added lines; comments and
string contents do not count as code (engram.monitor.code_lines).
"""

from __future__ import annotations

import re

from engram.monitor.code_lines import Line

Hit = tuple[str, Line, str]

_CLASS_COMPONENT = re.compile(r"^\s*(?:export\s+(?:default\s+)?)?class\s+\w+\s+extends\s+(?:React\.)?(?:Pure)?Component\b")
_RELATIVE = {"python": re.compile(r"^\s*from\s+\.+[\w.]*\s+import\b"),
             "js": re.compile(r"\bfrom\s+[\"']\.\.?/|\brequire\(\s*[\"']\.\.?/")}
_SQL_WRITE = re.compile(r"\b(UPDATE\s+[\w.\"`]+\s+SET|DELETE\s+FROM\s+[\w.\"`]+)\b", re.I)
_DISCARD = {"rust": re.compile(r"^\s*let\s+_\s*(?::\s*[\w<>]+\s*)?=\s*\S|\.ok\(\)\s*;\s*$"),
            "go": re.compile(r"^\s*_\s*=\s*[\w.]+\(|^\s*(?!for\b)[\w.]+\s*,\s*_\s*:?=\s*[\w.]+\(")}
_URL = re.compile(r"\bhttps?://([\w.\-]+)", re.I)
_LOCAL_HOSTS = re.compile(r"^(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]|[\w.\-]*example\.(?:com|org|net)|[\w.\-]+\.test|"
                          r"[\w.\-]+\.local|[\w.\-]+\.invalid|schemas?\.[\w.\-]+|www\.w3\.org)$", re.I)
_MONEY = frozenset("amount amounts price prices cents balance cost costs fee fees subtotal tax salary payment money".split())
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|[A-Z]+")
_FLOATING = re.compile(r"\bparseFloat\(|\bNumber\(|\bfloat\(|\bFloat\b|\bDouble\b|\bdouble\b|\bf64\b|\bf32\b|"
                       r"/\s*100(?:\.0)?\b")
_FORMATTING = re.compile(r"\btoLocaleString\(|\btoFixed\(|\bIntl\.|\bformat\w*\(")  # money shown, not computed
_DDL = re.compile(r"\b(?:CREATE|ALTER|DROP)\s+(?:UNIQUE\s+)?(?:TABLE|INDEX|VIEW|SCHEMA|COLUMN|TRIGGER|TYPE|EXTENSION|"
                  r"FUNCTION|POLICY)\b", re.I)
_LEGACY_QUERY = re.compile(r"\b\w*session\w*\s*\.\s*query\(|\b[A-Z]\w*\.query\.(?:filter|filter_by|get|all|first|order_by)\b")
_DEF = re.compile(r"^\s*(?:async\s+)?def\s+\w+\s*\((.*)\)\s*(->\s*[^:]+)?:\s*$")
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


def class_components(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    if lang != "js":
        return []
    return [("direct", ln, "adds a class component") for ln in _added(lines) if _CLASS_COMPONENT.search(ln.code)]


def relative_imports(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    rx = _RELATIVE.get(lang)
    return [("direct", ln, "adds a relative import") for ln in _added(lines) if rx and rx.search(ln.code)]


def code_comments(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """Comments added to code; only those after code on a line when the decision bans inline ones."""
    if lang in ("doc", "json"):
        return []
    trailing_only = re.search(r"\b(?:end-of-line|trailing|inline)\s+comments?", decision, re.I) and not re.search(
        r"\b(?:no|any|add)\s+comments\b|comment-free", decision, re.I)
    docstrings = re.search(r"\bdocstrings?\b", decision, re.I) is not None
    out = []
    for ln in lines:
        if ln.side != "+" or not ln.comment or (ln.docstring and not docstrings):
            continue
        if trailing_only and (ln.prose or not ln.code.strip()):
            continue
        out.append(("direct", ln, "adds a comment" if ln.prose else "adds a comment at the end of a line of code"))
    return out


def unbounded_writes(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """An UPDATE or DELETE with no WHERE up to the end of its statement."""
    added = [ln for ln in lines if ln.side == "+"]
    out = []
    for i, ln in enumerate(added):
        text = ln.code if lang == "sql" else " ".join(ln.strings)
        m = _SQL_WRITE.search(text)
        if not m or ln.prose:
            continue
        statement = text[m.start():]
        for nxt in added[i + 1:i + 6]:
            if ";" in statement:
                break
            statement += " " + (nxt.code if lang == "sql" else " ".join(nxt.strings))
        if not re.search(r"\bWHERE\b", statement.split(";")[0], re.I):
            out.append(("direct", ln, f"runs {m.group(1).split()[0].upper()} without a WHERE clause"))
    return out


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


def hardcoded_urls(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    out = []
    for ln in _added(lines):
        # a URL that is the value (`"https://api.acme.dev/v2"`), not one cited in a message or docstring
        values = [s.strip() for s in ln.strings] if lang not in ("hash", "json") else [ln.code.split(":", 1)[-1].strip()]
        hosts = [m.group(1) for v in values if (m := _URL.match(v.strip("\"'` ")))]
        host = next((h for h in hosts if not _LOCAL_HOSTS.match(h)), None)
        if host:
            out.append(("direct", ln, f"hard-codes a URL on {host} instead of reading it from configuration"))
    return out


def float_money(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    return [("direct", ln, "computes or stores money as a floating-point number") for ln in _added(lines)
            if _FLOATING.search(ln.code) and _names_money(ln.code) and not _FORMATTING.search(ln.code)]


def _names_money(code: str) -> bool:
    """An identifier of the line is about money (amountCents, unit_price), not a count or a ratio."""
    return any(p.lower() in _MONEY for tok in re.findall(r"[A-Za-z_]\w*", code) for p in _PART.findall(tok))


def ddl_outside_migrations(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """Schema changes (CREATE / ALTER / DROP) run from application code; migrations are exempt
    by the decision's scope."""
    if lang == "sql":
        return []
    return [("direct", ln, "runs a schema change (DDL) outside a migration") for ln in _added(lines)
            if any(_DDL.search(s) for s in ln.strings)]


def legacy_query(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    if lang != "python":
        return []
    return [("direct", ln, "uses the legacy Query API (session.query) instead of select()") for ln in _added(lines)
            if _LEGACY_QUERY.search(ln.code)]


def untyped_defs(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """A Python function whose parameters or return value carry no type hint."""
    if lang != "python":
        return []
    out = []
    for ln in _added(lines):
        m = _DEF.match(ln.code)
        if not m:
            continue
        params = [p.strip() for p in m.group(1).split(",") if p.strip() and p.strip() not in ("self", "cls", "*", "/")]
        bare = [p for p in params if ":" not in p.split("=")[0] and not p.startswith("**") and not p.startswith("*")]
        if bare or not m.group(2):
            out.append(("direct", ln, "adds a function without full type hints"))
    return out


def secrets_in_client(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """A secret read where the browser sees it: a public env prefix, or a 'use client' module."""
    client = any(ln.side != "-" and re.match(r"\s*['\"]use client['\"]", ln.text) for ln in lines)
    out = []
    for ln in _added(lines):
        if _PUBLIC_SECRET.search(ln.code) or (client and _SERVER_SECRET.search(ln.code)):
            out.append(("direct", ln, "puts a secret in code that runs in the browser"))
    return out


# "No string should be longer than 40 characters", "a maximum line length of 120 characters"
TEXT_LENGTH = re.compile(r"\b(strings?|string literals?|lines?)\b[^.;]{0,30}?\b(?:longer than|more than|over|exceed\w*|at most|"
                         r"no more than|up to)\s+(\d+)\s*(?:characters|chars|charecters|columns)\b|"
                         r"\bmax(?:imum)?\s+(line)\s+length\s+(?:of\s+|is\s+)?(\d+)\b", re.I)


def text_length(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """String literals or lines of code longer than the decision's maximum."""
    if lang in ("doc", "json", "hash", "other"):
        return []
    out = []
    for m in TEXT_LENGTH.finditer(decision):
        what, limit = (m.group(1) or m.group(3)).lower(), int(m.group(2) or m.group(4))
        for ln in _added(lines):
            if what.startswith("string"):
                long = next((x for x in ln.strings if len(x) > limit), None)
                if long is not None:
                    out.append(("direct", ln, f"adds a string of {len(long)} characters, over the decision's {limit}"))
            elif len(ln.text.expandtabs(4)) > limit:
                out.append(("direct", ln, f"adds a line of {len(ln.text.expandtabs(4))} characters, over {limit}"))
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


CONSTRUCTS = {
    "class_components": class_components, "relative_imports": relative_imports, "code_comments": code_comments,
    "unbounded_writes": unbounded_writes, "discarded_errors": discarded_errors, "hardcoded_urls": hardcoded_urls,
    "float_money": float_money, "ddl_outside_migrations": ddl_outside_migrations, "legacy_query": legacy_query,
    "untyped_defs": untyped_defs, "secrets_in_client": secrets_in_client, "text_length": text_length,
    "generic_catch": generic_catch,
}  # fmt: skip
