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
from engram.monitor.rules import Rule
from engram.text import singular

_CODE_IDENT = re.compile(r"\b([a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z]+[A-Z][A-Za-z0-9]*|"
                         r"[a-z][a-z0-9]*_[a-z0-9_]+|[xX]-[A-Za-z][\w]*(?:-[A-Za-z0-9]+)+)\b")  # header names: x-idempotency-key
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
    out = quoted + _CODE_IDENT.findall(re.sub(r"`[^`]*`", " ", text))
    out += [w for pair in _PLUS.findall(text) for w in pair]
    out = [singular(w) if w.islower() else w for w in out]  # "disallow_untyped_defs" is written once
    return [w for w in dict.fromkeys(out) if w.lower() not in forbidden and len(w) > 2]


def shape_of(text: str) -> str | None:
    """The kind of line an "ALL <things> MUST" decision governs (route, query, upload, request)."""
    m = _ALL_MUST.search(text)
    if not m:
        return None
    noun = m.group(1).lower().rstrip("s")
    return _NOUN_SHAPE.get(noun)


def _has(ident: str, text: str) -> bool:
    """The identifier as a whole word (`idempotency_key=` ends where its `=` does)."""
    before = r"(?<![\w-])" if re.match(r"[\w-]", ident) else ""
    after = r"(?![\w-])" if re.search(r"[\w-]$", ident) else ""
    return re.search(before + re.escape(ident) + after, text, re.I if ident.islower() else 0) is not None


def removed(idents: list[str], lines: list[Line], lang: str) -> list[tuple[str, Line, str]]:
    """Changed lines that lose a required identifier: one rewritten without it (a similar line;
    a line replaced by a call to a helper may move the practice into it, so it does not count),
    a decorator taken off a function that stays, or, in a configuration file, an entry dropped
    outright. `lines` in diff order, context too."""
    plus = [ln for ln in lines if ln.side == "+" and not ln.prose]
    minus = [ln for ln in lines if ln.side == "-" and not ln.prose]
    out = []
    for ident in idents:
        if any(_has(ident, ln.text) for ln in plus):
            continue
        gone = [ln for ln in minus if _has(ident, ln.text)]
        if not gone:
            continue
        modified = [ln for ln in plus if _similar(ln.text, gone[0].text)] or [
            x for g in gone for x in _replaced_inline(g, lines)]
        undecorated = [g for g in gone if _decorates_kept(g, lines)]
        if modified or undecorated or (is_config(lang) and not plus):
            where = modified[0] if modified else gone[0]
            out.append(("direct", where, f"removes {ident}, which the decision requires"))
    return out


def _replaced_inline(gone: Line, lines: list[Line]) -> list[Line]:
    """The added line that takes a removed line's place, when it calls nothing the removed line did not
    (`if (!canUserAccess(...))` -> `if (file.ownerId !== user.id)`): the practice was replaced by inline
    code, not moved into a helper."""
    i = lines.index(gone)
    while i < len(lines) and lines[i].side == "-":
        i += 1
    if i == len(lines) or lines[i].side != "+" or lines[i].prose:
        return []
    new = set(re.findall(r"(?<![A-Za-z_$])([A-Za-z_$][\w$]*)\s*\(", lines[i].code)) - set(
        re.findall(r"(?<![A-Za-z_$])([A-Za-z_$][\w$]*)\s*\(", gone.code))
    return [lines[i]] if not new and re.search(r"\bif\b|&&|\|\||\band\b|\bor\b|[!=]==?", lines[i].code) else []


def _decorates_kept(gone: Line, lines: list[Line]) -> bool:
    """A removed decorator line whose function or class the diff keeps (the next line on the new side)."""
    if not gone.code.lstrip().startswith("@"):
        return False
    after = lines[lines.index(gone) + 1:]
    nxt = next((ln for ln in after if ln.side != "-" or not ln.code.lstrip().startswith("@")), None)
    return nxt is not None and nxt.side == " " and re.match(r"\s*(?:async\s+)?(?:def|class|function)\b|\s*(?:export\s+)?"
                                                            r"(?:async\s+)?function\b", nxt.code) is not None


def left_out(idents: list[str], lines: list[Line]) -> list[tuple[str, Line, str]]:
    """An added line of the kind its unchanged siblings are, without the practice they carry: a
    call made the way the others are but without the required argument (`axios.get(url)` next to
    `axios.get(url, { withCredentials: true })`), a function added without the decorator the
    others in the file wear. For decisions that require the practice everywhere."""
    out = []
    new_side = [ln for ln in lines if ln.side != "-"]
    for ident in idents:
        if not re.search(r"[A-Za-z]", ident):
            continue
        siblings = [ln for ln in lines if ln.side != "+" and not ln.prose and _has(ident, ln.text)]
        if not siblings:
            continue
        decorator = any(ln.code.lstrip().startswith("@") for ln in siblings)
        heads = set() if decorator else {h.split(".")[0] for ln in siblings for h in _calls_before(ident, ln.code)}
        for i, ln in enumerate(new_side):
            if ln.side != "+" or ln.prose:
                continue
            if decorator and re.match(r"\s*(?:async\s+)?def\s+\w+", ln.code):
                above = " ".join(x.text for x in new_side[max(0, i - 3):i] if x.code.lstrip().startswith("@"))
                if not _has(ident, above):
                    out.append(("direct", ln, f"adds a function without {ident}, which the others here and the "
                                              f"decision require"))
            elif heads and (call := next((h for h in _calls(ln.code) if h.split(".")[0] in heads), None)):
                block = " ".join(x.text for x in new_side[i:i + 1 + FOLLOWING])
                if not _has(ident, block):
                    out.append(("direct", ln, f"calls {call} without {ident}, which its siblings and the decision require"))
    return out


def _calls(code: str) -> list[str]:
    """Dotted calls of a line (`axios.get(`): siblings are calls on the same object."""
    return [re.sub(r"\s+", "", c) for c in re.findall(r"(?<![A-Za-z_$])(?<![A-Za-z_$]\.)([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)+)\s*\(", code)]


def _calls_before(ident: str, code: str) -> list[str]:
    """The dotted calls a line makes before it mentions the identifier (`axios.get(` ... withCredentials)."""
    m = re.search(rf"(?<![\w-]){re.escape(ident)}", code, re.I if ident.islower() else 0)
    return _calls(code[:m.start()]) if m else []


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


_IMMUTABLE = re.compile(r"\A(?=.*\bmigrations?\b)(?=.*(?:immutable|never (?:be )?edit|not edit|must not change|"
                        r"never change|do not (?:edit|change|modify)|don'?t (?:edit|change|modify)|never modify|"
                        r"must not (?:be )?(?:edit|modif)\w*|append-only|never (?:be )?modified))", re.I | re.S)
_MIGRATION_PATH = re.compile(r"(?:^|/)(?:migrations?|migrate)/|(?:^|/)alembic/versions/|(?:^|/)V\d+__\w+\.sql$|"
                             r"(?:^|/)\d{3,}[_-]\w+\.sql$", re.I)


def migration_edited(lines: list[Line], path: str) -> list[tuple[str, Line, str]]:
    """A change to what an existing migration says (a removed line), not an addition to it."""
    if not _MIGRATION_PATH.search(path.replace("\\", "/")):
        return []
    gone = [ln for ln in lines if ln.side == "-" and ln.text.strip() and not ln.prose]
    return [("direct", gone[0], "edits an existing migration instead of adding a new one")] if gone else []


def _labelled(hits: list[tuple[str, Line, str]]) -> list[tuple[str, Line, str, str]]:
    return [(kind, ln, why, "practice") for kind, ln, why in hits]


RULES = (
    Rule("practice:removed", "a changed line loses the identifier of a practice the decision requires",
         lambda w, r: _labelled(removed(r.required, w.all_lines, w.lang))),
    Rule("practice:dropped", "a tool the decision says it uses dropped from a configuration",
         lambda w, r: _labelled(dropped(r.tools, w.all_lines, w.lang))),
    Rule("practice:left_out", "a changed line without the practice the decision requires everywhere",
         lambda w, r: _labelled(left_out(r.required, w.all_lines) if r.universal else [])),
    Rule("practice:omitted", "a new thing of the kind an \"ALL <things> MUST\" decision governs, without its practice",
         lambda w, r: _labelled(omitted(r.shape, r.required, w.all_lines) if r.shape else [])),
    Rule("practice:migration_edited", "an existing migration edited where the decision keeps migrations immutable",
         lambda w, r: _labelled(migration_edited(w.all_lines, w.path)), _IMMUTABLE),
)
