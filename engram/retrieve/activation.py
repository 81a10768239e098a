"""Spreading activation over the knowledge graph (docs/spec.md, "Pre-execution retrieval").

    activation(seed)  = seed.strength
    spread(u -> v)    = activation(u) x decayFactor x edge.strength            ("spec")
                      = activation(u) x decayFactor x edge.strength / fan(u)   ("fan")

* Edges are followed in both directions: "A caused_by B" makes B relevant to A and A
  to B. Only live nodes (status active, strength > 0) are entered or passed through,
  so a superseded node neither appears nor relays activation to its neighbours.
* fan(u) is the number of live neighbours of u (ACT-R's fan effect: a node linked to
  everything says little about any one of them). Off by default; `spreadingRule: "fan"`.
* Combination rule for a node reached by several paths: within one seed, the MAXIMUM
  over paths (best path). Across seeds, "max" (default) or noisy-OR
  1 - prod(1 - a_seed). Both stay in [0, 1] however many paths converge; max keeps a
  hub at the level of its best single path (noisy-OR lets ten weak paths through an
  episode hub add up to near 1, which floods). The evaluation compares them.
* Termination: each node is expanded at most once (when its value is final), each hop
  multiplies by decayFactor x edge.strength <= 1, and values under activationThreshold
  are dropped (they could only produce smaller ones), so cycles end; MAX_ROUNDS bounds
  pathological settings (decayFactor >= 1).
* Cost: nodes are expanded strongest first, in bands (see `_best_first`), one query per
  band; with a `limit` the spread stops as soon as the top `limit` nodes are final.

"""

from __future__ import annotations

from engram.graph import readonly

MAX_ROUNDS = 64
EPS = 1e-9
RULES = ("spec", "fan")
COMBINES = ("max", "noisy_or")


def _check(rule: str, combine: str) -> None:
    if rule not in RULES:
        raise ValueError(f"spreadingRule must be one of {', '.join(RULES)}, got {rule!r}")
    if combine not in COMBINES:
        raise ValueError(f"combine must be one of {', '.join(COMBINES)}, got {combine!r}")


def spread(conn, seeds: dict[str, float], *, decay: float = 0.6, threshold: float = 0.1,
           rule: str = "spec", combine: str = "max", limit: int | None = None) -> dict[str, float]:
    """{node id: activation >= threshold} reached from the seeds ({id: initial activation}).

    With `limit` (combine "max" only), stop once the `limit` most active nodes are known
    exactly and return just those: the hooks show a few dozen lines, and a spec-rule
    spread through hubs can otherwise touch half the graph.
    """
    _check(rule, combine)
    live = {s: min(1.0, float(a)) for s, a in seeds.items() if a >= threshold}
    if combine == "max":
        return _best_first(conn, live, decay, threshold, rule, limit)
    combined: dict[str, float] = {}
    for seed, a0 in sorted(live.items()):
        for nid, a in _best_first(conn, {seed: a0}, decay, threshold, rule, None).items():
            combined[nid] = 1.0 - (1.0 - combined.get(nid, 0.0)) * (1.0 - a)
    return combined


def _expand(conn, batch: list[str], acts: dict[str, float], decay: float, threshold: float,
            rule: str) -> None:
    """One query: pass activation from every node of the batch to its live neighbours."""
    by_parent: dict[str, list[tuple[str, float]]] = {}
    for parent, nbr, w in readonly.neighbours(conn, batch):
        by_parent.setdefault(parent, []).append((nbr, float(w)))
    base = {p: acts[p] for p in batch}
    for parent in batch:
        edges = by_parent.get(parent, ())
        if not edges:
            continue
        scale = base[parent] * decay / (len(edges) if rule == "fan" else 1)
        for nbr, w in edges:
            a = scale * w
            if a >= threshold and a > acts.get(nbr, 0.0) + EPS:
                acts[nbr] = a


def _best_first(conn, seeds: dict[str, float], decay: float, threshold: float, rule: str,
                limit: int | None) -> dict[str, float]:
    """Best-path (max-product) activation, expanded in bands, strongest first.

    Each round expands every unexpanded node whose activation exceeds top x decay, where
    top is the strongest unexpanded node: nothing still to come can reach them (it would
    arrive at most at top x decay), so they are final, and one query expands them all.
    Bands fall by a factor decayFactor per round, so a spread to the threshold takes a
    handful of queries. A node under threshold / decay is never expanded: it could not
    pass anything over the threshold on.
    """
    acts = dict(seeds)
    fertile = threshold / decay if decay > 0 else float("inf")
    done: set[str] = set()
    for _ in range(MAX_ROUNDS):
        pending = [(a, n) for n, a in acts.items() if n not in done and a >= fertile]
        if not pending:
            return acts
        top = max(pending)[0]
        cut = top * decay if decay < 1 else -1.0  # decay >= 1: plain level-by-level rounds
        if limit is not None and cut >= 0 and sum(1 for a in acts.values() if a > cut) >= limit:
            return {n: a for n, a in acts.items() if a > cut}
        batch = sorted(n for a, n in pending if a > cut)
        done.update(batch)
        _expand(conn, batch, acts, decay, threshold, rule)
    return acts


def rank(acts: dict[str, float]) -> list[tuple[str, float]]:
    """Deterministic order: activation (rounded, so float noise cannot reorder) then id."""
    return sorted(acts.items(), key=lambda kv: (-round(kv[1], 9), kv[0]))
