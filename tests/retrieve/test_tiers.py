"""Tiers by activation, each tier's line, implicit-decision framing, a name said once."""

from __future__ import annotations

import pytest

from engram.retrieve import tiers


def _node(i: int, **kw) -> dict:
    base = {"id": f"n{i:03d}", "name": f"node {i}", "type": "finding", "summary": f"summary {i}",
            "description": f"The full description, number {i}. It has a second sentence.",
            "affected_files": '["src/a.py"]', "data": "{}", "updated_at": "t"}
    base.update(kw)
    return base


@pytest.mark.parametrize("act,level", [(0.95, tiers.FULL), (0.71, tiers.FULL), (0.7, tiers.SUMMARY),
                                       (0.3, tiers.SUMMARY), (0.29, tiers.LOW), (0.1, tiers.LOW)])
def test_tier_boundaries(act, level):
    assert tiers.tier(act) == level


def test_each_tier_gives_its_form():
    n = _node(1)
    assert tiers.line(n, tiers.FULL) == ("- Finding: node 1 — The full description, number 1. It has a second "
                                         "sentence. [files: src/a.py]")
    assert tiers.line(n, tiers.SUMMARY) == "- Finding: node 1 — summary 1 [files: src/a.py]"
    assert tiers.line(n, tiers.LOW) == "node 1"
    assert tiers.line(n, tiers.SUMMARY, labelled=False) == "- node 1 — summary 1 [files: src/a.py]"


def test_implicit_decision_keeps_observed_pattern_framing():
    implicit = _node(1, type="decision", data='{"explicit": false}', name="Retries live in fetch()")
    explicit = _node(2, type="decision", data='{"explicit": true, "rationale": "rate limits"}')
    assert tiers.line(implicit, tiers.FULL).startswith(
        "- Observed pattern (implemented without a stated decision): Retries live in fetch()")
    assert tiers.line(explicit, tiers.FULL).startswith("- Decision: node 2") and "Because: rate limits" in \
        tiers.line(explicit, tiers.FULL)


def test_summary_falls_back_to_first_sentence():
    n = _node(1, summary="")
    assert tiers.line(n, tiers.SUMMARY) == "- Finding: node 1 — The full description, number 1. [files: src/a.py]"


def test_a_description_that_repeats_the_name_is_not_said_twice():
    n = _node(1, name="npm test failed (exit 1): src/a.ts(3,1): err…", summary="",
              description="npm test failed (exit 1): src/a.ts(3,1): error TS2307. Fixed in b.ts.")
    assert tiers.line(n, tiers.FULL) == (
        "- Finding: npm test failed (exit 1): src/a.ts(3,1): error TS2307. Fixed in b.ts. [files: src/a.py]")


def test_a_long_path_cut_from_its_start_is_found_in_its_description_and_shown_once():
    path = "services/protocol-processor-service/src/protocol_processor/tools/unit_normalizer.py"
    n = _node(1, name="…" + path[-60:], summary="", description=f"{path}: Unit and value normalizer.")
    assert tiers.line(n, tiers.FULL, labelled=False).count("unit_normalizer.py") == 1


def test_a_name_with_markup_characters_is_found_in_its_description_and_shown_once():
    desc = "After npm run build 2>&1 | head -50: The fixes have been pushed to PR #379. Tests <b>pass</b>."
    n = _node(1, name="After npm run build 2>&1 | head -50: The fixes have been pushed…", summary="",
              description=desc)
    for level in (tiers.FULL, tiers.SUMMARY):
        text = tiers.line(n, level)
        assert text.count("After npm run build") == 1, text
        assert ">" not in text and "<" not in text  # neutralised after the comparison
    assert tiers.line(n, tiers.FULL).startswith("- Finding: After npm run build 2›&1 | head -50: The fixes")


def test_a_framed_decision_says_its_name_and_framing_once():
    n = _node(1, type="decision", name="Use httpx", data='{"explicit": true}',
              description="Decision: Use httpx for HTTP because it supports async")
    assert tiers.line(n, tiers.FULL) == "- Decision: Use httpx for HTTP because it supports async [files: src/a.py]"


def test_long_text_is_cut_at_a_word_boundary():
    n = _node(1, description="alpha " * 200)
    text = tiers.line(n, tiers.FULL)
    assert "alpha…" in text and "alph…" not in text.replace("alpha…", "")


def test_an_episode_shows_its_goal_and_outcome_not_its_activity():
    ep = _node(1, type="episode", name="Episode: Fix the parser", data='{"outcome": "success"}',
               description="Fix the parser — The agent read 3 file(s); edited 2 file(s). Outcome: success.",
               updated_at="2026-11-30T10:00:00Z")
    assert tiers.line(ep, tiers.SUMMARY, labelled=False) == "- Fix the parser (outcome: success, 2026-11-30)"


def test_a_library_is_named_only_whatever_its_activation():
    lib = _node(2, type="concept", name="sqlalchemy", data='{"kind": "library"}',
                description="Third-party library sqlalchemy, imported in libs/shared/models.py.")
    assert tiers.level(lib, 0.95) == tiers.LOW and tiers.line(lib, tiers.LOW) == "sqlalchemy"


@pytest.mark.parametrize("kw", [{}, {"affected_files": "[]"}, {"description": "", "summary": "", "name": ""},
                                {"affected_files": '["' + "/".join(["deep"] * 150) + '.py", "b c.py", "x"]'},
                                {"type": "episode"}, {"data": '{"kind": "command"}'},
                                {"name": "a <b>\nc", "affected_files": '["<tag>\\u2028.py"]'}])
def test_least_is_a_lower_bound_of_the_line(kw):
    """Rendering skips a line whose `least` does not fit, so it must never count more than the line."""
    n = _node(1, **kw)
    for level in (tiers.FULL, tiers.SUMMARY):
        assert tiers.least(dict(n), level) <= tiers.tokens(tiers.line(dict(n), level, labelled=False))


def test_the_last_sessions_requests_give_way_before_its_last_reply():
    """Four long requests had left the last session's line "Its last reply: "Good, confirmed…"."""
    reply = "Confirmed the registerStudent call; the trainer DTOs still miss stats.rating, next: map them."
    desc = 'Last session (2026-03-18) asked: "' + "please fix the CMS connection " * 30 + '". Its last reply: "' + reply + '"'
    n = _node(1, name="The last session", description=desc, data='{"kind": "unfinished", "key": "last-session"}')
    body = tiers.body(n, tiers.FULL)
    assert body.endswith(reply + '"') and body.startswith("Last session (2026-03-18) asked: \"please fix")
    assert len(body) <= tiers.MAX_DESCRIPTION


def test_a_rules_file_whose_heading_is_its_name_says_it_once():
    n = _node(1, name="CLAUDE.md", data='{"rules": true, "role": "CLAUDE.md"}')
    assert tiers.body(n, tiers.FULL) == "The project's rules for the agent are in CLAUDE.md"
