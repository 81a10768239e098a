"""The model-backed consolidator: Pass 1 windows in parallel, Pass 2 once, or the light call.

`ModelConsolidator` runs these passes through any chat client a provider supplies
(engram.providers: `complete(system, user, model=, max_tokens=, usage=, step=) -> reply`
with `.text`). Every call goes through `call_json`: parse the reply as JSON, validate it
against the schema in schema.py, and on failure send the validation error back once
("repair"); a second failure raises LLMError("malformed"), and the worker consolidates the
session offline instead (consolidate/worker.py). Prompts are package files
(engram/consolidate/prompts/*.txt).
"""

from __future__ import annotations

import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Callable

from engram import jsonio
from engram.consolidate import offline, schema, windows
from engram.errors import LLMError
from engram.fsio import private_dir, write_atomic
from engram.hashing import sha256_hex
from engram.text import fit

PASS1_MAX_TOKENS = 600
PASS2_MAX_TOKENS = 4000
DISCUSSION_MAX_TOKENS = 800
KEPT_MAX_BYTES = 4 * 1024 * 1024  # a kept answer's file: far above any output cap
MAX_PARALLEL = 4
# Input caps, in characters (~4 per token): a window's event lines whatever `windowSize`
# says, Pass 2's summaries however long the session, a discussion's lines. Events are
# already diffs and snippets, never whole files (capture/diffs.py); these bound the rest.
WINDOW_MAX_CHARS = 12_000  # ~3K tokens
PASS2_MAX_CHARS = 48_000  # ~12K tokens: the summaries of ~50 windows before any is clipped
DISCUSSION_MAX_CHARS = 12_000
Chat = Any  # a provider's chat client (engram.providers.base.ChatClient)


@dataclass
class Usage:
    """Every model call of one consolidation, thread-safe (Pass 1 windows run concurrently)."""

    calls: list[dict[str, Any]] = field(default_factory=list)
    kept: str = ""  # where its answers are kept until the session is consolidated (`answer`)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, record: dict[str, Any]) -> None:
        with self._lock:
            self.calls.append(record)

    def totals(self) -> dict[str, Any]:
        with self._lock:
            calls = list(self.calls)
        out: dict[str, Any] = {"calls": calls, "requests": sum(c.get("attempts", 1) for c in calls)}
        for key in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
            out[key] = sum(c.get(key, 0) for c in calls)
        costs = [c["cost_usd"] for c in calls if c.get("cost_usd") is not None]
        if costs:
            out["cost_usd"] = round(sum(costs), 6)
        return out


class ModelConsolidator:
    """Consolidation by a chat model: the provider's client and its model per step."""

    def __init__(self, name: str, client: Chat, models: dict[str, str]):
        self.name = name
        self.client = client
        self.models = models
        self.why = ""

    def full(self, new: list[dict[str, Any]], prior: list[dict[str, Any]], cfg: dict[str, Any],
             usage: Usage, known: list[str] = ()) -> dict[str, Any]:
        return offline.with_knowledge(full(self.client, self.models, new, cfg, usage, known), new, prior, known)

    def discussion(self, new: list[dict[str, Any]], prior: list[dict[str, Any]], usage: Usage) -> dict[str, Any]:
        return discussion(self.client, self.models, new, prior, usage)


def prompt(name: str) -> str:
    return resources.files("engram.consolidate").joinpath("prompts", f"{name}.txt").read_text("utf-8")


def parse_json(text: str) -> Any:
    """The JSON object in a reply, tolerating code fences and prose around it."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise schema.Invalid("the answer holds no JSON object")
    try:
        return json.loads(text[start : end + 1])
    except ValueError as exc:
        raise schema.Invalid(f"the JSON does not parse: {exc}") from None


def call_json(provider: Chat, system: str, user: str, *, model: str, max_tokens: int,
              validate: Callable[[Any], dict[str, Any]], usage: Usage, step: str) -> dict[str, Any]:
    """One call whose answer must validate; one repair attempt, then LLMError("malformed")."""
    first = answer(provider, system, user, model=model, max_tokens=max_tokens, usage=usage, step=step)
    try:
        return validate(parse_json(first))
    except schema.Invalid as exc:
        repair = prompt("repair").format(error=exc, previous=first[:6000])
        second = answer(provider, system, user + "\n\n" + repair, model=model, max_tokens=max_tokens, usage=usage,
                        step=step + ":repair")
        try:
            return validate(parse_json(second))
        except schema.Invalid as exc2:
            raise LLMError("malformed", f"{step}: unusable answer after one repair attempt: {exc2}") from None


def answer(provider: Chat, system: str, user: str, *, model: str, max_tokens: int, usage: Usage, step: str) -> str:
    """The model's text for this call. With `usage.kept` (the worker's folder for the session),
    each answer is written there before it is used, named by a digest of what was asked, and
    read back instead of calling when the same is asked again: a worker killed or failed after
    paying (a crash, a fault while applying the answer) does not pay again on the rerun. What
    is read back is parsed and validated like a fresh answer: the file is data, not trusted."""
    if not usage.kept:
        return provider.complete(system, user, model=model, max_tokens=max_tokens, usage=usage, step=step).text
    path = os.path.join(usage.kept, sha256_hex(json.dumps([model, max_tokens, system, user]))[:32] + ".json")
    kept = jsonio.read_object(path, KEPT_MAX_BYTES)
    if isinstance(kept.get("text"), str) and kept.get("model") == model:
        usage.add({"step": step, "model": model, "attempts": 0, "ok": True, "kept": True})
        return kept["text"]
    text = provider.complete(system, user, model=model, max_tokens=max_tokens, usage=usage, step=step).text
    try:
        private_dir(usage.kept)
        write_atomic(path, jsonio.dumps({"model": model, "step": step, "text": text}).encode(), durable=False)
    except OSError:
        pass  # not kept: a rerun pays again
    return text


def seq_ranges(seqs: list[int]) -> str:
    """"1-12, 15, 18-20": the valid evidence seqs, compactly."""
    out, run = [], []
    for s in sorted(set(seqs)):
        if run and s == run[-1] + 1:
            run.append(s)
            continue
        if run:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        run = [s]
    if run:
        out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return ", ".join(out)


def pass1(provider: Chat, model: str, events: list[dict[str, Any]], cfg: dict[str, Any],
          usage: Usage) -> list[dict[str, Any]]:
    """Window summaries, in window order; windows are summarised concurrently. Once one window
    fails, the windows not yet started are not asked: the session fails or goes offline."""
    wins, users = pass1_prompts(events, cfg)
    system = prompt("pass1")
    failed = threading.Event()

    def one(i: int, win: list[dict[str, Any]]) -> dict[str, Any]:
        if failed.is_set():
            raise LLMError("skipped", f"pass1[{i + 1}]: not asked, an earlier window failed")
        seqs = {e["seq"] for e in win}
        try:
            summary = call_json(provider, system, users[i], model=model, max_tokens=PASS1_MAX_TOKENS, usage=usage,
                                step=f"pass1[{i + 1}]", validate=lambda v: schema.window_summary(v, seqs))
        except LLMError:
            failed.set()
            raise
        return {"window": i + 1, "seqs": [min(seqs), max(seqs)], **summary}

    with ThreadPoolExecutor(max_workers=max(1, min(MAX_PARALLEL, len(wins)))) as pool:
        futures = [pool.submit(one, i, w) for i, w in enumerate(wins)]
        return [f.result() for f in futures]


def pass1_prompts(events: list[dict[str, Any]], cfg: dict[str, Any]) -> tuple[list[list[dict[str, Any]]], list[str]]:
    """(the windows, the user prompt of each): the events as Pass 1 sends them."""
    primary, notes = windows.primary_events(events)
    wins = windows.make_windows(primary, cfg["windowSize"], cfg["windowOverlap"])
    return wins, [f"Window {i + 1} of {len(wins)}.\n<events>\n{windows.render(w, notes, WINDOW_MAX_CHARS)}\n</events>"
                  for i, w in enumerate(wins)]


def call_sizes(events: list[dict[str, Any]], cfg: dict[str, Any], known: list[str] = ()) -> list[tuple[int, int]]:
    """(prompt characters, output cap) of every call `full` makes, Pass 2's input at its bound
    (each window's summary as long as Pass 1's output cap allows, ~4 characters a token, at
    most PASS2_MAX_CHARS): what the budget must hold before the session's first call, so a
    session is never left half done on the model (repairs are not foreseen)."""
    wins, users = pass1_prompts(events, cfg)
    system = len(prompt("pass1"))
    sizes = [(system + len(u), PASS1_MAX_TOKENS) for u in users]
    summaries = min(PASS2_MAX_CHARS, len(wins) * (PASS1_MAX_TOKENS * 4 + 60))  # + the window / seqs keys
    extra = len(seq_ranges([e["seq"] for e in events])) + sum(len(k) + 1 for k in known) + 60
    return sizes + [(len(prompt("pass2")) + summaries + extra, PASS2_MAX_TOKENS)]


def bounded(summaries: list[dict[str, Any]], max_chars: int) -> list[dict[str, Any]]:
    """The summaries, their `what_happened` texts clipped (longest first) until the JSON
    lines fit in `max_chars`."""
    over = sum(len(json.dumps(s, ensure_ascii=False)) + 1 for s in summaries) - max_chars
    if over <= 0:
        return summaries
    texts = [str(s.get("what_happened", "")) for s in summaries]
    clipped = fit(texts, max(len(texts), sum(len(t) + 1 for t in texts) - over))
    return [{**s, "what_happened": t} for s, t in zip(summaries, clipped)]


def pass2(provider: Chat, model: str, summaries: list[dict[str, Any]], seqs: set[int],
          usage: Usage, known: list[str] = ()) -> dict[str, Any]:
    """The episode and the change request; `known` ({"name", "type"} JSON lines: what the graph
    holds about this range's files and its decisions) is what graph.retire may name."""
    body = "\n".join(windows.defuse(json.dumps(s, ensure_ascii=False)) for s in bounded(summaries, PASS2_MAX_CHARS))
    user = f"Valid event seqs: {seq_ranges(list(seqs))}\n<summaries>\n{body}\n</summaries>"
    if known:
        user += "\n<known>\n" + "\n".join(windows.defuse(k) for k in known) + "\n</known>"
    return call_json(provider, prompt("pass2"), user, model=model, max_tokens=PASS2_MAX_TOKENS, usage=usage,
                     step="pass2", validate=lambda v: schema.pass2(v, seqs))


def full(provider: Chat, models: dict[str, str], events: list[dict[str, Any]], cfg: dict[str, Any],
         usage: Usage, known: list[str] = ()) -> dict[str, Any]:
    """Two passes over a range of events -> {"episode", "graph", "windows"}."""
    summaries = pass1(provider, models["pass1"], events, cfg, usage)
    result = pass2(provider, models["pass2"], summaries, {e["seq"] for e in events}, usage, known)
    return {**result, "windows": summaries}


def discussion(provider: Chat, models: dict[str, str], events: list[dict[str, Any]],
               prior: list[dict[str, Any]], usage: Usage) -> dict[str, Any]:
    """The light consolidation of a discussion-only range -> {"episode", "graph"}."""
    seqs = {e["seq"] for e in events}
    lines = windows.render((e for e in events if e.get("type") not in windows.SKIP), None, DISCUSSION_MAX_CHARS)
    user = f"<events>\n{lines}\n</events>"
    d = call_json(provider, prompt("discussion"), user, model=models["discussion"],
                  max_tokens=DISCUSSION_MAX_TOKENS, usage=usage, step="discussion",
                  validate=lambda v: schema.discussion(v, seqs))
    return offline.discussion_request(d, events, prior)
