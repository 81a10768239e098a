"""Spreading activation over the knowledge graph (spec: "Pre-execution retrieval").

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
* Termination: a node is re-expanded only when its activation strictly rises, each hop
  multiplies by decayFactor x edge.strength <= 1, and values under activationThreshold
  are dropped (they could only produce smaller ones), so cycles end; MAX_DEPTH bounds
  pathological settings (decayFactor >= 1).
* Cost: a node under threshold / decayFactor is never expanded (it cannot pass anything
  over the threshold on), and at most BEAM nodes, the most active, are expanded per hop,
  so a hop through a hub costs one bounded query, whatever the graph size.

Each hop is one SQL statement over the whole frontier (engram.core.graphread.neighbours).
"""

from __future__ import annotations

from engram.core import graphread

MAX_DEPTH = 8
BEAM = 200  # most nodes expanded per hop (strongest first): bounds a hop's cost at hubs
EPS = 1e-9
RULES = ("spec", "fan")
COMBINES = ("max", "noisy_or")


def spread(conn, seeds: dict[str, float], *, decay: float = 0.6, threshold: float = 0.1,
           rule: str = "spec", combine: str = "max") -> dict[str, float]:
    """{node id: activation >= threshold} reached from the seeds ({id: initial activation})."""
    if rule not in RULES:
        raise ValueError(f"spreadingRule must be one of {', '.join(RULES)}, got {rule!r}")
    if combine not in COMBINES:
        raise ValueError(f"combine must be one of {', '.join(COMBINES)}, got {combine!r}")
    live = {s: min(1.0, float(a)) for s, a in seeds.items() if a >= threshold}
    if combine == "max":
        return _spread_from(conn, {"*": live}, decay, threshold, rule)["*"]
    per_seed = _spread_from(conn, {s: {s: a} for s, a in live.items()}, decay, threshold, rule)
    combined: dict[str, float] = {}
    for acts in per_seed.values():
        for nid, a in acts.items():
            combined[nid] = 1.0 - (1.0 - combined.get(nid, 0.0)) * (1.0 - a)
    return combined


def _spread_from(conn, sources: dict[str, dict[str, float]], decay: float, threshold: float,
                 rule: str) -> dict[str, dict[str, float]]:
    """Best-path activations per source, all sources advanced together one hop per query."""
    acts = {src: dict(init) for src, init in sources.items()}
    # A node under threshold / decay cannot pass anything >= threshold on (edge strength
    # <= 1), so it is never expanded: the last hop costs no query.
    fertile = threshold / decay if decay > 0 else float("inf")
    frontier = {src: {n for n, a in init.items() if a >= fertile} for src, init in sources.items()}
    for _ in range(MAX_DEPTH):
        nodes = set().union(*frontier.values()) if frontier else set()
        if not nodes:
            break
        if len(nodes) > BEAM:
            best = {n: max(acts[s].get(n, 0.0) for s in frontier) for n in nodes}
            nodes = set(sorted(nodes, key=lambda n: (-best[n], n))[:BEAM])
            frontier = {s: f & nodes for s, f in frontier.items()}
        rows = graphread.neighbours(conn, sorted(nodes))
        by_parent: dict[str, list[tuple[str, float]]] = {}
        for parent, nbr, w in rows:
            by_parent.setdefault(parent, []).append((nbr, float(w)))
        nxt: dict[str, set[str]] = {}
        for src, front in frontier.items():
            a_src = acts[src]
            base = {p: a_src[p] for p in front}
            for parent in sorted(front):
                edges = by_parent.get(parent, ())
                if not edges:
                    continue
                scale = base[parent] * decay / (len(edges) if rule == "fan" else 1)
                for nbr, w in edges:
                    a = scale * w
                    if a >= threshold and a > a_src.get(nbr, 0.0) + EPS:
                        a_src[nbr] = a
                        if a >= fertile:
                            nxt.setdefault(src, set()).add(nbr)
        frontier = nxt
    return acts


def rank(acts: dict[str, float]) -> list[tuple[str, float]]:
    """Deterministic order: activation (rounded, so float noise cannot reorder) then id."""
    return sorted(acts.items(), key=lambda kv: (-round(kv[1], 9), kv[0]))
