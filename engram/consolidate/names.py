"""What two entity names say about each other before any embedding: same, part, version, other.

Entity resolution (entity_resolution.py) asks `relate(proposed, existing)` first and turns
to embeddings only when the names alone settle nothing. The rules, in order:

1. one name -> merge: the same after normalising (casefold, "-" "_" "/" as spaces, singular
   words, "testing" as "test", the letters-and-digits form: "Node.js" / "NodeJS"); the same
   once every run of words the curated table (engram/graph/aliases.txt, extended per
   project) knows is written as its canonical ("Mongo Atlas" / "MongoDB Atlas",
   "GH Actions" / "GitHub Actions"); aliases of one canonical ("k8s" / "Kubernetes"); an
   initialism of the other name ("SAST" / "Static Application Security Testing", "PVC" /
   "PersistentVolumeClaim"); the same without an owner's name before a product's
   capitalised name (the table's `^` lines: "Amazon RDS" / "RDS", "AWS Athena" /
   "Amazon Athena") or a parent's name before a part the table gives it ("Python pip" / "pip");
2. the table knows both names: the proposal a part of the existing one -> child
   ("tsconfig.json" / "TypeScript"); two canonicals of their own -> new ("React Native" /
   "React");
3. versions (docs/spec.md, "Entity resolution"), written apart or glued to the name ("Vue3",
   "python3.12", "ES2022", "UUIDv7", "GPT-5"): a versioned name is a child of the
   unversioned one ("PostgreSQL 16" / "PostgreSQL"), two versions are siblings, a child too,
   never a merge ("Python 3.12" / "Python 3.11"); the same version merges;
4. structure: an owner's product is a child of the owner ("Amazon RDS" / "AWS"); a file
   named for a tool is its child ("pytest.ini", ".stylelintrc", "vite.config.ts",
   "tsconfig.base.json"); a known name plus a qualifier is its child ("Redis cache" /
   "Redis", "ArgoCD Image Updater" / "Argo CD"), a name plus a word that only says what kind
   of thing it is is the name ("Postgres DB" / "PostgreSQL"); names that share words
   without one containing the other are siblings -> new ("email validation" / "ID validation").

Anything else is undecided (None) and left to the embeddings and, where a model is
configured, the adjudicator.
"""

from __future__ import annotations

from engram.graph.aliases import Table, key, squashed
from engram.text import singular

# Words that say what kind of thing a name is without changing which thing it is.
KIND_WORDS = frozenset("db database orm library lib framework package crm".split())
_SEPARATORS = str.maketrans({"-": " ", "_": " ", "/": " "})
_WORD_FORMS = {"testing": "test"}  # "regression testing" is the practice of regression tests
# What a file named for a tool ends with: data and configuration formats, and the scripts
# that configure (only after a further part: "vite.config.ts", never "Node.js").
CONFIG_EXTS = frozenset("json jsonc json5 yml yaml toml ini cfg conf lock lockb xml properties".split())
SCRIPT_EXTS = frozenset("js cjs mjs ts cts mts py".split())
_NOT_INITIALS = frozenset("of and the for to a an in on".split())
_SPAN = 3  # the longest run of words looked up in the table as one name


def loose(name: str) -> str:
    """The normalised form compared by rule 1: "Unit-Tests" -> "unit test"."""
    return " ".join(_WORD_FORMS.get(w) or singular(w) for w in key(name).translate(_SEPARATORS).split())


def split_version(name: str, table: Table | None = None) -> tuple[str, str]:
    """(base, version) of a name ending in a version: "Python 3.12" -> ("python", "3.12"),
    "zod v3" -> ("zod", "3"), "python3.12" -> ("python", "3.12"), "UUIDv7" -> ("uuid", "7");
    ("node.js", "") when there is none. "k8s", "S3", "OAuth2" are names: a glued version
    needs two letters before it, and a name the table knows whole is never split."""
    k = key(name)
    words = k.split()
    if len(words) > 1 and _version(words[-1]):
        return " ".join(words[:-1]), _version(words[-1])
    if words and not (table and (k in table.canon or words[-1] in table.canon)):
        base, version = _glued(words[-1])
        if version:
            return " ".join(words[:-1] + [base]), version
    return k, ""


def _version(word: str) -> str:
    """The version a word is ("3.12" for "3.12" or "v3.12", "3.x" for "3.x"), or ""."""
    w = word[1:] if word[:1] == "v" and len(word) > 1 else word
    if w and w[0].isdigit() and all(c.isdigit() or c == "." for c in w.rstrip("x")):
        return w.rstrip(".")
    return ""


def _glued(word: str) -> tuple[str, str]:
    """("vue", "3") for "vue3", ("gpt", "5") for "gpt-5", ("uuid", "7") for "uuidv7"; ("", "") else."""
    if "-" in word:
        base, _, tail = word.rpartition("-")
        return (base, _version(tail)) if base[-1:].isalpha() and len(base) > 1 and _version(tail) else ("", "")
    i = len(word)
    while i and (word[i - 1].isdigit() or word[i - 1] == "."):
        i -= 1
    base, tail = word[:i], word[i:]
    if base.endswith("v") and len(base) > 3:
        base = base[:-1]
    if len(base) < 2 or not base[-1].isalpha() or not tail[:1].isdigit():
        return "", ""
    return base, _version(tail)


def _canon(name: str, table: Table) -> str | None:
    return table.canonical(name) or table.canonical(loose(name))


def _one_name(a: str, b: str, table: Table) -> bool:
    """Rule 1 without owners: one normalised, expanded or squashed form, one canonical, an initialism."""
    la, lb = loose(a), loose(b)
    if la == lb or _squashed_equal(la, lb) or _squashed_equal(key(a), key(b)):  # "ExternalDNS" is no plural
        return True
    ca, cb = _canon(a, table), _canon(b, table)
    if ca is not None and ca == cb:
        return True
    return _expanded(a, table) == _expanded(b, table) or _initialism(a, b, table) or _initialism(b, a, table)


def _squashed_equal(a: str, b: str) -> bool:
    return bool(squashed(a)) and squashed(a) == squashed(b)


def _expanded(name: str, table: Table) -> str:
    """The loose form once every run of words the table knows is its canonical:
    "Mongo Atlas" -> "mongodb atlas", "GH Actions" -> "github action"."""
    words, out, i = key(name).translate(_SEPARATORS).split(), [], 0
    while i < len(words):
        for n in range(min(_SPAN, len(words) - i), 0, -1):
            span = " ".join(words[i : i + n])
            c = table.canon.get(span) or table.canon.get(loose(span))
            if c is not None or n == 1:
                out.append(c if c is not None else span)
                i += n
                break
    return loose(" ".join(out))


def _initialism(short: str, long: str, table: Table) -> bool:
    """Whether `short` is the initials of `long`'s words and capitalised parts ("PVC" /
    "PersistentVolumeClaim"), for a short name the table does not give another meaning."""
    s = key(short)
    if not _short(s) or _canon(short, table) not in (None, _canon(long, table)):
        return False
    return s in initials(long) and len(key(long)) > len(s)


def _short(k: str) -> bool:
    """Whether a name key could be an initialism: 2 to 6 letters."""
    return 2 <= len(k) <= 6 and k.isalpha()


def initials(name: str) -> set[str]:
    """The initialisms a name can go by, casefolded: {"sbom", "sbm"} for "Software Bill of
    Materials" (with and without its small words); empty for a name of one part."""
    words = name.translate(_SEPARATORS).split()
    with_all = "".join(_humps(w) for w in words).casefold()
    without = "".join(_humps(w) for w in words if w.casefold() not in _NOT_INITIALS).casefold()
    return {i for i in (with_all, without) if len(i) > 1} if len(without) > 1 else set()


def _humps(word: str) -> str:
    """The first letter of each capitalised part of a word: "PersistentVolumeClaim" -> "PVC"."""
    return "".join(c for i, c in enumerate(word) if i == 0 or (c.isupper() and word[i - 1].islower()))


def _unowned(name: str, table: Table) -> tuple[str, str] | None:
    """(owner or parent canonical, the rest) for "<owner> <Product>" ("Amazon RDS" -> ("aws",
    "RDS")) or "<parent> <a part the table gives it>" ("Python pip"), else None."""
    words = name.split()
    for n in (2, 1):
        if len(words) > n:
            head, rest = " ".join(words[:n]), " ".join(words[n:])
            owner = table.owners.get(key(head))
            if owner and rest[:1].isupper() and _canon(name, table) in (None, _canon(rest, table)):
                return owner, rest
            parent = _canon(head, table)
            if parent and parent in table.parents_of(rest):
                return parent, rest
    return None


def search_prefixes(name: str, table: Table) -> set[str]:
    """The first letters of the names an existing node related to `name` by these rules may
    have (entity_resolution looks its candidates up by them): its words; the names of its
    canonical, of the canonicals it is a part of and of its owner; the tool a file is named
    for; its initials; and, for a short name that may be an initialism, its first letter."""
    forms = loose(name).split() + sorted(initials(name))
    unowned = _unowned(name, table)
    stem = key(name).lstrip(".").split(".")[0]
    for known in (name, loose(name), stem, stem.removesuffix("rc"), stem.removesuffix("config"),
                  unowned[0] if unowned else ""):
        canon = table.canonical(known) if known else None
        if canon:
            forms += [a for c in [canon, *table.parents_of(canon)] for a in table.aliases.get(c, [])]
    out = {" ".join(f.split())[:3] for f in forms if len(f) >= 2}
    return out | ({key(name)[0]} if _short(key(name)) else set())


def _same_name(a: str, b: str, table: Table) -> bool:
    if _one_name(a, b, table):
        return True
    ua, ub = _unowned(a, table), _unowned(b, table)
    if ua and ub:
        return ua[0] == ub[0] and _one_name(ua[1], ub[1], table)
    return bool(ua and _one_name(ua[1], b, table)) or bool(ub and _one_name(a, ub[1], table))


def relate(proposed: str, existing: str, table: Table) -> tuple[str | None, str]:
    """(merge | child | new | None, the rule that decided) for a proposed name against an existing one."""
    if _same_name(proposed, existing, table):
        return "merge", "alias" if loose(proposed) != loose(existing) else "normalised"
    for rule in (_by_table, _by_version, _by_structure):
        action, how = rule(proposed, existing, table)
        if action:
            return action, how
    return None, ""


def _by_table(a: str, b: str, table: Table) -> tuple[str | None, str]:
    ca, cb = _canon(a, table), _canon(b, table)
    if ca is None or cb is None:
        return None, ""
    if cb in table.parents_of(ca):
        return "child", "part"
    if split_version(a, table)[1] or split_version(b, table)[1]:
        return None, ""  # "Python 3.12": the version rule decides
    return "new", "distinct names"


def _by_version(a: str, b: str, table: Table) -> tuple[str | None, str]:
    (ba, va), (bb, vb) = split_version(a, table), split_version(b, table)
    if not (va or vb) or not _same_name(ba, bb, table):
        return None, ""
    if va == vb:
        return "merge", "same version"
    if va:
        return "child", "version" if not vb else "sibling version"
    return "new", "unversioned parent"  # the existing node is a version of the proposal


def _by_structure(a: str, b: str, table: Table) -> tuple[str | None, str]:
    for rule in (_by_owner, _by_file, _by_words):
        action, how = rule(a, b, table)
        if action:
            return action, how
    return None, ""


def _by_owner(a: str, b: str, table: Table) -> tuple[str | None, str]:
    ua, ub = _unowned(a, table), _unowned(b, table)
    if ua and ua[0] == _canon(b, table):
        return "child", "owner"
    if ub and ub[0] == _canon(a, table):
        return "new", "owner of it"  # the existing node is a product of the proposal
    return None, ""


def _by_file(a: str, b: str, table: Table) -> tuple[str | None, str]:
    """A file named for the tool: "pytest.ini", ".coveragerc" / "coverage.py", "vite.config.ts"."""
    k = key(a)
    parts = k.lstrip(".").split(".")
    if " " in k or not parts[0] or k == key(b):
        return None, ""
    shaped = k.startswith(".") or (len(parts) > 2 and parts[-1] in CONFIG_EXTS | SCRIPT_EXTS) or (
        len(parts) == 2 and parts[-1] in CONFIG_EXTS)
    if not shaped:
        return None, ""
    tool = key(b).split(".")[0]  # "coverage.py" -> "coverage", "Chart.js" -> "chart"
    for stem in {parts[0], parts[0].removesuffix("rc"), parts[0].removesuffix("config")} - {""}:
        if _same_name(stem, b, table) or _same_name(stem, tool, table) or _same_name(stem, _kindless(b), table):
            return "child", "file"
    return None, ""


def _kindless(name: str) -> str:
    """The name without a last word that only says what kind of thing it is: "Drizzle ORM" -> "drizzle"."""
    words = loose(name).split()
    return " ".join(words[:-1]) if len(words) > 1 and words[-1] in KIND_WORDS else loose(name)


def _by_words(a: str, b: str, table: Table) -> tuple[str | None, str]:
    wa, wb = loose(a).split(), loose(b).split()
    if len(wa) > 1 and wa[-1] in KIND_WORDS and _same_name(" ".join(wa[:-1]), b, table):
        return "merge", "kind word"
    if len(wb) > 1 and wb[-1] in KIND_WORDS and _same_name(a, " ".join(wb[:-1]), table):
        return "merge", "kind word"
    if any(_same_name(" ".join(wa[:i]), b, table) for i in range(1, len(wa))):
        return "child", "qualified"  # "ArgoCD Image Updater" / "Argo CD"
    cb, ub = _canon(b, table), _unowned(b, table)
    for form in (table.aliases.get(cb, []) if cb else []) + [loose(b)] + ([loose(ub[1])] if ub else []):
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
