"""Families of tools that do the same job, for decisions of the shape "We will use X for Y", "X is our
Y", "all Y go through X" (ADRs, CONTRIBUTING files): a change that brings in another member of X's
family (a second state manager, logger, migration tool, test runner, package manager) goes against
the choice without naming it.

Each family is a fact: its members are canonical names of the one alias table
(engram/language/aliases.txt), whose spellings the checker looks for. `LANGS` binds a member to the
languages where the name means the tool; `AMBIGUOUS` lists members that are also everyday words
(`click`, `echo`, `chi`, `mock`), which count only in a library-shaped use (an import, `click.`).
engram.monitor.tech_terms merges these into its ROLES, LANGS and AMBIGUOUS tables.
"""

from __future__ import annotations

import re

FAMILIES: dict[str, tuple[str, ...]] = {
    "state management library": ("redux", "zustand", "mobx", "jotai", "recoil", "pinia", "vuex"),
    "server-state library": ("react-query", "swr"),
    "ORM": ("knex", "mikro-orm", "peewee", "gorm", "diesel", "hibernate"),
    "migration tool": ("alembic", "flyway", "liquibase", "golang-migrate", "goose", "dbmate"),
    "HTTP client": ("node-fetch", "undici", "okhttp", "retrofit"),
    "logging": ("timber", "log4j", "slf4j", "logback", "serilog", "nlog", "monolog"),
    "test framework": ("jasmine", "ava", "tape", "rspec", "minitest", "junit", "testng", "kotest"),
    "browser test framework": ("playwright", "cypress", "puppeteer", "selenium"),
    "date library": ("arrow", "pendulum"),
    "command-line parser": ("argparse", "click", "typer", "docopt", "commander", "yargs", "clap", "cobra"),
    "Go HTTP router": ("gin", "echo", "chi", "fiber", "gorilla/mux"),
    "Node.js web framework": ("express", "fastify", "koa", "hapi"),
    "JSON library": ("jackson", "gson", "moshi"),
    "dependency injection": ("hilt", "dagger", "koin"),
    "image loading library": ("glide", "coil", "picasso"),
    "form library": ("formik", "react-hook-form"),
    "i18n library": ("i18next", "react-intl", "lingui"),
    "bundler": ("webpack", "vite", "rollup", "esbuild", "parcel"),
    "JavaScript linter": ("eslint", "biome", "oxlint"),
    "Python linter": ("ruff", "flake8", "pylint"),
    "Python formatter": ("black", "ruff", "yapf", "autopep8"),
    "Python type checker": ("mypy", "pyright"),
    "Python package manager": ("poetry", "pipenv", "uv", "pdm"),
    "component library": ("mui", "antd", "chakra-ui"),
    "template engine": ("jinja2", "mako"),
}

LANGS: dict[str, tuple[str, ...]] = {
    "redux": ("js",), "zustand": ("js",), "mobx": ("js",), "jotai": ("js",), "recoil": ("js",), "pinia": ("js",),
    "vuex": ("js",), "react-query": ("js",), "swr": ("js",), "knex": ("js",), "mikro-orm": ("js",),
    "peewee": ("python",), "gorm": ("go",), "diesel": ("rust",), "hibernate": ("clike",), "node-fetch": ("js",),
    "undici": ("js",), "okhttp": ("clike",), "retrofit": ("clike",), "timber": ("clike",), "log4j": ("clike",),
    "slf4j": ("clike",), "logback": ("clike",), "serilog": ("clike",), "nlog": ("clike",), "monolog": ("clike",),
    "jasmine": ("js",), "ava": ("js",), "tape": ("js",), "junit": ("clike",), "testng": ("clike",),
    "kotest": ("clike",), "arrow": ("python",), "pendulum": ("python",), "argparse": ("python",),
    "click": ("python",), "typer": ("python",), "docopt": ("python",), "commander": ("js",), "yargs": ("js",),
    "clap": ("rust",), "cobra": ("go",), "gin": ("go",), "echo": ("go",), "chi": ("go",), "fiber": ("go",),
    "gorilla/mux": ("go",), "express": ("js",), "fastify": ("js",), "koa": ("js",), "hapi": ("js",),
    "jackson": ("clike",), "gson": ("clike",), "moshi": ("clike",), "hilt": ("clike",), "dagger": ("clike",),
    "koin": ("clike",), "glide": ("clike",), "coil": ("clike",), "picasso": ("clike",), "formik": ("js",),
    "react-hook-form": ("js",), "i18next": ("js",), "react-intl": ("js",), "lingui": ("js",),
    "mui": ("js",), "antd": ("js",), "chakra-ui": ("js",), "jinja2": ("python",), "mako": ("python",),
    "println": ("rust", "clike"),  # Kotlin's println is stdout as Rust's is
}  # fmt: skip

AMBIGUOUS = frozenset({
    "ava", "tape", "arrow", "click", "commander", "gin", "echo", "chi", "fiber", "express", "dagger", "glide", "coil",
    "black", "uv", "parcel", "rollup", "goose", "hilt", "recoil", "jasmine", "junit", "vite",
})

# A tool's own files (`yarn.lock`, `.eslintrc`, `vite.config.ts`) are not spellings of the tool in code:
# "do not commit `poetry.lock`" is about that file, not about Poetry.
_FILE_NAME = re.compile(r"^\.|\.config\.|\.(?:json|jsonc|lock|lockb|ya?ml|toml|ini|cfg|txt|ts|mjs|cjs)$")


def code_forms(forms: tuple[str, ...]) -> tuple[str, ...]:
    """The spellings of a family member that name the tool, not one of its files."""
    return tuple(f for f in forms if not _FILE_NAME.search(f))
