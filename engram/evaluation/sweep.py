"""The sensitivity analysis: one parameter at a time around the defaults (an ablation).

Axes and how each is measured:

* retrieval (`decayFactor`, `activationThreshold`, `spreadingRule`, `tokenBudget`): one
  variant per value, replayed in the same paired run as the main comparison, so every
  point sees exactly the same graphs;
* entity-resolution bands (merge above / child above): a graph built anew per value from
  the cached event streams (no hook replay), scored with default retrieval;
* windows (`windowSize` / `windowOverlap`): offline, the consolidator does not window, so
  retrieval cannot move; `windowing` measures Pass 1 calls, tokens and causal links kept.
  With a model provider each setting is also re-consolidated and scored.

Sizes: "default" (the issue's ranges), "tiny" (two values per axis, for tests), "none".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram.config import DEFAULTS
from engram.evaluation.recorder import Variant


@dataclass(frozen=True)
class Axis:
    key: str  # decayFactor | activationThreshold | spreadingRule | tokenBudget | bands.merge | bands.child | windows
    label: str
    values: tuple
    default: Any
    side: str  # retrieval | bands | windows


def default_bands() -> tuple[float, float]:
    from engram.consolidate.entity_resolution import bands_for
    from engram.providers.offline import LOCAL_MODEL

    return bands_for(LOCAL_MODEL)


def axes(size: str) -> list[Axis]:
    """The axes of a sweep of this size ("default", "tiny" or "none")."""
    if size == "none":
        return []
    tiny = size == "tiny"
    merge, child = default_bands()
    win = (int(DEFAULTS["windowSize"]), int(DEFAULTS["windowOverlap"]))

    def ax(key: str, label: str, full: tuple, small: tuple, default: Any, side: str) -> Axis:
        return Axis(key, label, small if tiny else full, default, side)

    return [
        ax("decayFactor", "decay factor", (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9), (0.4, 0.6),
           DEFAULTS["decayFactor"], "retrieval"),
        ax("activationThreshold", "activation threshold", (0.05, 0.1, 0.15, 0.2, 0.3), (0.1, 0.2),
           DEFAULTS["activationThreshold"], "retrieval"),
        ax("spreadingRule", "spreading rule", ("spec", "fan"), ("spec", "fan"), DEFAULTS["spreadingRule"], "retrieval"),
        ax("tokenBudget", "token budget", (300, 600, 1200, 2400), (600, 1200), DEFAULTS["tokenBudget"], "retrieval"),
        ax("bands.merge", "merge band (similarity above)", (0.90, 0.95, 0.98), (merge,), merge, "bands"),
        ax("bands.child", "child band (similarity above)", (0.45, 0.53, 0.65, 0.80), (child, 0.80), child, "bands"),
        ax("windows", "windowSize / windowOverlap", ((6, 2), (8, 2), (8, 3), (10, 3), (12, 3), (12, 4), (14, 4)),
           ((6, 2), win), win, "windows"),
    ]  # fmt: skip


_SHORT = {"decayFactor": "decay", "activationThreshold": "threshold", "tokenBudget": "budget"}


def variant_for(axis: Axis, value: Any) -> Variant:
    """The retrieval variant of one point (the default point is the "engram" variant)."""
    if value == axis.default:
        return Variant.parse("engram")
    if axis.key == "spreadingRule":
        return Variant.parse(str(value))
    return Variant.parse(f"spec:{_SHORT[axis.key]}={value}")


def retrieval_variants(all_axes: list[Axis]) -> list[Variant]:
    out = [variant_for(a, v) for a in all_axes if a.side == "retrieval" for v in a.values]
    return list(dict.fromkeys(out))


def bands_for_point(axis: Axis, value: float) -> tuple[float, float]:
    merge, child = default_bands()
    return (value, child) if axis.key == "bands.merge" else (merge, value)


def band_builds(all_axes: list[Axis]) -> list[tuple[float, float]]:
    """The non-default band settings that need a graph of their own."""
    out = [bands_for_point(a, v) for a in all_axes if a.side == "bands" for v in a.values if v != a.default]
    return list(dict.fromkeys(out))


def window_settings(all_axes: list[Axis]) -> list[tuple[int, int]]:
    return [v for a in all_axes if a.side == "windows" for v in a.values]
