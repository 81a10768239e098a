"""The paired replay: every variant sees each session against the same graph.

For one project, sessions oldest first. A *master* home replays each session through the
real hooks and then consolidates it (synchronously, as the Stop-hook worker would), so
before session k the master holds the graph of sessions 1..k-1. Before the master
replays session k, every variant gets a copy of the master, replays session k there
with its settings while the recorder logs what retrieval showed, and is scored; the
copies are thrown away. Variants therefore differ only in retrieval, never in the graph
(node ids are random: two separately built graphs would break ties differently).

The event stream a session produces does not depend on the graph, so it is cached after
its first replay (`StreamCache`): a master built with other consolidation settings
(entity-resolution bands, windows with a model provider) copies the cached streams and
only re-consolidates. Hook latency is timed on the first, hook-driven master only.
"""

from __future__ import annotations

import os
import shutil
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable

from engram.capture.event_stream import read_events
from engram.evaluation import outcomes, questions, sandbox, scoring
from engram.evaluation.recorder import Recorder, Variant
from engram.history import corpus
from engram.history.replay import replay

Say = Callable[[str], None]


@dataclass(frozen=True)
class Build:
    """The consolidation side of a master: provider, entity-resolution bands, windows."""

    provider: str = "offline"
    bands: tuple[float, float] | None = None  # (merge above, child above); None = calibrated default
    window: tuple[int, int] | None = None  # (windowSize, windowOverlap); None = config default

    def settings(self) -> dict[str, Any]:
        out: dict[str, Any] = {"llmProvider": self.provider}
        if self.window:
            out.update(windowSize=self.window[0], windowOverlap=self.window[1])
        return out


@dataclass
class ProjectRun:
    project: str
    sessions: list[str] = field(default_factory=list)
    rows: dict[str, list[dict]] = field(default_factory=lambda: defaultdict(list))
    reciprocal_ranks: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    latency_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    consolidation: list[dict] = field(default_factory=list)
    graph: dict[str, Any] = field(default_factory=dict)
    hook_faults: int = 0


class StreamCache(dict):
    """{(project root, session id): the session's event stream bytes}."""


def _timer(run: ProjectRun):
    """What replay reports, kept in `run`: hook latency by event, and faults."""
    def observe(event: str, out: str, ms: float, fault: bool) -> None:
        run.hook_faults += fault
        run.latency_ms["PostToolUse+note" if event == "PostToolUse" and out else event].append(ms)

    return observe


def _consolidate(project: Any, sid: str, build: Build) -> dict[str, Any]:
    from engram import config
    from engram.consolidate import entity_resolution, worker
    from engram.providers import registry

    cfg, _ = config.load_config()
    models = registry.consolidation(cfg, build.provider, project=project)
    t0 = time.perf_counter()
    if build.bands:
        with sandbox.patched(entity_resolution, "bands_for", lambda model: build.bands):
            o = worker.consolidate_session(project, sid, cfg, models)
    else:
        o = worker.consolidate_session(project, sid, cfg, models)
    secs = time.perf_counter() - t0
    events = o.to_seq - o.from_seq + 1 if o.status == "consolidated" else 0
    tokens = {k: int(o.usage.get(k) or 0) for k in ("input_tokens", "output_tokens")}
    return {"session": sid, "status": o.status, "kind": o.kind, "events": events, "seconds": round(secs, 4),
            **tokens, "error": o.error}


def _master_step(master: str, root: str, session: corpus.Session, build: Build, cache: StreamCache,
                 run: ProjectRun) -> list[dict]:
    """Replay (or restore from the cache) one session in the master, consolidate it; its events."""
    from engram import config

    with sandbox.home(master, build.settings(), offline=build.provider == "offline"):
        project = config.Project.from_cwd(root).ensure()
        path = project.events_path(session.id)
        if (root, session.id) in cache:
            if cache[(root, session.id)]:
                with open(path, "wb") as f:
                    f.write(cache[(root, session.id)])
        else:
            replay(session.payloads(root), root, _timer(run), session.harness)
            cache[(root, session.id)] = b""  # a session with no prompt and no tool call leaves no stream
            if os.path.exists(path):
                with open(path, "rb") as f:
                    cache[(root, session.id)] = f.read()
        run.consolidation.append(_consolidate(project, session.id, build))
        return read_events(path)[0]


def copy_home(master: str, scratch: str) -> None:
    """A copy of the master for one variant's replay, without the event streams no hook reads.

    SessionStart reads only the newest streams (`start.project_context.MAX_STREAMS`, by mtime);
    copying every older one made a long history quadratic in its length.
    """
    from engram.retrieve.start.project_context import MAX_STREAMS

    def ignore(folder: str, names: list[str]) -> list[str]:
        if os.path.basename(folder) != "events":
            return []
        streams = sorted((n for n in names if n.endswith(".jsonl")),
                         key=lambda n: os.stat(os.path.join(folder, n)).st_mtime_ns, reverse=True)
        return streams[MAX_STREAMS:]

    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(master, scratch, ignore=ignore)


def _variant_step(master: str, scratch: str, root: str, session: corpus.Session, v: Variant, build: Build,
                  recent: list[str]) -> tuple[Recorder, list[dict]]:
    """Replay one session on a copy of the master with the variant's retrieval; what it showed."""
    from engram import config

    copy_home(master, scratch)
    rec = Recorder(v, session.id, recent)
    with sandbox.home(scratch, {**build.settings(), **v.settings()}, offline=build.provider == "offline"):
        with rec.installed():
            replay(session.payloads(root), root, harness=session.harness)
        events = read_events(config.Project.from_cwd(root).events_path(session.id))[0]
    return rec, events


def _mrr_step(run: ProjectRun, variants: list[Variant], master: str, root: str, build: Build,
              events: list[dict], answerable: set[str], recent: list[str]) -> None:
    """Reciprocal ranks of this session's questions, asked of the master before the session."""
    from engram import config

    qs = questions.relevant_sets(events, answerable)
    if not qs:
        return
    done: dict[tuple, list[list[set[str]]]] = {}
    with sandbox.home(master, build.settings(), offline=build.provider == "offline"):
        db = config.Project.from_cwd(root).db_path
        for v in variants:
            key = (v.kind, v.rule, v.combine, tuple(p for p in v.params if p[0] != "tokenBudget"))
            if key not in done:
                cfg = {**config.DEFAULTS, **v.settings()}
                done[key] = questions.rankings(v, db, root, [q for q, _ in qs], cfg, recent)
            for ranked, (_, relevant) in zip(done[key], qs):
                run.reciprocal_ranks[v.name].append(questions.reciprocal_rank(ranked, relevant))


def run_project(project: corpus.Project, variants: list[Variant], build: Build, base: str,
                cache: StreamCache, say: Say = lambda _: None) -> ProjectRun:
    """The paired replay of one project (see the module docstring)."""
    from engram import config

    run = ProjectRun(project.root)
    master, scratch = os.path.join(base, "master"), os.path.join(base, "scratch")
    earlier: set[str] = set()
    recent: list[str] = []
    for k, session in enumerate(project.sessions):
        t0 = time.perf_counter()
        run.sessions.append(session.id)
        if k > 0 and variants:
            with sandbox.home(master, build.settings()):
                known = outcomes.graph_keys(config.Project.from_cwd(project.root).db_path)
            events: list[dict] = []
            for v in variants:
                rec, events = _variant_step(master, scratch, project.root, session, v, build, recent)
                touched = outcomes.touches(events)
                tokens = {ch: rec.tokens.get((session.id, ch), 0) for ch in scoring.CHANNELS}
                run.rows[v.name].append(scoring.score_session(session.id, rec.items, touched, known, earlier,
                                                              tokens, len(events)))
            _mrr_step(run, variants, master, project.root, build, events, known | earlier, recent)
        events = _master_step(master, project.root, session, build, cache, run)
        touched = outcomes.touches(events)
        earlier |= {key for _, key in touched}
        recent = list(dict.fromkeys(key[5:] for _, key in reversed(touched) if key.startswith("file:")))
        say(f"  {project.name} {k + 1}/{len(project.sessions)} {session.id[:8]}: {len(events)} events, "
            f"{len(variants) if k else 0} variant replays, {run.consolidation[-1]['status']} "
            f"({time.perf_counter() - t0:.1f} s)")
    run.graph = _graph_stats(master, project.root, build)
    shutil.rmtree(scratch, ignore_errors=True)
    return run


def _graph_stats(master: str, root: str, build: Build) -> dict[str, Any]:
    """The master's graph at the end, and its payoff over every session (docs/curation.md)."""
    from engram import config
    from engram.graph import items, readonly

    with sandbox.home(master, build.settings()):
        conn = readonly.open_ro(config.Project.from_cwd(root).db_path)
    if conn is None:
        return {"nodes": 0, "live": 0, "superseded": 0, "edges": 0, "by_type": {}}
    try:
        return {**readonly.stats(conn), "payoff": items.payoff(conn, 1_000_000)}
    finally:
        conn.close()
