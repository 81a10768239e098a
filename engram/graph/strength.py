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
* A node with no source episode (episode_count 0) was asserted, not observed (an explicit
  `engram decide`, an implicit decision the consolidator scored 0.3-0.4). The formula would
  give log2(1) = 0 and erase it, so recomputation leaves its stored strength alone until an
  episode reinforces it; from then on the formula rules.
* Decay is activity-relative (decay.py applies it in the database).
* Superseded nodes keep strength 0 and are never recomputed.

Pure functions: the database side (recompute, reinforce, decay per session) is decay.py.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

RECENCY_RATE = 0.1
CAUSAL_FACTOR = 1.5


def frequency(episode_count: int) -> float:
    return math.log2(1 + max(0, episode_count))


def recency(sessions_without_reinforcement: int) -> float:
    return math.exp(-RECENCY_RATE * max(0, sessions_without_reinforcement))


def outcome_consistency(success: int, total: int) -> float:
    """Fraction of judged episodes that succeeded; 1.0 when none was judged (see above)."""
    return 1.0 if total <= 0 else max(0, min(success, total)) / total


def compute_strength(
    episode_count: int,
    sessions_without_reinforcement: int = 0,
    outcome_success: int = 0,
    outcome_total: int = 0,
    causal: bool | int = False,
) -> float:
    """The spec's formula, clamped to [0, 1]."""
    value = (
        frequency(episode_count)
        * recency(sessions_without_reinforcement)
        * outcome_consistency(outcome_success, outcome_total)
        * (CAUSAL_FACTOR if causal else 1.0)
    )
    return min(1.0, max(0.0, value))


def node_strength(node: Mapping[str, Any]) -> float:
    """Strength a node's stored inputs give (its stored strength if it has no episode)."""
    if node["status"] != "active":
        return 0.0
    if node["episode_count"] <= 0:
        return float(node["strength"])
    return compute_strength(
        node["episode_count"],
        node["sessions_without_reinforcement"],
        node["outcome_success"],
        node["outcome_total"],
        node["causal"],
    )
