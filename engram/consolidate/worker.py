"""The consolidation worker: the state machine, one session's run end to end, the drain.

`python -m engram worker --project DIR` (commands/worker.py) chooses the providers and
calls `drain`, which consolidates queued sessions while holding a worker slot.

State (derived from files, never stored as a status): a session NEEDS_CONSOLIDATION iff
its JSONL holds events past `consolidated_to` in its episode file (episode_file.py).

One run, under the session's lock (`episodes/<session>.lock`, one worker per session):
1. read the JSONL once; the new events are those past max(file mark, the graph's
   `consolidations` record). A graph record ahead of the file means a previous run
   crashed between its COMMIT and the file write: the file is rewritten, nothing is
   re-applied.
2. choose the kind: fewer than `minEventsForFullConsolidation` turns and no tool use ->
   the light discussion consolidation; otherwise the full two passes.
3. build the episode + graph change request with the consolidator the entry point chose
   (`Models`): the offline one, or a model's (engram.providers).
   Answers still unusable after their one repair: the session is consolidated offline at
   once, and marked in `unusable/<session>.json`, so later runs consolidate its new events
   offline without asking the model (retrying on every Stop spent 14 calls and 18k tokens
   on one 13-event session for nothing, issue 24); `engram consolidate --redo` removes it.
   Any other model failure (timeout, 429/5xx after retries) ends the run here: nothing
   was written, the state stays NEEDS_CONSOLIDATION, the fault is logged and left in
   `faults/<session>.json` for the next SessionStart to report.
4. entity resolution, then ONE graph transaction that also records the event range.
5. only then the episode file is replaced atomically, with the new mark.
"""

from __future__ import annotations

import os
import shutil
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from engram import jsonio, workers
from engram.consolidate import background, episode_file, gotcha_index, graph_apply, passes, trigger
from engram.consolidate.crashpoints import crash_at
from engram.consolidate.entity_resolution import Resolver
from engram.consolidate.knowledge import replies
from engram.consolidate.offline_episode import files_modified, outcome_known
from engram.config import safe_name
from engram.fsio import private_dir, write_atomic
from engram.graph import store
from engram.log import log
from engram.redact import injection
from engram.text import strip_injected
from engram.errors import LLMError

Progress = Callable[[str], None]
UNUSABLE = "unusable"  # unusable/<session>.json: the model's answers for it were unusable
ANSWERS = "answers"  # answers/<session>/: a model's answers, kept until the session is consolidated


class Consolidator(Protocol):
    """Turns a range of events into {"episode", "graph"[, "windows"]} (validated), or raises
    LLMError. A provider supplies one (engram.providers): `offline.OfflineConsolidator`,
    or `passes.ModelConsolidator` over a chat model."""

    name: str  # the provider's name
    models: dict[str, str]  # model per step ({} offline)
    why: str  # why this provider was chosen

    def full(self, new: list[dict[str, Any]], prior: list[dict[str, Any]], cfg: dict[str, Any],
             usage: passes.Usage, known: list[str] = ()) -> dict[str, Any]: ...

    def discussion(self, new: list[dict[str, Any]], prior: list[dict[str, Any]],
                   usage: passes.Usage) -> dict[str, Any]: ...


@dataclass
class Models:
    """What the worker's entry point chose (engram.providers.registry) and hands down."""

    consolidator: Consolidator
    embedder: Any  # .name .model .dim .remote .embed(texts); wrapped in the cache here
    adjudicator: Any = None  # entity_resolution.Adjudicator for the ambiguous band; None offline
    offline: Consolidator | None = None  # where a session whose model answers are unusable goes; None offline
DISCUSSION_TYPES = ("user_prompt", "turn_complete")


@dataclass
class Outcome:
    session: str
    status: str  # consolidated | nothing | recovered | busy | failed
    kind: str = ""
    provider: str = ""
    why: str = ""  # why that provider (the consolidator's reason)
    from_seq: int = 0
    to_seq: int = 0
    episode_id: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    error: str = ""


def counts_text(counts: dict[str, int]) -> str:
    """What a graph change did, for people: "3 created, 1 merged, 4 edges" (nothing: "no changes")."""
    return ", ".join(f"{n} {what}" for what, n in counts.items() if n) or "no changes"


# -- reading the stream ----------------------------------------------------------------


def read_stream(path: str) -> tuple[list[dict[str, Any]], int]:
    """(events, bytes consumed): complete lines only; torn or foreign lines are skipped. A
    prompt recorded with context a harness fed back into it (before the hook stripped it)
    is read as the user's words alone."""
    objects, _, end = jsonio.read_jsonl(path)
    events = [ev for ev in objects
              if isinstance(ev, dict) and isinstance(ev.get("seq"), int) and isinstance(ev.get("type"), str)]
    for ev in events:
        if ev["type"] == "user_prompt" and isinstance(ev.get("prompt"), str):
            ev["prompt"] = strip_injected(ev["prompt"])
        else:
            _withhold_addressed(ev)
    return events, end


# where an event's text came from, by field, as the withheld marker names it
_ORIGINS = {"output": "a command's output", "error": "a tool's error", "error_summary": "a command's output",
            "role": "the file's head", "agent_summary": "the agent's reply", "command": "a command the agent ran",
            "content": "the agent's words", "rationale": "the agent's words", "input": "a tool's input",
            "diff": "a file's edit", "query": "a tool's input", "url": "a tool's input"}


def _withhold_addressed(ev: dict[str, Any]) -> None:
    """Text of an event that did not come from the user (tool output, a file's head, the
    agent's words) with every sentence that addresses the agent withheld
    (engram/redact/injection.py), before any knowledge is made of it."""
    for key, value in ev.items():
        if isinstance(value, str) and key in _ORIGINS:
            ev[key] = injection.withhold(value, _ORIGINS[key])
    for item in ev.get("items") if isinstance(ev.get("items"), list) else []:
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            item["text"] = injection.withhold(item["text"], "the agent's task list")


def substantive(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] not in trigger.MARKERS]


def kind_of(events: list[dict[str, Any]], min_events: int) -> str:
    """"discussion" when only talk happened in fewer than `min_events` turns, else "full".

    The spec counts turn_complete events; a prompt belongs to its turn, so it does not count.
    """
    body = substantive(events)
    talk_only = all(e["type"] in DISCUSSION_TYPES for e in body) and not any(
        e.get("tool_calls") for e in body if e["type"] == "turn_complete")
    turns = sum(1 for e in body if e["type"] != "user_prompt") or 1
    return "discussion" if talk_only and turns < min_events else "full"


# -- building the request -------------------------------------------------------------


def build_request(kind: str, consolidator: Consolidator, new: list[dict[str, Any]], prior: list[dict[str, Any]],
                  cfg: dict[str, Any], usage: passes.Usage, known: list[str] = ()) -> dict[str, Any]:
    """The validated {"episode", "graph"[, "windows"]}; raises LLMError on a model failure."""
    if kind == "discussion":
        return consolidator.discussion(new, prior, usage)
    return consolidator.full(new, prior, cfg, usage, known)


KNOWN_MAX = 40


def known_nodes(conn: Any, events: list[dict[str, Any]]) -> list[str]:
    """What the graph holds that this range may make obsolete, one {"name", "type"} JSON line
    each: the live nodes linked to the files it read or wrote, then the strongest live
    decisions. Pass 2 may retire any of them by name (graph.retire, docs/consolidation.md)."""
    paths = list(dict.fromkeys(e["path"] for e in events if e.get("path") and e.get("type") in
                               ("file_read", "file_write")))[:20]
    found = [n for p in paths for n in store.find_by_file(conn, p, limit=5)]
    found += store.list_nodes(conn, type="decision", status="active", limit=KNOWN_MAX)
    lines = [jsonio.dumps({"name": n["name"], "type": (n["data"] or {}).get("kind") or n["type"]})
             for n in found if n["type"] != "episode"]
    return list(dict.fromkeys(lines))[:KNOWN_MAX]


def _record(session: str, kind: str, consolidator: Consolidator, new: list[dict[str, Any]],
            request: dict[str, Any], usage: passes.Usage) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "id": store.new_id("ep"), "session": session, "kind": kind, "provider": consolidator.name,
        "models": dict(consolidator.models),
        "from_seq": new[0]["seq"], "to_seq": max(e["seq"] for e in new), "events": len(new),
        "created_at": store.now(), "ended_at": max(str(e.get("ts") or "") for e in new),  # the events' time
        **request["episode"], "files_modified": files_modified(new)[:100], "outcome_known": outcome_known(new),
        "usage": usage.totals(),
    }  # fmt: skip
    if "windows" in request:
        rec["windows"] = request["windows"]
    return rec


# -- the episode file and faults -------------------------------------------------------------


def write_episode_file(conn: Any, project: Any, session: str, mark: episode_file.Mark) -> None:
    """The file = episodes it already lists + the graph's episodes of this session, new mark."""
    path = project.episode_path(session)
    old = (episode_file.read(path) or {}).get("episodes") or []
    known = {e.get("id") for e in old if isinstance(e, dict)}
    new = [e["episode_data"] for e in store.episodes_for_session(conn, session)
           if isinstance(e["episode_data"], dict) and e["episode_data"].get("id") not in known]
    episode_file.write(path, session, mark, [e for e in old if isinstance(e, dict)] + new)


def _fault_path(project: Any, session: str) -> str:
    return os.path.join(project.dir, trigger.FAULTS, session + ".json")


def record_fault(project: Any, session: str, kind: str, message: str, usage: dict[str, Any]) -> None:
    private_dir(os.path.join(project.dir, trigger.FAULTS))
    body = {"at": store.now(), "session": session, "kind": kind, "message": message, "usage": usage}
    write_atomic(_fault_path(project, session), jsonio.dumps(body).encode(), durable=False)
    log(project.log_path, "worker", f"session={session} consolidation failed ({kind}): {message}")


def clear_fault(project: Any, session: str) -> None:
    try:
        os.unlink(_fault_path(project, session))
    except FileNotFoundError:
        pass


def answers_folder(project: Any, session: str) -> str:
    """Where a model's answers for `session` are kept until it is consolidated (passes.answer)."""
    return os.path.join(project.dir, ANSWERS, safe_name(session))


def _unusable_path(project: Any, session: str) -> str:
    return os.path.join(project.dir, UNUSABLE, safe_name(session) + ".json")


def mark_unusable(project: Any, session: str, provider: str, reason: str) -> None:
    """Remember that `provider`'s answers for `session` were unusable: {"at", "provider", "reason"}."""
    private_dir(os.path.join(project.dir, UNUSABLE))
    body = {"at": store.now(), "provider": provider, "reason": reason[:300]}
    write_atomic(_unusable_path(project, session), jsonio.dumps(body).encode(), durable=False)


def unusable_mark(project: Any, session: str) -> dict[str, Any] | None:
    """The mark of `session`, or None (no file, or not one engram wrote)."""
    rec = jsonio.read_object(_unusable_path(project, session), 4096)
    return rec if isinstance(rec.get("provider"), str) and isinstance(rec.get("at"), str) else None


def forget_unusable(project: Any, session: str) -> bool:
    """Remove the mark of `session`, so the model is asked again; True when there was one."""
    try:
        os.unlink(_unusable_path(project, session))
        return True
    except FileNotFoundError:
        return False


# -- one session ----------------------------------------------------------------------------


def consolidate_session(project: Any, session: str, cfg: dict[str, Any], models: Models, *,
                        progress: Progress | None = None, lock_timeout: float = 0) -> Outcome:
    """Consolidate whatever this session has past its mark; never raises for a model fault."""
    lock = workers.lock(trigger.session_lock_path(project, session), lock_timeout)
    if lock is None:
        return Outcome(session, "busy")
    try:
        crash_at("worker:start")
        trigger.dequeue(project, session)
        return _run(project, session, cfg, models, progress or (lambda _: None))
    except Exception as exc:
        if os.environ.get("ENGRAM_RAISE_ERRORS"):
            raise
        try:  # on a full disk the fault record cannot be written either: the outcome still says why
            record_fault(project, session, "internal", f"{type(exc).__name__}: {exc}", {})
        except OSError:
            pass
        log(project.log_path, "worker", traceback.format_exc())
        return Outcome(session, "failed", error=f"{type(exc).__name__}: {exc}")
    finally:
        os.close(lock)


def _run(project: Any, session: str, cfg: dict[str, Any], models: Models, say: Progress) -> Outcome:
    from engram.graph.connect import connect

    mark = episode_file.read_mark(project.episode_path(session))
    events, size = read_stream(project.events_path(session))
    events = background.resolved(events)
    conn = connect(project.db_path)
    try:
        done = _validated_mark(conn, project, session, mark, events)
        new = [e for e in events if e["seq"] > done]
        prior = [e for e in events if e["seq"] <= done]
        if not substantive(new):
            to = max([done] + [e["seq"] for e in new])
            if new:  # markers only: the graph records the range too, so it never looks behind the file
                with store.transaction(conn):
                    store.record_consolidation(conn, session, new[0]["seq"], to)
            if (to, size) != tuple(mark):
                write_episode_file(conn, project, session, episode_file.Mark(to, size))
            return Outcome(session, "recovered" if done > mark.consolidated_to else "nothing", to_seq=to)
        return _consolidate(conn, project, session, cfg, models, new, prior, size, say)
    finally:
        conn.close()


def _validated_mark(conn: Any, project: Any, session: str, mark: episode_file.Mark,
                    events: list[dict[str, Any]]) -> int:
    """How far this session really is consolidated: the file's mark checked against the graph
    and against the stream (docs/architecture.md, "Files are the state").

    * graph ahead of the file: a crash between COMMIT and the file's write; nothing re-applied;
    * file ahead of the graph: engram.db was emptied, deleted or replaced; the events the
      graph lacks are consolidated again;
    * either past the stream's last event: the stream was truncated or replaced; its seqs
      now name other events, so the records past its end are dropped and it continues."""
    graph = store.applied_through(conn, session) or 0
    last = max((e["seq"] for e in events), default=0)
    done = max(mark.consolidated_to, graph)
    if mark.consolidated_to > graph:
        log(project.log_path, "worker", f"session={session} episode file says seq {mark.consolidated_to} is "
            f"consolidated but the graph holds seq {graph}: engram.db was emptied or replaced; consolidating "
            "the missing events again", "WARN")
        done = graph
    elif graph > mark.consolidated_to:  # reported once: the rewrite below moves the mark up
        log(project.log_path, "worker", f"session={session} episode file behind the graph (missing, "
            f"unreadable, or a crash before its write): rewritten from the graph, nothing re-applied", "WARN")
    if done > last:
        log(project.log_path, "worker", f"session={session} consolidated up to seq {done} but the stream ends at "
            f"seq {last} (truncated or replaced): continuing from its end", "WARN")
        with store.transaction(conn):
            store.drop_ranges_after(conn, session, last)
        done = last
    return done


def _consolidate(conn: Any, project: Any, session: str, cfg: dict[str, Any], models: Models,
                 new: list[dict[str, Any]], prior: list[dict[str, Any]], size: int, say: Progress) -> Outcome:
    consolidator = _for_session(project, session, models)
    kind = kind_of(new, int(cfg["minEventsForFullConsolidation"]))
    usage = passes.Usage(kept=answers_folder(project, session))  # a rerun does not pay again
    out = Outcome(session, "failed", kind, consolidator.name, consolidator.why, new[0]["seq"],
                  max(e["seq"] for e in new))
    say(f"{session}: {len(new)} new events (seq {out.from_seq}-{out.to_seq}), {kind} consolidation, "
        f"{consolidator.name} ({consolidator.why})")
    known = known_nodes(conn, new)
    try:
        request = build_request(kind, consolidator, new, prior, cfg, usage, known)
    except LLMError as exc:
        if exc.kind != "malformed" or models.offline is None:
            out.usage, out.error = usage.totals(), f"{exc.kind}: {exc}"
            record_fault(project, session, exc.kind, str(exc), out.usage)
            return out
        consolidator = _answers_unusable(project, session, consolidator.name, models.offline, exc)
        request = build_request(kind, consolidator, new, prior, cfg, usage, known)
    out.provider, out.why = consolidator.name, consolidator.why  # a model that became unusable handed over
    if request.get("dropped"):
        log(project.log_path, "worker", f"session={session} {len(request['dropped'])} item(s) of the rules' own "
            f"out of bounds, left out: {'; '.join(request['dropped'][:3])}", "WARN")
    record = _record(session, kind, consolidator, new, request, usage)
    crash_at("worker:after_request")
    times = {e["seq"]: e.get("ts") for e in new}  # when each event happened: decisions are ordered by it
    offline = consolidator.name == "offline"  # a session the model did not make spends nothing on it after
    applied = _write_graph(conn, _resolver(conn, project, cfg, models, offline), session, out, record, request,
                           say, times, replies.passages(new))
    _index_gotchas(conn, project)
    _payoff(conn, project, session, prior + new, cfg)
    crash_at("worker:before_episode_file")
    write_episode_file(conn, project, session, episode_file.Mark(out.to_seq, size))
    crash_at("worker:after_episode_file")
    clear_fault(project, session)
    shutil.rmtree(answers_folder(project, session), ignore_errors=True)  # consolidated: not needed again
    out.status = "consolidated" if applied else "recovered"
    out.usage = record["usage"]
    log(project.log_path, "worker", f"session={session} {out.status} seq {out.from_seq}-{out.to_seq} "
        f"kind={kind} provider={consolidator.name} episode={out.episode_id} {out.counts} "
        f"tokens={out.usage['input_tokens']}+{out.usage['output_tokens']}", "INFO")
    return out


def _index_gotchas(conn: Any, project: Any) -> None:
    """The hook's index of gotchas with a way round; a failure to write it costs only the hint."""
    try:
        gotcha_index.write(conn, project.gotcha_index_path)
    except OSError as exc:
        log(project.log_path, "worker", f"gotcha index not written: {exc}", "WARN")


def _payoff(conn: Any, project: Any, session: str, events: list[dict[str, Any]], cfg: dict[str, Any]) -> None:
    """What the session used of what it was shown, and its items' evidence (consolidate/knowledge/payoff.py);
    a failure here costs only those figures, never the consolidation."""
    from engram.consolidate.knowledge import payoff

    try:
        payoff.record(conn, project.root, session, events, cfg)
    except Exception as exc:
        if os.environ.get("ENGRAM_RAISE_ERRORS"):
            raise
        log(project.log_path, "worker", f"session={session} payoff not recorded: {type(exc).__name__}: {exc}", "WARN")


def _for_session(project: Any, session: str, models: Models) -> Consolidator:
    """The consolidator the entry point chose, or offline for a session the model's answers
    were unusable for before (mark_unusable)."""
    rec = unusable_mark(project, session) if models.offline is not None else None
    if rec is None:
        return models.consolidator
    models.offline.why = (f"{rec['provider']}'s answers for this session were unusable ({rec['at']}); "
                          f"`engram consolidate --redo {session}` asks it again")
    return models.offline


def _answers_unusable(project: Any, session: str, provider: str, offline: Consolidator,
                      exc: LLMError) -> Consolidator:
    """The model's answers did not validate after their repair: the session is recorded, so
    the model is not asked for it again, and consolidated offline now."""
    mark_unusable(project, session, provider, str(exc))
    log(project.log_path, "worker", f"session={session} {provider}'s answers were unusable ({exc}): consolidated "
        "offline, and the model is not asked for this session again", "WARN")
    offline.why = f"{provider}'s answers were unusable: {exc}"
    return offline


def _resolver(conn: Any, project: Any, cfg: dict[str, Any], models: Models, offline: bool) -> Resolver:
    """Entity resolution with the project's alias table, the cached embedder and the adjudicator
    (none for a session consolidated offline: it went offline because the model is unusable
    or today's budget has no room for it), each adjudication written to the project log."""
    from engram.language import aliases
    from engram.graph.vectors import cached

    return Resolver(conn, cached(models.embedder, conn), table=aliases.for_config(cfg),
                    adjudicator=None if offline else models.adjudicator,
                    log=lambda msg: log(project.log_path, "worker", msg, "INFO"))


def _write_graph(conn: Any, resolver: Resolver, session: str, out: Outcome, record: dict[str, Any],
                 request: dict[str, Any], say: Progress, times: dict[int, Any],
                 passages: list[tuple[int, str, str]]) -> bool:
    """Entity resolution, the one transaction (with the range's passages), then the vectors of
    what changed."""
    from engram.graph import embeddings
    from engram.graph.privacy import contains, screen_request, tombstoned_terms

    request, record = screen_request(conn, request, record)  # `engram forget` tombstones
    terms = tombstoned_terms(conn)
    passages = [p for p in passages if not contains(p[2], terms)]
    embedder = resolver.embedder
    planned = graph_apply.plan(request, resolver, times)
    say(f"{session}: entity resolution: " + ", ".join(
        f"{a} {sum(1 for p in planned if p.res.action == a)}" for a in ("new", "merge", "child")))
    applied = graph_apply.apply(conn, session=session, from_seq=out.from_seq, to_seq=out.to_seq,
                                record=record, request=request, planned=planned, passages=passages)
    if applied is None:
        return False
    out.episode_id, out.counts = applied.episode_id, applied.counts
    crash_at("worker:after_commit")
    try:
        embeddings.sync(conn, embedder)
    except Exception as exc:  # the next run's sync embeds whatever is still stale
        log(None, "worker", f"embedding sync deferred: {exc}")
    say(f"{session}: episode {applied.episode_id}: {counts_text(applied.counts)}")
    return True


# -- draining the queue --------------------------------------------------------------------


def drain(project: Any, cfg: dict[str, Any], models: Models, *, progress: Progress | None = None,
          slot_fd: int | None = None) -> list[Outcome]:
    """Consolidate queued sessions while holding a worker slot (engram.workers has the protocol).

    `slot_fd` is the slot the spawning hook already holds for us. A session that fails
    is re-queued for the next trigger but not retried by this worker.
    """
    outcomes: list[Outcome] = []
    skip: set[str] = set()

    def one(session: str) -> None:
        o = consolidate_session(project, session, cfg, models, progress=progress)
        crash_at("drain:between_sessions")
        outcomes.append(o)
        if o.status in ("failed", "busy"):
            skip.add(o.session)
        if o.status == "failed":
            trigger.enqueue(project, [o.session])

    workers.drain(trigger.pool(project, cfg), lambda: [s for s in trigger.queued(project) if s not in skip], one,
                  slot_fd)
    return outcomes
