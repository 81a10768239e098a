"""`engram eval` end to end: replay, compare, score knowledge, check supersession, sweep, report.

One paired replay per project carries the main comparison (engram against BM25,
recency-only and no memory) and every retrieval point of the sweep, so all of them see
the same graphs. Graphs for other entity-resolution bands (and, with a model provider,
other windows) are rebuilt from the cached event streams. The supersession check runs
in its own home. Everything happens under one temporary directory, removed at the end.
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Callable

from engram.config import DEFAULTS
from engram.evaluation import chains, engine, knowledge, latency, scoring, sweep, windowing
from engram.evaluation.recorder import Variant
from engram.history import corpus

MAIN = ("engram", "spec+noisy-or", "bm25", "recency", "none")
DEFAULT_WINDOW = (int(DEFAULTS["windowSize"]), int(DEFAULTS["windowOverlap"]))
Say = Callable[[str], None]


@dataclass
class Options:
    transcripts: list[str]
    out: str
    provider: str = "offline"
    sweep: str = "default"
    max_sessions: int | None = None
    latency_sample: int = 24
    chains: int = len(chains.DOMAINS)
    command: str = ""
    labels: str | None = None  # knowledge labels (default: the ones shipped with engram)


def _replay_all(projects: list[corpus.Project], variants: list[Variant], build: engine.Build, base: str,
                cache: engine.StreamCache, say: Say) -> list[engine.ProjectRun]:
    return [engine.run_project(p, variants, build, os.path.join(base, str(i)), cache, say)
            for i, p in enumerate(projects)]


def measure(runs: list[engine.ProjectRun], name: str) -> dict[str, Any]:
    """One variant's summary over all projects, with its MRR."""
    rows = [r for run in runs for r in run.rows.get(name, [])]
    rr = [x for run in runs for x in run.reciprocal_ranks.get(name, [])]
    out = scoring.summarize(rows)
    out["mrr"] = {"value": round(sum(rr) / len(rr), 4) if rr else None, "questions": len(rr)}
    return out


def _check_no_memory(summary: dict[str, Any]) -> None:
    """No memory shows nothing, so it covers nothing: anything else is a scoring bug."""
    for key, val in summary.items():
        if key.startswith("recall_") and val["num"]:
            raise AssertionError(f"the no-memory baseline covered {val['num']} targets ({key}): scoring is broken")


def _graph_total(runs: list[engine.ProjectRun]) -> dict[str, int]:
    return {k: sum(r.graph.get(k, 0) for r in runs) for k in ("nodes", "live", "superseded", "edges")}


def _latency(runs: list[engine.ProjectRun], projects: list[corpus.Project], base: str, n: int, say: Say) -> dict:
    merged: dict[str, list[float]] = {}
    for run in runs:
        for ev, vals in run.latency_ms.items():
            merged.setdefault(ev, []).extend(vals)
    out: dict[str, Any] = {"in_process_ms": latency.summary(merged), "hook_faults": sum(r.hook_faults for r in runs)}
    if n > 0:
        i = max(range(len(projects)), key=lambda j: len(projects[j].sessions))
        p = projects[i]
        say(f"latency: {n} payloads of {p.name} as real hook subprocesses")
        sample = latency.subprocess_sample(os.path.join(base, "main", str(i), "master"),
                                           p.sessions[-1].payloads(p.root), n, os.path.join(base, "latency"))
        out["subprocess_ms"] = latency.summary(sample)
    return out


def _consolidation(runs: list[engine.ProjectRun]) -> dict[str, Any]:
    done = [c for r in runs for c in r.consolidation if c["status"] == "consolidated"]
    secs = sum(c["seconds"] for c in done)
    events = sum(c["events"] for c in done)
    tokens = {k: sum(c[k] for c in done) for k in ("input_tokens", "output_tokens")}
    return {"sessions": len(done), "events": events, "seconds": round(secs, 3),
            "events_per_second": round(events / secs) if secs else None, **tokens,
            "failed": [c for r in runs for c in r.consolidation if c["status"] == "failed"]}


def _streams(cache: engine.StreamCache) -> list[list[dict]]:
    from engram import jsonio

    return [[jsonio.loads(ln) for ln in raw.decode("utf-8", "replace").splitlines() if ln.strip()]
            for raw in cache.values()]


def _sweep(opts: Options, projects: list[corpus.Project], runs: list[engine.ProjectRun], cache: engine.StreamCache,
           base: str, say: Say) -> list[dict[str, Any]]:
    """Each axis: [{value, default, metrics}] (see `sweep` for how each side is measured)."""
    out = []
    default = measure(runs, "engram") | {"graph": _graph_total(runs), "consolidation": _consolidation(runs)}
    built: dict[Any, dict] = {}
    axes = sweep.axes(opts.sweep)
    for b in sweep.band_builds(axes):
        say(f"sweep: entity-resolution bands merge > {b[0]}, child > {b[1]}: graphs rebuilt from cached streams")
        rb = _replay_all(projects, [Variant.parse("engram")], engine.Build(opts.provider, bands=b),
                         os.path.join(base, f"bands-{b[0]}-{b[1]}"), cache, say)
        built[("bands", b)] = measure(rb, "engram") | {"graph": _graph_total(rb)}
    wins = windowing.sweep(_streams(cache), sweep.window_settings(axes), DEFAULT_WINDOW)
    for a in axes:
        points = []
        for v in a.values:
            if a.side == "retrieval":
                m = default if v == a.default else measure(runs, sweep.variant_for(a, v).name)
            elif a.side == "bands":
                m = default if v == a.default else built[("bands", sweep.bands_for_point(a, v))]
            else:
                m = _window_point(opts, projects, cache, base, v, default, wins[v], say)
            points.append({"value": list(v) if isinstance(v, tuple) else v, "default": v == a.default, "metrics": m})
        out.append({"key": a.key, "label": a.label, "side": a.side, "points": points})
    return out


def _window_point(opts: Options, projects: list[corpus.Project], cache: engine.StreamCache, base: str,
                  v: tuple[int, int], default: dict, win: dict, say: Say) -> dict[str, Any]:
    """Offline: the window measures only (retrieval cannot move). With a model: re-consolidated too."""
    if opts.provider == "offline":
        return {"windowing": win}
    if v == DEFAULT_WINDOW:
        return default | {"windowing": win}
    say(f"sweep: windows {v[0]}/{v[1]} with {opts.provider}: re-consolidating every session")
    rw = _replay_all(projects, [Variant.parse("engram")], engine.Build(opts.provider, window=v),
                     os.path.join(base, f"win-{v[0]}-{v[1]}"), cache, say)
    return measure(rw, "engram") | {"graph": _graph_total(rw), "windowing": win,
                                    "consolidation": _consolidation(rw)}


def _projects(opts: Options, say: Say) -> list[corpus.Project]:
    from engram.errors import EngramError

    projects = [p for p in corpus.load(opts.transcripts, opts.max_sessions) if p.sessions]
    if not projects:
        raise EngramError(f"no Claude Code sessions found under {', '.join(opts.transcripts)}; "
                          "pass --transcripts DIR with *.jsonl transcripts (e.g. ~/.claude/projects/<project>)")
    say(f"{sum(len(p.sessions) for p in projects)} session(s) in {len(projects)} project(s): "
        + ", ".join(f"{p.name} ({len(p.sessions)})" for p in projects))
    if opts.provider != "offline":
        axes = sweep.axes(opts.sweep)
        extra = len(sweep.band_builds(axes)) + len([w for w in sweep.window_settings(axes) if w != DEFAULT_WINDOW])
        say(f"{opts.provider}: every session is consolidated by the model {1 + extra} time(s) (the sweep rebuilds "
            f"{extra} graph(s)), plus the supersession check; --sweep none keeps it to once")
    return projects


def _shown_path(d: str) -> str:
    """Relative to the cwd when below or beside it, so a committed report names no machine path."""
    rel = os.path.relpath(os.path.abspath(d))
    return rel if not rel.startswith("../../") else os.path.abspath(d)


def _meta(opts: Options) -> dict[str, Any]:
    from engram import __version__

    return {"engram": __version__, "python": platform.python_version(), "provider": opts.provider,
            "transcripts": [_shown_path(d) for d in opts.transcripts], "sweep": opts.sweep,
            "command": opts.command, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def evaluate(opts: Options, say: Say) -> dict[str, Any]:
    """The whole evaluation; returns the report's data (report.write turns it into files)."""
    t0 = time.time()
    projects = _projects(opts, say)
    variants = list(dict.fromkeys([Variant.parse(v) for v in MAIN] + sweep.retrieval_variants(sweep.axes(opts.sweep))))
    base = tempfile.mkdtemp(prefix="engram-eval-")
    try:
        cache = engine.StreamCache()
        say(f"replaying in time order with {len(variants)} retrieval variant(s) per session")
        runs = _replay_all(projects, variants, engine.Build(opts.provider), os.path.join(base, "main"), cache, say)
        comparison = {name: measure(runs, name) for name in MAIN}
        _check_no_memory(comparison["none"])
        say("knowledge: the labelled projects replayed again, SessionStart texts against the baselines")
        known = knowledge.evaluate(projects, os.path.join(base, "knowledge"), provider=opts.provider,
                                   labels_path=opts.labels, say=say)
        say("supersession check: decision chains through the hooks, consolidation and retrieval")
        checked = chains.check(os.path.join(base, "chains"), opts.chains, opts.provider, say=say)
        data = {
            "meta": _meta(opts),
            "corpus": [{"project": p.name, "root": p.root, "sessions": len(p.sessions),
                        "scored": max(0, len(p.sessions) - 1)} for p in projects],
            "graph": {r.project: r.graph for r in runs},
            "comparison": comparison,
            "knowledge": known,
            "per_session": {name: [r for run in runs for r in run.rows.get(name, [])] for name in MAIN},
            "latency": _latency(runs, projects, base, opts.latency_sample, say),
            "consolidation": _consolidation(runs),
            "supersession": checked,
            "sweep": _sweep(opts, projects, runs, cache, base, say),
        }
        data["meta"]["seconds"] = round(time.time() - t0, 1)
        return data
    finally:
        shutil.rmtree(base, ignore_errors=True)


def stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)
