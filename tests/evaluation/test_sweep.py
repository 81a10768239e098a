"""The sweep's axes; what the windows change; a variant's copy of the data."""

from __future__ import annotations

import os

from engram.evaluation import sweep, windowing


def test_axes_hold_the_issue_ranges_and_the_defaults():
    full = {a.key: a for a in sweep.axes("default")}
    assert full["decayFactor"].values[0] == 0.3 and full["decayFactor"].values[-1] == 0.9
    assert full["activationThreshold"].values[0] == 0.05 and full["activationThreshold"].values[-1] == 0.3
    assert full["windows"].values[0] == (6, 2) and full["windows"].values[-1] == (14, 4)
    assert full["spreadingRule"].values == ("spec", "fan")
    for a in full.values():
        assert a.default in a.values, a.key
    assert sweep.axes("none") == []
    assert sweep.variant_for(full["decayFactor"], 0.6).name == "engram"
    assert sweep.variant_for(full["decayFactor"], 0.3).name == "spec:decay=0.3"
    assert sweep.variant_for(full["spreadingRule"], "fan").name == "fan"
    assert (0.90, sweep.default_bands()[1]) in sweep.band_builds(list(full.values()))


def _turn(seq0: int) -> list[dict]:
    """A fail -> fix -> pass turn: 12 events, with its causal links."""
    evs = [{"seq": seq0, "type": "user_prompt", "prompt": "fix it"}]
    evs.append({"seq": seq0 + 1, "type": "test_run", "command": "pytest", "outcome": "fail", "failed": 1})
    for i in range(2, 10):
        evs.append({"seq": seq0 + i, "type": "file_read", "path": f"f{i}.py", "ok": True})
    evs.append({"seq": seq0 + 10, "type": "file_write", "path": "a.py", "ok": True, "lines_added": 1})
    evs.append({"seq": seq0 + 11, "type": "fix_attempt", "ref": seq0 + 10, "after_test": seq0 + 1})
    evs.append({"seq": seq0 + 12, "type": "test_run", "command": "pytest", "outcome": "pass"})
    evs.append({"seq": seq0 + 13, "type": "turn_complete", "tool_calls": 11, "agent_summary": "fixed"})
    return evs


def test_windows_trade_calls_for_causal_links_kept():
    events = _turn(1)
    assert (2, 11) in windowing.links(events) and (11, 13) in windowing.links(events)
    small = windowing.measure(events, 4, 1)
    big = windowing.measure(events, 14, 4)
    assert small["windows"] > big["windows"] == 1
    assert big["kept"] == big["links"] and small["kept"] < small["links"]
    res = windowing.sweep([events + _turn(20)], [(4, 1), (10, 3)], default=(10, 3))
    assert res[(10, 3)]["tokens_relative"] == 1.0 and res[(4, 1)]["calls_per_session"] > 1


def test_a_variants_copy_keeps_the_graph_and_only_the_streams_sessionstart_reads(tmp_path):
    from engram.retrieve.start.project_context import MAX_STREAMS
    from engram.evaluation.engine import copy_home

    events = tmp_path / "master" / "projects" / "p" / "events"
    events.mkdir(parents=True)
    (events.parent / "engram.db").write_bytes(b"db")
    for i in range(MAX_STREAMS + 3):
        f = events / f"s{i:02d}.jsonl"
        f.write_text("{}\n")
        os.utime(f, (1000 + i, 1000 + i))
    copy_home(str(tmp_path / "master"), str(tmp_path / "scratch"))
    copied = sorted(os.listdir(tmp_path / "scratch" / "projects" / "p" / "events"))
    assert copied == [f"s{i:02d}.jsonl" for i in range(3, MAX_STREAMS + 3)]  # the newest, by mtime
    assert (tmp_path / "scratch" / "projects" / "p" / "engram.db").read_bytes() == b"db"
