"""Where one clause of a decision applies: the paths it is about, the paths it exempts, the
languages it names and the side of the application it names (`clauses.py` splits a decision).

"Services compose repositories and never access SQLAlchemy sessions directly" is about
files under a `services` folder; "print is allowed in scripts/ only" exempts `scripts/`;
"no print() outside the cli/ package" and "outside the db layer" exempt `cli/` and `db` too
(the rule holds everywhere else); "only the repository module may import sqlalchemy" exempts
the repository module; "tests may sleep" exempts test files; "print is allowed except in
cli/" is about `cli/` alone; an ESLint override "for files 'scripts/**/*'" exempts what it
matches. A language is no folder: "in Python", "in TypeScript files" hold for files of that
language; "the frontend", "backend code", "in the UI" are a soft hint, which rules out only a
file known to be of the other side (docs/monitoring.md, "Where a decision holds"). A write
outside a clause's scope, or inside a path the decision exempts, is never reported against it:
the rule does not hold there, and a warning would be false.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram.monitor import code_lines

# Folder names a decision's subject may be: "Services ...", "API endpoints ...", "the domain".
LAYER_WORDS = frozenset("""service services script scripts controller controllers view views route routes
handler handlers component components domain repository repositories model models migration migrations
endpoint endpoints api middleware""".split())
# "in the repository" is usually the git repository, "the API" the product: not folders after "in".
_NOT_AFTER_IN = frozenset("repository api endpoint endpoints model models".split())
# Short names code gives a layer's files: document_repo.py is a repository.
_ABBREVIATIONS = {"repository": ("repo",), "repositories": ("repo",)}
# What serves a request is one layer under several names: "all HTTP handlers" covers routes/ too.
_REQUEST_LAYER = ("handler", "handlers", "route", "routes", "endpoint", "endpoints", "controller", "controllers")
# "except in tests", "tests may ...": the test files, wherever they sit (`code_lines.is_test_path`); "tests/"
# written as a path is that folder.
_TEST_PLACES = frozenset("test tests spec specs".split())
_TEST_FILES = "test files"
# A component is a kind of file as much as a folder: `src/ui/Button.tsx` is a React component.
_COMPONENT_FILES = (".tsx", ".jsx", ".vue", ".svelte")
_PLACE = r"[`'\"]?([\w.\-/*]+)[`'\"]?"
# "the db layer", "the repository module": the word before it is a place, whatever the word.
_KIND = r"(?:\s+(layer|module|package|folder|directory|dir)\b)?"
_PERMIT = r"(?:allowed|permitted|fine|ok|okay|acceptable|exempt(?:ed)?|reside|resides|live|lives|belong|belongs|" \
          r"suppressed|implemented|handled|kept|off|disabled)"
_EXCEPT = r"(?:outside(?:\s+of)?|except(?:\s+(?:in|for|under|inside|within))?|other\s+than(?:\s+in)?|" \
          r"apart\s+from(?:\s+in)?|excluding|unless\s+in)"
# "print is allowed except in cli/": a permission with an exception is a rule about the exception.
_PERMIT_EXCEPT = re.compile(rf"\b{_PERMIT}\s+(?:\w+\s+){{0,2}}?(?:everywhere\s+|anywhere\s+)?{_EXCEPT}\s+(?:the\s+)?{_PLACE}",
                            re.I)
_EXCEPTION = re.compile(rf"\b{_EXCEPT}\s+(?:the\s+)?{_PLACE}{_KIND}", re.I)
_PERMIT_IN = re.compile(rf"\b{_PERMIT}\s+(?:\w+\s+){{0,3}}?(?:in|for|under|inside)\s+(?:files?\s+)?(?:the\s+)?{_PLACE}", re.I)
# "only in migrations/", "may only be imported in the repository module", "only from the service layer".
_ONLY_IN = re.compile(rf"\b(?:only|exclusively)\s+(?:be\s+\w+\s+)?(?:for\s+(?:[\w\-]+\s+){{0,4}}?)?"
                      rf"(?:in|under|inside|within|from)\s+(?:the\s+)?{_PLACE}{_KIND}", re.I)
# "Only the repository module may import sqlalchemy", "only src/db/ can": the place named is the one exempt.
_ONLY_MAY = re.compile(rf"^\W*only\s+(?:the\s+)?{_PLACE}{_KIND}\s+(?:files?\s+|code\s+)?(?:may|can|is\s+allowed\s+to|"
                       rf"are\s+allowed\s+to|gets?\s+to)\b", re.I)
# "Tests may use time.sleep": a permission for the test files.
_TESTS_MAY = re.compile(r"^\W*(?:(?:unit|integration|e2e)\s+)?(?:tests?|specs?)\s+(?:code\s+|files?\s+)?"
                        r"(?:may|can|are\s+allowed\s+to)\s+(?!not\b|never\b)", re.I)
# An override for some files that turns a rule off there ("overrides: for files 'scripts/**/*' ... 'off'").
_OVERRIDE = re.compile(rf"\bfor\s+files?\s*:?\s*{_PLACE}(?=[^;]*\b(?:off|disabled|allowed|ignored)\b)", re.I)
# "All schema changes must be migration files in migrations/": where the thing belongs, exempt.
_MUST_LIVE = re.compile(rf"\bmust\s+(?:be|go|live|stay)\s+(?:\w+\s+){{0,4}}?(?:in|under|inside)\s+(?:the\s+)?{_PLACE}", re.I)
_PATH = re.compile(r"(?<![\w.])((?:[\w.\-*]+/)+[\w.\-*]*)")
_SUBJECT = re.compile(r"^\s*(?:all\s+|the\s+)?([a-z]+)(?:\s+([a-z]+))?\b", re.I)
_IMPERATIVE = frozenset("use define keep never always do don't avoid prefer default make let we our".split())
_IN_LAYER = re.compile(r"\b(?:in|inside|from|within)\s+(?:the\s+)?([a-z]+)(?:\s+layer)?\b", re.I)

_LANGUAGE_FAMILY = {"typescript": "js", "javascript": "js", "python": "python", "go": "go", "golang": "go",
                    "rust": "rust", "java": "clike", "kotlin": "clike", "c#": "clike", "swift": "clike", "php": "clike",
                    "ruby": "hash", "sql": "sql"}
_LANGUAGE = r"(typescript|javascript|python|golang|go|rust|java|kotlin|c#|swift|php|ruby|sql)"
# "in TypeScript", "in rust code", "for Python files"; not "TypeScript projects" (their configuration too).
_IN_LANGUAGE = re.compile(rf"\b(?:in|for|of|inside)\s+(?:all\s+|any\s+)?{_LANGUAGE}\b"
                          r"(?!\s*(?:projects?|repos?|repositor\w*|services?|apps?)\b)(?!')", re.I)
# "TypeScript files must not ...", "Python code never ...": the language as the clause's subject.
_LANGUAGE_SUBJECT = re.compile(rf"^\W*(?:all\s+|any\s+)?{_LANGUAGE}\s+(?:code|files?|sources?|modules?)\b", re.I)

_SIDE = r"(front[\s-]?end|client[\s-]side|ui|back[\s-]?end|server[\s-]side)"
# "in the frontend", "for the backend", "in the UI"; "Frontend never ...", "Backend code must ...".
_NOT_CODE = r"(?!\s*(?:team|developers?|engineers?)\b)"  # "the frontend team": people, not code
_IN_SIDE = re.compile(rf"\b(?:in|on|for|inside|within)\s+(?:the\s+|all\s+|any\s+)?{_SIDE}\b{_NOT_CODE}", re.I)
_SIDE_SUBJECT = re.compile(rf"^\W*(?:all\s+|any\s+|the\s+)?{_SIDE}\b{_NOT_CODE}", re.I)
_FRONT_DIRS = frozenset("frontend front-end client ui components pages www".split())
_BACK_DIRS = frozenset("backend back-end server api".split())
_FRONT_FILES = (".tsx", ".jsx", ".vue", ".svelte", ".html", ".css", ".scss", ".sass", ".less", ".astro")
_BACK_FILES = (".py", ".go", ".rs", ".java", ".kt", ".rb", ".php", ".cs", ".sql", ".ex", ".exs")


@dataclass(frozen=True)
class Scope:
    """Where a clause holds: folder names (or path fragments) a write must be under and those it must
    not, the code families it names (`code_lines.language`), and the side it names ("frontend",
    "backend"): a soft hint that rules out only a file known to be of the other side."""

    within: tuple[str, ...] = ()
    exempt: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    sides: tuple[str, ...] = ()

    def applies(self, path: str) -> bool:
        p = "/" + path.replace("\\", "/").lower().lstrip("./")
        if any(_under(p, e) for e in self.exempt):
            return False
        if self.languages and code_lines.language(path) not in self.languages:
            return False
        if self.sides and side_of(p) not in (None, *self.sides):
            return False
        return not self.within or any(_under(p, w) for w in self.within)

    def placed(self) -> bool:
        """Whether the clause names where it holds (an exemption only says where it does not)."""
        return bool(self.within or self.languages or self.sides)


def side_of(path: str) -> str | None:
    """"frontend" or "backend" when the path says which (its nearest such folder, else its kind of
    file); None when it does not (a `.ts` file outside such a folder may be either)."""
    parts = path.strip("/").lower().split("/")
    for part in reversed(parts[:-1]):
        if part in _FRONT_DIRS or part in _BACK_DIRS:
            return "frontend" if part in _FRONT_DIRS else "backend"
    return "frontend" if parts[-1].endswith(_FRONT_FILES) else "backend" if parts[-1].endswith(_BACK_FILES) else None


def _under(path: str, fragment: str) -> bool:
    frag = fragment.strip("/").lower()
    if frag == _TEST_FILES:
        return code_lines.is_test_path(path)
    if frag in ("component", "components") and path.endswith(_COMPONENT_FILES):
        return True
    if "/" in frag:
        return f"/{frag}/" in path + "/" or path.startswith(f"/{frag}")
    parts = path.strip("/").split("/")
    parts = parts[:-1] + [parts[-1].rsplit(".", 1)[0]]  # web/views.py is a view
    parts += parts[-1].split(".")[1:]  # transfers.controller.ts is a controller (NestJS, Angular)
    names = (frag, frag.rstrip("s"), frag + "s", frag[:-3] + "y" if frag.endswith("ies") else frag,
             frag[:-1] + "ies" if frag.endswith("y") else frag)
    names += _ABBREVIATIONS.get(frag, ()) + (_REQUEST_LAYER if frag in _REQUEST_LAYER else ())
    return any(part in names or part.rsplit("_", 1)[-1] in names for part in parts)


def _place(raw: str) -> str:
    """A path or glob as written ("scripts/**/*.js", "cli/.", "`src/util/**`"), as a folder fragment."""
    parts = [p for p in raw.strip("`'\".,;:)").split("/") if p and "*" not in p and p != "."]
    if parts and "." in parts[-1] and len(parts) > 1:
        parts = parts[:-1]  # "scripts/build.js": the folder
    return "/".join(parts).lower()


def _is_path(fragment: str) -> bool:
    """"scripts/", "migrations/_helpers", "a/b/c": a path; "any/unknown", "Prisma/ORM", "CI/CD": words."""
    parts = fragment.strip("/").split("/")
    return fragment.islower() and (fragment.endswith("/") or len(parts) > 2 or any(p[:1] in "._*" for p in parts))


def _is_place(raw: str) -> bool:
    return _is_path(raw.rstrip(".,;:)")) or _place(raw) in LAYER_WORDS | _TEST_PLACES or "*" in raw


def _places(rx: re.Pattern, text: str) -> list[str]:
    """The places a pattern finds: a path, a layer word, the tests, or any word the text calls a layer or module."""
    out = []
    for m in rx.finditer(text):
        raw = m.group(1)
        if _is_place(raw) or (rx.groups > 1 and m.group(2) and re.fullmatch(r"[\w\-]+", raw)):
            out.append(_TEST_FILES if raw.rstrip(".,;:)").lower() in _TEST_PLACES else _place(raw))
    return out


def _modifies(first: str, second: str | None) -> bool:
    """ "API keys", "service accounts": a singular layer word before a plural noun names a kind of that
    noun, not the layer ("Services compose ...", "API endpoints ..." are layers)."""
    return bool(second) and second.lower() not in LAYER_WORDS and second.lower().endswith("s") \
        and not first.lower().endswith("s")


def languages_of(text: str) -> tuple[str, ...]:
    """The code families a clause limits itself to by naming their language."""
    found = [m.group(1) for m in _IN_LANGUAGE.finditer(text)] + [m.group(1) for m in _LANGUAGE_SUBJECT.finditer(text)]
    return tuple(dict.fromkeys(_LANGUAGE_FAMILY[w.lower()] for w in found))


def sides_of(text: str) -> tuple[str, ...]:
    """The side of the application a clause names ("in the frontend", "Backend code ...")."""
    found = [m.group(1) for rx in (_IN_SIDE, _SIDE_SUBJECT) for m in rx.finditer(text)]
    return tuple(dict.fromkeys("backend" if re.match(r"back|server", w, re.I) else "frontend" for w in found))


def scope_of(text: str) -> Scope:
    """The scope a clause's own words give it (an empty Scope: it applies everywhere)."""
    within: list[str] = []
    text = re.sub(r"`([^`]*)`", lambda m: " " if re.search(r"[(= ]", m.group(1)) else m.group(0), text)  # quoted code
    rest = text
    for m in _PERMIT_EXCEPT.finditer(text):
        if _is_place(m.group(1)):
            within.append(_place(m.group(1)))
            rest = rest.replace(m.group(0), " ")
    exempt = _places(_ONLY_MAY, rest) + ([_TEST_FILES] if _TESTS_MAY.search(rest) else [])
    rest = _ONLY_MAY.sub(" ", rest) if exempt else rest  # "Only repositories may ...": no subject of the rule
    for rx in (_EXCEPTION, _PERMIT_IN, _ONLY_IN, _OVERRIDE, _MUST_LIVE):
        exempt += _places(rx, rest)
    explicit = [_place(p) for p in _PATH.findall(rest) if _is_path(p.rstrip(".,;:)"))]
    within += [p for p in explicit if p and not any(p.startswith(e) for e in exempt)]
    for clause in re.split(r"[:;(]", rest):
        m = _SUBJECT.match(clause)
        if m and m.group(1).lower() not in _IMPERATIVE and not _modifies(m.group(1), m.group(2)):
            within += [w.lower() for w in m.groups() if w and w.lower() in LAYER_WORDS]
    within += [w.lower() for w in _IN_LAYER.findall(rest) if w.lower() in LAYER_WORDS - _NOT_AFTER_IN]
    exempt = [e for e in dict.fromkeys(exempt) if e]
    return Scope(tuple(w for w in dict.fromkeys(within) if w and w not in exempt), tuple(exempt),
                 languages_of(rest), sides_of(rest))
