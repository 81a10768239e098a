"""Where a decision applies: the paths it is about, and the paths it exempts.

"Services compose repositories and never access SQLAlchemy sessions directly" is about
files under a `services` folder; "print is allowed in scripts/ only" exempts `scripts/`;
"no print() outside the cli/ package" exempts `cli/` too (the rule holds everywhere else);
"print is allowed except in cli/" is about `cli/` alone; an ESLint override "for files
'scripts/**/*'" exempts what it matches. A write outside a decision's scope, or inside a
path it exempts, is never reported against it: the rule does not hold there, and a
warning would be false (docs/monitoring.md, "Checkers").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
_PLACE = r"[`'\"]?([\w.\-/*]+)[`'\"]?"
_PERMIT = r"(?:allowed|permitted|fine|ok|okay|acceptable|exempt(?:ed)?|reside|resides|live|lives|belong|belongs|" \
          r"suppressed|implemented|handled|kept|off|disabled)"
_EXCEPT = r"(?:outside(?:\s+of)?|except(?:\s+(?:in|for|under|inside|within))?|other\s+than(?:\s+in)?|" \
          r"apart\s+from(?:\s+in)?|excluding|unless\s+in)"
# "print is allowed except in cli/": a permission with an exception is a rule about the exception.
_PERMIT_EXCEPT = re.compile(rf"\b{_PERMIT}\s+(?:\w+\s+){{0,2}}?(?:everywhere\s+|anywhere\s+)?{_EXCEPT}\s+(?:the\s+)?{_PLACE}",
                            re.I)
_EXCEPTION = re.compile(rf"\b{_EXCEPT}\s+(?:the\s+)?{_PLACE}", re.I)
_PERMIT_IN = re.compile(rf"\b{_PERMIT}\s+(?:\w+\s+){{0,3}}?(?:in|for|under|inside)\s+(?:files?\s+)?(?:the\s+)?{_PLACE}", re.I)
_ONLY_IN = re.compile(rf"\b(?:only|exclusively)\s+(?:for\s+(?:[\w\-]+\s+){{0,4}}?)?(?:in|under|inside|within)\s+"
                      rf"(?:the\s+)?{_PLACE}", re.I)
# An override for some files that turns a rule off there ("overrides: for files 'scripts/**/*' ... 'off'").
_OVERRIDE = re.compile(rf"\bfor\s+files?\s*:?\s*{_PLACE}(?=[^;]*\b(?:off|disabled|allowed|ignored)\b)", re.I)
# "All schema changes must be migration files in migrations/": where the thing belongs, exempt.
_MUST_LIVE = re.compile(rf"\bmust\s+(?:be|go|live|stay)\s+(?:\w+\s+){{0,4}}?(?:in|under|inside)\s+(?:the\s+)?{_PLACE}", re.I)
_PATH = re.compile(r"(?<![\w.])((?:[\w.\-*]+/)+[\w.\-*]*)")
_SUBJECT = re.compile(r"^\s*(?:all\s+|the\s+)?([a-z]+)(?:\s+([a-z]+))?\b", re.I)
_IMPERATIVE = frozenset("use define keep never always do don't avoid prefer default make let we our".split())
_IN_LAYER = re.compile(r"\b(?:in|inside|from|within)\s+(?:the\s+)?([a-z]+)(?:\s+layer)?\b", re.I)


@dataclass
class Scope:
    """Folder names (or path fragments) a write must be under to be checked, and those it must not."""

    within: tuple[str, ...] = ()
    exempt: tuple[str, ...] = ()

    def applies(self, path: str) -> bool:
        p = "/" + path.replace("\\", "/").lower().lstrip("./")
        if any(_under(p, e) for e in self.exempt):
            return False
        return not self.within or any(_under(p, w) for w in self.within)


def _under(path: str, fragment: str) -> bool:
    frag = fragment.strip("/").lower()
    if "/" in frag:
        return f"/{frag}/" in path + "/" or path.startswith(f"/{frag}")
    parts = path.strip("/").split("/")
    parts = parts[:-1] + [parts[-1].rsplit(".", 1)[0]]  # web/views.py is a view
    parts += parts[-1].split(".")[1:]  # transfers.controller.ts is a controller (NestJS, Angular)
    names = (frag, frag.rstrip("s"), frag + "s", frag[:-3] + "y" if frag.endswith("ies") else frag)
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
    return _is_path(raw.rstrip(".,;:)")) or _place(raw) in LAYER_WORDS or "*" in raw


def _modifies(first: str, second: str | None) -> bool:
    """ "API keys", "service accounts": a singular layer word before a plural noun names a kind of that
    noun, not the layer ("Services compose ...", "API endpoints ..." are layers)."""
    return bool(second) and second.lower() not in LAYER_WORDS and second.lower().endswith("s") \
        and not first.lower().endswith("s")


def scope_of(text: str) -> Scope:
    """The scope a decision's own words give it (an empty Scope: it applies everywhere)."""
    within: list[str] = []
    exempt: list[str] = []
    text = re.sub(r"`([^`]*)`", lambda m: " " if re.search(r"[(= ]", m.group(1)) else m.group(0), text)  # quoted code
    rest = text
    for m in _PERMIT_EXCEPT.finditer(text):
        if _is_place(m.group(1)):
            within.append(_place(m.group(1)))
            rest = rest.replace(m.group(0), " ")
    for rx in (_EXCEPTION, _PERMIT_IN, _ONLY_IN, _OVERRIDE, _MUST_LIVE):
        exempt += [_place(m.group(1)) for m in rx.finditer(rest) if _is_place(m.group(1))]
    explicit = [_place(p) for p in _PATH.findall(rest) if _is_path(p.rstrip(".,;:)"))]
    within += [p for p in explicit if p and not any(p.startswith(e) for e in exempt)]
    for clause in re.split(r"[:;(]", rest):
        m = _SUBJECT.match(clause)
        if m and m.group(1).lower() not in _IMPERATIVE and not _modifies(m.group(1), m.group(2)):
            within += [w.lower() for w in m.groups() if w and w.lower() in LAYER_WORDS]
    within += [w.lower() for w in _IN_LAYER.findall(rest) if w.lower() in LAYER_WORDS - _NOT_AFTER_IN]
    exempt = [e for e in dict.fromkeys(exempt) if e]
    return Scope(tuple(w for w in dict.fromkeys(within) if w and w not in exempt), tuple(exempt))
