"""What retrieval showed during a replayed session, for engram and for the baselines.

The hooks reach retrieval through three functions (`inject.session_start`,
`inject.prompt`, `involuntary.annotate`); the recorder wraps them while a variant's
session is replayed and logs, for every node newly shown, the channel, the event seq at
that moment and the keys the node is about (`outcomes.node_keys`). "Newly shown" is read
from the session state's own record of what was injected (`shown.rstate`), so what is
logged is exactly what the agent would have seen.

Variants (`Variant.parse`):
* `spec` / `engram` (the defaults), `fan`, `spec+noisy-or`, each with optional settings:
  `spec:decay=0.4:threshold=0.2:budget=600`;
* `bm25`: the same live nodes ranked by BM25 over the same entry-point text, rendered
  through the same tiers and budget (first-read notes unchanged: they are not a search);
* `recency`: at SessionStart, the files the previous session touched, newest first,
  within the same token budget; nothing on prompts or reads;
* `none`: no memory at all (its recall is 0 by construction, and asserted).
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from engram.evaluation import outcomes
from engram.evaluation.sandbox import patched

CHANNELS = ("SessionStart", "UserPromptSubmit", "first read")
PRE = CHANNELS[:2]
KINDS = ("engram", "bm25", "recency", "none")
_KEYS = {"decay": "decayFactor", "threshold": "activationThreshold", "budget": "tokenBudget"}
RECENCY_HEADER = "Files touched in the previous session (recency baseline):"


@dataclass(frozen=True)
class Variant:
    name: str
    kind: str = "engram"
    rule: str = "spec"
    combine: str = "max"
    params: tuple = ()  # ((config key, value), ...): hashable, so variants can key dicts

    @classmethod
    def parse(cls, spec: str) -> "Variant":
        """"spec:decay=0.4:threshold=0.2" -> spec rule with those settings; see the module doc."""
        head, *opts = spec.split(":")
        params = []
        for opt in opts:
            k, _, v = opt.partition("=")
            if k not in _KEYS or not v:
                raise ValueError(f"variant {spec!r}: unknown setting {opt!r} (known: {', '.join(_KEYS)})")
            params.append((_KEYS[k], int(v) if k == "budget" else float(v)))
        kind = head if head in ("bm25", "recency", "none") else "engram"
        if kind == "engram" and head not in ("spec", "engram", "fan", "spec+noisy-or"):
            raise ValueError(f"unknown variant {head!r} (known: spec, fan, spec+noisy-or, bm25, recency, none)")
        return cls(spec, kind, "fan" if head == "fan" else "spec",
                   "noisy_or" if head.endswith("noisy-or") else "max", tuple(params))

    def settings(self) -> dict[str, Any]:
        """The config.json keys this variant sets."""
        return {"spreadingRule": self.rule, **dict(self.params)}


@dataclass
class Recorder:
    """Logs what one variant showed; `recent` feeds the recency baseline."""

    variant: Variant
    session: str = ""
    recent: list[str] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)
    tokens: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))

    @contextlib.contextmanager
    def installed(self) -> Iterator["Recorder"]:
        from engram.retrieve import inject, involuntary

        kind = self.variant.kind
        ss, pr, an = inject.session_start, inject.prompt, involuntary.annotate
        if kind == "none":
            ss = pr = an = lambda *a, **k: None
        elif kind == "recency":
            ss, pr, an = self._recency_start, (lambda *a, **k: None), (lambda *a, **k: None)
        with contextlib.ExitStack() as stack:
            stack.enter_context(patched(inject, "session_start", self._wrap(ss, "SessionStart", 0, 3)))
            stack.enter_context(patched(inject, "prompt", self._wrap(pr, "UserPromptSubmit", 0, 3)))
            stack.enter_context(patched(involuntary, "annotate", self._wrap(an, "first read", 0, 3, read=1)))
            if kind == "bm25":
                stack.enter_context(patched(inject, "retrieve", bm25_retrieve))
            elif self.variant.combine != "max":
                stack.enter_context(patched(inject, "retrieve", _combined(inject.retrieve, self.variant.combine)))
            yield self

    def _wrap(self, fn: Callable, channel: str, db_arg: int, st_arg: int, read: int | None = None) -> Callable:
        from engram.retrieve import shown

        def wrapped(*args: Any, **kw: Any) -> Any:
            st = args[st_arg]
            before = dict(shown.rstate(st)["injected"])
            out = fn(*args, **kw)
            if out:
                self.tokens[(self.session, channel)] += (len(out) + 3) // 4
            new = [n for n, v in shown.rstate(st)["injected"].items() if before.get(n) != v]
            if new:
                db = args[db_arg] if isinstance(args[db_arg], str) else args[db_arg].db_path
                keys = _keys(db, new)
                for n in new:
                    self.log(channel, st["seq"], n, keys.get(n, set()), args[read] if read is not None else None)
            return out

        return wrapped

    def log(self, channel: str, seq: int, node: str, keys: set[str], read: str | None = None) -> None:
        self.items.append({"session": self.session, "channel": channel, "seq": seq, "node": node,
                           "keys": keys, "read": read})

    def _recency_start(self, project: Any, session: str, cfg: dict, st: dict, source: str = "startup",
                       *_: Any) -> str | None:
        """The recency baseline: the previous session's files, as many as the budget holds (it
        takes inject.session_start's arguments and has no names-only line to word)."""
        lines, used = [RECENCY_HEADER], (len(RECENCY_HEADER) + 3) // 4
        for path in self.recent:
            line = f"- {path}"
            used += (len(line) + 4) // 4
            if used > int(cfg["tokenBudget"]):
                break
            lines.append(line)
            self.log("SessionStart", st["seq"], f"recent:{path}", {f"file:{path}"})
        return "\n".join(lines) if len(lines) > 1 else None


def _keys(db_path: str, ids: list[str]) -> dict[str, set[str]]:
    from engram.graph import readonly

    conn = readonly.open_ro(db_path)
    if conn is None:
        return {}
    try:
        return outcomes.keys_of(conn, ids)
    finally:
        conn.close()


def _combined(retrieve: Callable, combine: str) -> Callable:
    """inject.retrieve with another cross-seed combination rule (noisy-OR)."""

    def run(conn: Any, terms: Any, cfg: dict, **kw: Any) -> list[tuple[str, float]]:
        return retrieve(conn, terms, cfg, **{**kw, "combine": combine})

    return run


def bm25_retrieve(conn: Any, terms: Any, cfg: dict, combine: str = "max", top: int = 0,
                  text: str = "") -> list[tuple[str, float]]:
    """The keyword baseline: BM25 over live nodes' text, queried with the entry-point text
    (not the first prompt's `text`: the baseline stays what it was when its figures were taken)."""
    from engram.retrieve import keyword

    words = terms.paths + terms.suffixes + [n for n in terms.names if " " not in n]
    hits = keyword.BM25(keyword.live_docs(conn)).rank(" ".join(words), 200)
    if not hits:
        return []
    best = hits[0][1]
    return [(nid, 0.95 * s / best) for nid, s in hits if 0.95 * s / best >= float(cfg["activationThreshold"])]
