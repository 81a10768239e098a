"""Where a decision applies: the paths it is about, and the paths it exempts.

"Services compose repositories and never access SQLAlchemy sessions directly" is about
files under a `services` folder; "print is allowed in scripts/ only" exempts `scripts/`;
"no Exposed in the domain" is about `domain`. A write outside a decision's scope, or
inside a path it exempts, is never reported against it: the rule does not hold there, and
a warning would be false (docs/monitoring.md, "Checkers").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Folder names a decision's subject may be: "Services ...", "API endpoints ...", "the domain".
LAYER_WORDS = frozenset("""service services script scripts controller controllers view views route routes
handler handlers component components domain repository repositories model models migration migrations
endpoint endpoints api middleware""".split())
# "in the repository" is usually the git repository, "the API" the product: not folders after "in".
_NOT_AFTER_IN = frozenset("repository repositories api endpoint endpoints model models".split())
_PATH = re.compile(r"(?<![\w.])((?:[\w.\-]+/)+[\w.\-]*)")
_EXEMPT = re.compile(r"\b(?:allowed|permitted|fine|ok|okay|exempt(?:ed)?|reside|resides|live|lives|belong|belongs|"
                     r"suppressed|implemented|handled|kept)\s+(?:\w+\s+){0,3}?(?:in|for|under|inside)\s+(?:the\s+)?([\w.\-/]+)", re.I)
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
    return any(part in (frag, frag.rstrip("s"), frag + "s") for part in parts)


def _is_path(fragment: str) -> bool:
    """"scripts/", "migrations/_helpers", "a/b/c": a path; "any/unknown", "Prisma/ORM", "CI/CD": words."""
    parts = fragment.strip("/").split("/")
    return fragment.islower() and (fragment.endswith("/") or len(parts) > 2 or any(p[:1] in "._" for p in parts))


def scope_of(text: str) -> Scope:
    """The scope a decision's own words give it (an empty Scope: it applies everywhere)."""
    exempt = [m.group(1) for m in _EXEMPT.finditer(text)]
    exempt = [e.strip("/.") for e in exempt if _is_path(e) or e.lower().strip("/.") in LAYER_WORDS]
    explicit = [p.strip("/") for p in _PATH.findall(text) if _is_path(p) and p.strip("/") not in exempt]
    within = [p for p in explicit if not any(p.startswith(e) for e in exempt)]
    for clause in re.split(r"[:;(]", text):
        m = _SUBJECT.match(clause)
        if m and m.group(1).lower() not in _IMPERATIVE:
            within += [w.lower() for w in m.groups() if w and w.lower() in LAYER_WORDS]
    within += [w.lower() for w in _IN_LAYER.findall(text) if w.lower() in LAYER_WORDS - _NOT_AFTER_IN]
    return Scope(tuple(w for w in dict.fromkeys(within) if w not in exempt), tuple(dict.fromkeys(exempt)))
