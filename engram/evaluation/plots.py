"""PNG plots of the evaluation: engram against each baseline, and each metric of the
sensitivity analysis against each parameter, default marked.

matplotlib is an optional extra (`pip install 'engram-hooks[plots]'`; the dev extra has
it); without it `draw` returns {} and the report keeps its tables and says, like stderr,
why there are no plots (`MISSING`).
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


MISSING = "No plots: matplotlib is not installed (`pip install 'engram-hooks[plots]'` draws them)."
COMPARED = [("recall (all)", "recall_all_revisited"), ("precision (all)", "precision_all"), ("MRR@10", "mrr")]
BASELINE_PLOT = "baselines"


def available() -> bool:
    return _available() is not None


def _available() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        return plt
    except ImportError:
        return None


def draw(data: dict[str, Any], folder: str) -> dict[str, str]:
    """{axis key, or BASELINE_PLOT: path relative to the report} of the plots written; {}
    without matplotlib."""
    plt = _available()
    comparison = data.get("comparison") or {}
    if plt is None or not (data.get("sweep") or (comparison.get("engram") or {}).get("sessions")):
        return {}
    os.makedirs(folder, exist_ok=True)
    out = {}
    if _baselines(plt, comparison, os.path.join(folder, BASELINE_PLOT + ".png")):
        out[BASELINE_PLOT] = os.path.join("plots", BASELINE_PLOT + ".png")
    for ax in data.get("sweep") or []:
        name = ax["key"].replace(".", "-") + ".png"
        if _axis(plt, ax, os.path.join(folder, name)):
            out[ax["key"]] = os.path.join("plots", name)
    return out


def _baselines(plt: Any, comparison: dict[str, Any], path: str) -> bool:
    """Grouped bars: each method (engram first, then each baseline) on recall, precision, MRR@10."""
    if not (comparison.get("engram") or {}).get("sessions"):
        return False
    methods = list(comparison)
    fig, axes = plt.subplots(figsize=(7.2, 3.8))
    width = 0.8 / len(methods)
    for i, name in enumerate(methods):
        ys = [(comparison[name].get(key) or {}).get("value") or 0.0 for _, key in COMPARED]
        bars = axes.bar([x + i * width for x in range(len(COMPARED))], ys, width, label=name)
        axes.bar_label(bars, fmt="%.2f", fontsize=7)
    axes.set_xticks([x + width * (len(methods) - 1) / 2 for x in range(len(COMPARED))], [lbl for lbl, _ in COMPARED])
    axes.set_ylim(0, 1.05)
    axes.set_title("engram against the baselines (same sessions, same run)", fontsize=10)
    axes.legend(fontsize=8, loc="upper right")
    axes.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


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
