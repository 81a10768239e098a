"""What two entity names say about each other before any embedding: same, part, version, other.

Entity resolution (entity_resolution.py) asks `relate(proposed, existing)` first and turns
to embeddings only when the names alone settle nothing. The rules, in order:

1. one name -> merge: the same after normalising (casefold, "-" "_" "/" as spaces, an npm
   scope's "@", singular words, "testing" as "test", the letters-and-digits form: "Node.js" /
   "NodeJS", never between a file and a name: ".editorconfig" is EditorConfig's file; a
   ".js" / ".ts" suffix: "NextAuth" / "NextAuth.js"); the same once every run of words the
   curated table (engram/language/aliases.txt, extended per project) knows is written as its
   canonical ("Mongo Atlas" / "MongoDB Atlas", "GH Actions" / "GitHub Actions"); aliases of
   one canonical ("k8s" / "Kubernetes"); an initialism of the other name ("SAST" / "Static
   Application Security Testing", "PVC" / "PersistentVolumeClaim"); the same without an
   owner's name before a product's capitalised name (the table's `^` lines: "Amazon RDS" /
   "RDS", "AWS Athena" / "Amazon Athena"), without a parent's name before a part the table
   gives it ("Python pip" / "pip"), or without its publisher: an npm scope or a repository
   path ("@langchain/langgraph" / "LangGraph", "gin-gonic/gin" / "Gin", with or without the host:
   "github.com/gorilla/mux"); a GitHub Action's or a Terraform provider's reference and the name
   its docs give it ("actions/checkout" / "checkout action", "hashicorp/aws" / "AWS provider"); a
   package's words in any order ("@auth0/auth0-spa-js" / "Auth0 SPA SDK"); a client library's
   manifest name and its prose name ("anthropic" / "Anthropic Python SDK"); a tool's file and its
   prose name ("vite.config.ts" / "Vite config", "tsconfig.json" / "tsconfig"). Manifests' spellings
   are read as their docs write them first: pip extras, .NET namespaces, Maven coordinates,
   package registries' pages ("pypi.org/project/httpx");
2. the table knows both names: the proposal a part of the existing one -> child
   ("tsconfig.json" / "TypeScript"); two canonicals of their own -> new ("React Native" /
   "React");
3. versions (docs/spec.md, "Entity resolution"; issue 26), written apart, glued or pinned ("Vue3",
   "python3.12", "ES2022", "UUIDv7", "GPT-5", "node:20-alpine", "actions/checkout@v4",
   "flask-cors~=6.0.0", a Go module's "/v7"), or a version line the table lists ("macOS 14 <
   macOS"): a versioned mention of a thing is that thing -> merge, whatever the two versions
   ("SQLite 3.53.0" / "SQLite", "Python 3.12" / "Python 3.11"; the version is kept on the node as
   an attribute, entity_resolution.Resolution.version); two members of a numbered series are two
   things -> new ("Phase 2" / "Phase 3", "v1 API" / "v2 API", "Milestone 4" / "Milestone 5": a
   series noun, SERIES_WORDS, or a file's format version, "hooks.json v2"), a member of a series
   a child of it ("Stripe API v2" / "Stripe API"); an abbreviated and a spelled-out marker are
   one ("v2" / "version 2", "Ph. 2" / "Phase 2"). A statement's name (a decision's) about another
   version is another statement (relate's `entity`);
4. structure: an owner's or publisher's product is a child of it ("Amazon RDS" / "AWS",
   "@langchain/core" / "LangChain"), a package of type definitions a child of what it types
   ("@types/lodash" / "Lodash"), an action or a provider of what it is for ("actions/setup-python"
   / "Python", "hashicorp/aws" / "AWS"; tried before the table's "two names"), a binding of its
   library ("openssl-sys" / "OpenSSL"); a file named for a tool is its child ("pytest.ini",
   ".stylelintrc", "vite.config.ts", "tsconfig.base.json", "Gruntfile.js", "Vagrantfile",
   "build.gradle.kts", "Pipfile.lock" for Pipenv, whose Pipfile it locks); a known name plus a
   qualifier is its child ("Redis cache" /
   "Redis", "ArgoCD Image Updater" / "Argo CD"), a name plus a word that only says what kind
   of thing it is is the name ("Postgres DB" / "PostgreSQL"); names that share words
   without one containing the other are siblings -> new ("email validation" / "ID validation"),
   and so are two paths of one publisher ("grafana/loki" / "grafana/grafana").

Anything else is undecided (None) and left to the embeddings and, where a model is
configured, the adjudicator.
"""

from __future__ import annotations

from typing import NamedTuple

from engram.language.aliases import Table, key, squashed
from engram.text import singular

# Words that say what kind of thing a name is without changing which thing it is.
KIND_WORDS = frozenset("db database orm library lib framework package crm".split())
LEADING_KIND_WORDS = frozenset(["project"])  # "Project Lombok" is Lombok
_SEPARATORS = str.maketrans({"-": " ", "_": " ", "/": " "})
_WORD_FORMS = {"testing": "test"}  # "regression testing" is the practice of regression tests
# What a file named for a tool ends with: data and configuration formats, and the scripts
# that configure (only after a further part: "vite.config.ts", never "Node.js").
CONFIG_EXTS = frozenset("json jsonc json5 yml yaml toml ini cfg conf config lock lockb xml properties neon exs".split())
LOCK_EXTS = frozenset(["lock", "lockb"])
SCRIPT_EXTS = frozenset("js cjs mjs ts cts mts py".split())
_FILE_SUFFIXES = ("config", "file", "rc")  # "gatsby-config.js", "Gruntfile.js", "Vagrantfile"
_NAME_SUFFIXES = (".js", ".ts", ".rs")  # "NextAuth.js" is NextAuth, "Criterion.rs" the crate criterion
# A kind glued on a one-word name: "SolidJS" is Solid, "TimescaleDB" Timescale, "UnoCSS" Uno.
_GLUED_KINDS = ("js", "db", "css")
# Top-level domains a project's site is named with, used as its name ("Fly.io", "pypi.org");
# not ".sh", ".rs", ".so", ".py": a script's, a Rust source's, a library's, a module's file.
_TLDS = frozenset("io com org net dev pm ai app cloud tech run build is works co me site".split())
# What a package of an npm scope is called when it is a part of the scope's project, not a
# product of its own ("@langchain/core" is LangChain's core, not a thing called "core").
_PACKAGE_PARTS = frozenset("core client server cli sdk api test utils common shared types config "
                           "plugin components ui react node browser web".split())
_NOT_INITIALS = frozenset("of and the for to a an in on".split())
_SPAN = 3  # the longest run of words looked up in the table as one name


def loose(name: str) -> str:
    """The normalised form compared by rule 1: "Unit-Tests" -> "unit test"."""
    words = key(name).translate(_SEPARATORS).split()
    return " ".join(_WORD_FORMS.get(w) or singular(w) for w in (w.lstrip("@") or w for w in words))


def split_version(name: str, table: Table | None = None) -> tuple[str, str]:
    """(base, version) of a name with a version: "Python 3.12" -> ("python", "3.12"),
    "zod v3" -> ("zod", "3"), "python3.12" -> ("python", "3.12"), "UUIDv7" -> ("uuid", "7"),
    "v2 API" and "API version 2" -> ("api", "2"), "Ph. 2" -> ("phase", "2"); ("node.js", "")
    when there is none. "k8s", "S3", "OAuth2" are names: a glued version needs two letters
    before it, and a name the table knows whole is never split."""
    k = key(name)
    words = k.split()
    if len(words) > 1 and _version(words[-1]):
        return _marked(words[:-1]), _version(words[-1])
    lead = _leading_version(words) if not (table and words and words[0] in table.canon) else None
    if lead:  # "V8 engine" is V8's
        return lead
    if len(words) == 1 and _tagged(k):
        return _tagged(k)
    if words and not (table and (k in table.canon or words[-1] in table.canon)):
        base, version = _glued(words[-1])
        if version:
            return _marked(words[:-1] + [base]), version
    if len(words) == 1 and k[:1] == "v" and _version(k) and not (table and k in table.canon):
        return "", _version(k)  # "v2" alone: a member of whatever series the text is about
    return k, ""


# A version marker as its abbreviations write it ("v2" is "version 2", "Ph. 2" is "Phase 2"):
# the spelled-out word, "" for a marker that only says "version" (dropped from the base).
_MARKERS = {"v": "", "v.": "", "ver": "", "ver.": "", "vers.": "", "version": "", "rev": "", "rev.": "",
            "revision": "", "ph": "phase", "ph.": "phase", "pt": "part", "pt.": "part", "stg": "stage",
            "stg.": "stage", "it.": "iteration", "iter": "iteration", "iter.": "iteration"}
# Nouns of a numbered series: its members are different things ("Phase 2" / "Phase 3", "v1 API" /
# "v2 API", "Milestone 4" / "Milestone 5"), where a versioned product is the product ("SQLite 3.53.0").
SERIES_WORDS = frozenset("phase milestone stage step sprint iteration epic round wave tier level part chapter "
                         "release api endpoint schema protocol interface spec specification manifest format".split())


def _marked(words: list[str]) -> str:
    """A base's words with the marker before its version spelled out, or dropped when it only
    says "version": ["api", "ver."] -> "api", ["ph."] -> "phase"."""
    if words and words[-1] in _MARKERS:
        words = words[:-1] + ([_MARKERS[words[-1]]] if _MARKERS[words[-1]] else [])
    return " ".join(words)


def _leading_version(words: list[str]) -> tuple[str, str] | None:
    """(base, version) of a name that starts with its version: "v2 API", "version 2 API"."""
    if len(words) > 1 and words[0][:1] == "v" and len(words[0]) > 1 and _version(words[0]):
        return " ".join(words[1:]), _version(words[0])
    if len(words) > 2 and words[0] in _MARKERS and not _MARKERS[words[0]] and _version(words[1]):
        return " ".join(words[2:]), _version(words[1])
    return None


def series(base: str, table: Table) -> bool:
    """Whether a versioned name's base names a numbered series, whose members are different things:
    a bare marker ("v2"), a series noun first or last ("Phase", "Stripe API", "Manifest"), or a
    file the table does not know as a name, whose numbers are its format's ("hooks.json v2")."""
    words = loose(base).split()
    return not words or words[0] in SERIES_WORDS or words[-1] in SERIES_WORDS or (
        _file_shaped(base) and _canon(base, table) is None)  # ".NET 8" is .NET's


def product_version(name: str, table: Table) -> str:
    """The version a name gives a thing that is the same thing at any version ("3.53.0" for
    "SQLite 3.53.0", "14" for "macOS Sonoma", which the table lists as "macOS 14"); "" for no
    version, or for a member of a series ("Phase 2")."""
    c = _canon(name, table)
    if c is not None:  # a name the table knows has a version when it lists it as a version line
        return next((split_version(table.display[c], table)[1] for p in table.parents.get(c, [])
                     if _version_line(c, p, table)), "")
    base, version = split_version(name, table)
    return version if version and not series(base, table) else ""


def _version_line(part: str, parent: str, table: Table) -> bool:
    """Whether a part the table lists is its parent at a version ("Node.js 22 < Node.js")."""
    base, version = split_version(table.display[part], table)
    return bool(version) and not series(base, table) and _same_name(base, table.display[parent], table)


def _tagged(k: str) -> tuple[str, str] | None:
    """(name, tag) of an image or package pinned to a version: "node:20-alpine" -> ("node",
    "20-alpine"), "actions/setup-node@v4" -> ("actions/setup-node", "4"), a requirement
    "flask-cors~=6.0.0" -> ("flask-cors", "6.0.0"); a variant after the version stays in it
    ("20-alpine"). A Go module's major version is its path's last part ("github.com/minio/
    minio-go/v7", "gopkg.in/yaml.v3")."""
    for sep in ("==", "~=", ">=", ":", "@"):
        head, found, tag = k.rpartition(sep)
        version = _version(tag.partition("-")[0]) or _pin(tag.partition("-")[0])
        if found and len(head) > 1 and not head.endswith(sep[-1]) and version:
            return head, version + tag[len(tag.partition("-")[0]):]
    for sep in ("/", "."):
        head, found, tag = k.rpartition(sep)
        if found and "/" in k and tag[:1] == "v" and tag[1:].isdigit() and len(head) > 1:
            return head, tag[1:]
    return None


# The moving tags and branches an image or an action is pinned to instead of a version number.
_CHANNELS = frozenset("latest lts stable main master edge nightly canary beta alpine slim".split())


def _pin(tag: str) -> str:
    """A tag that pins a release without a version number: a channel ("node:lts", "actions/checkout
    @main") or a commit ("@b4ffde6...", 7 to 40 hex digits); "" else."""
    commit = 7 <= len(tag) <= 40 and all(c in "0123456789abcdef" for c in tag) and any(c.isdigit() for c in tag)
    return tag if tag in _CHANNELS or commit else ""


def _version(word: str) -> str:
    """The version a word is ("3.12" for "3.12" or "v3.12", "3.x" for "3.x", "1.0a" for a dotted
    number with a letter after it), or ""."""
    w = word[1:] if word[:1] == "v" and len(word) > 1 else word
    if "." in w and w[-1:].isalpha() and w[-2:-1].isdigit():
        w, letter = w[:-1], w[-1]  # "OAuth 1.0a"; never "8s" ("k8s"), which has no dot
    else:
        letter = ""
    if w and w[0].isdigit() and all(c.isdigit() or c == "." for c in w.rstrip("x")):
        return w.rstrip(".") + letter
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
    named = base[-1:].isalpha() or (base.endswith("++") and base[:-2].isalpha())  # "C++20"
    if len(base) < 2 or not named or not tail[:1].isdigit():
        return "", ""
    return base, _version(tail)


def _canon(name: str, table: Table) -> str | None:
    return table.canonical(name) or table.canonical(loose(name))


def _one_name(a: str, b: str, table: Table) -> bool:
    """Rule 1 without owners: one normalised, expanded or squashed form, one canonical, an initialism."""
    la, lb = loose(a), loose(b)
    if la == lb:
        return True
    ca, cb = _canon(a, table), _canon(b, table)
    if _file_shaped(a) == _file_shaped(b) and (  # ".editorconfig" is a file of EditorConfig
            _squashed_equal(la, lb) or _squashed_equal(key(a), key(b))  # "ExternalDNS" is no plural
            or (_bare_equal(key(a), key(b)) and None in (ca, cb))):  # "Make.com" is not GNU Make
        return True
    if ca is not None and ca == cb and (_file_shaped(a) == _file_shaped(b) or _listed(a, b, table)):
        return True  # ".yamllint" squashes to "yamllint" but is its file, unless the table lists it
    return _expanded(a, table) == _expanded(b, table) or _initialism(a, b, table) or _initialism(b, a, table)


def _listed(a: str, b: str, table: Table) -> bool:
    """Whether the table lists the file-shaped one of two names as written, not only its squashed
    form (".NET", "dotenv = .env")."""
    return key(a if _file_shaped(a) else b) in table.canon


def _squashed_equal(a: str, b: str) -> bool:
    return bool(squashed(a)) and squashed(a) == squashed(b)


def _bare_equal(a: str, b: str) -> bool:
    """Whether two name keys are one name once bare (_bare): "d3.js" / "d3" too, short as it is."""
    ba, bb = _bare(_bare(a)), _bare(_bare(b))  # "handlebarsjs.com": a domain, then a glued kind
    return (ba != a or bb != b) and (ba == bb or _squashed_equal(ba, bb))


def _bare(k: str) -> str:
    """A one-word name without what its project writes after it: a ".js" / ".ts" suffix
    ("nextauth.js" -> "nextauth"), its site's top-level domain ("fly.io" -> "fly"), a kind glued
    on ("solidjs" -> "solid", "timescaledb" -> "timescale")."""
    if " " in k:
        return k
    for suffix in _NAME_SUFFIXES:
        if k.endswith(suffix) and len(k) - len(suffix) >= 2:
            return k[: -len(suffix)]
    head, dot, tld = k.rpartition(".")
    if dot and tld in _TLDS and len(head) >= 2 and "." not in head.lstrip("."):
        return head
    for kind in _GLUED_KINDS:
        if k.endswith(kind) and len(k) - len(kind) >= 3 and k[-len(kind) - 1].isalpha():
            return k[: -len(kind)]
    return k


def _file_shaped(name: str) -> bool:
    """Whether a name is a file's: a dotfile (".editorconfig", never ".NET"), a data or
    configuration file ("Chart.yaml"), a configuration script ("vite.config.ts",
    "gatsby-config.js", "Gruntfile.js") or a manifest named "<tool>file" ("Vagrantfile")."""
    return _file_parts(name) is not None


def _file_parts(name: str) -> list[str] | None:
    """The dotted parts of a file's name, casefolded ("build.gradle.kts" -> ["build", "gradle",
    "kts"]), or None when the name is no file's (see _file_shaped)."""
    raw = name.strip()
    k = key(raw)
    if not k or " " in k:
        return None
    parts = k.lstrip(".").split(".")
    if not parts[0]:
        return None
    if raw.startswith("."):
        return parts if raw[1:2].islower() or raw[1:2].isdigit() else None
    if len(parts) == 1:
        return parts if k.endswith("file") and len(k) > 6 else None
    ext = parts[-1]
    if ext in CONFIG_EXTS or (len(parts) > 2 and ext in SCRIPT_EXTS):
        return parts
    if ext in SCRIPT_EXTS and parts[0].endswith(_FILE_SUFFIXES):
        return parts
    return None


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
    Materials" (with and without its small words; by its words' first letters alone too, "MST"
    for "MobX-State-Tree"); empty for a name of one part."""
    words = name.translate(_SEPARATORS).split()
    with_all = "".join(_humps(w) for w in words).casefold()
    without = "".join(_humps(w) for w in words if w.casefold() not in _NOT_INITIALS).casefold()
    if len(without) <= 1:
        return set()
    plain = [w[0].casefold() for w in words if w.casefold() not in _NOT_INITIALS]  # "MST": "MobX-State-Tree"
    return {i for i in (with_all, without, "".join(plain)) if len(i) > 1}


def _humps(word: str) -> str:
    """The first letter of each capitalised part of a word: "PersistentVolumeClaim" -> "PVC"."""
    return "".join(c for i, c in enumerate(word) if i == 0 or (c.isupper() and word[i - 1].islower()))


def _unowned(name: str, table: Table) -> tuple[str, str] | None:
    """(owner, publisher or parent canonical, the rest) for "<owner> <Product>" ("Amazon RDS" ->
    ("aws", "RDS")), a published name (_published) or "<parent> <a part the table gives it>"
    ("Python pip"), else None."""
    published = _published(name, table)
    if published:
        return published
    words = name.split()
    for n in (2, 1):
        if len(words) > n:
            head, rest = " ".join(words[:n]), " ".join(words[n:])
            owner = table.owners.get(key(head))
            if owner and rest[:1].isupper() and loose(rest) not in _PACKAGE_PARTS \
                    and _owned(owner, name, rest, table):
                return owner, rest
            parent = _canon(head, table)
            if parent and parent in table.parents_of(rest):
                return parent, rest
    return None


def _owned(owner: str, name: str, rest: str, table: Table) -> bool:
    """Whether "<owner> <rest>" is the owner's product called `rest`: `rest` is no name the
    table gives another thing ("Microsoft Teams" / "Teams", "AWS Athena" / "Athena"), or the
    table makes it the owner's. "GitHub MCP server", "Heroku Postgres", "Amazon Linux" are the
    owner's form of something else (an MCP server, PostgreSQL, Linux): a child of it, not it."""
    c_rest = _canon(rest, table)
    return c_rest is None or c_rest == _canon(name, table) or owner in table.parents_of(c_rest)


def _published(name: str, table: Table) -> tuple[str, str] | None:
    """(publisher, the name published) for an npm package of a scope ("@langchain/langgraph" ->
    ("langchain", "langgraph")), a repository or module path ("gin-gonic/gin", "gorm.io/gorm",
    "github.com/spf13/cobra") or an MCP server's tool ("mcp__attio__search-records"); None for a
    path the table knows whole whose last part is another thing ("net/http"), for abbreviations
    ("CI/CD", "TCP/IP", "Pub/Sub"), for a Terraform provider (_provider), for type definitions
    ("@types/...": _by_types) and for a scope's package the table knows as a name of its own
    ("@sentry/node" is Sentry's, not Node.js) or whose name only says which part it is
    ("@langchain/core")."""
    k = key(name)
    if k.startswith("mcp__") and k.count("__") >= 2:  # Claude Code's name of an MCP server's tool
        server, _, tool = k.removeprefix("mcp__").partition("__")
        return (_canon(server, table) or server, tool) if server and tool else None
    head, _, rest = k.rpartition("/")
    known_whole = k in table.canon and _canon(rest, table) not in (None, table.canon[k])
    if " " in k or not head or len(rest) < 2 or known_whole or _provider(name, table):
        return None  # "hashicorp/aws" is HashiCorp's provider for AWS, not AWS (_by_tool)
    if k.startswith("@"):
        scope = head[1:]
        publisher = _canon(scope, table) or scope
        if "/" in scope or scope == "types" or rest in _PACKAGE_PARTS:
            return None
        if _canon(rest, table) and publisher not in table.parents_of(rest):
            return None  # "@sentry/node" is Sentry's package, not Node.js; "@langchain/langgraph" is LangGraph
        return publisher, rest
    segments = name.strip().split("/")
    if not any(seg.islower() for seg in segments) or all(len(seg) <= 3 for seg in segments):
        return None
    head = _hostless(head)
    return _canon(head.lstrip("."), table) or head, rest  # ".husky/pre-commit": Husky's


def _hostless(path: str) -> str:
    """A path without the registry or forge that hosts it, and without Docker's namespace of
    official images: "github.com/gorilla" -> "gorilla", "registry.terraform.io/hashicorp" ->
    "hashicorp", "docker.io/library" -> "" (the image "postgres" itself); "gorm.io" stays (a
    module path whose host is the project's own)."""
    segments = path.split("/")
    if len(segments) > 1 and "." in segments[0].strip("."):
        segments = segments[1:]
    return "/".join(segments[:-1] if segments[-1] == "library" else segments)


def _scoped(name: str) -> str:
    """The name an npm scope and its package spell together ("@sveltejs/kit" -> "svelte kit",
    "@reduxjs/toolkit" -> "redux toolkit"), or "" for a name of no scope."""
    k = key(name)
    scope, slash, package = k[1:].partition("/")
    if not k.startswith("@") or not slash or not package or "/" in package or scope == "types":
        return ""
    return f"{_bare(scope.removesuffix('-js'))} {package}"


# How a package that binds a library for another language says so: Rust's "-sys" crates
# ("openssl-sys"), "-ffi" and "-bindings" packages.
_BINDING_SUFFIXES = ("-sys", "-ffi", "-bindings", "-binding")


def _by_binding(a: str, b: str, table: Table) -> tuple[str | None, str]:
    """A binding to a library is a child of it: "openssl-sys" / "OpenSSL", "libgit2-sys" / "libgit2"."""
    k = key(a)
    for suffix in _BINDING_SUFFIXES:
        if k.endswith(suffix) and len(k) > len(suffix) + 1 and _same_name(k[: -len(suffix)], b, table):
            return "child", "binding"
    return None, ""


def _by_types(a: str, b: str, table: Table) -> tuple[str | None, str]:
    """DefinitelyTyped's packages: "@types/node" is a child of Node.js, the types of it."""
    k = key(a)
    if k.startswith("@types/") and _same_name(k.removeprefix("@types/"), b, table):
        return "child", "types"
    return None, ""


def search_prefixes(name: str, table: Table) -> set[str]:
    """The first letters of the names an existing node related to `name` by these rules may
    have (entity_resolution looks its candidates up by them): its words and its base without a
    version; the names of its canonical, of the canonicals it is a part of, of its owner or
    publisher and of the name its first words make ("Swagger UI": OpenAPI's); the tool a file is
    named for; its initials; and, for a short name that may be an initialism, its first letter,
    also after each owner's prefix ("EBS": "amazon e...")."""
    base = split_version(name, table)[0]
    words = loose(name).split()
    dotted = key(name).lstrip(".").split(".") if " " not in key(name) else []  # "build.gradle.kts": Gradle's
    glued = [part for cut in _camel_parts(name) for part in cut]  # "TestPyPI": PyPI's
    forms = words + loose(base).split() + dotted[1:] + sorted(initials(name)) + [_bare(key(name))] + glued
    unowned = _unowned(name, table)
    stem = key(name).lstrip(".").split(".")[0]
    heads = [" ".join(words[:i]) for i in range(1, len(words))]
    for known in (name, loose(name), base, _bare(key(name)), *_stems(stem), unowned[0] if unowned else "",
                  *heads, *glued):
        canon = table.canonical(known) if known else None
        if canon:
            forms += [a for c in [canon, *table.parents_of(canon)] for a in table.aliases.get(c, [])]
    stems = _stems(stem) if _file_shaped(name) else set()  # "samconfig.toml": "AWS SAM"'s
    forms += [*stems, *(loose(unowned[1]).split() if unowned else [])]  # ".spectral.yaml": Spectral's
    forms += [f".{w}" for w in words if len(words) > 1]  # "ESLint config": ".eslintrc.json"'s
    out = {" ".join(f.split())[:3] for f in forms if len(f) >= 2}
    short = {k for k in (key(name), key(base), *stems) if _short(k)}
    written = _as_written(name, table)  # "Microsoft.EntityFrameworkCore": "Microsoft EntityFrameworkCore"'s too
    more = search_prefixes(written, table) if written != name else set()
    return out | more | {k[0] for k in short} | {f"{prefix} {k[0]}" for k in short for prefix in table.owners}


def search_words(name: str) -> list[str]:
    """The words an existing node related to `name` may hold (entity_resolution looks them up in
    the keyword index): the name's words, the words of a path or coordinate ("junit:junit":
    "org.junit.jupiter:junit-jupiter"'s), and what a file of it is named for ("cliff.toml":
    git-cliff's, "deny.toml": cargo-deny's)."""
    parts = _file_parts(name) or []
    pieces = "".join(c if c.isalnum() else " " for c in key(name)).split()
    return loose(name).split() + [w for w in pieces if len(w) >= 3] \
        + sorted(_stems(parts[0]) - {key(name)} if parts else set())


def _same_name(a: str, b: str, table: Table) -> bool:
    if _one_name(a, b, table):
        return True
    sa, sb = _scoped(a), _scoped(b)
    if (sa and _one_name(sa, b, table)) or (sb and _one_name(a, sb, table)):
        return True
    ua, ub = _unowned(a, table), _unowned(b, table)
    if ua and ub and ua[0] == ub[0] and _one_name(ua[1], ub[1], table):
        return True
    if ua and ub and ua[0] != ub[0] and " " not in key(a) + key(b):
        return False  # "mitsuhiko/rye" / "astral-sh/rye": two publishers' names
    if bool(ua and _one_name(ua[1], b, table)) or bool(ub and _one_name(a, ub[1], table)):
        return True  # "redis/redis-stack" / "Redis Stack": the publisher's name is in the product's
    return (_same_words(a, b, table) or _same_tool(a, b, table) or _same_sdk(a, b, table) or _same_sdk(b, a, table)
            or _same_file(a, b, table) or _same_file(b, a, table))


# How prose names a tool's file: "ESLint config", "Jest configuration", "Cargo manifest".
_FILE_WORDS = frozenset("config configuration setting manifest file".split())


def _same_file(file: str, prose: str, table: Table) -> bool:
    """A file and the name its docs give it: its tool's name and a word for a file ("vite.config.ts"
    / "Vite config", "Cargo.toml" / "Cargo manifest", "go.mod" / "Go module file"), or its name
    without the extension when that is no tool's ("tsconfig.json" / "tsconfig")."""
    parts = _file_parts(file)
    if not parts or _file_shaped(prose):
        return False
    words = loose(prose).split()
    if len(words) == 1:
        return words[0] == parts[0] and len(parts) == 2 and _canon(prose, table) is None
    tool = list(words)
    while tool and tool[-1] in _FILE_WORDS:
        tool.pop()
    return 0 < len(tool) < len(words) and relate(file, " ".join(tool), table)[0] == "child"


def relate(proposed: str, existing: str, table: Table, *, entity: bool = True) -> tuple[str | None, str]:
    """(merge | child | new | None, the rule that decided) for a proposed name against an existing one.

    `entity` is False for a statement's name (a decision, a finding): "Use Python 3.12" is not
    "Use Python 3.11", though Python 3.12 is Python (_by_version)."""
    proposed, existing = _as_written(proposed, table), _as_written(existing, table)
    if _same_name(proposed, existing, table):
        return "merge", "alias" if loose(proposed) != loose(existing) else "normalised"
    for rule in (_by_tool, _by_table, _by_version, _by_structure):
        action, how = rule(proposed, existing, table)
        if how == "version" and not entity:  # a statement naming a version (another, or one at all)
            return "new", "another version"
        if action:
            return action, how
    return None, ""


def _by_table(a: str, b: str, table: Table) -> tuple[str | None, str]:
    ca, cb = _canon(a, table), _canon(b, table)
    if ca is None or cb is None:
        return None, ""
    if cb in table.parents_of(ca):  # a version line the table lists ("macOS 14 < macOS") is a version
        return ("merge", "version") if _version_line(ca, cb, table) else ("child", "part")
    if split_version(a, table)[1] or split_version(b, table)[1]:
        return None, ""  # "Python 3.12": the version rule decides
    owned = _unowned(a, table)
    if owned and owned[0] == cb:
        return "child", "owner"  # "Google BigQuery" / "Google": the table knows both, not the link
    if _file_shaped(a) != _file_shaped(b) and _by_file(a, b, table)[0]:
        return _by_file(a, b, table)  # "angular.json" / "Angular CLI": the table knows both, not the link
    return "new", "distinct names"


def _by_version(a: str, b: str, table: Table) -> tuple[str | None, str]:
    """A versioned mention of a thing is that thing (docs/spec.md: "SQLite 3.53.0" merges with
    "SQLite"), whatever the two versions; two members of a numbered series are two things
    ("Phase 2" / "Phase 3", "v1 API" / "v2 API"), a member a child of the series."""
    (ba, va), (bb, vb) = split_version(a, table), split_version(b, table)
    wa, wb = loose(a).split(), loose(b).split()
    if len(wa) > 2 and sorted(wa) == sorted(wb) and any(_version(w) for w in wa):
        return "merge", "same version"  # "Claude Haiku 3.5" / "Claude 3.5 Haiku": the version moved
    ra, rb = [w for w in wa if not _version(w)], [w for w in wb if not _version(w)]
    if len(ra) > 1 and sorted(ra) == sorted(rb) and len(ra) < len(wa) and not series(" ".join(ra), table):
        return "merge", "version"  # "Claude 3 Opus" / "Claude Opus 4.1": versions inside the name
    if va and not vb and _canon(b, table) and _canon(b, table) in table.parents_of(ba):
        return "child", "part"  # "mcr.microsoft.com/dotnet/aspnet:8.0": a version of ASP.NET Core's image
    if not (va or vb) or not _same_name(ba, bb, table):
        return None, ""
    if not (series(ba, table) or series(bb, table)):
        return "merge", "version"
    if va == vb:
        return "merge", "same member"  # "v2 API" / "API version 2", "Ph. 2" / "Phase 2"
    if va and vb:
        return "new", "series members"
    return ("child", "series member") if va else ("new", "unversioned parent")


def _by_structure(a: str, b: str, table: Table) -> tuple[str | None, str]:
    for rule in (_by_paths, _by_owner, _by_types, _by_binding, _by_file, _by_words):
        action, how = rule(a, b, table)
        if action:
            return action, how
    return None, ""


def _by_paths(a: str, b: str, table: Table) -> tuple[str | None, str]:
    """Two paths of one publisher are siblings ("grafana/loki" / "grafana/grafana", "@aws-sdk/client-s3"
    / "@aws-sdk/client-sqs"), unless one names a variant of the other ("grafana/grafana-oss")."""
    if " " in key(a) + key(b):
        return None, ""
    pa, pb = _published(a, table), _published(b, table)
    if not (pa and pb) or pa[0] != pb[0] or pa[1].startswith(pb[1] + "-") or pb[1].startswith(pa[1] + "-"):
        return None, ""
    return "new", "sibling paths"


def _by_owner(a: str, b: str, table: Table) -> tuple[str | None, str]:
    ua, ub = _unowned(a, table), _unowned(b, table)
    if ua and ua[0] == _canon(b, table):
        return "child", "owner"
    if ub and ub[0] == _canon(a, table):
        return "new", "owner of it"  # the existing node is a product of the proposal
    return None, ""


def _by_file(a: str, b: str, table: Table) -> tuple[str | None, str]:
    """A file named for the tool ("pytest.ini", ".coveragerc" / "coverage.py", "vite.config.ts",
    "Vagrantfile") or for a part the table gives it ("Pipfile.lock": Pipenv's Pipfile), or a
    file whose extension is the tool's ("build.gradle.kts", "main.tf")."""
    k = key(a)
    if " " in k or k == key(b):
        return None, ""
    parts = _file_parts(a)
    if parts and _file_shaped(b) and LOCK_EXTS & {parts[-1], key(b).rpartition(".")[2]}:
        return "new", "two files"  # "Gemfile.lock" locks the Gemfile: two files, neither a part
    # the tool a name like "coverage.py" or "Chart.js" is ("coverage"); a file's stem is no tool's
    tool, cb = key(b) if _file_shaped(b) else key(b).split(".")[0], _canon(b, table)
    for stem in _stems(parts[0]) if parts else ():
        if any(_same_name(stem, other, table) for other in (b, tool, _kindless(b), *_tool_words(b))):
            return "child", "file"
        if cb and cb in table.parents_of(stem):
            return "child", "file"
    exts = k.lstrip(".").split(".")[1:]
    if any(_same_name(ext, b, table) for ext in exts if ext not in CONFIG_EXTS | SCRIPT_EXTS):
        return "child", "file"
    return None, ""


# What a tool's name adds to the name its files are named with ("Drizzle Kit": drizzle.config.ts).
_TOOL_TAILS = frozenset(["cli", "kit"])


def _tool_words(name: str) -> list[str]:
    """The names a tool's files may be named with besides its own: without "CLI" / "Kit" after it
    ("Angular CLI": angular.json), or the command after a host tool's name ("git-cliff":
    cliff.toml, "cargo-deny": deny.toml, "semantic-release": .releaserc)."""
    words, k = loose(name).split(), key(name)
    out = [" ".join(words[:-1])] if len(words) > 1 and words[-1] in _TOOL_TAILS else []
    head, dash, last = k.rpartition("-")
    return out + ([last] if dash and " " not in k and len(last) >= 4 and len(head) >= 3 else [])


def _stems(first: str) -> set[str]:
    """What the first part of a file's name may be named for: "eslintrc" -> {"eslintrc", "eslint"},
    "gatsby-config" -> {..., "gatsby-"}, "gruntfile" -> {..., "grunt"}."""
    return {first, *(first.removesuffix(suffix) for suffix in _FILE_SUFFIXES)} - {""}


def _kindless(name: str) -> str:
    """The name without a last word that only says what kind of thing it is: "Drizzle ORM" -> "drizzle"."""
    words = loose(name).split()
    return " ".join(words[:-1]) if len(words) > 1 and words[-1] in KIND_WORDS else loose(name)


def _by_words(a: str, b: str, table: Table) -> tuple[str | None, str]:
    wa, wb = loose(a).split(), loose(b).split()
    ka, kb = _kindless_in(a, table), _kindless_in(b, table)
    if (ka != loose(a) and _same_name(ka, b, table)) or (kb != loose(b) and _same_name(a, kb, table)):
        return "merge", "kind word"
    if not _sdk_prose(b) and any(_same_name(" ".join(wa[:i]), b, table) for i in range(1, len(wa))):
        return "child", "qualified"  # "ArgoCD Image Updater" / "Argo CD"; never of "Sentry Python SDK"
    if _glued_on(a, b, table) or _member_of(a, b, table) or _part_qualified(wa, b, table):
        return "child", "qualified"
    cb, ub = _canon(b, table), _unowned(b, table)
    for form in (table.aliases.get(cb, []) if cb else []) + [loose(b)] + ([loose(ub[1])] if ub else []):
        fw = loose(form).split()
        if fw and len(wa) > len(fw) and _subsequence(fw, wa):
            return "child", "qualified"
    if set(wa) & set(wb) and not _subsequence(wa, wb):
        return "new", "sibling"
    return None, ""


def _part_qualified(words: list[str], b: str, table: Table) -> bool:
    """Whether a name is a part of `b` the table knows plus a qualifier: "azurerm_resource_group"
    (a resource type of AzureRM, Azure's Terraform provider) / "Azure"."""
    cb = _canon(b, table)
    return bool(cb) and any(cb in table.parents_of(" ".join(words[:i])) for i in range(1, len(words)))


def _kindless_in(name: str, table: Table) -> str:
    """The loose name without words that only say what kind of thing it is: a kind word after
    it ("Postgres DB"), "project" before it ("Project Lombok"), or a name of a concept the table
    makes it a part of, or that name's last word ("Traefik Proxy": a reverse proxy; "Istio
    service mesh"; "Drone CI": a CI/CD tool), never just any word of it ("Zod schemas")."""
    words = loose(name).split()
    if len(words) > 1 and words[0] in LEADING_KIND_WORDS:
        words = words[1:]
    while len(words) > 1:
        if words[-1] in KIND_WORDS:
            words = words[:-1]
            continue
        runs = _kind_runs(" ".join(words[:-1]), table) | _kind_runs(" ".join(words[:-2]), table)
        cut = max((len(r) for r in runs if len(r) < len(words) and tuple(words[-len(r):]) == r), default=0)
        if not cut:
            break
        words = words[:-cut]
    return " ".join(words)


def _kind_runs(name: str, table: Table) -> set[tuple[str, ...]]:
    """The word runs that say what kind of thing `name` is: each name of a concept the table makes
    it a part of (one written in small letters or as an abbreviation: "reverse proxy", "CI/CD";
    never an owner, "AWS"), its last word, and each half of an abbreviation with "/" ("CI", "CD")."""
    c = _canon(name, table) if name else None
    if c is None:
        return set()
    owners = set(table.owners.values())
    runs: set[tuple[str, ...]] = set()
    for p in table.parents_of(c):
        if p in owners or not (table.display[p].islower() or table.display[p].isupper()):
            continue
        for alias in table.aliases.get(p, []):
            words = tuple(loose(alias).split())
            runs |= {words, words[-1:]} | ({(w,) for w in words} if "/" in alias else set())
    return runs


def _glued_on(a: str, b: str, table: Table) -> bool:
    """Whether `a` is `b` with a qualifier glued on at a capital ("SwiftUI" / "Swift", "PHPUnit" /
    "PHP", "JupyterLab" / "Jupyter", "SolidStart" / "SolidJS", "TestPyPI" / "PyPI")."""
    return any((len(head) >= 3 and _same_name(head, b, table)) or (len(tail) >= 4 and _same_name(tail, b, table))
               for head, tail in _camel_parts(a))


def _camel_parts(name: str) -> list[tuple[str, str]]:
    """The (head, tail) splits of a one-word name at each capital that starts a word: "PHPUnit" ->
    [("PHP", "Unit")], "TestPyPI" -> [("Test", "PyPI"), ("TestPy", "PI")]; none for "Reactor"."""
    raw = name.strip()
    if not raw.isalnum():
        return []
    cuts = [i for i in range(2, len(raw) - 1) if raw[i].isupper() and (
        raw[i - 1].islower() or raw[i - 1].isdigit() or (raw[i - 1].isupper() and raw[i + 1].islower()))]
    return [(raw[:i], raw[i:]) for i in cuts]


def _member_of(a: str, b: str, table: Table) -> bool:
    """Whether `a` names a member of a package the table knows, written after a dot
    ("lodash.debounce" / "Lodash"); not a file ("vite.config.ts"), a ".js" name, nor a domain."""
    k = key(a)
    head, dot, member = k.partition(".")
    if not dot or " " in k or "." in member or not member.isalpha() or len(member) < 3 or _file_shaped(a):
        return False
    return f".{member}" not in _NAME_SUFFIXES and member not in _TLDS and bool(_canon(head, table)) \
        and _same_name(head, b, table)


def _subsequence(short: list[str], long: list[str]) -> bool:
    """Whether `short`'s words occur in `long` in order (not necessarily adjacent)."""
    it = iter(long)
    return all(any(w == x for x in it) for w in short)


# Words a package's or a repository's name spells besides what it is: "sdk" ("@sentry/nextjs" is
# "Sentry Next.js SDK"), a ".js" written apart ("auth0-spa-js"). The frameworks a UI package of
# a scope says it is for ("@radix-ui/react-slot" is "Radix Slot") are the table's "@ui-framework".
_PACKAGE_NOISE = frozenset(["sdk", "js", "official"])
# What an organisation's account adds to its project's name ("cypress-io", "astral-sh", "gohugoio").
_ORG_SUFFIXES = ("-io", "io", "-sh", "-dev", "-hq", "hq", "-labs", "-inc", "-oss", "-org", "database")


def _same_words(a: str, b: str, table: Table) -> bool:
    """A package or repository path and the prose name its docs give it, the same words in any
    order: "@auth0/auth0-spa-js" / "Auth0 SPA SDK", "@modelcontextprotocol/server-filesystem" /
    "Filesystem MCP Server", "modelcontextprotocol/python-sdk" / "MCP Python SDK"; the prose
    name may leave out the framework a scope's UI package is for ("@radix-ui/react-slot")."""
    for pkg, prose in ((a, b), (b, a)):
        pw, sw = _package_words(pkg, table), _prose_words(prose, table)
        if pw and sw and len(sw) >= 2 and sw <= pw and len(pw & sw) >= 2 \
                and all(table.in_class(w, "ui-framework") for w in pw - sw):
            return True
    return False


def _package_words(name: str, table: Table) -> frozenset[str]:
    """The words of a scoped package or an "owner/repo" path, each as the table's canonical:
    "@auth0/auth0-spa-js" -> {"auth0", "spa"}; empty for other names."""
    k = key(name)
    if " " in k or k.count("/") != 1 or k.startswith(".") or k.startswith("@types/"):
        return frozenset()
    scope, _, package = k.lstrip("@").partition("/")
    owner = _canon(scope, table) or _canon(_org(scope), table) or _org(scope)
    words = [w for w in package.replace(".", "-").translate(_SEPARATORS).split() if w not in _PACKAGE_NOISE]
    words = [w for w in words if w not in (scope, owner, _org(scope))]
    return frozenset([owner] + [_canon(w, table) or singular(w) for w in words]) if words else frozenset()


def _prose_words(name: str, table: Table) -> frozenset[str]:
    """The words of a name written as prose, each as the table's canonical ("Sentry Next.js SDK" ->
    {"sentry", "next.js"}); empty for a one-word name or a path."""
    k = key(name)
    if " " not in k or "/" in k:
        return frozenset()
    return frozenset(_canon(w, table) or singular(w) for w in k.split() if w not in _PACKAGE_NOISE)


def _org(account: str) -> str:
    """An organisation's account name without what the account adds: "cypress-io" -> "cypress"."""
    for suffix in _ORG_SUFFIXES:
        if account.endswith(suffix) and len(account) - len(suffix) >= 3:
            return account[: -len(suffix)]
    return account


class _Tool(NamedTuple):
    """What a GitHub Action or a Terraform provider is called and what it is for."""

    name: str  # "checkout" for "actions/checkout", "aws" for "hashicorp/aws" and "AWS provider"
    target: str  # what it sets up, reports to or manages: "python" for "actions/setup-python"
    owner: str  # the account that publishes it ("" for a prose name)
    ref: bool  # written as a reference ("owner/repo"), not as prose


def _same_tool(a: str, b: str, table: Table) -> bool:
    """An action's or a provider's reference and the name its docs give it: "actions/checkout" /
    "checkout action", "codecov/codecov-action" / "Codecov GitHub Action", "hashicorp/aws" /
    "Terraform AWS Provider", "integrations/github" / "GitHub provider"."""
    for tool in (_action, _provider):
        ta, tb = tool(a, table), tool(b, table)
        if ta and tb and ta.ref and tb.ref:  # "registry.terraform.io/hashicorp/aws" / "hashicorp/aws"
            return ta.owner == tb.owner and _one_name(ta.name, tb.name, table)
        ta = ta or (_as_ref(a) if tb and not tb.ref else None)
        tb = tb or (_as_ref(b) if ta and not ta.ref else None)
        if ta and tb and any(_same_name(x, y, table) for x, y in _tool_names(ta, tb)):
            return True
    return False


def _tool_names(ta: _Tool, tb: _Tool) -> list[tuple[str, str]]:
    """The spellings two tools' names are compared in: the name, and the name after its owner's
    ("docker/login-action" is the "Docker Login Action")."""
    return [(ta.name, tb.name), (f"{_org(ta.owner)} {ta.name}", tb.name), (ta.name, f"{_org(tb.owner)} {tb.name}")]


def _as_ref(name: str) -> _Tool | None:
    """A plain "owner/repo" path read as an action's or a provider's reference, when the other
    name says it is one ("peter-evans/create-pull-request" / "Create Pull Request action")."""
    k = key(name)
    owner, slash, repo = k.partition("/")
    if " " in k or not slash or "/" in repo or k.startswith(("@", ".")) or len(repo) < 2:
        return None
    return _Tool(" ".join(repo.translate(_SEPARATORS).split()), repo, owner, True)


def _action(name: str, table: Table) -> _Tool | None:
    """A GitHub Action: a reference ("actions/checkout", "aws-actions/configure-aws-credentials",
    "codecov/codecov-action", "pnpm/action-setup", "astral-sh/setup-uv", "github/codeql-action/init":
    a part of the CodeQL action) or a prose name ending "action" ("Codecov GitHub Action")."""
    k = key(name)
    words = loose(name).split()
    if " " in k:
        if len(words) < 2 or words[-1] != "action":
            return None
        core = words[:-2] if words[-2] == "github" else words[:-1]
        return _Tool(" ".join(core), " ".join(core), "", False) if core else None
    segments = k.split("/")
    if len(segments) < 2 or k.startswith(("@", ".")) or "." in segments[0]:
        return None
    owner, repo = segments[0], segments[1]
    parts = repo.translate(_SEPARATORS).split()
    setup = parts[:1] == ["setup"] and len(parts) > 1
    if not (owner == "actions" or owner.endswith("-actions") or setup or {"action", "actions"} & set(parts)):
        return None
    core = [w for w in parts if w not in ("action", "actions", "gh", "github")] or [_org(owner)]
    called = " ".join(core + segments[2:])
    return _Tool(called, " ".join(core[1:]) if setup else " ".join(core), owner, True)


def _provider(name: str, table: Table) -> _Tool | None:
    """A Terraform provider: "terraform-provider-aws" (its repository), "hashicorp/aws" (its
    registry address: a namespace the table's "@provider-publisher" lists, HashiCorp's, publishes
    providers for others' products; its own products' images, "hashicorp/vault", are the products),
    "registry.terraform.io/cloudflare/
    cloudflare", or prose: "AWS provider", "Terraform AWS Provider"."""
    k = key(name)
    if " " in k:
        words = [w for w in loose(name).split() if w != "terraform"]
        if len(words) < 2 or words[-1] != "provider":
            return None
        return _Tool(" ".join(words[:-1]), " ".join(words[:-1]), "", False)
    segments = k.split("/")
    repo = segments[-1]
    if repo.startswith("terraform-provider-") and len(repo) > len("terraform-provider-"):
        target = repo.removeprefix("terraform-provider-")
        return _Tool(target, target, segments[-2] if len(segments) > 1 else "", True)
    host = segments[0] if len(segments) == 3 else ""
    namespace = segments[-2] if len(segments) in (2, 3) else ""
    publisher = table.in_class(namespace, "provider-publisher")
    if host == "registry.terraform.io" or (publisher and host in ("", "registry.terraform.io")
                                           and not _own_product(publisher, namespace, repo, table)
                                           and not _action(name, table)):
        return _Tool(repo, repo, namespace, True)
    return None


def _own_product(publisher: str, namespace: str, name: str, table: Table) -> bool:
    """Whether the table makes a name one of a provider publisher's own products ("hashicorp/vault":
    HashiCorp's Vault), not a provider it publishes for another's."""
    return any(publisher in table.parents_of(n) for n in (name, f"{namespace} {name}"))


def _by_tool(a: str, b: str, table: Table) -> tuple[str | None, str]:
    """An action or a provider is a child of what it is for: "actions/setup-python" / "Python",
    "codecov/codecov-action" / "Codecov", "hashicorp/aws" / "AWS", "github/codeql-action/init" /
    "CodeQL"."""
    ta = _action(a, table) or _provider(a, table)
    if ta is None or not ta.ref or _action(b, table) or _provider(b, table):
        return None, ""
    if any(_same_name(x, b, table) for x in (ta.target, ta.name.split()[0]) if x):
        return "child", "made for it"
    return None, ""


def _unlinked(raw: str, table: Table) -> str:
    """A registry page's address as the package it is (the table's "@registry-page" paths before a
    package's name): "https://www.npmjs.com/package/@scope/x" -> "@scope/x", "hub.docker.com/_/
    postgres" -> "postgres"; a page whose host says what kind of name it is keeps the host
    ("@registry-host-page": "registry.terraform.io/providers/hashicorp/aws" ->
    "registry.terraform.io/hashicorp/aws", a provider's: _provider); other names as they are."""
    k = raw.removeprefix("https://").removeprefix("http://").removeprefix("www.").rstrip("/")
    for page in table.classes.get("registry-page", ()):
        if k.casefold().startswith(page) and len(k) > len(page):
            return k[len(page):]
    for page in table.classes.get("registry-host-page", ()):
        if k.casefold().startswith(page) and len(k) > len(page):
            return f"{page.partition('/')[0]}/{k[len(page):]}"
    return k


def _as_written(name: str, table: Table) -> str:
    """A manifest's spelling of a name as its docs write it: a Python distribution without the
    extras it is installed with ("uvicorn[standard]" is Uvicorn), a .NET package's dotted
    namespace as words ("Serilog.Sinks.Console": a part of Serilog; "Microsoft.EntityFrameworkCore"
    is Microsoft's Entity Framework Core; never "ASP.NET" or "Socket.IO", whose last part is no
    word), a Maven coordinate as its artifact ("org.junit.jupiter:junit-jupiter" is junit-jupiter),
    a registry's page as its package (_unlinked)."""
    raw = _unlinked(name.strip(), table)
    if " " in raw:
        return name
    if raw.endswith("]") and "[" in raw[1:-1]:
        return raw[: raw.index("[")]
    parts = raw.split(".")
    if len(parts) > 1 and all(p[:1].isupper() and p.isalnum() and not p.isupper() for p in parts):
        return " ".join(parts)
    group, colon, artifact = raw.partition(":")
    if colon and "." in group and artifact[:1].isalpha() and "/" not in raw:
        return artifact.partition(":")[0]
    return raw if raw != name.strip() else name


# What a client library's prose name says besides whose it is ("Anthropic Python SDK", "AWS SDK
# for Go", "Prometheus Go client"); the languages a name may be for are the table's "@sdk-language".
_SDK_WORDS = frozenset("sdk client library lib binding package driver api official for the".split())
_LANGUAGE = "sdk-language"


def _same_sdk(package: str, prose: str, table: Table) -> bool:
    """A client library's manifest name and its prose name: "anthropic" / "Anthropic Python SDK",
    "firebase-admin" / "Firebase Admin SDK", "github.com/aws/aws-sdk-go-v2" / "AWS SDK for Go";
    the languages, where both say one, agree ("@sentry/node" is not the "Sentry Python SDK")."""
    raw, words = package.strip(), key(prose).translate(_SEPARATORS).split()  # "Node.js" stays
    if " " in raw or raw != raw.casefold() or len(words) < 2 or not _SDK_WORDS & set(words):
        return False
    owner, _, rest = _hostless(raw.lstrip("@")).rpartition("/")  # "@neondatabase/serverless": Neon's
    parts = f"{_org(owner)}/{rest}".strip("/").replace(".", "-").translate(_SEPARATORS).split()
    pkg_core, pkg_lang = _sdk_core(parts, table)
    prose_core, prose_lang = _sdk_core(words, table)
    plain = _org(owner.rpartition("/")[2]) != rest  # "prometheus/prometheus" is the project, not its client
    same = pkg_core == prose_core or _squashed_equal(_sdk_run(parts, table), _sdk_run(words, table))  # "Gen AI"
    return plain and bool(pkg_core) and same and not (pkg_lang and prose_lang and pkg_lang != prose_lang)


def _sdk_run(words: list[str], table: Table) -> str:
    """A client library's words besides the library words, in order: "google gen ai" for "Google Gen AI SDK"."""
    return " ".join(w for w in words if w not in _SDK_WORDS and not table.in_class(w, _LANGUAGE) and not _version(w))


def _sdk_prose(name: str) -> bool:
    """Whether a name is a client library's prose name ("Sentry Python SDK", "AWS SDK for Go")."""
    words = loose(name).split()
    return len(words) > 1 and bool(_SDK_WORDS & set(words) - {"for", "the", "api"})


def _sdk_core(words: list[str], table: Table) -> tuple[frozenset[str], frozenset[str]]:
    """(whose library it is, the languages it says it is for) of a client library's words."""
    core = frozenset(_canon(w, table) or w for w in words
                     if w not in _SDK_WORDS and not table.in_class(w, _LANGUAGE) and not _version(w))
    return core, frozenset(lang for lang in (table.in_class(w, _LANGUAGE) for w in words) if lang)
