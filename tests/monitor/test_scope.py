"""Where a decision applies: its own words give the paths it is about and those it exempts."""

from __future__ import annotations

import pytest

from engram.graph import decision_text
from engram.monitor.contradiction import NO
from engram.monitor.offline_checker import check
from engram.monitor.scope import Scope, scope_of


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
