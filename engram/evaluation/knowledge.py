"""Knowledge-level evaluation: did the text a session starts with hold what it needed?

The labels (`knowledge_labels.json`, its method inside) list, for each later session of a
project, the items from earlier sessions it needed, each with a regular expression a
delivering text must match. For each labelled project, sessions are replayed oldest
first through the real hooks into a temporary home and consolidated between sessions
(offline unless a provider is asked for); the SessionStart text engram injects is the
hook's own output for the session's first event; "engram+prompt" adds what the hook added
to the session's first prompt (UserPromptSubmit), all a session has before its first step,
as the BM25 baseline has that prompt. Two baselines get the same word budget:

* recency: the previous session's prompts and its final assistant message;
* bm25: earlier sessions' events ranked by BM25 against the new session's first prompt.

An item counts as delivered when its pattern matches the text. Reported per kind and per
split (dev / held-out), with the words each text used per session.
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from importlib import resources
from typing import Any, Callable

from engram.evaluation import sandbox
from engram.history import corpus

Say = Callable[[str], None]
SOURCES = ("engram", "engram+prompt", "recency", "bm25")
KINDS = ("command", "gotcha", "unfinished", "instruction", "file", "decision")
SPLITS = ("dev", "held-out")
WORD_BUDGET = 800
TOKENS = ("input_tokens", "output_tokens")  # what a model consolidation cost, per session
_TEXT_FIELDS = ("prompt", "command", "output", "error", "error_summary", "content", "rationale", "agent_summary",
                "user_summary", "query", "pattern", "url", "path", "text")


def load_labels(path: str | None = None) -> dict[str, Any]:
    """The labels file (`path`, else the one shipped with engram), checked whole: a malformed
    file is one line naming the first thing wrong (engram eval checks it before any replay)."""
    from engram.errors import EngramError

    try:
        if path:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        else:
            data = json.loads(resources.files("engram.evaluation").joinpath("knowledge_labels.json").read_text("utf-8"))
        _check_labels(data)
    except (OSError, ValueError) as exc:
        raise EngramError(f"knowledge labels {path or '(shipped)'}: not in the labels format: {exc} "
                          f"(see engram/evaluation/knowledge_labels.json)") from None
    return data


def _field(value: Any, where: str, key: str, kind: type) -> Any:
    if not isinstance(value, dict) or not isinstance(value.get(key), kind):
        raise ValueError(f"{where}: needs {'a list' if kind is list else 'an object'} {key!r}")
    return value[key]


def _check_labels(data: Any) -> None:
    """Raise ValueError("<where>: <what is wrong>") at the first item that breaks the format."""
    for name, project in _field(data, "the file", "projects", dict).items():
        for sid, label in _field(project, f"projects.{name}", "sessions", dict).items():
            where = f"projects.{name}.sessions.{sid}"
            if not isinstance(label, dict) or label.get("split") not in SPLITS:
                raise ValueError(f"{where}: 'split' must be one of {', '.join(SPLITS)}")
            for i, need in enumerate(_field(label, where, "needs", list)):
                at = f"{where}.needs[{i}]"
                if not isinstance(need, dict) or not isinstance(need.get("id"), str) or not need["id"]:
                    raise ValueError(f"{at}: needs an 'id' (text)")
                if need.get("kind") not in KINDS:
                    raise ValueError(f"{at}: 'kind' must be one of {', '.join(KINDS)}")
                if not isinstance(need.get("pattern"), str) or not need["pattern"]:
                    raise ValueError(f"{at}: needs a 'pattern' (a regular expression)")
                try:
                    re.compile(need["pattern"])
                except re.error as exc:
                    raise ValueError(f"{at}: 'pattern' is not a regular expression ({exc})") from None


def words(text: str) -> int:
    return len(text.split())


def cut_words(text: str, budget: int) -> str:
    """The first `budget` words of `text`, line breaks kept."""
    out, used = [], 0
    for line in text.split("\n"):
        ws = line.split()
        if used + len(ws) > budget:
            out.append(" ".join(ws[: budget - used]))
            break
        out.append(line)
        used += len(ws)
    return "\n".join(out).strip()


def _context_of(out: str) -> str:
    """The context text a hook printed (Claude Code's hookSpecificOutput), or ""."""
    try:
        return json.loads(out)["hookSpecificOutput"]["additionalContext"]
    except (ValueError, KeyError, TypeError):
        return ""


def _prompts_and_last_message(payloads: list[tuple[str, dict]]) -> tuple[list[str], str]:
    prompts = [p.get("prompt") or "" for e, p in payloads if e == "UserPromptSubmit"]
    stops = [p.get("last_assistant_message") or "" for e, p in payloads if e == "Stop"]
    return [p for p in prompts if p], next((s for s in reversed(stops) if s), "")


def recency_text(previous: list[tuple[str, dict]], budget: int) -> str:
    prompts, last = _prompts_and_last_message(previous)
    return cut_words("\n".join(prompts + ([last] if last else [])), budget)


def event_text(ev: dict[str, Any]) -> str:
    return " ".join(str(ev[k]) for k in _TEXT_FIELDS if isinstance(ev.get(k), (str, int)) and ev.get(k) != "")


def bm25_text(earlier_events: list[dict[str, Any]], query: str, budget: int) -> str:
    """Earlier events ranked by BM25 against `query`, best first, within the budget."""
    from engram.retrieve.keyword import BM25

    docs = {str(i): event_text(ev) for i, ev in enumerate(earlier_events) if event_text(ev)}
    if not docs or not query:
        return ""
    ranked = BM25(docs).rank(query, limit=len(docs))
    return cut_words("\n".join(docs[i] for i, _ in ranked), budget)


def replay_project(project: corpus.Project, base: str, settings: dict[str, Any], provider: str,
                    say: Say) -> dict[str, dict[str, Any]]:
    """{session id: {"engram": SessionStart text, "events": its events, "payloads": ...,
    "consolidation": {"status", "error", "by", "input_tokens", "output_tokens"}}}, oldest first
    ("by": the consolidator that made it, offline when a model's budget or answers ran out)."""
    from engram import config
    from engram.capture.event_stream import read_events
    from engram.consolidate import worker
    from engram.history.replay import replay
    from engram.providers import registry

    home = os.path.join(base, "knowledge-" + project.name)
    out: dict[str, dict[str, Any]] = {}
    with sandbox.home(home, {**settings, "llmProvider": provider}, offline=provider == "offline"):
        cfg, _ = config.load_config(home)
        proj = config.Project.from_cwd(project.root).ensure()
        models = registry.consolidation(cfg, provider, project=proj)
        for session in project.sessions:
            payloads = session.payloads(project.root)
            shown: list[str] = []

            def observe(event: str, printed: str, ms: float, fault: bool) -> None:
                if event == "SessionStart" and not shown:
                    shown.append(_context_of(printed))
                elif event == "UserPromptSubmit" and len(shown) == 1:
                    shown.append(_context_of(printed))  # the first prompt's

            replay(payloads, project.root, observe, session.harness)
            done = worker.consolidate_session(proj, session.id, cfg, models)
            out[session.id] = {"engram": shown[0] if shown else "", "engram+prompt": "\n".join(shown),
                               "payloads": payloads, "events": read_events(proj.events_path(session.id))[0],
                               "consolidation": {"status": done.status, "error": done.error, "by": done.provider,
                                                 **{k: int(done.usage.get(k) or 0) for k in TOKENS}}}
            say(f"  knowledge: {project.name} {session.id[:8]} replayed, SessionStart {words(out[session.id]['engram'])} words")
    return out


def texts_for(replayed: dict[str, dict[str, Any]], budget: int) -> dict[str, dict[str, str]]:
    """{session id: {source: text}} for every session after the first."""
    order = list(replayed)
    out: dict[str, dict[str, str]] = {}
    for k, sid in enumerate(order[1:], start=1):
        prev = replayed[order[k - 1]]
        earlier = [ev for s in order[:k] for ev in replayed[s]["events"]]
        prompts, _ = _prompts_and_last_message(replayed[sid]["payloads"])
        out[sid] = {"engram": replayed[sid]["engram"], "engram+prompt": replayed[sid]["engram+prompt"],
                    "recency": recency_text(prev["payloads"], budget),
                    "bm25": bm25_text(earlier, prompts[0] if prompts else "", budget)}
    return out


def score(labels: dict[str, Any], texts: dict[str, dict[str, str]]) -> dict[str, Any]:
    """Delivered / needed per source, split and kind, and the words each source used."""
    tally: dict[str, Any] = {src: defaultdict(lambda: [0, 0]) for src in SOURCES}
    used: dict[str, list[int]] = {src: [] for src in SOURCES}
    rows = []
    for sid, label in labels.items():
        if sid not in texts or not label["needs"]:
            continue
        for src in SOURCES:
            used[src].append(words(texts[sid][src]))
        for need in label["needs"]:
            hit = {src: bool(re.search(need["pattern"], texts[sid][src], re.I)) for src in SOURCES}
            rows.append({"session": sid, "split": label["split"], "id": need["id"], "kind": need["kind"], **hit})
            for src in SOURCES:
                for key in ("all", label["split"], need["kind"], f"{label['split']}:{need['kind']}"):
                    tally[src][key][1] += 1
                    tally[src][key][0] += hit[src]
    return {"by_source": {src: {k: {"delivered": v[0], "needed": v[1]} for k, v in sorted(tally[src].items())}
                          for src in SOURCES},
            "words": {src: {"sessions": len(v), "mean": round(sum(v) / len(v), 1) if v else 0, "max": max(v, default=0)}
                      for src, v in used.items()},
            "items": rows}


def share(s: dict[str, Any], src: str) -> str:
    a = s["by_source"][src].get("all", {"delivered": 0, "needed": 0})
    return f"{a['delivered']}/{a['needed']}"


def evaluate(projects: list[corpus.Project], base: str, *, settings: dict[str, Any] | None = None,
             provider: str = "offline", labels_path: str | None = None, budget: int = WORD_BUDGET,
             say: Say = lambda _: None) -> dict[str, Any] | None:
    """The knowledge-level score over the labelled projects among `projects` (None when none is)."""
    labels = load_labels(labels_path)["projects"]
    results: dict[str, Any] = {}
    for project in projects:
        label = labels.get(project.name)
        if not label or not any(s.id in label["sessions"] for s in project.sessions):
            continue
        replayed = replay_project(project, base, settings or {}, provider, say)
        texts = texts_for(replayed, budget)
        results[project.name] = {"score": score(label["sessions"], texts), "texts": texts}
        say(f"knowledge: {project.name}: engram delivered {share(results[project.name]['score'], 'engram')}, "
            f"recency {share(results[project.name]['score'], 'recency')}, "
            f"bm25 {share(results[project.name]['score'], 'bm25')} of the needed items")
    return results or None
