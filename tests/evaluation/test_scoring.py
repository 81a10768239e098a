"""The scoring pieces: targets, what a node is about, precision / recall, MRR, percentiles."""

from __future__ import annotations

import pytest

from engram.evaluation import latency, outcomes, questions, scoring
from engram.evaluation.recorder import Variant


@pytest.mark.parametrize("command, sig", [
    ("cd app && npm test foo.test.ts 2>&1 | tail -30", "npm test foo.test.ts"),
    ("npm test foo.test.ts", "npm test foo.test.ts"),
    ("python -m pytest tests/test_cart.py -x -q --tb=short", "python -m pytest tests/test_cart.py"),
    ("export CI=1; make test > out.log", "make test"),
    ("", ""),
])
def test_check_sig_is_what_identifies_a_check_across_runs(command, sig):
    assert outcomes.check_sig(command) == sig


def test_touches_are_files_tests_and_errors():
    events = [
        {"seq": 1, "type": "file_read", "path": "src/a.py", "ok": True},
        {"seq": 2, "type": "test_run", "command": "pytest tests/t.py", "outcome": "fail"},
        {"seq": 3, "type": "file_write", "path": "src/a.py", "ok": True},
        {"seq": 4, "type": "command", "command": "git push", "exit_code": 1},
        {"seq": 5, "type": "file_read", "path": "/etc/hosts", "ok": True},  # outside the project
        {"seq": 6, "type": "build", "command": "make", "exit_code": 0},
    ]
    assert outcomes.touches(events) == [(1, "file:src/a.py"), (2, "test:pytest tests/t.py"),
                                        (2, "error:pytest tests/t.py"), (3, "file:src/a.py"),
                                        (4, "error:git push")]


def test_what_a_node_is_about():
    err = {"type": "error", "name": "pytest tests/t.py: 1 failing test(s) (t::x)"}
    assert outcomes.node_keys(err, ["src/a.py"]) == {"file:src/a.py", "error:pytest tests/t.py",
                                                     "test:pytest tests/t.py"}
    cmd = {"type": "error", "name": "`git push origin main` failed (exit 1): rejected"}
    assert outcomes.node_keys(cmd, []) == {"error:git push origin main", "test:git push origin main"}
    command = {"type": "concept", "name": "pytest tests/t.py -q", "data": '{"kind": "command", "purpose": "test"}',
               "description": "`pytest tests/t.py -q` runs the tests; last worked 2026-11-30."}
    assert outcomes.node_keys(command, []) == {"test:pytest tests/t.py -q"}
    assert outcomes.node_keys({"type": "finding", "name": "x"}, []) == set()


def _item(seq: int, keys: set[str], channel: str = "SessionStart", read: str | None = None) -> dict:
    return {"session": "s", "channel": channel, "seq": seq, "node": f"n{seq}", "keys": keys, "read": read}


def test_recall_needs_the_item_before_the_first_touch_precision_any_later_touch():
    touched = [(5, "file:a.py"), (9, "file:b.py"), (12, "error:pytest")]
    items = [_item(1, {"file:a.py"}),                 # before a.py: covers it, a hit
             _item(10, {"file:b.py"}, "UserPromptSubmit"),  # after b.py's first touch: no cover, no hit
             _item(11, {"error:pytest"}, "first read"),      # before the error: covers it (all channels only)
             _item(3, set())]                                # about nothing: not scorable
    row = scoring.score_session("s", items, touched, known={"file:a.py", "error:pytest"},
                                earlier={"file:a.py", "file:b.py", "error:pytest"}, tokens={}, events=12)
    assert row["pre"]["scorable"] == 2 and row["pre"]["hits"] == 1
    assert row["all"]["scorable"] == 3 and row["all"]["hits"] == 2
    assert sum(row["pre"]["covered_revisited"].values()) == 1
    assert row["all"]["covered_revisited"] == {"file": 1, "test": 0, "error": 1}
    assert row["revisited"] == {"file": 2, "test": 0, "error": 1} and sum(row["known"].values()) == 2
    s = scoring.summarize([row])
    assert s["recall_all_revisited"] == {"value": 0.6667, "num": 2, "den": 3}
    assert s["precision_all"]["value"] == pytest.approx(2 / 3, abs=1e-3)


def test_a_first_read_note_is_a_hit_for_its_own_file():
    item = _item(7, {"file:a.py"}, "first read", read="a.py")
    row = scoring.score_session("s", [item], [(6, "file:a.py")], set(), set(), {}, 7)
    assert row["all"]["hits"] == 1 and row["all"]["file_hits"] == 1


def test_reciprocal_rank_and_relevant_questions():
    assert questions.reciprocal_rank([{"file:x"}, {"file:a"}], {"file:a"}) == 0.5
    assert questions.reciprocal_rank([{"file:x"}] * 10 + [{"file:a"}], {"file:a"}) == 0.0  # past the top 10
    events = [{"seq": 1, "type": "user_prompt", "prompt": "fix   a.py"},
              {"seq": 2, "type": "file_read", "path": "a.py"},
              {"seq": 3, "type": "user_prompt", "prompt": "now b"}, {"seq": 4, "type": "file_read", "path": "b.py"}]
    assert questions.relevant_sets(events, {"file:a.py"}) == [("fix a.py", {"file:a.py"})]


def test_percentiles_are_measured_values():
    vals = [float(v) for v in range(1, 101)]
    assert latency.percentile(vals, 50) == 50.0 and latency.percentile(vals, 99) == 99.0
    assert latency.percentile([], 50) is None
    assert latency.summary({"Stop": [1.0, 2.0]}) == {"Stop": {"n": 2, "p50": 1.0, "p90": 2.0, "p99": 2.0}}
    items = [("SessionStart", {}), ("UserPromptSubmit", {})] + [("PostToolUse", {"i": i}) for i in range(20)]
    picked = latency.pick(items, 6)
    assert len(picked) == 6 and picked[0][0] == "SessionStart"


def test_variants_parse_and_reject_unknown_settings():
    v = Variant.parse("spec:decay=0.4:threshold=0.2:budget=600")
    assert v.settings() == {"spreadingRule": "spec", "decayFactor": 0.4, "activationThreshold": 0.2, "tokenBudget": 600}
    assert Variant.parse("fan").rule == "fan" and Variant.parse("spec+noisy-or").combine == "noisy_or"
    assert Variant.parse("none").kind == "none" and Variant.parse("recency").kind == "recency"
    with pytest.raises(ValueError, match="unknown setting"):
        Variant.parse("spec:speed=2")
    with pytest.raises(ValueError, match="unknown variant"):
        Variant.parse("magic")
