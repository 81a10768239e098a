"""What two entity names say about each other before any embedding: same, part, version, other.

Entity resolution (entity_resolution.py) asks `relate(proposed, existing)` first and turns
to embeddings only when the names alone settle nothing. The rules, in order:

1. one name after normalising: casefold, "-" "_" "/" as spaces, singular words, and the
   letters-and-digits form ("Node.js" / "NodeJS", "Rabbit MQ" / "RabbitMQ") -> merge;
2. the curated table (engram/graph/aliases.txt, extended per project) knows both names:
   aliases of one canonical -> merge ("k8s" / "Kubernetes"); the proposal a part of the
   existing one -> child ("tsconfig.json" / "TypeScript"); two canonicals of their own
   -> new ("React Native" / "React");
3. versions (docs/spec.md, "Entity resolution"): a versioned name is a child of the
   unversioned one ("PostgreSQL 16" / "PostgreSQL"), two versions are siblings, a child
   too, never a merge ("Python 3.12" / "Python 3.11"); the same version merges;
4. structure: a known name plus a qualifier is its child ("Redis cache" / "Redis",
   "performance regression tests" / "performance tests"), a name plus a word that only
   says what kind of thing it is is the name ("Postgres DB" / "PostgreSQL"); names that
   share words without one containing the other are siblings -> new ("email validation"
   / "ID validation").

Anything else is undecided (None) and left to the embeddings and, where a model is
configured, the adjudicator.
"""

from __future__ import annotations

from engram.graph.aliases import Table, key, squashed
from engram.text import singular

# Words that say what kind of thing a name is without changing which thing it is.
KIND_WORDS = frozenset("db database orm library lib framework package crm".split())
_SEPARATORS = str.maketrans({"-": " ", "_": " ", "/": " "})


def loose(name: str) -> str:
    """The normalised form compared by rule 1: "Unit-Tests" -> "unit test"."""
    return " ".join(singular(w) for w in key(name).translate(_SEPARATORS).split())


def split_version(name: str) -> tuple[str, str]:
    """(base, version) of a name ending in a version: "Python 3.12" -> ("python", "3.12"),
    "zod v3" -> ("zod", "3"); ("node.js", "") when there is none. A version is a separate
    last word of digits and dots, with an optional "v"; "k8s", "S3", "OAuth2" are names."""
    words = key(name).split()
    if len(words) < 2:
        return key(name), ""
    last = words[-1][1:] if words[-1][:1] == "v" and len(words[-1]) > 1 else words[-1]
    if last and last[0].isdigit() and all(c.isdigit() or c == "." for c in last.rstrip("x")):
        return " ".join(words[:-1]), last.rstrip(".")
    return key(name), ""


def _same_name(a: str, b: str, table: Table) -> bool:
    la, lb = loose(a), loose(b)
    if la == lb or (squashed(la) and squashed(la) == squashed(lb)):
        return True
    ca, cb = table.canonical(a) or table.canonical(la), table.canonical(b) or table.canonical(lb)
    return ca is not None and ca == cb


def relate(proposed: str, existing: str, table: Table) -> tuple[str | None, str]:
    """(merge | child | new | None, the rule that decided) for a proposed name against an existing one."""
    if _same_name(proposed, existing, table):
        return "merge", "alias" if loose(proposed) != loose(existing) else "normalised"
    for rule in (_by_table, _by_version, _by_structure):
        action, how = rule(proposed, existing, table)
        if action:
            return action, how
    return None, ""


def _canon(name: str, table: Table) -> str | None:
    return table.canonical(name) or table.canonical(loose(name))


def _by_table(a: str, b: str, table: Table) -> tuple[str | None, str]:
    ca, cb = _canon(a, table), _canon(b, table)
    if ca is None or cb is None:
        return None, ""
    if cb in table.parents_of(ca):
        return "child", "part"
    if split_version(a)[1] or split_version(b)[1]:
        return None, ""  # "Python 3.12": the version rule decides
    return "new", "distinct names"


def _by_version(a: str, b: str, table: Table) -> tuple[str | None, str]:
    (ba, va), (bb, vb) = split_version(a), split_version(b)
    if not (va or vb) or not _same_name(ba, bb, table):
        return None, ""
    if va == vb:
        return "merge", "same version"
    if va:
        return "child", "version" if not vb else "sibling version"
    return "new", "unversioned parent"  # the existing node is a version of the proposal


def _by_structure(a: str, b: str, table: Table) -> tuple[str | None, str]:
    wa, wb = loose(a).split(), loose(b).split()
    if len(wa) > 1 and wa[-1] in KIND_WORDS and _same_name(" ".join(wa[:-1]), b, table):
        return "merge", "kind word"
    if len(wb) > 1 and wb[-1] in KIND_WORDS and _same_name(a, " ".join(wb[:-1]), table):
        return "merge", "kind word"
    cb = _canon(b, table)
    for form in (table.aliases.get(cb, []) if cb else []) + [loose(b)]:
        fw = loose(form).split()
        if fw and len(wa) > len(fw) and _subsequence(fw, wa):
            return "child", "qualified"
    if set(wa) & set(wb) and not _subsequence(wa, wb):
        return "new", "sibling"
    return None, ""


def _subsequence(short: list[str], long: list[str]) -> bool:
    """Whether `short`'s words occur in `long` in order (not necessarily adjacent)."""
    it = iter(long)
    return all(any(w == x for x in it) for w in short)
