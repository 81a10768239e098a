"""What the offline checker reads in a decision's words (engram.monitor.decision_rules and the
readings the rules share): prohibitions in varied phrasing, limits, places, layers, protected
paths. Each rule's own cases are its fixtures (test_rule_catalogue.py)."""

from __future__ import annotations

import pytest

from engram.monitor import decision_rules, tech_terms
from engram.monitor.offline_checker import all_matches
from engram.monitor.readings import imports, protected_paths, tool_families
from engram.monitor.rules.registry import cued

from testing.decisions import diff, node

SHELL = "Avoid `os.system` and `subprocess(shell=True)` in the build tools."
SEEDS = "NEVER include `delete_all` in seeds. Never call TRUNCATE."
VENDOR = "Never edit files in `vendor/`; update the pinned copy with the sync script instead."


@pytest.mark.parametrize("text,forbids", [
    ("This project uses pnpm: never run npm install, npx or yarn.", {"npm install", "npx", "yarn"}),
    ("We standardise on httpx; requests is not used.", {"requests"}),
    ("Use uv; add dependencies with uv add instead of pip install.", {"pip install"}),
    ("Never run containers as root.", set()),
    ("Do NOT use floating versions, ranges, wildcards, or latest.", set()),
])  # fmt: skip
def test_prohibitions_from_varied_phrasing(text, forbids):
    r = decision_rules.rules_for(node(text))
    assert {t.canon or t.forms[0] for t in r.forbids} == forbids


def test_verb_first_rules_and_capped_limits():
    r = decision_rules.rules_for(node("HTTP request timeouts are capped at 30 seconds."))
    assert [(lim.words, lim.op, lim.value) for lim in r.limits] == [(frozenset({"timeout"}), "<=", 30.0)]
    r = decision_rules.rules_for(node("Adopt structured logging using the `structlog` library."))
    assert [t.canon for t in r.requires] == ["structlog"]
    r = decision_rules.rules_for(node("Pagination: MAX_PAGE_SIZE: 100."))
    assert [(lim.words, lim.value) for lim in r.limits] == [(frozenset({"page", "size"}), 100.0)]


def test_limits_in_more_phrasings():
    got = {(lim.subject, lim.op, lim.value, lim.measure) for lim in decision_rules.limits_in(
        "Keep responses under 50 items per page; handlers ≤ 30 LOC; uploads smaller than 5 MB.")}
    assert ("per page", "<", 50.0, "") in got and ("handlers", "<=", 30.0, "lines") in got
    assert not any(lim.subject == "uploads" for lim in decision_rules.limits_in("Uploads must be smaller than 5 MB."))


def test_a_prohibition_requires_nothing():
    assert decision_rules.rules_for(node("UPDATE and DELETE on ledger_events are not allowed.")).required == []
    assert decision_rules.rules_for(node("Keep `status` on every job row.")).required == ["status"]


def test_call_with_arguments_is_no_term():
    rules = decision_rules.rules_for(node(SHELL))
    assert "os.system" in [t.phrase for t in rules.forbids]
    assert not any("subprocess" in t.forms for t in rules.forbids)


def test_places_of_a_prohibition():
    (term,) = [t for t in decision_rules.rules_for(node(SEEDS)).forbids if "delete_all" in t.forms]
    assert term.places == ("seeds",)


def test_forbidden_import_layers():
    boundaries = 'Scope: src/core/. Boundaries: {"layer": "core", "must_not_import": ["ui", "adapters"]}'
    assert imports.forbidden_layers(boundaries) == ["ui", "adapters"]
    domain = "The domain layer never imports from persistence or from the web layer."
    assert imports.forbidden_layers(domain) == ["persistence"]  # "the web layer": no one name


def test_protected_paths_are_the_verbs_object():
    assert protected_paths.protected("Do not put secrets in `config/`.") == ([], [])
    assert protected_paths.protected("Do not put business logic in `src/components/`.") == ([], [])
    found, allowed = protected_paths.protected("You may not edit `gen/` (except `gen/README.md`).")
    assert [p.pattern for p in found] == ["gen/"] and allowed == ["gen/README.md"]


def test_every_match_names_its_rule():
    matches = all_matches([node(VENDOR)], "vendor/x/a.js", diff("vendor/x/a.js", "-a", "+b"))
    assert {m["mechanism"] for m in matches} == {"path:protected"}


@pytest.mark.parametrize("text", [
    "Use the app's logger, not print.", "Run the tests before pushing.", "Keep the README short.",
    "All API responses are JSON.",
])  # fmt: skip
def test_unrelated_decisions_switch_no_cued_rule_on(text):
    assert cued(text) == []


def test_a_rule_about_tests_governs_test_files_only():
    assert decision_rules.rules_for(node("Tests must not sleep; avoid fixed waits.")).tests_only
    assert not decision_rules.rules_for(node("Disallow disabled tests.")).tests_only  # a lint rule, read in the test files


def test_family_members_are_roles_and_a_tools_files_are_not_its_spellings():
    assert "zustand" in tech_terms.ROLES["state management library"]
    assert "yarn.lock" not in tool_families.code_forms(("yarn", "yarn.lock"))
    assert tech_terms.canonical("poetry.lock") is None
