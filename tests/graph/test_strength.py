"""strength.py: the spec's formula with hand-computed values; activity-relative decay."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engram.graph import decay
from engram.graph import strength as s
from engram.graph import store
from engram.graph.connect import connect


@pytest.fixture
def conn(tmp_path):
    c = connect(str(tmp_path / "engram.db"))
    yield c
    c.close()


@pytest.mark.parametrize("inputs, expected", [
    # (episodes, sessions w/o reinforcement, successes, judged, causal)
    ((1, 0, 0, 0, False), 1.0),                     # log2(2)=1, e^0=1, no outcomes -> 1.0
    ((0, 0, 0, 0, False), 0.0),                     # log2(1)=0
    ((1, 5, 0, 0, False), math.exp(-0.5)),          # 0.6065306597
    ((1, 3, 1, 2, True), 0.5556136655),             # 1 x e^-0.3 (0.7408182207) x 0.5 x 1.5
    ((1, 10, 2, 3, False), 0.2452529608),           # 1 x e^-1 (0.3678794412) x 2/3
    ((3, 20, 1, 4, False), 0.0676676416),           # log2(4)=2 x e^-2 (0.1353352832) x 0.25
    ((7, 0, 3, 3, True), 1.0),                      # 3 x 1 x 1 x 1.5 = 4.5 -> clamped
    ((2, 0, 0, 5, False), 0.0),                     # every judged episode failed
])
def test_hand_computed_values(inputs, expected):
    assert s.compute_strength(*inputs) == pytest.approx(expected, abs=1e-9)


def test_factors():
    assert s.frequency(3) == 2.0 and s.frequency(-1) == 0.0
    assert s.recency(0) == 1.0 and s.recency(10) == pytest.approx(math.exp(-1))
    assert s.outcome_consistency(0, 0) == 1.0  # no outcomes: neutral, documented
    assert s.outcome_consistency(3, 4) == 0.75


@given(st.integers(0, 1000), st.integers(0, 500), st.integers(0, 50), st.integers(0, 50), st.booleans())
def test_strength_is_bounded_and_decays_monotonically(eps, swr, ok, total, causal):
    v = s.compute_strength(eps, swr, ok, total, causal)
    assert 0.0 <= v <= 1.0
    assert s.compute_strength(eps, swr + 1, ok, total, causal) <= v


def node(conn, name, **kw):
    return store.create_node(conn, name=name, type="concept", **kw)


def test_apply_session_resets_reinforced_and_decays_the_rest_once(conn):
    a = node(conn, "a", source_episodes=["e1"])
    b = node(conn, "b", source_episodes=["e1"])
    assert decay.recompute(conn) == 0  # created with the formula's value: log2(2) = 1.0
    assert store.get_node(conn, a)["strength"] == 1.0
    assert decay.apply_session(conn, "s1", [a]) == {"reinforced": 1, "decayed": 1, "changed": 1}
    assert store.get_node(conn, b)["sessions_without_reinforcement"] == 1
    assert store.get_node(conn, b)["strength"] == pytest.approx(math.exp(-0.1))
    # the same session consolidated again (turn by turn) does not decay twice
    assert decay.apply_session(conn, "s1", [])["decayed"] == 0
    decay.apply_session(conn, "s2", [])
    decay.apply_session(conn, "s3", [b])
    na, nb = store.get_node(conn, a), store.get_node(conn, b)
    assert na["sessions_without_reinforcement"] == 2 and na["strength"] == pytest.approx(math.exp(-0.2))
    assert nb["sessions_without_reinforcement"] == 0 and nb["strength"] == 1.0
    assert nb["last_reinforced_session"] == "s3"


def test_no_sessions_means_no_decay_whatever_the_calendar_says(conn):
    old = "2020-01-01T00:00:00.000000Z"
    nid = node(conn, "ancient", source_episodes=["e1", "e2", "e3"], sessions_without_reinforcement=2,
               created_at=old)
    decay.recompute(conn)
    before = store.get_node(conn, nid)["strength"]
    assert before == pytest.approx(2 * math.exp(-0.2) if 2 * math.exp(-0.2) < 1 else 1.0)
    conn.execute("UPDATE nodes SET updated_at = ?", (old,))  # "two months" (years) later
    assert decay.recompute(conn) == 0
    assert store.get_node(conn, nid)["strength"] == before
    assert decay.catch_up_decay(conn) == (0, 0)  # no session happened


def test_asserted_node_without_episodes_keeps_its_strength(conn):
    decision = node(conn, "use WAL", strength=0.85)
    implicit = node(conn, "observed: no ORM", strength=0.35)
    decay.recompute(conn)
    decay.apply_session(conn, "s1", [])
    assert store.get_node(conn, decision)["strength"] == 0.85
    assert store.get_node(conn, implicit)["strength"] == 0.35
    # the first episode that reinforces it hands it to the formula
    n = decay.reinforce(conn, implicit, episode_id="e9", session_id="s2", outcome="success")
    assert n["episode_count"] == 1 and n["strength"] == 1.0


def test_reinforce_counts_each_episode_once(conn):
    nid = node(conn, "retry policy", source_episodes=["e1"], sessions_without_reinforcement=4)
    n = decay.reinforce(conn, nid, episode_id="e2", session_id="s5", outcome="failure", causal=True)
    assert (n["episode_count"], n["outcome_success"], n["outcome_total"]) == (2, 0, 1)
    assert n["strength"] == 0.0 and n["causal"] == 1 and n["sessions_without_reinforcement"] == 0
    n = decay.reinforce(conn, nid, episode_id="e3", outcome="success")
    n = decay.reinforce(conn, nid, episode_id="e3", outcome="success")  # again: no double count
    assert (n["episode_count"], n["outcome_success"], n["outcome_total"]) == (3, 1, 2)
    assert n["strength"] == pytest.approx(1.0)  # log2(4) x 1 x 0.5 x 1.5 = 1.5 -> 1.0
    with pytest.raises(store.NotFound):
        decay.reinforce(conn, "n_nope", episode_id="e1")


def test_superseded_nodes_are_never_recomputed(conn):
    nid = node(conn, "old", source_episodes=["e1"], status="superseded", strength=0.0)
    assert decay.recompute(conn) == 0
    decay.apply_session(conn, "s1", [])
    n = store.get_node(conn, nid)
    assert n["strength"] == 0.0 and n["sessions_without_reinforcement"] == 0


def test_catch_up_decay_counts_sessions_that_skipped_it(conn):
    store.insert_episode(conn, id="ep1", session_id="s1", outcome="success", created_at="2026-01-01T00:00:00Z")
    store.insert_episode(conn, id="ep2", session_id="s2", outcome="success", created_at="2026-01-02T00:00:00Z")
    a = node(conn, "a", source_episodes=["ep1"])
    b = node(conn, "b", source_episodes=["ep2"])
    assert decay.uncounted_sessions(conn) == ["s1", "s2"]
    assert decay.catch_up_decay(conn) == (2, 3)  # b decays in s1, then a decays and b resets in s2
    assert store.get_node(conn, a)["sessions_without_reinforcement"] == 1  # missed s2
    assert store.get_node(conn, b)["sessions_without_reinforcement"] == 0
    assert decay.catch_up_decay(conn) == (0, 0)
