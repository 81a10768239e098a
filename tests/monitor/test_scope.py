"""Where a decision applies: its own words give, clause by clause, the paths it is about, those it exempts,
the languages and the side of the application it names."""

from __future__ import annotations

import pytest

from engram.language import decision_text
from engram.monitor.contradiction import NO
from engram.monitor.offline_checker import check
from engram.monitor.clauses import clauses_of, holding
from engram.monitor.scope import Scope, scope_of, side_of


@pytest.mark.parametrize("text,within,exempt", [
    ("No print() calls outside the cli/ package; use logging.", (), ("cli",)),
    ("No print() calls, except in cli/.", (), ("cli",)),
    ("print is allowed except in cli/.", ("cli",), ()),
    ("print is allowed in scripts/ only.", (), ("scripts",)),
    ("Raw SQL only in migrations/.", (), ("migrations",)),
    ("Overrides for files 'scripts/**/*': 'no-console' is 'off' there.", (), ("scripts",)),
    ("overrides: for files '**/scripts/**/*.js' the rule 'no-console' is 'off'.", (), ("scripts",)),
    ("All schema changes must be migration files in `db/migrations/`.", (), ("db/migrations",)),
    ("Scope: `src/util/**`. Dependency-free.", ("src/util",), ()),
    ("Services never access SQLAlchemy sessions directly.", ("services",), ()),
    ("No raw SQL in the views layer.", ("views",), ()),
    ("Never commit secrets to the repository.", (), ()),
    ("Do not import sqlalchemy outside the db layer.", (), ("db",)),
    ("Only the repository module may import sqlalchemy.", (), ("repository",)),
    ("Only repositories may import sqlalchemy.", (), ("repositories",)),
    ("Only src/db/ may import psycopg2.", (), ("src/db",)),
    ("sqlalchemy may only be imported in the repository module.", (), ("repository",)),
    ("Only admins may delete users.", (), ()),
    ("Tests may use time.sleep.", (), ("test files",)),
    ("Never import pdb, except in tests.", (), ("test files",)),
    ("Keep test_*.py exclusively for unit tests in the `tests/` directory.", (), ("tests",)),
])  # fmt: skip
def test_scope_of(text, within, exempt):
    assert scope_of(text) == Scope(within, exempt)


def test_trailing_punctuation_is_not_part_of_the_path():
    assert scope_of("Never print, except in scripts/.").exempt == ("scripts",)
    assert scope_of("Keep src/util/. dependency-free").within == ("src/util",)


def test_a_layer_matches_its_files_by_name():
    repos = Scope(within=("repositories",))
    assert repos.applies("src/persistence/document_repo.py") and repos.applies("app/repositories/users.py")
    assert repos.applies("backend/user_repository.py") and not repos.applies("app/api/users.py")
    controllers = Scope(within=("controllers",))
    assert controllers.applies("src/transfers/transfers.controller.ts") and not controllers.applies("src/transfers/dto.ts")


def test_a_layer_word_naming_a_kind_of_thing_is_no_layer():
    assert scope_of("Credentials (API keys, tokens) are never logged.") == Scope((), ())


def _node(text: str) -> dict:
    return {"id": "d0", "name": text, "description": text, "data": decision_text.parse(text)}


def _diff(path: str, line: str) -> str:
    return f"--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,3 @@\n def main():\n     run()\n+{line}\n"


def test_outside_is_an_exemption_end_to_end():
    """The audit's inversion: a print in cli/ was warned, one elsewhere missed."""
    d = [_node("No print() calls outside the cli/ package; use logging.")]
    assert check(d, "cli/main.py", _diff("cli/main.py", '    print("done")')).verdict == NO
    assert check(d, "core/engine.py", _diff("core/engine.py", '    print("starting")')).warns


@pytest.mark.parametrize("text,languages,sides", [
    ("Never use print() in Python code.", ("python",), ()),
    ("Never use console.log in TypeScript files.", ("js",), ()),
    ("Do not use panic in Go code.", ("go",), ()),
    ("TypeScript files must not use any.", ("js",), ()),
    ("Use the TypeScript compiler's strict mode.", (), ()),
    ("No inline styles in the frontend.", (), ("frontend",)),
    ("Backend code must not import React.", (), ("backend",)),
    ("The frontend never calls the database directly.", (), ("frontend",)),
    ("Never hard-code colours in the UI.", (), ("frontend",)),
    ("Ask the frontend team first.", (), ()),
])  # fmt: skip
def test_a_language_or_a_side_is_no_folder(text, languages, sides):
    assert scope_of(text) == Scope((), (), languages, sides)


def test_a_side_rules_out_only_a_file_known_to_be_of_the_other():
    front, back = Scope(sides=("frontend",)), Scope(sides=("backend",))
    assert side_of("src/Cart.tsx") == "frontend" and side_of("server/http.ts") == "backend" and side_of("src/a.ts") is None
    assert front.applies("src/lib/a.ts") and front.applies("web/src/Cart.tsx") and not front.applies("app/api/users.py")
    assert back.applies("app/models.py") and back.applies("src/a.ts") and not back.applies("frontend/src/api.ts")


def test_the_tests_as_a_word_are_the_test_files_and_as_a_path_a_folder():
    assert not Scope(exempt=("test files",)).applies("src/test_parser.py")
    assert Scope(exempt=("tests",)).applies("src/test_parser.py") and not Scope(exempt=("tests",)).applies("tests/a.py")


def test_a_component_is_a_kind_of_file():
    assert Scope(within=("components",)).applies("src/ui/Cart.tsx") and not Scope(within=("components",)).applies("src/a.ts")


def _scopes(text: str) -> list[tuple[str, Scope]]:
    return [(c.text, c.scope) for c in clauses_of(text)]


def test_a_path_scopes_the_clause_that_states_it():
    text = "Use Decimal for money in billing/, and never log card numbers."
    assert _scopes(text) == [("Use Decimal for money in billing/", Scope(("billing",))),
                             ("never log card numbers.", Scope())]
    assert holding(text, "billing/charge.py") == text and holding(text, "api/orders.py") == "never log card numbers."


def test_a_clause_that_elaborates_keeps_the_scope_it_elaborates():
    assert [s for _, s in _scopes("Use Decimal for money in billing/, and never use float for money.")] == [
        Scope(("billing",)), Scope(("billing",))]  # the same subject
    assert [s for _, s in _scopes("Never import requests in src/core/; use httpx.")] == [
        Scope(("src/core",)), Scope(("src/core",))]  # what to use instead
    assert [s for _, s in _scopes('NEVER use the "as" keyword in TypeScript. Use of "as" is strictly prohibited.')] == [
        Scope(languages=("js",)), Scope(languages=("js",))]
    assert holding("Services never open sessions. They call repositories.", "app/api/users.py") is None  # a pronoun


def test_a_heading_or_a_lead_scopes_every_clause_it_heads():
    assert {s for _, s in _scopes("Scope: src/util/. Never import requests; never print.")} == {Scope(("src/util",))}
    assert holding("In billing/, use Decimal for money, and never log card numbers.", "api/orders.py") is None


def test_an_exemption_is_the_decisions():
    text = "Never use print(). print is allowed in scripts/."
    assert holding(text, "scripts/seed.py") is None and holding(text, "app/seed.py") == text
    assert holding("Never call time.sleep; tests may use time.sleep.", "tests/test_retry.py") is None
