"""Decisions that require a practice: "ALL protected routes MUST use requireAuth", "ALL
queries MUST filter by tenantId", "keep disallow_untyped_defs on", "we use flake8".

Term matching sees what a change brings in; these rules see what it takes away or leaves
out. The practice is named by the identifiers a decision writes the way code does
(`requireAuth`, `tenantId`, `CacheControl`, `disallow_untyped_defs`) or by the tools it
says it uses. A change contradicts the decision when:

* a changed line loses the identifier (the removed line had it, its replacement has not),
  or a configuration file drops it altogether (a removed pre-commit hook, a CI step);
* "ALL <things> MUST ... <identifier>": a line that adds one of those things (a route, a
  query, an upload) lacks it on the line and the few lines that follow.

A line that only moves keeps its identifier, and a file the decision does not govern is
never checked (engram.monitor.scope), so both stay silent.
"""

from __future__ import annotations

import re

from engram.monitor.code_lines import Line, is_config

_CODE_IDENT = re.compile(r"`([^`]{2,40})`|\b([a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z]+[A-Z][A-Za-z0-9]*|"
                         r"[a-z][a-z0-9]*_[a-z0-9_]+)\b")
_PLUS = re.compile(r"\b([a-z][\w-]*)\s*\+\s*([a-z][\w-]*)", re.I)
_ALL_MUST = re.compile(r"\ball\s+(?:\w+\s+)?(routes?|endpoints?|handlers?|queries|query|uploads?|requests?)\s+"
                       r"(?:must|should|shall|have to|need to)\b", re.I)
SHAPES = {
    "route": re.compile(r"\b(?:router|app|api|server)\s*\.\s*(?:get|post|put|patch|delete|all|route)\s*\("),
    "query": re.compile(r"\.\s*(?:findMany|findFirst|findUnique|findAll|findOne|count|aggregate|update|updateMany|"
                        r"delete|deleteMany|query|execute|select)\s*\("),
    "upload": re.compile(r"\bPutObjectCommand\s*\(|\.\s*(?:upload|putObject)\s*\("),
    "request": re.compile(r"\brequests\s*\.\s*(?:get|post|put|patch|delete|head|request)\s*\("),
}
_NOUN_SHAPE = {"route": "route", "endpoint": "route", "handler": "route", "querie": "query", "query": "query",
               "upload": "upload", "request": "request"}
FOLLOWING = 3


def required_identifiers(text: str, forbidden: set[str]) -> list[str]:
    """What a decision requires, spelled as code spells it."""
    quoted = [q for q in re.findall(r"`([^`]*)`", text) if 2 <= len(q) <= 40]  # in pairs, left to right
    out = quoted + [b for a, b in _CODE_IDENT.findall(re.sub(r"`[^`]*`", " ", text)) if b]
    out += [w for pair in _PLUS.findall(text) for w in pair]
    out = [_singular(w) if "+" not in text or w.islower() else w for w in out]
    return [w for w in dict.fromkeys(out) if w.lower() not in forbidden and len(w) > 2]


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and word.islower() else word


def shape_of(text: str) -> str | None:
    """The kind of line an "ALL <things> MUST" decision governs (route, query, upload, request)."""
    m = _ALL_MUST.search(text)
    if not m:
        return None
    noun = m.group(1).lower().rstrip("s")
    return _NOUN_SHAPE.get(noun)


def _has(ident: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(ident)}(?![\w-])", text, re.I if ident.islower() else 0) is not None


def removed(idents: list[str], lines: list[Line], lang: str) -> list[tuple[str, Line, str]]:
    """Changed lines that lose a required identifier (config files: dropped anywhere)."""
    plus = [ln for ln in lines if ln.side == "+" and not ln.prose]
    minus = [ln for ln in lines if ln.side == "-" and not ln.prose]
    out = []
    for ident in idents:
        if any(_has(ident, ln.text) for ln in plus):
            continue
        gone = [ln for ln in minus if _has(ident, ln.text)]
        if not gone:
            continue
        modified = [ln for ln in plus if _similar(ln.text, gone[0].text)]
        if modified or (is_config(lang) and not plus):
            where = modified[0] if modified else gone[0]
            out.append(("direct", where, f"removes {ident}, which the decision requires"))
    return out


def dropped(tools: list[str], lines: list[Line], lang: str) -> list[tuple[str, Line, str]]:
    """A configuration that loses a required tool: a removed entry names it, no added line does
    (a pre-commit hook, a CI step, a linter in a list)."""
    if not is_config(lang):
        return []
    token = re.compile(r"[A-Za-z_][\w\-]*")
    plus = {t.lower() for ln in lines if ln.side == "+" for t in token.findall(ln.code)}
    out = []
    for tool in dict.fromkeys(tools):
        gone = [ln for ln in lines if ln.side == "-" and tool in {t.lower() for t in token.findall(ln.code)}]
        if gone and tool not in plus:
            out.append(("direct", gone[0], f"removes {tool}, which the decision requires"))
    return out


def omitted(shape: str, idents: list[str], lines: list[Line]) -> list[tuple[str, Line, str]]:
    """Added lines of the governed kind (a route, a query) without the required identifier."""
    rx = SHAPES[shape]
    new_side = [ln for ln in lines if ln.side in ("+", " ")]
    out = []
    for i, ln in enumerate(new_side):
        if ln.side != "+" or ln.prose or not rx.search(ln.code):
            continue
        block = " ".join(x.text for x in new_side[i:i + 1 + FOLLOWING])
        missing = [x for x in idents if not _has(x, block)]
        if missing and len(missing) == len(idents):
            out.append(("direct", ln, f"adds a {shape} without {missing[0]}, which the decision requires on every {shape}"))
    return out


def _similar(a: str, b: str) -> bool:
    """Whether two lines are one line changed (half of their words shared)."""
    wa, wb = set(re.findall(r"\w+", a)), set(re.findall(r"\w+", b))
    return bool(wa and wb) and len(wa & wb) * 2 >= min(len(wa), len(wb))


_IMMUTABLE = re.compile(r"(?=.*\bmigrations?\b)(?=.*(?:immutable|never (?:be )?edit|not edit|must not change|"
                        r"never change|do not (?:edit|change|modify)|append-only|never (?:be )?modified))", re.I | re.S)
_MIGRATION_PATH = re.compile(r"(?:^|/)(?:migrations?|migrate)/|(?:^|/)V\d+__\w+\.sql$|(?:^|/)\d{3,}[_-]\w+\.sql$",
                             re.I)


def immutable_migrations(text: str) -> bool:
    return _IMMUTABLE.search(text) is not None


def migration_edited(lines: list[Line], path: str) -> list[tuple[str, Line, str]]:
    """A change to what an existing migration says (a removed line), not an addition to it."""
    if not _MIGRATION_PATH.search(path.replace("\\", "/")):
        return []
    gone = [ln for ln in lines if ln.side == "-" and ln.text.strip() and not ln.prose]
    return [("direct", gone[0], "edits an existing migration instead of adding a new one")] if gone else []
