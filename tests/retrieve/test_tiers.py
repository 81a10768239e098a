"""Tiers by activation, implicit-decision framing, the token budget, deterministic text."""

from __future__ import annotations

import pytest

from engram.retrieve import tiers


def _node(i: int, **kw) -> dict:
    base = {"id": f"n{i:03d}", "name": f"node {i}", "type": "finding", "summary": f"summary {i}",
            "description": f"The full description of node {i}. It has a second sentence.",
            "affected_files": '["src/a.py"]', "data": "{}", "updated_at": "t"}
    base.update(kw)
    return base


@pytest.mark.parametrize("act,level", [(0.95, tiers.FULL), (0.71, tiers.FULL), (0.7, tiers.SUMMARY),
                                       (0.3, tiers.SUMMARY), (0.29, tiers.LOW), (0.1, tiers.LOW)])
def test_tier_boundaries(act, level):
    assert tiers.tier(act) == level


def test_each_tier_renders_its_form():
    text, shown = tiers.render([(_node(1), 0.9), (_node(2), 0.5), (_node(3), 0.2)], 1000, "H")
    lines = text.split("\n")
    assert lines[0] == "H"
    assert "The full description of node 1. It has a second sentence." in lines[1]
    assert lines[2].startswith("- Finding: node 2 — summary 2")
    assert "full description of node 2" not in text
    assert lines[3].startswith(tiers.LOW_PREFIX) and "node 3" in lines[3]
    assert "summary 3" not in text
    assert shown == [("n001", tiers.FULL), ("n002", tiers.SUMMARY), ("n003", tiers.LOW)]


def test_implicit_decision_keeps_observed_pattern_framing():
    implicit = _node(1, type="decision", data='{"explicit": false}', name="Retries live in fetch()")
    explicit = _node(2, type="decision", data='{"explicit": true, "rationale": "rate limits"}')
    text, _ = tiers.render([(implicit, 0.9), (explicit, 0.9)], 1000, "H")
    assert "- Observed pattern (implemented without a stated decision): Retries live in fetch()" in text
    assert "- Decision: node 2" in text and "Because: rate limits" in text


def test_summary_falls_back_to_first_sentence():
    n = _node(1, summary="")
    assert tiers.line(n, tiers.SUMMARY) == "- Finding: node 1 — The full description of node 1. [files: src/a.py]"


@pytest.mark.parametrize("budget", [20, 50, 120, 400])
def test_token_budget_is_respected(budget):
    items = [(_node(i, description="word " * 80), 0.9 - i * 0.001) for i in range(60)]
    text, shown = tiers.render(items, budget, "Header line")
    if text is not None:
        assert tiers.tokens(text) <= budget
    assert len(shown) < 60


def test_entries_that_do_not_fit_are_demoted_before_dropped():
    big = _node(1, description="x " * 400)
    text, shown = tiers.render([(big, 0.9)], 60, "H")
    assert shown == [("n001", tiers.SUMMARY)]
    assert tiers.tokens(text) <= 60


def test_render_is_deterministic():
    items = [(_node(i), 0.5) for i in range(10)]
    assert tiers.render(items, 200, "H") == tiers.render(list(items), 200, "H")


def test_nothing_fits_gives_none():
    assert tiers.render([(_node(1), 0.9)], 2, "a long header that eats the budget") == (None, [])


def test_a_description_that_repeats_the_name_is_not_said_twice():
    n = _node(1, name="npm test failed (exit 1): src/a.ts(3,1): err…", summary="",
              description="npm test failed (exit 1): src/a.ts(3,1): error TS2307. Fixed in b.ts.")
    assert tiers.line(n, tiers.FULL) == (
        "- Finding: npm test failed (exit 1): src/a.ts(3,1): error TS2307. Fixed in b.ts. [files: src/a.py]")
