"""Issue 17, round 4: structural checks of the held-out set tests/monitor/real_rules4.json.

Only its shape is checked here (it parses, its size, its split, its rules are new, every case says
why its label is right); no checker runs on it in the tests: its figure is the bench's."""

from __future__ import annotations

import json
from pathlib import Path

from testing.decisions import rules_and_decisions

HERE = Path(__file__).parent
LABELS = {"DIRECT_CONTRADICTION", "INDIRECT_CONTRADICTION", "NO_CONTRADICTION"}
EARLIER = ("real_rules.json", "real_rules2.json", "real_rules3.json", "cases.json", "audit_cases.json")


def cases() -> list[dict]:
    return json.loads((HERE / "real_rules4.json").read_text())["cases"]


def test_set_parses_and_is_large_enough():
    cs = cases()
    assert len(cs) >= 150
    assert len({c["rule"] for c in cs}) >= 45
    assert len({c["id"] for c in cs}) == len(cs)


def test_all_held_out_with_notes_and_labels():
    for c in cases():
        assert c["split"] == "holdout4", c["id"]
        assert c["note"].strip(), c["id"]
        assert c["expected"] in LABELS, c["id"]
        assert c["kind"] in {"direct", "indirect", "compliant", "lookalike", "exempt"}, c["id"]
        assert c["source"].count("/") >= 2 and c["decisions"] and c["files"], c["id"]
        assert all(f["diff"][0].startswith("--- a/") for f in c["files"]), c["id"]
        assert "/work/" not in json.dumps(c), c["id"]


def test_no_rule_shared_with_earlier_sets():
    earlier_rules, earlier_decisions = rules_and_decisions(HERE, EARLIER)
    for c in cases():
        assert c["rule"] not in earlier_rules, c["id"]
        assert not set(c["decisions"]) & earlier_decisions, c["id"]


def test_bench_measures_it_as_development_material():
    """Round 4 was read after its held-out run: since round 5 it is cross-validation material."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("cq", HERE.parents[1] / "bench" / "contradiction_quality.py")
    cq = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cq)
    assert "holdout4" in cq.SPLITS
    assert "real_rules4.json" in cq.DEV_SETS and "real_rules5.json" not in cq.DEV_SETS
