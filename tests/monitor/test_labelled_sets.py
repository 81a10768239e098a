"""Structural checks of the held-out labelled sets of rounds 4 and 5 (tests/monitor/real_rules4.json,
real_rules5.json): each parses, is large enough, is held out whole under its split, says why each
label is right, and shares no rule with an earlier set. No checker runs on them here: their figures
are the bench's (bench/contradiction_quality.py), and round 5's is never tuned on."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from testing.decisions import rules_and_decisions

HERE = Path(__file__).parent
LABELS = {"DIRECT_CONTRADICTION", "INDIRECT_CONTRADICTION", "NO_CONTRADICTION"}
KINDS = {"direct", "indirect", "compliant", "lookalike", "exempt"}
OLDEST = ("real_rules.json", "real_rules2.json", "real_rules3.json", "cases.json", "audit_cases.json")
SETS = {"real_rules4.json": ("holdout4", OLDEST), "real_rules5.json": ("holdout5", OLDEST + ("real_rules4.json",))}


def cases(name: str) -> list[dict]:
    return json.loads((HERE / name).read_text())["cases"]


@pytest.mark.parametrize("name", sorted(SETS))
def test_set_parses_and_is_large_enough(name):
    cs = cases(name)
    assert len(cs) >= 150
    assert len({c["rule"] for c in cs}) >= 45
    assert len({c["id"] for c in cs}) == len(cs)


@pytest.mark.parametrize("name", sorted(SETS))
def test_all_held_out_with_notes_and_labels(name):
    for c in cases(name):
        assert c["split"] == SETS[name][0], c["id"]
        assert c["note"].strip(), c["id"]
        assert c["expected"] in LABELS, c["id"]
        assert c["kind"] in KINDS, c["id"]
        assert c["source"].count("/") >= 2 and c["decisions"] and c["files"], c["id"]
        assert all(f["diff"][0].startswith("--- a/") for f in c["files"]), c["id"]
        assert "/work/" not in json.dumps(c), c["id"]


def test_round_five_labels_agree_with_kinds_and_are_balanced():
    cs = cases("real_rules5.json")
    assert all((c["kind"] in ("direct", "indirect")) == (c["expected"] != "NO_CONTRADICTION") for c in cs)
    assert 0.45 <= sum(c["expected"] != "NO_CONTRADICTION" for c in cs) / len(cs) <= 0.65
    assert {c["kind"] for c in cs} == KINDS


@pytest.mark.parametrize("name", sorted(SETS))
def test_no_rule_shared_with_earlier_sets(name):
    earlier_rules, earlier_decisions = rules_and_decisions(HERE, SETS[name][1])
    for c in cases(name):
        assert c["rule"] not in earlier_rules, c["id"]
        assert not set(c["decisions"]) & earlier_decisions, c["id"]


def test_bench_holds_round_five_out_of_cross_validation():
    """Round 4 was read after its held-out run: since round 5 it is development material."""
    spec = importlib.util.spec_from_file_location("cq", HERE.parents[1] / "bench" / "contradiction_quality.py")
    cq = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cq)
    assert {"holdout4", "holdout5"} <= set(cq.SPLITS)
    assert "real_rules4.json" in cq.DEV_SETS and "real_rules5.json" not in cq.DEV_SETS
