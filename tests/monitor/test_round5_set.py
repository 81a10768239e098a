"""Issue 17, round 5: structural checks of the held-out set tests/monitor/real_rules5.json.

Only its shape is checked here (it parses, its size, its split, its rules are new, every case says
why its label is right, its sources are ADRs, contributing/style guides and lint configurations);
no checker runs on it in the tests: its figure is the bench's."""

from __future__ import annotations

import json
from pathlib import Path

from testing.decisions import rules_and_decisions

HERE = Path(__file__).parent
LABELS = {"DIRECT_CONTRADICTION", "INDIRECT_CONTRADICTION", "NO_CONTRADICTION"}
KINDS = {"direct", "indirect", "compliant", "lookalike", "exempt"}
EARLIER = ("real_rules.json", "real_rules2.json", "real_rules3.json", "real_rules4.json", "cases.json",
           "audit_cases.json")


def cases() -> list[dict]:
    return json.loads((HERE / "real_rules5.json").read_text())["cases"]


def test_set_parses_and_is_large_enough():
    cs = cases()
    assert len(cs) >= 150
    assert len({c["rule"] for c in cs}) >= 45
    assert len({c["id"] for c in cs}) == len(cs)


def test_all_held_out_with_notes_and_labels():
    for c in cases():
        assert c["split"] == "holdout5", c["id"]
        assert c["note"].strip(), c["id"]
        assert c["expected"] in LABELS, c["id"]
        assert c["kind"] in KINDS, c["id"]
        assert (c["kind"] in ("direct", "indirect")) == (c["expected"] != "NO_CONTRADICTION"), c["id"]
        assert c["source"].count("/") >= 2 and c["decisions"] and c["files"], c["id"]
        assert all(f["diff"][0].startswith("--- a/") for f in c["files"]), c["id"]
        assert "/work/" not in json.dumps(c), c["id"]


def test_labels_are_balanced():
    cs = cases()
    hits = sum(c["expected"] != "NO_CONTRADICTION" for c in cs)
    assert 0.45 <= hits / len(cs) <= 0.65
    assert {c["kind"] for c in cs} == KINDS


def test_no_rule_shared_with_earlier_sets():
    earlier_rules, earlier_decisions = rules_and_decisions(HERE, EARLIER)
    for c in cases():
        assert c["rule"] not in earlier_rules, c["id"]
        assert not set(c["decisions"]) & earlier_decisions, c["id"]


def test_bench_holds_it_out_of_cross_validation():
    import importlib.util
    spec = importlib.util.spec_from_file_location("cq", HERE.parents[1] / "bench" / "contradiction_quality.py")
    cq = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cq)
    assert "holdout5" in cq.SPLITS
    assert "real_rules5.json" not in cq.DEV_SETS
