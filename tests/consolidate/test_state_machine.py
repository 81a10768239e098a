"""NEEDS_CONSOLIDATION / CONSOLIDATED from files, thresholds, turn-by-turn, exactly-once."""

from __future__ import annotations

import os

import pytest
from testing.consolidation import Session, cfg, consolidate, episode_file, fix_session, rows

from engram.consolidate import worker, episode_file as ef, trigger


def _run(s: Session, **kw):
    return consolidate(s.project, s.ctx.session, cfg(s.project), **kw)


def test_state_is_derived_from_the_two_files(root):
    s = fix_session(root)
    assert trigger.needs_consolidation(s.project, "s1")
    assert episode_file(s.project, "s1") is None
    o = _run(s)
    assert o.status == "consolidated"
    mark = ef.read_mark(s.project.episode_path("s1"))
    assert mark.consolidated_to == s.events()[-1]["seq"]
    assert not trigger.needs_consolidation(s.project, "s1")
    assert _run(s).status == "nothing"


def test_mark_is_read_from_the_head_of_a_large_file(root):
    s = fix_session(root)
    _run(s)
    path = s.project.episode_path("s1")
    rec = episode_file(s.project, "s1")
    ef.write(path, "s1", ef.Mark(7, 123), rec["episodes"] * 50)
    assert ef.read_mark(path) == ef.Mark(7, 123)
    assert ef.read_mark(path + ".missing") == ef.NO_MARK


def test_turn_by_turn_consolidates_only_new_events(root):
    s = fix_session(root)
    _run(s)
    first_to = ef.read_mark(s.project.episode_path("s1")).consolidated_to
    s.prompt("Now add a CLI entry point.").write("src/cli.py", "def main():\n    pass\n").stop("Added.")
    assert trigger.needs_consolidation(s.project, "s1")
    o = _run(s)
    assert o.from_seq == first_to + 1
    eps = episode_file(s.project, "s1")["episodes"]
    assert [e["from_seq"] for e in eps] == [1, first_to + 1]
    assert rows(s.project, "SELECT count(*) FROM consolidations WHERE session_id='s1'") == [(2,)]


@pytest.mark.parametrize("turns, expected", [(1, "discussion"), (2, "discussion"), (3, "full")])
def test_threshold_discussion_vs_full(root, turns, expected):
    s = Session(root, "s1").start()
    for i in range(turns):
        s.prompt(f"Should we use SQLite or Postgres? Question {i}").stop("SQLite is embedded; Postgres is a server.")
    assert worker.kind_of(s.events(), 3) == expected


def test_any_tool_call_means_full(root):
    s = Session(root, "s1").start().prompt("hi").read("README.md").stop()
    assert worker.kind_of(s.events(), 3) == "full"


def test_light_discussion_consolidation_offline(root):
    s = Session(root, "s1").start()
    s.prompt("For storage, let's use SQLite because it is embedded. We must never add a daemon.")
    s.stop("Agreed: SQLite, no daemon.")
    o = _run(s)
    assert o.kind == "discussion" and o.status == "consolidated"
    ep = episode_file(s.project, "s1")["episodes"][0]
    assert "SQLite" in ep["topics"] and ep["approach"].startswith("Discussion")
    decisions = rows(s.project, "SELECT name, strength, data FROM nodes WHERE type='decision' ORDER BY name")
    assert len(decisions) == 2 and all(0.8 <= d[1] <= 0.9 for d in decisions)
    by_name = {name: data for name, _, data in decisions}
    assert '"requires":["SQLite"]' in by_name["For storage, let's use SQLite because it is embedded."]
    assert '"forbids":["daemon"]' in by_name["We must never add a daemon."]


def test_light_discussion_uses_the_discussion_model(root, llm):
    s = Session(root, "s1").start().prompt("What is WAL mode in SQLite?").stop("It is a journal mode.")
    o = _run(s)
    assert o.kind == "discussion" and o.status == "consolidated"
    assert llm.counts == {"discussion": 1}
    assert llm.calls[0]["model"] == "claude-haiku-4-5"


def test_markers_only_advance_the_mark_without_an_episode(root):
    s = fix_session(root)
    _run(s)
    s.end()
    assert trigger.needs_consolidation(s.project, "s1")
    o = _run(s)
    assert o.status == "nothing" and o.to_seq == s.events()[-1]["seq"]
    assert len(episode_file(s.project, "s1")["episodes"]) == 1
    assert not trigger.needs_consolidation(s.project, "s1")


def test_crash_between_commit_and_episode_file_neither_loses_nor_duplicates(root, monkeypatch):
    s = fix_session(root)
    real_write = ef.write

    def crash(*a, **k):
        raise KeyboardInterrupt("killed after COMMIT, before the episode file")

    monkeypatch.setattr(ef, "write", crash)
    with pytest.raises(KeyboardInterrupt):
        _run(s)
    assert episode_file(s.project, "s1") is None          # the file says NEEDS_CONSOLIDATION
    assert rows(s.project, "SELECT count(*) FROM consolidations") == [(1,)]  # the graph has it
    nodes_before = rows(s.project, "SELECT count(*) FROM nodes")
    monkeypatch.setattr(ef, "write", real_write)
    o = _run(s)
    assert o.status == "recovered"
    assert rows(s.project, "SELECT count(*) FROM nodes") == nodes_before
    assert rows(s.project, "SELECT count(*) FROM episodes") == [(1,)]
    assert len(episode_file(s.project, "s1")["episodes"]) == 1
    assert not trigger.needs_consolidation(s.project, "s1")


def test_one_worker_per_session(root):
    from engram import workers

    s = fix_session(root)
    held = workers.lock(trigger.session_lock_path(s.project, "s1"), 0)
    try:
        assert _run(s).status == "busy"
    finally:
        os.close(held)
    assert _run(s).status == "consolidated"


def test_torn_last_line_is_skipped(root):
    s = fix_session(root)
    with open(s.project.events_path("s1"), "ab") as f:
        f.write(b'{"type":"file_write","seq":99,"pa')
    o = _run(s)
    assert o.status == "consolidated" and o.to_seq < 99
