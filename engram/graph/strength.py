"""Mechanical node strength (docs/spec.md, "Strength computation"): no LLM, no calendar.

    strength = clamp(frequency x recency x outcome_consistency x causal_importance, 0, 1)
    frequency           = log2(1 + source episode count)
    recency             = exp(-0.1 x sessions without reinforcement)
    outcome_consistency = successful related episodes / related episodes with an outcome
    causal_importance   = 1.5 if the knowledge prevented or caused failures, else 1.0

Choices the spec leaves open:
* A node with no recorded outcome has outcome_consistency 1.0, not 0: absence of evidence
  about outcomes is not evidence of failure, and `frequency` already says how much evidence
  there is. A 0 would erase every node before its first judged episode.
* A decision is asserted before it is observed: an explicit one (`engram decide`, "let's
  use X") is stated once and holds until it is replaced, an implicit one is read off what
  the agent did. Its episode count starts at 0, so log2(1) = 0 would erase it; instead the
  node's `asserted` strength (0.85 explicit, 0.35 implicit: consolidate/graph_apply.py) is
  the floor of its frequency term, frequency = max(log2(1 + episodes), asserted), and the
  rest of the formula applies as to every node: a decision no session touches decays.
* An explicit decision decays at half the rate (`decay_rate` 0.05 instead of 0.1): it
  stays valid until a newer decision about its subject replaces it (graph/supersession.py
  retires it then), so decay only has to rank it below fresher knowledge, not to forget
  it. At the spec's rate it would drop under the contradiction check's threshold (0.3)
  after 11 untouched sessions; at half the rate after 21. (docs/graph.md, "Strength".)
* A node with neither episodes nor an asserted strength (a pattern seen in no episode, an
  imported row) keeps its stored strength: recomputation leaves it alone.
* A knowledge item (`data.kind` in OBSERVED_KINDS: docs/knowledge.md) counts no outcome: it
  says what a session observed (a check failing at its end, a command that worked, a way
  round, the user's instruction), which a failed session observes as truly as a successful
  one; `outcome_consistency` would give the first item of a failed session strength 0, and
  the next session would never be told what was failing.
* Decay is activity-relative (decay.py applies it in the database).
* Superseded nodes keep strength 0 and are never recomputed.

Pure functions: the database side (recompute, reinforce, decay per session) is decay.py.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False  # `typing` costs ~3 ms of import (engram query, the hooks); annotations only
if TYPE_CHECKING:
    from typing import Any, Mapping

RECENCY_RATE = 0.1
EXPLICIT_DECISION_RATE = 0.05  # see above: an explicit decision decays at half the rate
CAUSAL_FACTOR = 1.5
OBSERVED_KINDS = ("unfinished", "command", "gotcha", "instruction", "file")  # no outcome counted (above)


def frequency(episode_count: int) -> float:
    return math.log2(1 + max(0, episode_count))


def recency(sessions_without_reinforcement: int, rate: float = RECENCY_RATE) -> float:
    return math.exp(-rate * max(0, sessions_without_reinforcement))


def outcome_consistency(success: int, total: int) -> float:
    """Fraction of judged episodes that succeeded; 1.0 when none was judged (see above)."""
    return 1.0 if total <= 0 else max(0, min(success, total)) / total


def compute_strength(
    episode_count: int,
    sessions_without_reinforcement: int = 0,
    outcome_success: int = 0,
    outcome_total: int = 0,
    causal: bool | int = False,
    asserted: float = 0.0,
    rate: float = RECENCY_RATE,
) -> float:
    """The spec's formula, clamped to [0, 1] (`asserted`: the floor of the frequency term)."""
    value = (
        max(frequency(episode_count), asserted)
        * recency(sessions_without_reinforcement, rate)
        * outcome_consistency(outcome_success, outcome_total)
        * (CAUSAL_FACTOR if causal else 1.0)
    )
    return min(1.0, max(0.0, value))


def node_strength(node: Mapping[str, Any]) -> float:
    """Strength a node's stored inputs give (its stored strength if it has neither episodes
    nor an asserted strength)."""
    if node["status"] != "active":
        return 0.0
    if node["episode_count"] <= 0 and node.get("asserted", 0.0) <= 0:
        return float(node["strength"])
    return compute_strength(
        node["episode_count"],
        node["sessions_without_reinforcement"],
        node["outcome_success"],
        node["outcome_total"],
        node["causal"],
        node.get("asserted", 0.0),
        node.get("decay_rate", RECENCY_RATE),
    )
