"""PNG plots of the sensitivity analysis: each metric against each parameter, default marked.

matplotlib is an optional extra (`pip install 'engram-hooks[plots]'`); without it `draw`
returns {} and the report keeps its tables.
"""

from __future__ import annotations

import os
from typing import Any

# (label, function of a point's metrics -> value or None)
RETRIEVAL = [
    ("recall (all)", lambda m: (m.get("recall_all_revisited") or {}).get("value")),
    ("recall of graph-known", lambda m: (m.get("recall_pre_known") or {}).get("value")),
    ("precision (all)", lambda m: (m.get("precision_all") or {}).get("value")),
    ("MRR@10", lambda m: (m.get("mrr") or {}).get("value")),
]
WINDOWS = [
    ("causal links kept", lambda m: m["windowing"]["links_kept"]),
    ("est. tokens (x the default's)", lambda m: m["windowing"]["tokens_relative"]),
]


def _available() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        return plt
    except ImportError:
        return None


def draw(data: dict[str, Any], folder: str) -> dict[str, str]:
    """{axis key: path relative to the report} of the plots written; {} without matplotlib."""
    plt = _available()
    if plt is None or not data.get("sweep"):
        return {}
    os.makedirs(folder, exist_ok=True)
    out = {}
    for ax in data["sweep"]:
        name = ax["key"].replace(".", "-") + ".png"
        if _axis(plt, ax, os.path.join(folder, name)):
            out[ax["key"]] = os.path.join("plots", name)
    return out


def _label(v: Any) -> str:
    return "/".join(map(str, v)) if isinstance(v, list) else str(v)


def _axis(plt: Any, ax: dict[str, Any], path: str) -> bool:
    points = ax["points"]
    series = [(lbl, f) for lbl, f in RETRIEVAL + WINDOWS if all(_safe(f, p["metrics"]) is not None for p in points)]
    if not series:
        return False
    xs = list(range(len(points)))
    fig, axes = plt.subplots(figsize=(6.4, 3.6))
    top = 1.0
    for lbl, f in series:
        ys = [_safe(f, p["metrics"]) for p in points]
        top = max([top] + ys)
        axes.plot(xs, ys, marker="o", label=lbl)
    for i, p in enumerate(points):
        if p["default"]:
            axes.axvline(i, color="grey", linestyle="--", linewidth=1)
            axes.annotate("default", (i, 1.0), textcoords="offset points", xytext=(3, -12), fontsize=8, color="grey")
    axes.set_xticks(xs, [_label(p["value"]) for p in points])
    axes.set_xlabel(ax["label"])
    axes.set_ylim(0, top * 1.05)
    axes.legend(fontsize=8, loc="best")
    axes.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _safe(f: Any, m: dict[str, Any]) -> float | None:
    try:
        return f(m)
    except (KeyError, TypeError):
        return None
