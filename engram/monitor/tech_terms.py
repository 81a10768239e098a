"""What the offline contradiction checker knows about technologies: names and roles.

ALIASES maps a canonical name to the spellings code uses for it (package, import,
module, image names), read from the one curated table of names (engram/language/aliases.py). ROLES groups canonicals that do the same job: a decision that
requires SQLite or forbids Redis for a queue is undermined by a diff that brings in
RabbitMQ, even though it never names either (an *indirect* contradiction).

The tables are deliberately small and hand-checked. Two guards keep them from raising
false alarms: LANGS restricts a name to the languages where it means the library
(`got` is a JS HTTP client but also Go's idiomatic test variable), and only names in
DISTINCT may match inside compound identifiers (`RedisCache`, `redis_url`) - a common
word like `print` or `requests` must match a whole identifier.
"""

from __future__ import annotations

from engram.language import aliases
from engram.monitor.readings import tool_families

# The canonicals the checker reasons about; their spellings come from the one curated
# table (engram/language/aliases.txt): aliases, plus parts such as drivers and client libraries.
CANONICALS = (
    "postgresql", "mysql", "mariadb", "sqlite", "mongodb", "dynamodb",
    "redis", "valkey", "memcached", "rabbitmq", "kafka", "celery", "sqs", "nats", "zeromq",
    "requests", "httpx", "aiohttp", "urllib.request", "axios", "fetch", "got", "superagent", "ky", "reqwest", "ureq",
    "logging", "print", "stdout", "console", "loguru", "structlog", "pino", "winston", "bunyan", "slog", "logrus",
    "zap", "zerolog", "fmt.print", "println", "env_logger", "system.out",
    "pickle", "shelve", "marshal", "json", "msgpack",
    "threading", "multiprocessing", "asyncio", "trio", "gevent",
    "rustls", "openssl", "native-tls", "tokio", "async-std", "smol",
    "moment", "date-fns", "dayjs", "luxon",
    "pytest", "unittest", "nose", "jest", "mocha", "vitest",
    "graphql", "zod", "yup", "joi", "ajv", "io-ts", "class-validator", "valibot", "pydantic", "marshmallow",
    "localstorage", "sessionstorage", "indexeddb", "auto-increment",
    "bcrypt", "argon2", "scrypt", "pbkdf2", "md5", "sha1", "sha256",
    "prisma", "typeorm", "sequelize", "drizzle orm", "sqlalchemy", "mongoose",
    "tailwind css", "styled-components", "emotion", "sass", "lodash", "underscore", "ramda", "tracing", "log",
    "jwt", "express-session",
)  # fmt: skip
ALIASES: dict[str, tuple[str, ...]] = {c: aliases.table().forms(c) for c in CANONICALS}
CANONICALS += tuple(dict.fromkeys(m for ms in tool_families.FAMILIES.values() for m in ms if m not in ALIASES))
ALIASES |= {c: tool_families.code_forms(aliases.table().forms(c)) for c in CANONICALS if c not in ALIASES}

ROLES: dict[str, tuple[str, ...]] = {
    "database": ("postgresql", "mysql", "mariadb", "sqlite", "mongodb", "dynamodb"),
    "queue or cache backend": ("redis", "valkey", "memcached", "rabbitmq", "kafka", "celery", "sqs", "nats", "zeromq"),
    "HTTP client": ("requests", "httpx", "aiohttp", "urllib.request", "axios", "fetch", "got", "superagent", "ky",
                    "reqwest", "ureq"),
    "logging": ("logging", "print", "stdout", "console", "loguru", "structlog", "pino", "winston", "bunyan",
                "slog", "logrus", "zap", "zerolog", "fmt.print", "println", "env_logger", "system.out", "tracing", "log"),
    "serialization": ("pickle", "shelve", "marshal", "json", "msgpack"),
    "concurrency": ("threading", "multiprocessing", "asyncio", "trio", "gevent"),
    "TLS": ("rustls", "openssl", "native-tls"),
    "async runtime": ("tokio", "async-std", "smol"),
    "date library": ("moment", "date-fns", "dayjs", "luxon"),
    "test framework": ("pytest", "unittest", "nose", "jest", "mocha", "vitest"),
    "validation library": ("zod", "yup", "joi", "ajv", "io-ts", "class-validator", "valibot", "pydantic",
                           "marshmallow"),
    "browser storage": ("localstorage", "sessionstorage", "indexeddb"),
    "password hashing": ("bcrypt", "argon2", "scrypt", "pbkdf2", "md5", "sha1", "sha256"),
    "ORM": ("prisma", "typeorm", "sequelize", "drizzle orm", "sqlalchemy", "mongoose"),
    "styling": ("tailwind css", "styled-components", "emotion", "sass"),
    "utility library": ("lodash", "underscore", "ramda"),
    "session mechanism": ("jwt", "express-session"),
}
for _role, _members in tool_families.FAMILIES.items():  # more families of tools, one fact each
    ROLES[_role] = tuple(dict.fromkeys(ROLES.get(_role, ()) + _members))

# A role member counts only on a line that also mentions one of these words.
ROLE_CONTEXT: dict[str, tuple[str, ...]] = {
    "password hashing": ("password", "passwd", "pwd", "passphrase"),
}

# Names that mean the library only in some languages ("py", "js", "go", "rust"; config
# files count as every language).
LANGS: dict[str, tuple[str, ...]] = {
    "got": ("js",), "ky": ("js",), "fetch": ("js",), "superagent": ("js",), "axios": ("js",),
    "console": ("js",), "pino": ("js",), "winston": ("js",), "bunyan": ("js",),
    "requests": ("python",), "httpx": ("python",), "aiohttp": ("python",), "urllib.request": ("python",),
    "print": ("python",), "stdout": ("python",), "logging": ("python",), "pickle": ("python",),
    "shelve": ("python",), "marshal": ("python",), "threading": ("python",), "multiprocessing": ("python",),
    "asyncio": ("python",), "trio": ("python",), "gevent": ("python",), "unittest": ("python",),
    "slog": ("go",), "logrus": ("go",), "zap": ("go",), "zerolog": ("go",), "fmt.print": ("go",),
    "println": ("rust",), "env_logger": ("rust",), "reqwest": ("rust",), "ureq": ("rust",),
    "system.out": ("clike",), "md5": ("python", "js", "go"), "sha1": ("python", "js", "go"),
    "sha256": ("python", "js", "go"), "json": ("python",), "zod": ("js",), "yup": ("js",), "joi": ("js",),
    "ajv": ("js",), "io-ts": ("js",), "class-validator": ("js",), "valibot": ("js",), "pydantic": ("python",),
    "marshmallow": ("python",), "localstorage": ("js",), "sessionstorage": ("js",), "indexeddb": ("js",),
    "prisma": ("js",), "typeorm": ("js",), "sequelize": ("js",), "drizzle orm": ("js",), "mongoose": ("js",),
    "sqlalchemy": ("python",), "styled-components": ("js",), "emotion": ("js",), "lodash": ("js",),
    "underscore": ("js",), "ramda": ("js",), "tracing": ("rust",), "log": ("go", "rust"), "express-session": ("js",),
    "tailwind css": ("js",),
}  # fmt: skip
LANGS.update(tool_families.LANGS)

# Distinctive names: also matched as a part of a compound identifier (RedisCache, redis_url).
DISTINCT = frozenset({
    "postgresql", "postgres", "mysql", "mariadb", "sqlite", "sqlite3", "mongodb", "dynamodb", "redis", "ioredis",
    "memcached", "memcache", "rabbitmq", "kafka", "celery", "axios", "logrus", "zerolog", "openssl", "rustls",
    "pickle", "bcrypt", "argon2", "pytest", "unittest", "httpx", "aiohttp", "tokio", "valkey",
    "graphql", "localstorage", "sessionstorage", "indexeddb", "pydantic", "marshmallow", "prisma", "typeorm",
    "sequelize", "sqlalchemy", "mongoose",
})

# Names that are also everyday words or variable names (`requests = []`, `got := f()`):
# in source code they count only in a library-shaped use (an import, `requests.get(`).
AMBIGUOUS = frozenset({
    "requests", "fetch", "got", "print", "console", "logging", "json", "thread", "threads", "threading", "marshal",
    "shelve", "nose", "zap", "ky", "serial", "mocha", "jest", "trio", "moment", "smol", "mongo", "amqp", "motor",
    "pg", "slog", "joi", "yup", "ajv", "celery", "nats", "sqs", "scrypt", "md5", "sha1", "sha256", "sha512",
    "log", "tracing", "emotion", "underscore", "jwt",
})
AMBIGUOUS |= tool_families.AMBIGUOUS

# Names that mean the library only where the change imports them whole (`"log"`, `use log::`):
# `log.Debug()` is as likely zerolog's log package as Go's.
IMPORT_ONLY = frozenset({"log"})

# "X, but not Y": spellings that contain a forbidden name yet are a different thing.
NOT_THE_SAME: dict[str, tuple[str, ...]] = {
    "unittest": ("unittest.mock", "from unittest import mock"),
    "redis": ("fakeredis",),
    "json": ("jsonschema", "json5"),
}

_FORM_INDEX: dict[str, str] = {}
for _canon, _forms in ALIASES.items():
    for _f in (_canon,) + _forms:
        _FORM_INDEX.setdefault(_f.lower(), _canon)


def canonical(term: str) -> str | None:
    """The canonical name for a spelling ("psycopg2" -> "postgresql"), or None if unknown."""
    t = term.lower().strip()
    if t in _FORM_INDEX:
        return _FORM_INDEX[t]
    for suffix in (".js", "js", "-py", ".py", " library", " module", " crate", " package"):
        if t.endswith(suffix) and t[: -len(suffix)] in _FORM_INDEX:
            return _FORM_INDEX[t[: -len(suffix)]]
    return None


MANIFESTS = {
    "package.json": "js", "package-lock.json": "js", "cargo.toml": "rust", "go.mod": "go",
    "pyproject.toml": "python", "setup.cfg": "python", "setup.py": "python", "pipfile": "python",
}  # fmt: skip


def manifest_language(path: str) -> str | None:
    """The language whose dependencies a manifest file lists (requirements*.txt is Python)."""
    name = path.rsplit("/", 1)[-1].lower()
    if name.startswith("requirements") and name.endswith(".txt"):
        return "python"
    return MANIFESTS.get(name)


def applies_to(canon: str, lang: str, path: str = "") -> bool:
    """Whether a name means the library in this file.

    A language-bound name (LANGS) counts in source of that language and in that
    language's manifest; in other configuration files (YAML, Dockerfiles) only the
    language-neutral names count (images and services: mysql, redis, ...).
    """
    langs = LANGS.get(canon)
    if not langs:
        return True
    if lang in ("hash", "json", "other"):
        return manifest_language(path) in langs
    return lang in langs
