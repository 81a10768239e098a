"""`engram worker --project DIR [--checks]`: the detached worker the hooks start.

Without --checks it consolidates the project's queued sessions; with --checks it runs
the queued contradiction checks. Either way it holds one of the project's worker slots
(engram.workers), chooses the providers the configuration asks for (engram.providers)
and hands them to the job, then exits. A drain that consolidated anything starts
`--warm HARNESS` once the graph is out of the context cache's racy window: the context a
new session would get, made and cached (retrieve/start/cache.py), so the next session
starts without reading the graph. Output goes to the project log (the hook points
stdout/stderr there); run it by hand to watch a drain in the foreground.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from engram.commands import add_project_option, add_provider_option


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "worker",
        help="(internal) drain a project's consolidation or check queue; the hooks start it",
        description="Consolidate every queued session of one project (or, with --checks, run its queued "
                    "contradiction checks), then exit.\n\nexample:\n  engram worker --project .",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_project_option(p, "the project's root or data directory", required=True)
    p.add_argument("--checks", action="store_true", help="run the queued contradiction checks instead")
    p.add_argument("--warm", metavar="HARNESS", help="cache the context a new session of HARNESS would get instead")
    add_provider_option(p, "override llmProvider (default: config, offline without a key)")
    p.add_argument("--slot-fd", type=int, help=argparse.SUPPRESS)  # the slot the spawning hook claimed
    p.set_defaults(func=run)


def open_project(path: str | None) -> Any:
    """A Project from its data directory (holding project.json) or from a directory inside it."""
    from engram.config import Project

    path = os.path.abspath(path or os.getcwd())
    if os.path.exists(os.path.join(path, "project.json")):
        return Project.from_dir(path)
    return Project.from_cwd(path).ensure()


def run(args: argparse.Namespace) -> int:
    from engram.config import load_config
    from engram.log import log

    os.nice(10)  # background work: the agent's own processes come first
    project = open_project(args.project)
    cfg, _ = load_config(project.home)
    if args.checks:
        return _checks(project, cfg, args)
    if args.warm:
        from engram.retrieve import inject

        inject.warm(project, cfg, args.warm)
        return 0
    from engram.consolidate.worker import drain
    from engram.providers import registry

    models = registry.consolidation(cfg, args.provider, project=project)
    outcomes = drain(project, cfg, models, slot_fd=args.slot_fd)
    _record_use(project, models, outcomes)
    done = sum(1 for o in outcomes if o.status == "consolidated")
    failed = [o.session for o in outcomes if o.status == "failed"]
    log(project.log_path, "worker", f"drained: {done} consolidated, {len(failed)} failed {failed or ''}", "INFO")
    if done:
        _start_warm(project, [o.session for o in outcomes if o.status == "consolidated"][-1])
    return 1 if failed else 0


def _start_warm(project: Any, session: str) -> None:
    """Start `engram worker --warm` for the harness of the last session consolidated, after
    the context cache's racy window (a graph written this recently is not cached)."""
    from engram import workers
    from engram.retrieve.start import cache

    if not workers.disabled():
        workers.start(["worker", "--warm", _harness_of(project, session), "--project", project.dir],
                      project.log_path, delay=cache.RACY_NS / 1e9 + 0.5, nice=10)


def _harness_of(project: Any, session: str) -> str:
    """The harness a session ran in, from its session_start event (claude-code when none says)."""
    from engram import jsonio
    from engram.fsio import read_regular

    head = read_regular(project.events_path(session), 65536, follow=False) or b""
    for line in head.split(b"\n")[:50]:
        if b'"session_start"' in line:
            try:
                ev = jsonio.loads(line.decode("utf-8", "replace"))
            except ValueError:
                continue
            if isinstance(ev, dict) and isinstance(ev.get("harness"), str) and ev["harness"]:
                return ev["harness"]
    return "claude-code"


def _record_use(project: Any, models: Any, outcomes: list[Any]) -> None:
    """What the last session that ran a consolidator was consolidated with (engram/worker_use.py:
    `status` and `doctor` show it, since this process has the harness's environment)."""
    from engram import worker_use

    ran = [o for o in outcomes if o.kind]
    if not ran:
        return
    last = ran[-1]
    used = models.consolidator.models if last.provider == models.consolidator.name else {}
    worker_use.record(project.home, last.provider, ", ".join(dict.fromkeys(used.values())), last.why)


def _checks(project: Any, cfg: dict[str, Any], args: argparse.Namespace) -> int:
    from engram.monitor.worker import drain
    from engram.providers import registry

    if args.provider:
        cfg = {**cfg, "llmProvider": args.provider}
    drain(project, cfg, registry.checker(cfg, project=project), slot_fd=args.slot_fd)
    return 0
