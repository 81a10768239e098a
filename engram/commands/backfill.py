"""`engram backfill [DIR] [--wait] [--provider P] [--progress]`: import your Claude Code history.

Turns existing transcripts into past sessions, so memory is useful from the first day.
DIR defaults to this project's history, `~/.claude/projects/<project path with "/" as
"-">`. Each session is replayed through the real hooks (the same events a live session
would have captured, filed under the project its cwd belongs to), oldest first; then
the sessions are consolidated by a background worker (`--progress` shows how far it
got), or in the foreground with `--wait`. With a model provider, one worker takes every
project's sessions in the order they happened, one at a time, so the day's token budget
goes to the oldest ones wherever they are; offline, each project's workers run side by side.

Importing twice changes nothing: `backfill.json` in the project's data directory records
each imported session with a hash of its transcript records, and a session whose event
stream already exists is never replayed again (imported before, or captured live).
`--progress` reports on the projects DIR's sessions belong to (without DIR: every
project with imported sessions).

examples:
  engram backfill                       this project's Claude Code history
  engram backfill ~/.claude/projects/-home-me-app --wait
  engram backfill --progress
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable

from engram.commands import add_project_option, add_provider_option

LEDGER = "backfill.json"


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("backfill", help="import existing Claude Code history as past sessions",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", nargs="?", metavar="DIR",
                   help="transcripts to import (default: ~/.claude/projects/<this project>)")
    add_project_option(p, "the project, for the default DIR (default: the current directory)")
    p.add_argument("--wait", action="store_true", help="consolidate in the foreground instead of the background")
    add_provider_option(p, "consolidation provider (default: config, offline without a key)")
    p.add_argument("--progress", action="store_true", help="show how far consolidation of imported sessions got")
    p.add_argument("--in-order", nargs="+", metavar="DATA_DIR", help=argparse.SUPPRESS)  # the one background worker
    p.set_defaults(func=run)


def history_dir(args: argparse.Namespace) -> str:
    """DIR, or the current project's Claude Code history; a one-line error if neither exists."""
    from engram.config import project_root
    from engram.errors import EngramError
    from engram.history import corpus

    if args.dir:
        path = os.path.expanduser(args.dir)
        if not os.path.exists(path):
            raise EngramError(f"{args.dir}: no such file or directory")
        named = [path] if os.path.isfile(path) else corpus.transcript_files([path])
        if not any(f.endswith(corpus.EXTENSIONS) for f in named):
            raise EngramError(f"{args.dir}: not a Claude Code transcript (.jsonl) or a folder of them; pass "
                              f"{os.path.join(corpus.CLAUDE_PROJECTS, '<project>')} or one of its .jsonl files")
        return path
    cwd = os.path.abspath(args.project or os.getcwd())
    for where in dict.fromkeys([project_root(cwd), cwd]):
        found = corpus.claude_history_dir(where)
        if found:
            return found
    name = corpus.claude_dir_names(project_root(cwd))[0]
    raise EngramError(f"no Claude Code history for {project_root(cwd)} (looked for "
                      f"{os.path.join(corpus.CLAUDE_PROJECTS, name)}); pass the transcripts' DIR")


# -- the ledger: what was imported ------------------------------------------------------------


def read_ledger(project: Any) -> dict[str, Any]:
    from engram import jsonio

    return jsonio.read_object(os.path.join(project.dir, LEDGER))


def write_ledger(project: Any, ledger: dict[str, Any]) -> None:
    from engram import jsonio
    from engram.fsio import write_atomic

    write_atomic(os.path.join(project.dir, LEDGER), jsonio.dumps(ledger).encode(), durable=False)


def session_hash(session: Any) -> str:
    """A hash of the session's transcript records (order-independent of the files they came from)."""
    from engram import jsonio
    from engram.hashing import sha256_hex

    return "sha256:" + sha256_hex("\n".join(jsonio.dumps(r) for r in session.records))[:32]


# -- importing ---------------------------------------------------------------------------------


def _last_time(session: Any) -> float | None:
    """The session's last record time (so SessionStart sees imported streams in history order)."""
    from datetime import datetime

    stamp = str(session.records[-1].get("timestamp") or "")
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def import_session(session: Any) -> tuple[str, Any]:
    """(what happened, its Project): "imported", "unchanged", "changed" or "live"."""
    from engram import config
    from engram.clock import utc_iso
    from engram.history.replay import replay

    project = config.Project.from_cwd(session.cwd).ensure()
    ledger = read_ledger(project)
    digest = session_hash(session)
    if os.path.exists(project.events_path(session.id)):
        known = (ledger.get(session.id) or {}).get("hash")
        return ("live" if known is None else "unchanged" if known == digest else "changed"), project
    replay(session.payloads(project.root), project.root, harness=session.harness)
    when = _last_time(session)
    if when and os.path.exists(project.events_path(session.id)):
        os.utime(project.events_path(session.id), (when, when))
    ledger[session.id] = {"hash": digest, "imported_at": utc_iso(0),
                          "started": session.start}
    write_ledger(project, ledger)
    return "imported", project


def import_all(sessions: list[Any], say: Callable[[str], None]) -> tuple[dict[str, Any], dict[str, int]]:
    """Replay every session not yet imported, with hooks that queue but spawn no worker."""
    saved = os.environ.get("ENGRAM_NO_WORKER")
    os.environ["ENGRAM_NO_WORKER"] = "1"
    projects: dict[str, Any] = {}
    counts: dict[str, int] = {}
    try:
        for i, s in enumerate(sessions, 1):
            what, project = import_session(s)
            counts[what] = counts.get(what, 0) + 1
            if what == "imported":
                projects[project.dir] = project
            say(f"[{i}/{len(sessions)}] {s.id[:8]} {s.start[:10]} {what}")
    finally:
        if saved is None:
            os.environ.pop("ENGRAM_NO_WORKER", None)
        else:
            os.environ["ENGRAM_NO_WORKER"] = saved
    return projects, counts


# -- consolidating ---------------------------------------------------------------------------


def consolidate(projects: list[Any], wait: bool, provider: str | None, say: Callable[[str], None]) -> None:
    """Consolidate what was imported: with a model, one worker takes every project's backlog
    oldest first (so the day's budget goes to the oldest sessions wherever they are); offline,
    each project's own workers drain its queue."""
    from engram.config import load_config
    from engram.consolidate import trigger, worker
    from engram.providers import registry

    if not projects:
        return
    cfg, _ = load_config(projects[0].home)
    if registry.choose(cfg, provider, projects[0].home)[0].NAME != "offline":
        for project in projects:
            trigger.enqueue(project, trigger.queued(project) or trigger.pending_sessions(project))
        if wait:
            consolidate_in_order(projects, provider, say)
        else:
            _start_in_order(projects, provider, say)
        return
    for project in projects:
        pending = trigger.queued(project) or trigger.pending_sessions(project)
        if wait:
            trigger.enqueue(project, pending)
            outcomes = worker.drain(project, cfg, registry.consolidation(cfg, provider, project=project), progress=say)
            say(f"{project.root}: {sum(o.status == 'consolidated' for o in outcomes)} session(s) consolidated")
        elif pending:
            pid = trigger.kick(project, cfg, pending)
            how = f"worker pid {pid}" if pid else "a worker already running will pick them up"
            say(f"{project.root}: consolidating {len(pending)} session(s) in the background ({how}); "
                "`engram backfill --progress` shows how far it got")


def backlog(projects: list[Any]) -> list[tuple[Any, str]]:
    """(project, session) of every queued session of `projects`, oldest first over all of them
    (by the stream's last write: an imported stream carries its transcript's last time)."""
    from engram.consolidate import trigger

    found = []
    for project in projects:
        for session in trigger.queued(project):
            try:
                found.append((os.stat(project.events_path(session)).st_mtime_ns, session, project))
            except OSError:  # forgotten meanwhile
                continue
    return [(project, session) for _, session, project in sorted(found, key=lambda f: f[:2])]


def consolidate_in_order(projects: list[Any], provider: str | None, say: Callable[[str], None]) -> None:
    """The one worker of a model-backed backfill: every project's queued sessions, oldest
    first, one at a time; a failed session stays queued for the next trigger."""
    from engram.config import load_config
    from engram.consolidate import trigger, worker
    from engram.providers import registry

    cfg, _ = load_config(projects[0].home)
    models = {p.dir: registry.consolidation(cfg, provider, project=p) for p in projects}
    done: dict[str, int] = {}
    for project, session in backlog(projects):
        o = worker.consolidate_session(project, session, cfg, models[project.dir], progress=say)
        if o.status == "failed":
            trigger.enqueue(project, [session])
        done[project.root] = done.get(project.root, 0) + (o.status == "consolidated")
    for root, n in done.items():
        say(f"{root}: {n} session(s) consolidated")


def _start_in_order(projects: list[Any], provider: str | None, say: Callable[[str], None]) -> None:
    """`consolidate_in_order` in one detached worker (`backfill --in-order DATA_DIR...`)."""
    from engram import workers

    argv = ["backfill", "--in-order", *[p.dir for p in projects]] + (["--provider", provider] if provider else [])
    pid = None if workers.disabled() else workers.start(argv, projects[0].log_path)
    how = f"worker pid {pid}" if pid else "queued; the next worker will pick them up"
    say(f"consolidating {len(projects)} project(s)' sessions in the background, oldest first, one at a time "
        f"({how}); `engram backfill --progress` shows how far it got")


def progress(projects: list[Any]) -> list[str]:
    """One line per project with imported sessions: consolidated / imported, queued."""
    from engram.consolidate import trigger

    lines = []
    for project in projects:
        ledger = read_ledger(project)
        if not ledger:
            continue
        done = sum(1 for sid in ledger if not trigger.needs_consolidation(project, sid))
        lines.append(f"{project.root}: {done}/{len(ledger)} imported session(s) consolidated, "
                     f"{len(trigger.queued(project))} queued")
    return lines or ["no imported sessions yet: run `engram backfill`"]


def progress_projects(args: argparse.Namespace) -> list[Any]:
    """The projects --progress reports on: those of DIR's sessions, or every project."""
    from engram import config
    from engram.history import corpus

    if not args.dir:
        return config.all_projects()
    sessions = corpus.load_sessions(corpus.transcript_files([history_dir(args)]))
    roots = dict.fromkeys(config.Project.from_cwd(s.cwd).root for s in sessions)
    return [p for p in config.all_projects() if p.root in roots]


def run(args: argparse.Namespace) -> int:
    from engram.commands import runnable
    from engram.history import corpus

    if args.progress:
        print(runnable("\n".join(progress(progress_projects(args)))))
        return 0
    if args.in_order:
        from engram.config import Project

        os.nice(10)  # background work: the agent's own processes come first
        consolidate_in_order([Project.from_dir(d) for d in args.in_order], args.provider, lambda _: None)
        return 0
    folder = history_dir(args)
    sessions = corpus.load_sessions(corpus.transcript_files([folder]))
    say = lambda msg: print(runnable(msg), file=sys.stderr, flush=True)  # noqa: E731
    say(f"{len(sessions)} session(s) in {folder}")
    projects, counts = import_all(sessions, say)
    print(", ".join(f"{n} {what}" for what, n in sorted(counts.items())) or "nothing to import")
    consolidate(list(projects.values()), args.wait, args.provider, say)
    return 0
