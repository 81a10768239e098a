"""Where a decision lets code reach the database: "Services compose repositories and never access
SQLAlchemy sessions directly", "All database access goes through `*Store.ts` classes in
`src/store/`", "API endpoints must never access the database directly via Prisma/ORM".

A decision of this family names the layers it governs (its subject: services, handlers, API
endpoints) and the place database access belongs (after "through" / "via": repositories, a store,
a folder it quotes). A write to a governed file outside that place contradicts it when an added
line reaches the database itself: an ORM session or client call, a query builder, a driver's
query, SQL in a string. Calls on a repository object are what the decision asks for and do not
count; neither do tests, migrations and schema files.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from engram.monitor.code_lines import Line
from engram.monitor.rules import Hit, Rule

_DB = re.compile(r"\b(?:database|db|orm|sql|sessions?|quer(?:y|ies)|data access|prisma|sqlalchemy|drizzle|knex|typeorm|"
                 r"sequelize|gorm|active ?record)\b", re.I)
_DIRECT = re.compile(r"\bdirect(?:ly)?\b|\b(?:goes?|go|must go|only)\s+(?:only\s+)?(?:through|via)\b|\bnever\s+(?:access|touch|"
                     r"call|query)|\bmust not\s+(?:access|touch|query)|\binstead of touching\b|\bscatter\b", re.I)
_LAYERS = {"service": "services", "services": "services", "handler": "handlers", "handlers": "handlers",
           "route": "routes", "routes": "routes", "endpoint": "api", "endpoints": "api", "api": "api",
           "controller": "controllers", "controllers": "controllers", "view": "views", "views": "views",
           "ui": "ui", "component": "components", "components": "components", "frontend": "frontend",
           "page": "pages", "pages": "pages", "resolver": "resolvers", "resolvers": "resolvers"}
_PLACES = {"repository": "repositor", "repositories": "repositor", "repo": "repositor", "repos": "repositor",
           "store": "store", "stores": "store", "dao": "dao", "daos": "dao", "data layer": "data",
           "db package": "db", "model": "model", "models": "model"}
_THROUGH = re.compile(r"\b(?:through|via|in|by|compose|use|uses|depend on)\s+(?:the\s+|a\s+|dedicated\s+|this\s+)?"
                      r"(?:layer\s+\(the\s+)?([\w*.\-/`]+(?:\s+[\w]+)?)", re.I)
_QUOTED_PLACE = re.compile(r"`([^`]*[/*][^`]*)`")
# Reaching the database itself, per line of added code.
_ACCESS = re.compile(
    r"\bsession\s*\.\s*(?:query|execute|add|add_all|commit|scalars?|merge|flush)\s*\(|"  # not get(): requests
    r"\b(?:db|self\.db|self\.session|session)\.(?:session\.)?(?:query|execute)\s*\(|\bSession\s*\(\s*\)|"
    r"\bcursor\s*\.\s*execute\s*\(|\b(?:engine|conn|connection|pool)\s*\.\s*(?:execute|query|read\.query)\s*\(|"
    r"\bconnection\s*\.\s*\w+\s*\.\s*query\s*\(|\bprisma\s*\.\s*\w+\s*\.\s*\w+\s*\(|"
    r"\b(?:db|tx)\s*\.\s*(?:select|insert|update|delete|query|execute)\s*\(|\bknex\s*\(|\bgetRepository\s*\(|"
    r"\b(?:db|DB)\s*\.\s*(?:Query|QueryRow|Exec|QueryContext|ExecContext)\s*\(|\bsql`|"
    r"^\s*(?:from\s+sqlalchemy|import\s+sqlalchemy)\b|\bfrom\s+[\"']@prisma/client[\"']|\bfrom\s+[\"']drizzle-orm")
# SQL as SQL is written in code (its keywords in capitals), not "Select a file from the list".
_SQL_STRING = re.compile(r"^\s*(?:SELECT\b.+\bFROM\b|INSERT\s+INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b|"
                         r"select\s+\*\s+from\b|select\b.+\bfrom\s+\w+\s+where\b)")
_NOT_GOVERNED = re.compile(r"(?:^|/)(?:migrations?|migrate|alembic|schema|seeds?|db/schema)(?:/|\.|$)", re.I)


@dataclass
class Access:
    """Layers a decision governs (folder names; empty: every layer) and where database access belongs."""

    layers: tuple[str, ...]
    places: tuple[str, ...]


def rule_of(text: str) -> Access | None:
    """The data-access rule a decision states, or None when it states none."""
    if not (_DB.search(text) and _DIRECT.search(text)):
        return None
    heads = [re.split(r"\b(?:must|should|shall|never|always|only|compose|goes|go|depend|are|is)\b", c, maxsplit=1)[0]
             for c in re.split(r"[.;:]\s+", text)]
    layers = tuple(dict.fromkeys(_LAYERS[w] for h in heads for w in re.findall(r"[a-z]+", h.lower()) if w in _LAYERS))
    quoted = _QUOTED_PLACE.findall(text)
    places = list(quoted)
    for m in _THROUGH.finditer(text):
        words = m.group(1).strip("`").lower().split()
        places += [_PLACES[w] for w in words if w in _PLACES]
    places = [p for p in dict.fromkeys(places) if p]
    if not layers and not quoted:
        return None  # "always go through the repository": which files may not is left unsaid
    return Access(layers, tuple(places))


def governs(rule: Access, path: str) -> bool:
    """Whether a write to `path` is one the rule holds for: in a governed layer, outside the place it allows."""
    p = path.replace("\\", "/").lower()
    if _NOT_GOVERNED.search(p) or any(_at(place, p) for place in rule.places):
        return False
    return not rule.layers or any(_in_layer(layer, p) for layer in rule.layers)


def _at(place: str, path: str) -> bool:
    if "/" in place or "*" in place:
        pat = place.lower().strip("/")
        return fnmatch.fnmatchcase(path, f"*{pat}*") or fnmatch.fnmatchcase(path.rsplit("/", 1)[-1], pat)
    return any(place in part for part in path.split("/"))


def _in_layer(layer: str, path: str) -> bool:
    parts = path.split("/")
    stems = parts[:-1] + [parts[-1].rsplit(".", 1)[0]]
    names = {layer, layer.rstrip("s")}
    return any(s in names or s.rsplit("_", 1)[-1] in names or s.rsplit("-", 1)[-1] in names for s in stems)


def violations(rule: Access, lines: list[Line]) -> list[Hit]:
    """Added lines that reach the database themselves."""
    out = []
    for ln in lines:
        if ln.side != "+" or ln.prose:
            continue
        if _ACCESS.search(ln.code) or any(_SQL_STRING.match(s) for s in ln.strings):
            out.append(("direct", ln, "reaches the database directly, where the decision routes access through "
                                      + (", ".join(rule.places) or "another layer")))
    return out


def _check(w, r) -> list[Hit]:
    """Its own places, not the decision's scope: the layers it names and where access belongs."""
    access = rule_of(r.text)
    if access is None or not governs(access, w.path):
        return []
    return [(kind, ln, why, "data-access") for kind, ln, why in violations(access, w.all_lines)]


RULES = (Rule("layer:data_access", "the database reached from a layer the decision routes through another",
              _check, reach="own"),)
