"""What kind of thing a decision chooses, and the words a concern names that kind with.

Two choices of one kind (two databases, two CI systems, two test runners) made for one
concern are alternatives, however each decision words the concern: "Use MySQL for the
orders database" and "Orders are stored in Postgres now" settle one question, "Deploy the
API to Heroku" and "We host the API on Fly.io" another. The words that name the kind or
what it does ("database", "stored"; "deploy", "host") say what was chosen, not for what,
so supersession (graph/supersession.py) compares the two concerns without them, and what
is left must still match: "Deploy the frontend to Vercel" and "Deploy the backend to
Railway" keep {frontend} and {backend}, two concerns.

The members of each kind are classes of the one table of names (`@kind-database
PostgreSQL, MySQL, ...` in aliases.txt), so a name is found under any of its aliases; the
words are below, read the way a decision's subject is (aliases.concern_words).
"""

from __future__ import annotations

from engram.graph import aliases

PREFIX = "kind-"
# kind -> the words a decision's subject names it, or its job, with
KIND_WORDS: dict[str, str] = {
    "database": "database db datastore store stored storage persistence persist",
    "cache": "cache caching",
    "message-broker": "queue message messaging broker bus event stream streaming topic pubsub",
    "job-queue": "job task background worker queue",
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
    "secrets": "secret credential",
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
}
_MEMBERS: list[dict[str, set[str]]] = []


def _members() -> dict[str, set[str]]:
    """A member's key (its canonical name where the table knows it) -> its kinds."""
    if not _MEMBERS:
        out: dict[str, set[str]] = {}
        for cls, members in aliases.table().classes.items():
            if cls.startswith(PREFIX):
                for m in members:
                    out.setdefault(m, set()).add(cls[len(PREFIX):])
        _MEMBERS.append(out)
    return _MEMBERS[0]


def kinds(phrase: str) -> set[str]:
    """The kinds of the names a choice's phrase holds ("pnpm workspaces": js-package-manager;
    "Postgres 16": database): each name the table knows, longest first, and the names it is
    a part of."""
    table, members = aliases.table(), _members()
    words = phrase.split()
    out: set[str] = set()
    i = 0
    while i < len(words):
        for n in range(min(4, len(words) - i), 0, -1):
            name = " ".join(words[i:i + n])
            known = table.canonical(name)
            found = [k for c in ([known] + table.parents_of(name) if known else [aliases.key(name)])
                     for k in members.get(c, ())]
            if found:
                out.update(found)
                i += n
                break
        else:
            i += 1
    return out


def shared(a: list[str], b: list[str]) -> set[str]:
    """The kinds both lists of choices have a member of."""
    return {k for p in a for k in kinds(p)} & {k for p in b for k in kinds(p)}


def words(kinds_: set[str]) -> set[str]:
    """The subject words (stemmed, canonical) that name these kinds or their jobs."""
    return aliases.concern_words(" ".join(KIND_WORDS.get(k, "") for k in sorted(kinds_)).split()) if kinds_ else set()
