"""The offline checker's rule catalogue (engram.monitor.rules), rule by rule: each registered rule's
fixtures (tests/monitor/rule_fixtures/<family>.json, positive and negative cases, each its own test
id), its precision on the development sets, and the catalogue table of docs/monitoring.md.

A positive fixture must be found by its rule; a negative one (a look-alike, a compliant change)
must not be. Round 5's held-out set (real_rules5.json) is read by no test: its figure is the bench's."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from engram.monitor.offline_checker import all_matches
from engram.monitor.rules.registry import BY_ID, FAMILIES, RULES, family_of

from testing.decisions import node

HERE = Path(__file__).parent
FIXTURES = HERE / "rule_fixtures"
REPO = HERE.parents[1]


def _fixtures() -> list[tuple[str, str, int, dict]]:
    out = []
    for path in sorted(FIXTURES.glob("*.json")):
        for rule_id, cases in json.loads(path.read_text()).items():
            out += [(path.stem, rule_id, i, c) for i, c in enumerate(cases)]
    return out


ALL = _fixtures()


def _fired(rule_id: str, case: dict) -> bool:
    diff = "\n".join(case["diff"]) + "\n"
    return any(m["mechanism"] == rule_id for m in all_matches([node(case["decision"])], case["path"], diff))


@pytest.mark.parametrize("family,rule_id,i,case", ALL,
                         ids=[f"{r}-{i}-{'warns' if c['warns'] else 'silent'}" for _, r, i, c in ALL])
def test_rule_fixture(family, rule_id, i, case):
    assert rule_id in BY_ID, f"{family}.json names {rule_id}, which no family registers"
    assert family_of(BY_ID[rule_id]) == family, f"{rule_id}'s fixtures belong in {family_of(BY_ID[rule_id])}.json"
    assert _fired(rule_id, case) is case["warns"], case.get("note") or case["decision"]


@pytest.mark.parametrize("rule_id", [r.id for r in RULES])
def test_every_rule_has_a_positive_and_a_negative_fixture(rule_id):
    mine = [c for _, r, _, c in ALL if r == rule_id]
    assert any(c["warns"] for c in mine) and any(not c["warns"] for c in mine)


def test_one_registry_and_unique_ids():
    assert len({r.id for r in RULES}) == len(RULES)
    assert {p.stem for p in FIXTURES.glob("*.json")} == {f.__name__.rsplit(".", 1)[-1] for f in FAMILIES}
    assert all(r.why and len(r.why) <= 120 and r.reach in ("scope", "own", "any") for r in RULES)


def _bench():
    spec = importlib.util.spec_from_file_location("cq", REPO / "bench" / "contradiction_quality.py")
    cq = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cq)
    return cq


@pytest.fixture(scope="module")
def development_record() -> dict[str, dict[str, int]]:
    """rule -> right and wrong warnings over the development sets (every set but round 5)."""
    cq = _bench()
    rec: dict[str, dict[str, int]] = {}
    for name in cq.DEV_SETS:
        for c in cq.load_cases("all", cq.MONITOR / name):
            for mech in cq.fired(c):
                r = rec.setdefault(mech, {"tp": 0, "fp": 0})
                r["tp" if c["expected"] != cq.NO else "fp"] += 1
    return rec


@pytest.mark.parametrize("rule_id", [r.id for r in RULES])
def test_rule_is_precise_and_fires_on_the_development_sets(rule_id, development_record):
    """Each rule on its own: a regression of one rule cannot hide in a pooled figure."""
    r = development_record.get(rule_id, {"tp": 0, "fp": 0})
    assert r["tp"] >= 1 and r["tp"] / (r["tp"] + r["fp"]) >= 0.95, r


def test_docs_list_the_catalogue():
    spec = importlib.util.spec_from_file_location("rc", REPO / "bench" / "rule_catalogue.py")
    rc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rc)
    assert rc.table() in (REPO / "docs" / "monitoring.md").read_text(), "run: python bench/rule_catalogue.py --write"
