"""One table of technology names: which names are the same thing, and which are parts of which.

`aliases.txt` beside this module is curated by hand, one fact a line ("PostgreSQL = postgres,
pg", "tsconfig.json < TypeScript", "AWS ^ amazon, aws": a company or foundation that writes
its name before its products' names; "@sdk-language Python, Go, ...": a class of names a
rule of entity resolution reads, so that the rule names no product in code); a project adds
its own names in config.json (`"aliases": {"Canonical": ["alias", ...]}`). Three readers share it:

* entity resolution (consolidate): "k8s" is Kubernetes (merge), "tsconfig.json" is a part
  of TypeScript (child), "React Native" is not React (both are names of their own);
* retrieval's entry points: a prompt saying "postgres" also seeds nodes named PostgreSQL;
* the offline contradiction checker: the spellings code uses for a thing it names;
* supersession and retrieval: the concern a decision settles, in canonical names
  (`concern_words`); supersession: the kind of thing a decision chooses (`kinds`: the
  table's `@kind-...` classes) and the words that name the kind (`kind_words`).

Standard library only, no `re`, no `typing` at run time: entry points read it on the
hook's prompt path (docs/architecture.md, "Process model"). Parsed once: the dicts are kept
as marshal data in `__pycache__/aliases.table` beside this module (or in engram's home when
the package is read-only), stamped with the text's size, mtime and hash, and load in ~1.5 ms
where the parse costs ~13 ms; a stale or corrupt cache is parsed again and replaced.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TABLE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "aliases.txt")
_EDGE = " \t'\"`,;:?()[]{}"


def key(name: object) -> str:
    """The comparable form of a name: casefolded, single spaces, no surrounding punctuation."""
    return " ".join(str(name).casefold().split()).strip(_EDGE)


def squashed(k: str) -> str:
    """Letters, digits and "+" only ("Node.js" / "NodeJS", "Rabbit MQ" / "RabbitMQ"; "Dagster+" is
    Dagster's product, not Dagster); "" when too short to tell names apart ("C#" would be "c")."""
    s = "".join(ch for ch in k if ch.isalnum() or ch == "+")
    return s if len(s.replace("+", "")) >= 3 else ""


class Table:
    """Canonical names, their aliases, and part-of links between canonicals (all keys casefolded)."""

    def __init__(self) -> None:
        self.canon: dict[str, str] = {}  # any known name -> its canonical key
        self.display: dict[str, str] = {}  # canonical key -> the name as the table writes it
        self.parents: dict[str, list[str]] = {}  # canonical key -> canonical keys it is a part of
        self.owners: dict[str, str] = {}  # a prefix ("amazon") -> the canonical key of its owner ("aws")
        self.classes: dict[str, list[str]] = {}  # a class ("sdk-language") -> its members' canonical keys
        # Both built on first use from `canon`: the prompt hook never needs them, and the
        # cache (`table`) loads faster without them.
        self._aliases: dict[str, list[str]] | None = None
        self._squashed: dict[str, str] | None = None

    @property
    def aliases(self) -> dict[str, list[str]]:
        """Canonical key -> its names, canonical first, then in the order the table wrote them."""
        if self._aliases is None:
            out: dict[str, list[str]] = {c: [c] for c in self.display}
            for k, c in self.canon.items():
                if k != c:
                    out[c].append(k)
            self._aliases = out
        return self._aliases

    def add_same(self, canonical: str, names: list[str]) -> None:
        """`canonical` and `names` are one thing; a name already known elsewhere keeps its entry."""
        c = self._ensure(canonical)
        for name in names:
            k = key(name)
            if k and k not in self.canon:
                self.canon[k] = c
                if self._aliases is not None:
                    self._aliases[c].append(k)
                self._squashed = None

    def add_part(self, part: str, parent: str) -> None:
        p, c = self._ensure(part), self._ensure(parent)
        if p != c and c not in self.parents.setdefault(p, []):
            self.parents[p].append(c)

    def add_class(self, name: str, members: list[str]) -> None:
        """`members` belong to the class `name` (each by its canonical key when the table knows it)."""
        out = self.classes.setdefault(name, [])
        out += [m for m in (self.canon.get(key(n), key(n)) for n in members) if m and m not in out]

    def in_class(self, name: object, cls: str) -> str | None:
        """The member of class `cls` a name is ("py" -> "python" in "sdk-language"), else None."""
        k = key(name)
        found = self.canon.get(k, k)
        return found if found in self.classes.get(cls, ()) else None

    def add_owner(self, owner: str, prefixes: list[str]) -> None:
        """`owner` writes any of `prefixes` before its products' names ("Amazon RDS" is RDS, AWS's)."""
        o = self._ensure(owner)
        for prefix in prefixes:
            if key(prefix):
                self.owners.setdefault(key(prefix), o)

    def _ensure(self, name: str) -> str:
        k = key(name)
        if k in self.canon:
            return self.canon[k]
        self.canon[k] = k
        self.display[k] = " ".join(str(name).split())
        if self._aliases is not None:
            self._aliases[k] = [k]
        self._squashed = None
        return k

    def canonical(self, name: object) -> str | None:
        """The canonical key of a name the table knows ("Postgres" -> "postgresql"), else None."""
        k = key(name)
        if k in self.canon:
            return self.canon[k]
        if self._squashed is None:  # first name wins, in the order the table was written
            self._squashed = {}
            for known, c in self.canon.items():
                if squashed(known):
                    self._squashed.setdefault(squashed(known), c)
        return self._squashed.get(squashed(k)) if squashed(k) else None

    def parents_of(self, name: object) -> list[str]:
        """Canonical keys the name is a part of, nearest first (two levels: a part of a part)."""
        c = self.canonical(name)
        if c is None:
            return []
        out = list(self.parents.get(c, []))
        out += [g for p in list(out) for g in self.parents.get(p, []) if g not in out]
        return out

    def forms(self, canonical: str) -> tuple[str, ...]:
        """Every name of a canonical and of its direct parts: what code may spell it as."""
        c = self.canon.get(key(canonical), key(canonical))
        parts = [p for p, ps in self.parents.items() if c in ps]
        names = list(self.aliases.get(c, [c])) + [n for p in parts for n in self.aliases.get(p, [p])]
        return tuple(dict.fromkeys(names))

    def extended(self, extra: dict) -> "Table":
        """A copy with a project's names added (config.json "aliases")."""
        t = Table()
        t.canon, t.display = dict(self.canon), dict(self.display)
        t.parents = {k: list(v) for k, v in self.parents.items()}
        t.owners = dict(self.owners)
        t.classes = {k: list(v) for k, v in self.classes.items()}
        for canonical, names in extra.items():
            t.add_same(canonical, list(names))
        return t


def parse(text: str) -> Table:
    """A Table from the file format: `Canonical = a, b`, `part < Parent`, `Owner ^ prefix, ...`
    and `@class name, ...` lines, # comments."""
    t = Table()
    parts: list[tuple[str, str]] = []
    owners: list[tuple[str, list[str]]] = []
    classes: list[tuple[str, list[str]]] = []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if " = " in line:
            head, _, rest = line.partition(" = ")
            t.add_same(head.strip(), [n.strip() for n in rest.split(",") if n.strip()])
        elif " < " in line:
            part, _, parent = line.partition(" < ")
            parts.append((part.strip(), parent.strip()))
        elif " ^ " in line:
            head, _, rest = line.partition(" ^ ")
            owners.append((head.strip(), [n.strip() for n in rest.split(",") if n.strip()]))
        elif line.startswith("@") and " " in line:
            head, _, rest = line.partition(" ")
            classes.append((head[1:], [n.strip() for n in rest.split(",") if n.strip()]))
    for part, parent in parts:  # after every `=` line, so a part named by its alias finds its entry
        t.add_part(part, parent)
    for owner, prefixes in owners:
        t.add_owner(owner, prefixes)
    for cls, members in classes:
        t.add_class(cls, members)
    return t


_TABLE: list[Table] = []
_CANON: list["Canon | dict[str, str]"] = []
CACHE_NAME = "aliases.table"
CACHE_FORMAT = 5


def table() -> Table:
    """The curated table, read once per process from a cache that loads in ~2 ms (parsing
    the text costs ~13 ms, which every `engram query` and prompt hook paid)."""
    if not _TABLE:
        blobs, parsed = _cached()
        if parsed is None:
            try:
                parsed = Table()
                parsed.canon, parsed.display, parsed.parents, parsed.owners, parsed.classes = _loads(blobs[1], tuple)
            except (ValueError, EOFError, TypeError):  # a corrupt cache: the text
                parsed = parse(_read_table()[0])
        _TABLE.append(parsed)
    return _TABLE[0]


def canon() -> "Canon | dict[str, str]":
    """Any name the table knows -> its canonical key (`.get`): all a prompt's entry points need
    of it, its buckets loaded alone from the cache, each unmarshalled when a name falls in it
    (the whole dict took ~1 ms of a prompt's CPU to unmarshal, for a few dozen lookups)."""
    if _TABLE:
        return _TABLE[0].canon
    if not _CANON:
        blobs, parsed = _cached()
        if parsed is None:
            try:
                _CANON.append(Canon(_loads(blobs[0], tuple)))
            except (ValueError, EOFError, TypeError):  # a corrupt cache: the text
                parsed = parse(_read_table()[0])
        if parsed is not None:
            _CANON.append(parsed.canon)
    return _CANON[0]


BUCKETS = 1021  # ~6 names a bucket


def bucket(name: str) -> int:
    """A name's bucket of `Canon`, the same in every process (`hash` of a str is not)."""
    return int.from_bytes(name.encode("utf-8", "surrogatepass"), "little") % BUCKETS


def _buckets(canon: dict[str, str]) -> bytes:
    """`canon` as the cache keeps it for `Canon`: a tuple of BUCKETS marshalled dicts."""
    import marshal

    parts: list[dict[str, str]] = [{} for _ in range(BUCKETS)]
    for k, c in canon.items():
        parts[bucket(k)][k] = c
    return marshal.dumps(tuple(marshal.dumps(part) for part in parts))


class Canon:
    """`Table.canon` read by bucket: `get` unmarshals only the bucket a name falls in."""

    __slots__ = ("_blobs", "_open")

    def __init__(self, blobs: tuple) -> None:
        if len(blobs) != BUCKETS or not all(isinstance(b, bytes) for b in blobs):
            raise TypeError("cached canon is not a tuple of buckets")
        self._blobs = blobs
        self._open: dict[int, dict[str, str]] = {}

    def get(self, name: str) -> str | None:
        i = bucket(name)
        part = self._open.get(i)
        if part is None:
            try:
                part = self._open[i] = _loads(self._blobs[i], dict)
            except (ValueError, EOFError, TypeError):  # a corrupt bucket: the whole table
                return table().canon.get(name)
        return part.get(name)


def _loads(blob: bytes, kind: type):
    """A cached value of type `kind`; the cyclic GC paused meanwhile (its passes over the
    thousands of new lists cost a quarter of the load)."""
    import gc
    import marshal

    paused = gc.isenabled()
    gc.disable()
    try:
        value = marshal.loads(blob)
    finally:
        if paused:
            gc.enable()
    if not isinstance(value, kind):
        raise TypeError(f"cached {kind.__name__} is a {type(value).__name__}")
    return value


def _cache_paths() -> list[str]:
    """Where the parsed table is kept: beside the package's byte code, else in engram's home
    (a package installed read-only)."""
    from engram.config import engram_home

    return [os.path.join(os.path.dirname(TABLE_PATH), "__pycache__", CACHE_NAME),
            os.path.join(engram_home(), "cache", CACHE_NAME)]


def _cached() -> tuple[tuple[bytes, bytes], Table | None]:
    """((`canon` by bucket, marshal of (canon, display, parents, owners, classes)), None) from the first cache
    whose stamp (size and mtime, else the content hash) matches aliases.txt; else the text
    parsed, written to a cache, and its Table. A stale, corrupt or unwritable cache only
    costs the parse."""
    import marshal

    st = os.stat(TABLE_PATH)
    text: str | None = None
    digest = ""
    for path in _cache_paths():
        try:
            with open(path, "rb") as f:
                fmt, size, mtime, cached_digest, *blobs = marshal.loads(f.read())
        except (OSError, ValueError, EOFError, TypeError):
            continue
        if fmt != CACHE_FORMAT or len(blobs) != 2 or not all(isinstance(b, bytes) for b in blobs):
            continue
        if (size, mtime) != (st.st_size, st.st_mtime_ns):  # touched, checked out again: the same text?
            if text is None:
                text, digest = _read_table()
            if cached_digest != digest:
                continue
            _write_cache(marshal.dumps((CACHE_FORMAT, st.st_size, st.st_mtime_ns, digest, *blobs)))
        return (blobs[0], blobs[1]), None
    if text is None:
        text, digest = _read_table()
    t = parse(text)
    # `canon` twice: by bucket for the prompt's entry points (`Canon`), and with the rest so that the
    # Table's dicts share their strings (two blobs of it load slower than one)
    blobs = (_buckets(t.canon), marshal.dumps((t.canon, t.display, t.parents, t.owners, t.classes)))
    _write_cache(marshal.dumps((CACHE_FORMAT, st.st_size, st.st_mtime_ns, digest, *blobs)))
    return blobs, t


def _read_table() -> tuple[str, str]:
    from engram.hashing import sha256_hex

    with open(TABLE_PATH, encoding="utf-8") as f:
        text = f.read()
    return text, sha256_hex(text)


def _write_cache(data: bytes) -> None:
    """Replace the first writable cache atomically (a reader sees the old or the new one)."""
    from engram.fsio import write_atomic

    for path in _cache_paths():
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            write_atomic(path, data, mode=0o644, durable=False)
            return
        except OSError:
            continue


def for_config(cfg: "dict[str, Any] | None") -> Table:
    """The curated table plus the project's `aliases` from config.json.

    Raises ConfigError (one line, what to write instead) when the key has the wrong shape.
    """
    extra = (cfg or {}).get("aliases") or {}
    if not extra:
        return table()
    if not isinstance(extra, dict) or not all(
            isinstance(k, str) and isinstance(v, list) and all(isinstance(n, str) for n in v)
            for k, v in extra.items()):
        from engram.errors import ConfigError

        raise ConfigError('config.json: "aliases" must map a name to a list of its other names, '
                          'e.g. {"PostgreSQL": ["pg", "postgres"]}')
    return table().extended(extra)


# Verbs that link a concern to its choice, or say it changes, or what it is for: not the
# concern ("Testing is done with X", "Search should be handled by X", "move S to X").
CONCERN_VERBS = frozenset("""
use uses used using switch switches switched switching move moves moved moving migrate migrates migrated
migrating change changes changed changing set sets raise raised lower lowered increase increased reduce
reduced bump bumped upgrade upgrades upgraded upgrading downgrade downgraded replace replaces replaced
replacing drop dropped dropping ditch abandon keep keeps kept go goes going gone went adopt adopts adopted
prefer prefers preferred stick choose chose chosen pick picked instead rather favour favor longer retired
deprecated removed out let lets we will should must always never don't dont stop is are was were be been
has have had anymore again handle handles handled handling power powers powered do does did done doing
driven backed based provide provides provided implement implemented write writes written writing wrote
rewrite rewrites rewritten rewriting rewrote built live lives happen happens speak speaks follow follows
get gets become becomes stay stays rely relies depend depends target targets manage manages managed
managing can could shall forward supersede supersedes run runs ran running point points convert port
we're i'd let's away more back against behind onto across within towards
rebuild rebuilds rebuilt rebuilding redo redone reimplement reimplemented reimplementing ported porting put puts putting ditching ditched abandoned abandoning
rip ripping ripped sunset sunsetting decommission decommissioning phase phasing scrap scrapping deprecate
deprecating retire retiring remove removing pin pins pinned pinning need needs require requires talk talks
sit sits come comes flow flows decide decided deciding decision mind standardize standardized standardise
standardised standardizing standardising settle settled make makes agree agreed
swap swaps swapped swapping shut shutting
""".split())
# Words naming the kind of thing chosen, not what it is chosen for ("the test runner" is "the tests").
CONCERN_KINDS = frozenset(("runner", "tool", "tooling", "framework", "library", "lib", "system", "setup", "solution",
                   "stack", "scheme", "pattern", "manager", "provider", "vendor", "layer"))
# Words saying a decision holds everywhere: no concern ("We're moving everything to Postgres").
# "The main datastore" and "the primary database" are one concern: "main", "primary" rank a
# concern, they do not name another one.
CONCERN_NOISE = frozenset(("'s", "s", "everything", "everywhere", "anything", "whole", "entire", "project", "all", "every", "least",
                           "main", "primary"))


def concern_words(words: list[str]) -> set[str]:
    """The concern a list of words names, the one reading of one (issue 30): a decision's
    subject (decision_text.statement) and a prompt's words matched against it (retrieve/seeds.py).

    Each name the table knows in its canonical form ("auth" meets "authentication", "e2e
    tests" "end-to-end testing"), split at hyphens, without function words, the verbs that
    link a concern to its choice (CONCERN_VERBS) and words naming a kind of tool ("the test
    runner" is "the tests"), stemmed (text.stem: "reported" meets "reporting"). Names are
    looked up exactly, not by squashed spelling, in `canon` alone (the prompt hook calls
    this: the whole table would cost it ~2 ms more to load)."""
    from engram.text import STOPWORDS, stem

    known, out, i = canon(), [], 0
    words = [w for w in words if w not in CONCERN_VERBS and w not in CONCERN_NOISE]
    while i < len(words):
        for n in (3, 2, 1):
            name = " ".join(words[i:i + n])
            found = known.get(key(name)) if len(words) - i >= n else None
            # "db" is "database", "e2e tests" "end-to-end testing", "front end" "frontend";
            # "retry" stays, not "retry logic", and "session storage" is no browser API
            # ("sessionStorage", a name of a kind)
            if found and not set(name.split()) <= set(found.split()) and (
                    n == 1 or len(found.split()) > 1 or (found == name.replace(" ", "") and not kinds(found))):
                out += found.split()
                i += n
                break
        else:
            out.append(words[i])
            i += 1
    parts = [p for w in out for p in w.split("-")]
    stems = {stem(p) for p in parts if p not in STOPWORDS and p not in CONCERN_VERBS and p not in CONCERN_KINDS}
    return {s for s in stems if s and s not in STOPWORDS and s not in _kind_stems()}


_KIND_STEMS: list[frozenset[str]] = []


def _kind_stems() -> frozenset[str]:
    """CONCERN_KINDS as stems: "dependency management" is "dependencies" as "package manager" is
    "packages" (the stem of "management" is the stem of "manager")."""
    if not _KIND_STEMS:
        from engram.text import stem

        _KIND_STEMS.append(frozenset(stem(w) for w in CONCERN_KINDS))
    return _KIND_STEMS[0]


# -- the kinds of thing a decision chooses --------------------------------------------------
#
# Two choices of one kind (two databases, two CI systems, two test runners) made for one
# concern are alternatives, however each decision words the concern: "Use MySQL for the
# orders database" and "Orders are stored in Postgres now" settle one question, "Deploy the
# API to Heroku" and "We host the API on Fly.io" another. The words that name the kind or
# what it does ("database", "storage"; "deploy", "host") say what was chosen, not for what,
# so supersession (graph/supersession.py) compares the two concerns without them, and what
# is left must still match: "Deploy the frontend to Vercel" and "Deploy the backend to
# Railway" keep {frontend} and {backend}, two concerns. The members of each kind are
# classes of the table (`@kind-database PostgreSQL, MySQL, ...`), so a name is found under
# any of its aliases; the words are below, read the way a decision's subject is
# (`concern_words`).

KIND_PREFIX = "kind-"
# kind -> the words a decision's subject names it, or its job, with
KIND_WORDS: dict[str, str] = {
    "database": "database db datastore store stored storage persistence persist",
    "cache": "cache caching",
    "queue": "queue message messaging broker bus event stream streaming topic pubsub job task background worker",
    "scheduler": "schedule scheduling scheduler cron job workflow orchestration",
    "ci": "ci continuous integration pipeline build workflow",
    "hosting": "host hosting deploy deployment serve run production platform",
    "orchestrator": "orchestration orchestrate container cluster deploy deployment run",
    "js-package-manager": "package manager dependency deps install workspace",
    "python-package-manager": "package packaging manager dependency deps install environment virtualenv lock",
    "monorepo-tool": "monorepo build task workspace",
    "js-bundler": "bundle bundler bundling build",
    "jvm-build": "build",
    "js-test-runner": "test testing runner unit spec",
    "python-test-runner": "test testing runner unit",
    "jvm-test-framework": "test testing runner unit",
    "browser-testing": "test testing e2e end-to-end browser ui",
    "js-linter": "lint linting linter",
    "python-linter": "lint linting linter",
    "formatter": "format formatting formatter style",
    "python-type-checker": "type typing check checking checker static",
    "language": "language code",
    "ui-framework": "ui view component",
    "orm": "orm access model query",
    "auth-provider": "authentication login sign signin sso identity",
    "error-tracking": "error tracking track report reporting send crash exception",
    "observability": "metrics monitoring observability tracing trace apm performance telemetry dashboard send",
    "logging-library": "log logging logger",
    "log-platform": "log logging aggregation send ship shipping",
    "search-engine": "search index indexing",
    "email-provider": "email mail send sending transactional delivery",
    "payments": "payment pay checkout billing",
    "object-storage": "storage store stored object bucket blob",
    "cdn": "cdn serve edge",
    "infrastructure-as-code": "infrastructure provision provisioning iac",
    "configuration-management": "configuration configure provisioning",
    "secrets": "secret credential store stored storage",
    "feature-flags": "feature flag toggle",
    "api-style": "api style protocol endpoint",
    "data-format": "format payload serialization serialize encoding wire",
    "code-review": "review code",
    "dependency-updates": "dependency update upgrade bump bot",
    "docs-generator": "doc docs documentation site generate generator static",
    "css": "style styling css",
    "state-management": "state store management",
    "http-client": "http client request call",
    "date-library": "date time",
    "validation-library": "validation validate schema",
    "password-hashing": "hash hashing password",
    "js-runtime": "runtime",
    "container-runtime": "container runtime",
    "reverse-proxy": "proxy reverse load balancer balancing ingress",
    "analytics": "analytics tracking track event",
    "dataframe": "dataframe processing",
    "ml-framework": "model training learning ml",
    "desktop-framework": "desktop",
    "issue-tracker": "issue ticket tracking tracker",
    "chat": "chat communication",
    "cloud": "cloud infrastructure infra provider hosting host",
    "browser-storage": "storage store browser client",
    "llm": "model llm ai",
    "i18n-library": "i18n internationalization translation translations localization l10n",
    "translation-management": "translation translations localization l10n string",
    "container-registry": "registry image container",
    "branching-model": "branching branch model workflow development",
    "cloud-region": "region host hosting infrastructure",
}
_KIND_MEMBERS: list[dict[str, set[str]]] = []


def _kind_members() -> dict[str, set[str]]:
    """A member's key (its canonical name where the table knows it) -> its kinds."""
    if not _KIND_MEMBERS:
        out: dict[str, set[str]] = {}
        for cls, members in table().classes.items():
            if cls.startswith(KIND_PREFIX):
                for m in members:
                    out.setdefault(m, set()).add(cls[len(KIND_PREFIX):])
        _KIND_MEMBERS.append(out)
    return _KIND_MEMBERS[0]


_DIRECTIONS = ("east", "west", "north", "south", "central")


def _region(word: str) -> bool:
    """A cloud region's name: "us-east-1", "eu-central-1", "europe-west1", "ap-southeast-2"."""
    parts = word.split("-")
    return (len(parts) in (2, 3) and parts[0].isalpha() and len(parts[0]) <= 12 and word[-1].isdigit()
            and parts[1].startswith(_DIRECTIONS))


def name_kinds(name: str, parents: bool = True) -> set[str]:
    """The kinds of exactly this name (its canonical form, and with `parents` the names it is a
    part of: S3 is a cloud's, AWS's, besides object storage)."""
    names, members = table(), _kind_members()
    known = names.canonical(name)
    found = ([known] + (names.parents_of(name) if parents else [])) if known else [key(name)]
    return {k for c in found for k in members.get(c, ())}


def kinds(phrase: str, parents: bool = True) -> set[str]:
    """The kinds of the names a choice's phrase holds ("pnpm workspaces": js-package-manager;
    "Postgres 16": database; "us-east-1": cloud-region): each name the table knows, longest
    first (the words of a known name that is a part of nothing are not read again alone), and
    the names it is a part of."""
    words = phrase.split()
    out: set[str] = {"cloud-region"} if any(_region(w) for w in words) else set()
    i = 0
    while i < len(words):
        for n in range(min(4, len(words) - i), 0, -1):
            span = " ".join(words[i:i + n])
            found = name_kinds(span, parents)
            # a longer name of its own (the table knows it, as a part of nothing) is read whole,
            # kinds or none: "Google Workspace" is not Bazel's WORKSPACE file
            if found or (n > 1 and table().canonical(span) and not table().parents_of(span)):
                out.update(found)
                i += n
                break
        else:
            i += 1
    return out


def shared_kinds(a: list[str], b: list[str], parents: bool = True) -> set[str]:
    """The kinds both lists of choices have a member of (`parents`: name_kinds)."""
    return {k for p in a for k in kinds(p, parents)} & {k for p in b for k in kinds(p, parents)}


def kind_words(kinds_: set[str]) -> set[str]:
    """The subject words (stemmed, canonical) that name these kinds or their jobs."""
    return concern_words(" ".join(KIND_WORDS.get(k, "") for k in sorted(kinds_)).split()) if kinds_ else set()
