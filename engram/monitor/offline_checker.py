"""The offline contradiction checker: deterministic rules, no model, no network.

For each decision (`decision_rules.rules_for`) it looks at the code of the lines the
diff adds and removes (`code_lines.parse`: comments, docstrings and message strings are
not code) and reports:

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

import fnmatch
import re
from typing import Any

from engram.monitor import code_lines, decision_rules, practices, tech_terms
from engram.monitor.readings import (code_scope, data_access, imports, literals, protected_paths, required_code, settings,
                                     sizes)
from engram.monitor.code_lines import Line, is_test_path
from engram.monitor.contradiction import DIRECT, INDIRECT, Verdict, no_contradiction
from engram.monitor.decision_rules import Limit, Rules, Term
from engram.monitor.detectors import DETECTORS, PATH_DETECTORS
from engram.monitor.scope import Scope
from engram.text import clip_words, singular

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CONFIG_TOKEN = re.compile(r"[A-Za-z_][\w\-]*")
_NUMBER = re.compile(r"(?<![\w.])(\d[\d_]*(?:\.\d+)?)(?![\w.])")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|[A-Z]+|\d+")
MAX_MATCHES = 6
_EQUALS = r"\s*[=:]\s*"
# Mechanisms switched off: their matches are computed (all_matches) but never warn.
GATED: frozenset[str] = frozenset()
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
    """Every match of every mechanism, before the gate (`bench/contradiction_quality.py --cv` reads them)."""
    lang = code_lines.language(path)
    if lang == "doc":
        return []
    lines = code_lines.parse(diff, path, context=True)
    test_file = is_test_path(path)
    new_file = re.search(r"^@@ -0,0 ", diff or "", re.M) is not None
    matches: list[dict[str, Any]] = []
    for node in decisions:
        rules = decision_rules.rules_for(node)
        if rules.languages and lang not in rules.languages:
            continue  # "in TypeScript": a Python file is not what it is about
        if lines:  # a protected file is protected whatever it holds, tests and fixtures too
            matches += [_match(rules, lines[0], "direct", "protected-path", why, "path:protected")
                        for why in protected_paths.violations(rules.text, path, new_file)]
        if (test_file and not rules.about_tests) or (rules.tests_only and not test_file):
            continue
        if rules.data_access and data_access.governs(rules.data_access, path):  # its own places, not the scope's
            matches += [_match(rules, ln, kind, "data-access", why, "layer:data_access")
                        for kind, ln, why in data_access.violations(rules.data_access, lines)]
        if rules.scope.applies(path):
            matches += _check_one(rules, lines, lang, path, new_file)
            matches += [_match(rules, ln, kind, "practice", why, "practice:carried")
                        for kind, ln, why in required_code.left_out(rules.carried, lines, path, new_file)]
    return matches


_IGNORE_FILES = re.compile(r"\.(?:git|docker|npm|prettier|eslint|helm|gcloud|vercel|slug|stylelint|hg)ignore")


def is_ignore_file(path: str) -> bool:
    """`.gitignore` and its kin: a line added there keeps the thing it names out, so "never commit
    `.env`" is kept, not broken, by adding `.env` to it."""
    return _IGNORE_FILES.fullmatch(path.replace("\\", "/").rsplit("/", 1)[-1].lower()) is not None


def _check_one(rules: Rules, all_lines: list[Line], lang: str, path: str, new_file: bool = False) -> list[dict[str, Any]]:
    out = []
    lines = [ln for ln in all_lines if ln.side != " "]
    if lang == "rust" and not rules.about_tests:  # an inline `#[cfg(test)]` module is test code
        lines = [ln for ln in lines if not code_scope.in_test_module(ln, all_lines)]
    assigned = _assigned_names(lines, lang)
    if is_ignore_file(path):  # its added lines keep things out of the repository: the decision's own act
        return out + _check_rest(rules, all_lines, lines, lang, path, assigned)
    for term in rules.forbids:
        if term.canon and not tech_terms.applies_to(term.canon, lang, path):
            continue
        if term.places and not Scope(within=term.places).applies(path):
            continue  # "never `destroy_all` in development seeds": this file is no seed
        if (_is_file(term, path) or new_file and _in_language(term, path)) and all_lines:
            out.append(_match(rules, all_lines[0], "direct", f"forbid:{term.phrase}",
                              f"writes {path.rsplit('/', 1)[-1]}, a file the decision rules out", "forbid-file"))
            continue
        for ln in _term_hits(rules, term, lines, all_lines, path, assigned):
            out.append(_match(rules, ln, "direct", f"forbid:{term.phrase}",
                              f"adds {term.phrase}, which the decision rules out"))
    out += [_match(rules, ln, kind, "literal", why, "literal") for kind, ln, why in literals.introduced(rules.literals, lines, code_lines.is_config(lang), rules.justified_ok)]
    return out + _check_rest(rules, all_lines, lines, lang, path, assigned)


def _check_rest(rules: Rules, all_lines: list[Line], lines: list[Line], lang: str, path: str,
                assigned: set[str]) -> list[dict[str, Any]]:
    """Roles, limits, detectors and practices: what does not read the decision's terms as things added."""
    out = _alternatives(rules, lines, lang, path, assigned, all_lines)
    out += [_match(rules, ln, kind, "setting:opened", why, "setting:opened") for kind, ln, why in settings.opened(rules.narrowed, lines)]
    out += [_match(rules, ln, kind, "layer:imports", why, "layer:imports") for kind, ln, why in imports.crossings(rules.import_bans, lines)]
    for limit in rules.limits:
        if limit.measure:
            out += [_match(rules, ln, kind, f"limit:{limit.text}", why, "limit:size")
                    for kind, ln, why in (sizes.over(limit, all_lines, lang, path) if sizes.applies(limit) else [])]
            continue
        out += [_match(rules, ln, kind, f"limit:{limit.text}", why) for kind, ln, why in _over_limit(limit, lines, lang)]
    for name in rules.detectors:
        extra = {"path": path} if name in PATH_DETECTORS else {}
        out += [_match(rules, ln, kind, f"detector:{name}", why, f"detector:{name}")
                for kind, ln, why in DETECTORS[name](all_lines, lang, rules.text, **extra)]
    out += [_match(rules, ln, kind, "practice", why, f"practice:{how}")
            for how, (kind, ln, why) in _practice(rules, all_lines, lang, path)]
    return out


def _practice(rules: Rules, lines: list[Line], lang: str, path: str) -> list[tuple[str, tuple[str, Line, str]]]:
    """What a required practice loses, each hit with how: its identifier removed, a tool dropped,
    left out of a governed line, a migration edited."""
    out = [("removed", h) for h in practices.removed(rules.required, lines, lang)]
    out += [("dropped", h) for h in practices.dropped(rules.tools, lines, lang)]
    if rules.universal:
        out += [("left_out", h) for h in practices.left_out(rules.required, lines)]
    if rules.shape:
        out += [("omitted", h) for h in practices.omitted(rules.shape, rules.required, lines)]
    if rules.immutable_migrations:
        out += [("migration_edited", h) for h in practices.migration_edited(lines, path)]
    return out


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


def _match(rules: Rules, ln: Line, kind: str, rule: str, why: str, mechanism: str = "") -> dict[str, Any]:
    return {"decision": rules.id, "decision_text": rules.text[:300], "kind": kind, "rule": rule, "why": why,
            "side": ln.side, "line": ln.number, "text": ln.text.strip()[:200],
            "mechanism": mechanism or rule.split(":", 1)[0]}


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


# -- terms -------------------------------------------------------------------------------------


def _term_hits(rules: Rules, term: Term, lines: list[Line], all_lines: list[Line], path: str,
               assigned: set[str]) -> list[Line]:
    """Lines introducing a forbidden term, narrowed to where in the code the decision holds: names of
    a kind ("in method names"), async functions ("in async functions"), library code; engram.monitor.readings.code_scope."""
    if code_scope.library_only(rules.text) and code_scope.entry_point(path, all_lines):
        return []
    kind = code_scope.named_kind(rules.text)
    hits = code_scope.declared(term.phrase.strip("`'\""), kind, lines) if kind else _introduced(term, lines, path, assigned)
    return [ln for ln in hits if code_scope.in_async(ln, all_lines)] if code_scope.async_only(rules.text) else hits


def _introduced(term: Term, lines: list[Line], path: str, assigned: set[str]) -> list[Line]:
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
        if low == form and form in literals.KEYWORDS and code[m.start() - 1:m.start()] == ".":
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


def _assigned_names(lines: list[Line], lang: str) -> set[str]:
    """Names the diff binds as variables (`x =`, `for x in`, `let x`, `x :=`)."""
    out = set()
    rx = re.compile(r"(?:^|\bfor\s+|\b(?:let|const|var|mut)\s+)([A-Za-z_]\w*)\s*(?::=|=(?!=)|\bin\b|:\s*[\w\[])")
    for ln in lines:
        if ln.prose:
            continue
        m = rx.search(ln.code.strip())
        if m:
            out.add(m.group(1).lower())
    return out


# -- roles: alternatives to what the decision requires or forbids -------------------------------


def _alternatives(rules: Rules, lines: list[Line], lang: str, path: str, assigned: set[str],
                  all_lines: list[Line]) -> list[dict[str, Any]]:
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
                out.append(_match(rules, ln, "indirect", f"role:{role}:{member}",
                                  f"brings in {member}, another {role} than the decision's {what}"))
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
