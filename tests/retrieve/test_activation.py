"""Spreading activation: decay per hop, superseded nodes, cycles, hubs, combination rules."""

from __future__ import annotations

import pytest

from engram.retrieve.activation import rank, spread


def test_entry_point_activates_neighbours_with_decay_per_hop(g, ro):
    a, b, c = g.chain(3)
    acts = spread(ro, {a: 1.0}, decay=0.6, threshold=0.1)
    assert acts[a] == pytest.approx(1.0)
    assert acts[b] == pytest.approx(0.6)
    assert acts[c] == pytest.approx(0.36)


def test_initial_activation_is_strength_and_edge_strength_scales(g, ro):
    a = g.node("a", strength=0.8)
    b = g.node("b")
    g.edge(a, b, 0.5)
    acts = spread(ro, {a: 0.8}, decay=0.6, threshold=0.1)
    assert acts[b] == pytest.approx(0.8 * 0.6 * 0.5)


def test_edges_are_followed_in_both_directions(g, ro):
    a, b = g.node("a"), g.node("b")
    g.edge(b, a)  # b -> a; we start from a
    assert spread(ro, {a: 1.0})[b] == pytest.approx(0.6)


def test_threshold_cuts(g, ro):
    ids = g.chain(6)
    acts = spread(ro, {ids[0]: 1.0}, decay=0.6, threshold=0.1)
    # 1, .6, .36, .216, .1296, .07776 -> the last one is under 0.1
    assert set(acts) == set(ids[:5])
    assert all(a >= 0.1 for a in acts.values())


def test_superseded_node_is_never_entered_or_passed_through(g, ro):
    a = g.node("a")
    old = g.node("old", strength=0.0, status="superseded")
    behind = g.node("behind")
    g.edge(a, old)
    g.edge(old, behind)
    acts = spread(ro, {a: 1.0})
    assert old not in acts and behind not in acts


def test_strength_zero_node_is_skipped_even_if_active(g, ro):
    a, z, c = g.node("a"), g.node("z", strength=0.0), g.node("c")
    g.edge(a, z)
    g.edge(z, c)
    assert set(spread(ro, {a: 1.0})) == {a}


def test_superseded_seed_is_ignored_by_matching(g, ro):
    from engram.retrieve import seeds
    from engram.retrieve.entry_points import terms_from_paths

    g.node("old", strength=0.0, status="superseded", files=["a.py"])
    live = g.node("new", strength=0.7, files=["a.py"])
    assert list(seeds.match(ro, terms_from_paths(["a.py"]))) == [live]


def test_cycle_terminates_with_best_path_values(g, ro):
    a, b, c = g.chain(3)
    g.edge(c, a)  # a-b-c-a
    acts = spread(ro, {a: 1.0}, decay=0.9, threshold=0.01)
    assert acts[a] == pytest.approx(1.0)
    assert acts[b] == pytest.approx(0.9) and acts[c] == pytest.approx(0.9)


def test_decay_one_still_terminates(g, ro):
    a, b, c = g.chain(3)
    g.edge(c, a)
    acts = spread(ro, {a: 1.0}, decay=1.0, threshold=0.1)
    assert acts == {a: 1.0, b: 1.0, c: 1.0}


@pytest.mark.parametrize("combine", ["max", "noisy_or"])
def test_many_paths_stay_bounded(g, ro, combine):
    target = g.node("target")
    seeds = {}
    for i in range(40):
        s = g.node(f"s{i}")
        g.edge(s, target)
        seeds[s] = 1.0
    acts = spread(ro, seeds, combine=combine)
    assert 0 < acts[target] <= 1.0
    if combine == "max":
        assert acts[target] == pytest.approx(0.6)
    else:
        assert acts[target] > 0.99  # convergent evidence adds up, but never past 1


def test_hub_floods_spec_rule_but_not_fan_rule(g, ro):
    entry = g.node("entry")
    hub = g.node("episode hub", type="episode")
    g.edge(entry, hub)
    leaves = [g.node(f"leaf{i}") for i in range(20)]
    for leaf in leaves:
        g.edge(leaf, hub)
    spec = spread(ro, {entry: 1.0}, rule="spec")
    fan = spread(ro, {entry: 1.0}, rule="fan")
    assert all(spec[leaf] == pytest.approx(0.36) for leaf in leaves)
    assert not any(leaf in fan for leaf in leaves)  # 1 x .6 / 1 x .6 / 21 < 0.1
    assert fan[hub] == pytest.approx(0.6)  # the entry's only link passes undivided


def test_fan_divides_by_live_neighbours(g, ro):
    a = g.node("a")
    b, c = g.node("b"), g.node("c")
    dead = g.node("dead", strength=0.0, status="superseded")
    for x in (b, c, dead):
        g.edge(a, x)
    acts = spread(ro, {a: 1.0}, rule="fan")
    assert acts[b] == pytest.approx(0.3)  # fan 2: the superseded neighbour does not count


def test_rank_is_deterministic(g, ro):
    a = g.node("a")
    kids = [g.node(f"k{i}") for i in range(5)]
    for k in kids:
        g.edge(a, k)
    ranked = rank(spread(ro, {a: 1.0}))
    assert ranked[0][0] == a
    assert [n for n, _ in ranked[1:]] == sorted(kids)


def test_unknown_rule_is_an_error(g, ro):
    with pytest.raises(ValueError, match="spreadingRule"):
        spread(ro, {}, rule="bogus")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("rule", ["spec", "fan"])
def test_limited_spread_returns_the_exact_top_of_the_full_one(g, ro, seed, rule):
    import random

    rnd = random.Random(seed)
    ids = [g.node(f"r{i}", strength=round(rnd.uniform(0.2, 1.0), 2)) for i in range(60)]
    for _ in range(150):
        a, b = rnd.sample(ids, 2)
        g.edge(a, b, round(rnd.uniform(0.3, 1.0), 2), rnd.choice(["requires", "caused_by", "similar_to"]))
    seeds = {i: 1.0 for i in rnd.sample(ids, 3)}
    full = spread(ro, seeds, decay=0.7, threshold=0.05, rule=rule)
    part = spread(ro, seeds, decay=0.7, threshold=0.05, rule=rule, limit=10)
    assert len(part) >= min(10, len(full))
    assert all(full[n] == pytest.approx(a) for n, a in part.items())
    floor = min(part.values())
    assert {n for n, a in full.items() if a > floor + 1e-9} <= set(part)
