"""The terms family: what a decision names and forbids, requires or limits, found in the code a change
adds (`decision_rules.Rules`: `forbids`, `requires`, `limits`).

* `forbid`: a line that introduces a thing the decision rules out (`import redis` against "SQLite
  instead of Redis"): more changed lines mention it after the change than before, so a rename or a
  moved line is no introduction; a common word (`requests`, `print`) counts only in a library-shaped
  use (an import, `requests.get(`), never as a variable the diff assigns;
* `forbid-file`: the written file is one the decision rules out (`package-lock.json`, a new `.java`
  file against "Kotlin, no Java");
* `role`: another member of a role the decision's choice belongs to (`pika` against "SQLite instead
  of Redis for the job queue": `tech_terms.ROLES`), when the decision says what to use;
* `limit`: a value beyond a limit it names (`MAX_RETRIES = 5` against "max 3 retries"), durations
  converted; through a synonym (`for attempt in range(10)`) it is indirect;
* `limit:size`: a function longer, or with more parameters, than it allows (`readings/sizes.py`).
"""

from __future__ import annotations

import fnmatch
import re

from engram.monitor import code_lines, tech_terms
from engram.monitor.code_lines import Line
from engram.monitor.decision_rules import Limit, Rules, Term
from engram.monitor.readings import code_scope, sizes
from engram.monitor.rules import Hit, Rule, Write
from engram.monitor.scope import Scope
from engram.text import singular

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CONFIG_TOKEN = re.compile(r"[A-Za-z_][\w\-]*")
_NUMBER = re.compile(r"(?<![\w.])(\d[\d_]*(?:\.\d+)?)(?![\w.])")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|[A-Z]+|\d+")
_EQUALS = r"\s*[=:]\s*"
# Keywords of the languages: a property spelled like one (`z.enum(...)`) is not the keyword a decision bans.
KEYWORDS = frozenset("""if else for while return def function fn func class const let var import from export true
false null none nil new this self int str string number bool boolean any void async await try catch except
finally raise throw public private static type interface struct enum match case default break continue""".split())

# `timeout=None`, `limit: Infinity`: no bound at all, which breaks any maximum.
_BOUND = {"<=": re.compile(r"\b(?:max|maximum|le|lte|max_length|maxLength)\s*[(=:]\s*(\d)"),
          ">=": re.compile(r"\b(?:min|minimum|ge|gte|min_length|minLength)\s*[(=:]\s*(\d)")}
_UNBOUNDED = re.compile(r"[\"']?(?:(?<!\s)\s+)?(?:=|:|:=)\s*(?:None|null|nil|Infinity|math\.inf|float\(['\"]inf['\"]\))\b")
# Unit of a bare duration literal, by language, when nothing on the line names one.
_OPERAND = re.compile(r"(?:\*\*|[-+*/%])\s*$")
_FACTOR = re.compile(r"\s*\*\s*(\d+)(?![\w.])")
_DEFAULT_UNIT = {"js": 0.001, "python": 1.0}
_UNIT_WORDS = {"ms": 0.001, "millis": 0.001, "milliseconds": 0.001, "msec": 0.001, "s": 1.0, "sec": 1.0,
               "secs": 1.0, "seconds": 1.0, "min": 60.0, "mins": 60.0, "minutes": 60.0}


def forbidden_things(w: Write, r: Rules) -> list[Hit]:
    """Lines that introduce a term the decision forbids, where it holds for this file."""
    out: list[Hit] = []
    for term in _terms_here(w, r):
        if not _is_file_term(w, term):
            out += [("direct", ln, f"adds {term.phrase}, which the decision rules out", f"forbid:{term.phrase}")
                    for ln in _term_hits(r, term, w.lines, w.all_lines, w.path, w.assigned)]
    return out


def forbidden_file(w: Write, r: Rules) -> list[Hit]:
    """The written file itself is one the decision rules out."""
    return [("direct", w.all_lines[0], f"writes {w.path.rsplit('/', 1)[-1]}, a file the decision rules out",
             f"forbid:{term.phrase}") for term in _terms_here(w, r) if _is_file_term(w, term)]


def _terms_here(w: Write, r: Rules) -> list[Term]:
    """The forbidden terms that hold for this file: its language, the places a term names."""
    return [t for t in r.forbids if not (t.canon and not tech_terms.applies_to(t.canon, w.lang, w.path))
            and not (t.places and not Scope(within=t.places).applies(w.path))]  # "never `destroy_all` in seeds"


def _is_file_term(w: Write, term: Term) -> bool:
    return _is_file(term, w.path) or (w.new_file and _in_language(term, w.path))


def over_limits(w: Write, r: Rules) -> list[Hit]:
    """Values beyond the decision's limits, on the lines the change adds."""
    return [(kind, ln, why, f"limit:{lim.text}") for lim in r.limits if not lim.measure
            for kind, ln, why in _over_limit(lim, w.lines, w.lang)]


def over_sizes(w: Write, r: Rules) -> list[Hit]:
    """Functions (or files) longer, or with more parameters, than the decision allows."""
    return [(kind, ln, why, f"limit:{lim.text}") for lim in r.limits if lim.measure and sizes.applies(lim)
            for kind, ln, why in sizes.over(lim, w.all_lines, w.lang, w.path)]


def alternatives(w: Write, r: Rules) -> list[Hit]:
    return _alternatives(r, w.lines, w.lang, w.path, w.assigned, w.all_lines)


def _is_file(term: Term, path: str) -> bool:
    """A prohibition of a file by name or glob ("package-lock.json", "test_*.py") that this write is."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return any(re.fullmatch(r"\.?[\w*\-]+(?:\.[\w*\-]+)*\.[a-z0-9]{1,5}|\.[a-z]\w+", f) and fnmatch.fnmatchcase(name, f)
               for f in term.forms)


# Languages a decision may rule out ("Use Kotlin, no Java"), by the extensions of their source files.
_LANGUAGE_FILES = {"java": (".java",), "kotlin": (".kt",), "javascript": (".js", ".jsx", ".mjs", ".cjs"),
                   "typescript": (".ts", ".tsx"), "python": (".py",), "ruby": (".rb",), "php": (".php",),
                   "c#": (".cs",), "csharp": (".cs",), "scala": (".scala",), "groovy": (".groovy",),
                   "coffeescript": (".coffee",), "perl": (".pl",)}


def _in_language(term: Term, path: str) -> bool:
    """A new source file in a language the decision rules out; a tool's configuration file written in it
    (`eslint.config.js`, `.prettierrc.js`) is the tool's, not the project's code."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    exts = _LANGUAGE_FILES.get(term.forms[0], ())
    return name.endswith(exts) and not name.startswith(".") and "config" not in name and bool(exts)


def _term_hits(rules: Rules, term: Term, lines: list[Line], all_lines: list[Line], path: str,
               assigned: frozenset[str]) -> list[Line]:
    """Lines introducing a forbidden term, narrowed to where in the code the decision holds: names of
    a kind ("in method names"), async functions ("in async functions"), library code; engram.monitor.readings.code_scope."""
    if code_scope.library_only(rules.text) and code_scope.entry_point(path, all_lines):
        return []
    kind = code_scope.named_kind(rules.text)
    hits = code_scope.declared(term.phrase.strip("`'\""), kind, lines) if kind else _introduced(term, lines, path, assigned)
    return [ln for ln in hits if code_scope.in_async(ln, all_lines)] if code_scope.async_only(rules.text) else hits


def _introduced(term: Term, lines: list[Line], path: str, assigned: frozenset[str]) -> list[Line]:
    """Added lines mentioning the term, when more added lines mention it than removed ones."""
    if not term.distinct and any(f in assigned for f in term.forms if f in tech_terms.AMBIGUOUS):
        return []  # the diff assigns that name: a variable (`requests = [...]`), not the library
    plus = [ln for ln in lines if ln.side == "+" and not ln.prose and mentions(term, ln, path)]
    minus = [ln for ln in lines if ln.side == "-" and not ln.prose and mentions(term, ln, path)]
    return plus if len(plus) > len(minus) else []


def mentions(term: Term, ln: Line, path: str) -> bool:
    """Whether a line's code names the term, in a shape that means the thing itself."""
    code = ln.code
    low = code.lower()
    if term.canon and any(x in low for x in tech_terms.NOT_THE_SAME.get(term.canon, ())):
        return False
    if term.scope and not any(w in (low + " " + " ".join(ln.strings).lower()) for w in term.scope):
        return False  # "localStorage for auth tokens": this line stores something else
    if term.command:
        return _runs(term.forms, ln, path)
    manifest = tech_terms.manifest_language(path) is not None
    for form in term.forms:
        if any(ch in form for ch in "./-!:@=") or " " in form:
            spelled = re.escape(form).replace("=", _EQUALS)  # `shell=True`, `shell = True`, `shell: true`
            if re.search(rf"(?<![\w.\-]){spelled}(?![\w\-])", low):
                return True
            continue
        if form in tech_terms.AMBIGUOUS and not manifest:
            if _library_use(form, ln):
                return True
        elif _names_identifier(form, code, term.distinct, code_lines.is_config(code_lines.language(path))):
            return True
    return False


def _runs(commands: tuple[str, ...], ln: Line, path: str) -> bool:
    """A command line that starts with one of `commands`: in configuration and scripts the line
    itself (comments removed), in source code its string literals (`subprocess.run("pip install")`)."""
    text = ln.code if code_lines.is_config(code_lines.language(path)) else "\n".join(ln.strings)
    return any(re.search(rf"(?:^|[;&|(`'\"\n]|\brun:|\brun\b|\$\()\s*(?:-\s+)?{re.escape(c)}(?![\w\-])", text, re.I)
               for c in commands)


def _names_identifier(form: str, code: str, distinct: bool, config: bool = False) -> bool:
    """Whether a token of the code is the name; in configuration a token may hold hyphens
    (`npm-run-all` is not npm, `redis-server` is redis when redis is distinctive)."""
    for m in (_CONFIG_TOKEN if config else _IDENT).finditer(code):
        tok, low = m.group(0), m.group(0).lower()
        if low == form and form in KEYWORDS and code[m.start() - 1:m.start()] == ".":
            continue  # `z.enum(...)`, `obj.interface`: a property, not the keyword the decision bans
        if low == form or (distinct and any(form in _parts(p) for p in tok.split("-"))):
            return True
    return False


def _parts(ident: str) -> list[str]:
    """snake_case and camelCase parts, lowercased: RedisCache -> [redis, cache]."""
    return [p.lower() for chunk in ident.split("_") if chunk for p in _CAMEL.findall(chunk)]


def _library_use(form: str, ln: Line) -> bool:
    """An import of the name, an attribute of it (`requests.get`), or a call (`print(`)."""
    f = re.escape(form)
    if form in tech_terms.IMPORT_ONLY:  # the module itself, not a path ending in it ("github.com/rs/zerolog/log")
        return ln.imports and re.search(rf"[\"']{f}[\"']|\buse\s+{f}::|\bextern\s+crate\s+{f}\b", ln.text) is not None
    if ln.imports and re.search(rf"(?<![\w\-]){f}(?![\w\-])", ln.code, re.I):
        return True
    return re.search(rf"(?<![\w.]){f}\s*(?:\.\s*[A-Za-z_]|::|\()", ln.code, re.I) is not None


def assigned_names(lines: list[Line]) -> frozenset[str]:
    """Names the diff binds as variables (`x =`, `for x in`, `let x`, `x :=`)."""
    out = set()
    rx = re.compile(r"(?:^|\bfor\s+|\b(?:let|const|var|mut)\s+)([A-Za-z_]\w*)\s*(?::=|=(?!=)|\bin\b|:\s*[\w\[])")
    for ln in lines:
        if ln.prose:
            continue
        m = rx.search(ln.code.strip())
        if m:
            out.add(m.group(1).lower())
    return frozenset(out)


# -- roles: alternatives to what the decision requires or forbids -------------------------------


def _alternatives(rules: Rules, lines: list[Line], lang: str, path: str, assigned: frozenset[str],
                  all_lines: list[Line]) -> list[Hit]:
    """Another member of a role the decision names, when the decision requires something ("Use
    SQLite instead of Redis": pika is neither). A decision that only rules a member out ("never
    print") is kept by any other (logging, logrus)."""
    named = {t.canon for t in rules.requires + rules.forbids if t.canon}
    scopes = {t.canon: t.scope for t in rules.requires + rules.forbids if t.canon}
    out = []
    for role, members in tech_terms.ROLES.items():
        anchors = [c for c in named if c in members]
        if not anchors or not rules.states_choice or not any(tech_terms.applies_to(a, lang, path) for a in anchors):
            continue  # pydantic names no alternative in a package.json
        scope = tuple(w for c in anchors for w in scopes.get(c, ()))
        context = tech_terms.ROLE_CONTEXT.get(role)
        for member in members:
            if member in named or not tech_terms.applies_to(member, lang, path):
                continue
            forms = tuple(dict.fromkeys((member,) + tech_terms.ALIASES[member]))
            term = Term(member, member, forms, any(f in tech_terms.DISTINCT for f in forms), scope)
            for ln in _introduced(term, lines, path, assigned):
                if context and not any(w in _surroundings(ln, all_lines) for w in context):
                    continue
                what = " / ".join(anchors)
                out.append(("indirect", ln, f"brings in {member}, another {role} than the decision's {what}",
                            f"role:{role}:{member}"))
    return out


def _surroundings(ln: Line, all_lines: list[Line]) -> str:
    """The line's code and strings and the `def` it sits in, lowercased."""
    return (ln.code + " " + " ".join(ln.strings) + " " + code_lines.enclosing_def(ln, all_lines)).lower()


# -- limits ------------------------------------------------------------------------------------


def _over_limit(limit: Limit, lines: list[Line], lang: str) -> list[tuple[str, Line, str]]:
    before = {pair for ln in lines if ln.side == "-" and not ln.prose for pair in _limit_values(limit, ln, lang)}
    out = []
    for ln in lines:
        if ln.side != "+" or ln.prose:
            continue
        for ident, value, exact in _limit_values(limit, ln, lang):
            if (ident, value, exact) in before:
                continue  # unchanged value on a reshaped line
            if ((limit.op == "<=" and value > limit.value + 1e-9) or (limit.op == "<" and value >= limit.value - 1e-9)
                    or (limit.op == ">=" and value < limit.value - 1e-9)):
                shown = "no limit" if value == float("inf") else f"{value:g} s" if limit.duration else f"{value:g}"
                out.append(("direct" if exact else "indirect", ln,
                            f"sets {ident} to {shown}, beyond the decision's limit ({limit.text})"))
                break
    return out


def _limit_values(limit: Limit, ln: Line, lang: str) -> list[tuple[str, float, bool]]:
    """(identifier, value in the limit's unit, names the subject exactly) on one line."""
    out = []
    config = lang in ("hash", "json")
    code = ln.code if not config else ln.text
    for m in (_CONFIG_TOKEN if config else _IDENT).finditer(code):  # line-length: one key in YAML
        names = [p for chunk in m.group(0).split("-") for p in _parts(chunk)]
        parts = {singular(p) for p in names} | set(names)
        exact = limit.words <= parts
        if not exact and not parts & limit.synonyms:
            continue
        if _OPERAND.search(code, 0, m.start()):
            continue  # `2 ** attempt, 8`: a value computed from the subject, not one given to it
        unbounded = _UNBOUNDED.match(code, m.end())
        if unbounded and limit.op in ("<=", "<"):
            out.append((m.group(0), float("inf"), exact))
            break
        bound = _BOUND[">=" if limit.op == ">=" else "<="].search(code, m.end())  # `.min(1).max(500)`: the maximum is 500
        num = _NUMBER.search(code, bound.start(1)) if bound else _NUMBER.search(code, m.end())
        if num is None:
            continue
        value = float(num.group(1).replace("_", ""))
        end = num.end()
        while factor := _FACTOR.match(code, end):  # `30 * 24 * time.Hour`
            value, end = value * float(factor.group(1)), factor.end()
        if limit.duration:
            scale = _unit_of(m.group(0), code[end:end + 24], lang)
            if scale is None:
                continue
            value *= scale
        out.append((m.group(0), value, exact))
        break
    return out


def _unit_of(ident: str, after: str, lang: str) -> float | None:
    """Seconds per unit of a duration literal: from the name, what follows it, or the language."""
    for part in reversed(_parts(ident)):
        if part in _UNIT_WORDS:
            return _UNIT_WORDS[part]
    m = re.match(r"\s*(?:\*\s*time\.(Millisecond|Second|Minute|Hour)|(ms|s|m|h)\b)", after)
    if m:
        word = (m.group(1) or m.group(2)).lower()
        return {"millisecond": 0.001, "second": 1.0, "minute": 60.0, "hour": 3600.0, "ms": 0.001, "s": 1.0, "m": 60.0,
                "h": 3600.0}[word]
    return _DEFAULT_UNIT.get(lang)


RULES = (
    Rule("forbid", "a thing the decision rules out, introduced by the change", forbidden_things, in_ignore_files=False),
    Rule("forbid-file", "a file the decision rules out, written", forbidden_file, in_ignore_files=False),
    Rule("role", "another tool for the job the decision chose a tool for", alternatives),
    Rule("limit", "a value beyond a limit the decision names", over_limits),
    Rule("limit:size", "a function longer, or with more parameters, than the decision allows", over_sizes),
)
