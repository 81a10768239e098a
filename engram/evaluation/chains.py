"""The supersession check: decisions that are later replaced, through the real pipeline.

Generated chains, each in its own vocabulary (no technology appears in two chains):

* single-hop: "use A for the T" -> "use B instead of A for the T"; asked "What do we use
  for the T?", the current answer is the second statement, the first is superseded;
* multi-hop: "use A for the T" -> "use B instead of A" + "B's X is Y0" -> "B's X is now
  Y1"; asked "What X does the T use?" (T -> B -> X: two hops), the current answer is the
  last statement, and both "use A" and "B's X is Y0" are superseded.

Each statement is its own session, sent through the real hooks as a user prompt or as a
`engram decide "..."` shell call (the phrasings rotate over `TEMPLATES`, so the figure is
not one sentence shape), and consolidated before the next; all chains of a kind share
one project, interleaved in time, as decisions do in a real project. Then each question
is asked through `query_knowledge` (the top TOP_K hits) and as a prompt in a new session
(what UserPromptSubmit injects); a third prompt names the technologies instead of asking
("Add a RabbitMQ worker to the job queue.", "Tune Redis's retry limit for the job
queue."), as a user who forgot the change would. A case is *right* when the current
statement is returned and no superseded one is.

A third kind runs the real `engram decide` (a subprocess, in an agent's shell: CLAUDECODE=1,
the hook records the call): both statements of a single-hop chain in ONE session, each
written into the graph at once, then the session consolidated. Its rows are the single-hop
column of "engram, both by a real `engram decide` in one session" (the consolidation of
such a session once brought the replaced decision back).

Baselines in the same run: BM25 over the same live nodes (top TOP_K), and a
deterministic latest-wins rule over the raw statements (the newest statement sharing a
content word with the question). Published memory systems reach 7-54% single-hop and at
most 7% multi-hop on their benchmarks; a latest-wins rule there reaches 78% / 30%.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from dataclasses import dataclass
from typing import Any, Callable

from engram.evaluation import sandbox

TOP_K = 3
# topic, old choice, new choice, an option of the new choice, its first value, its new value
DOMAINS = [
    ("job queue", "RabbitMQ", "Redis", "retry limit", "3", "5"),
    ("HTTP client", "requests", "httpx", "request timeout", "30 seconds", "10 seconds"),
    ("test runner", "nose2", "pytest", "worker count", "2", "8"),
    ("logging library", "logbook", "structlog", "log level", "INFO", "WARNING"),
    ("ORM", "Peewee", "SQLAlchemy", "pool size", "5", "20"),
    ("frontend bundler", "webpack", "Vite", "build target", "es2017", "es2022"),
    ("date library", "Moment", "Luxon", "default zone", "UTC", "Europe/Berlin"),
    ("wire format", "MessagePack", "Protobuf", "schema version", "2", "3"),
    ("search engine", "Solr", "Meilisearch", "index prefix", "dev_", "prod_"),
    ("metrics backend", "Graphite", "Prometheus", "scrape interval", "60s", "15s"),
    ("feature flag service", "Unleash", "Flagsmith", "refresh interval", "60 seconds", "5 seconds"),
    ("CSS framework", "Bootstrap", "Tailwind", "class prefix", "tw-", "ui-"),
]
# (label, how it is sent, text); rotated over the chains. "decide" = an `engram decide` call.
TEMPLATES = {
    "adopt": [("prompt: let's use", "prompt", "Let's use {A} for the {T}."),
              ("decide: use", "decide", "Use {A} for the {T}"),
              ("prompt: we will use", "prompt", "We will use {A} for the {T}.")],
    "replace": [("prompt: use B instead of A", "prompt", "Use {B} instead of {A} for the {T}."),
                ("decide: use B instead of A", "decide", "Use {B} for the {T} instead of {A}"),
                ("prompt: B rather than A", "prompt", "Let's use {B} rather than {A} for the {T}."),
                ("decide: T now uses B", "decide", "The {T} now uses {B}"),
                ("prompt: from now on use B", "prompt", "From now on, use {B} for the {T}."),
                ("prompt: let's switch to B", "prompt", "Let's switch to {B} for the {T}."),
                ("prompt: don't use A anymore", "prompt", "Don't use {A} anymore, use {B} for the {T}."),
                ("decide: replace A with B", "decide", "Replace {A} with {B} for the {T}")],
    "set": [("decide: B's X is Y0", "decide", "{B}'s {X} is {Y0}")],
    "update": [("decide: B's X is now Y1", "decide", "{B}'s {X} is now {Y1}"),
               ("decide: the X of B is now Y1", "decide", "The {X} of {B} is now {Y1}"),
               ("prompt: B's X is now Y1", "prompt", "{B}'s {X} is now {Y1}.")],
}


@dataclass
class Statement:
    text: str
    via: str  # prompt | decide
    template: str


@dataclass
class Chain:
    hops: str  # single | multi
    domain: tuple
    steps: list[list[Statement]]
    question: str
    current: str
    superseded: list[str]
    mention: str = ""  # a prompt that names the technologies instead of asking

    @property
    def template(self) -> str:
        return self.steps[-1][-1].template


REAL_DECIDE = "engram, both by a real `engram decide` in one session"


def _say(kind: str, i: int, **f: str) -> Statement:
    label, via, text = TEMPLATES[kind][i % len(TEMPLATES[kind])]
    return Statement(text.format(**f), via, label)


def generate(hops: str, n: int) -> list[Chain]:
    """n chains of one kind (n <= len(DOMAINS)), phrasings rotating over TEMPLATES."""
    out = []
    for i, d in enumerate(DOMAINS[:n]):
        f = dict(zip(("T", "A", "B", "X", "Y0", "Y1"), d))
        adopt, replace = _say("adopt", i, **f), _say("replace", i, **f)
        if hops == "single":
            out.append(Chain(hops, d, [[adopt], [replace]], f"What do we use for the {f['T']}?",
                             replace.text, [adopt.text], f"Add a {f['A']} worker to the {f['T']}."))
            continue
        first, update = _say("set", i, **f), _say("update", i, **f)
        replace = Statement(TEMPLATES["replace"][0][2].format(**f), "prompt", TEMPLATES["replace"][0][0])
        out.append(Chain(hops, d, [[adopt], [replace, first], [update]], f"What {f['X']} does the {f['T']} use?",
                         update.text, [adopt.text, first.text], f"Tune {f['B']}'s {f['X']} for the {f['T']}."))
    return out


def decided(n: int) -> list[Chain]:
    """n single-hop chains whose two statements are `engram decide` calls of one session."""
    out = []
    replaces = [t for t in TEMPLATES["replace"] if t[1] == "decide"]
    for i, d in enumerate(DOMAINS[:n]):
        f = dict(zip(("T", "A", "B", "X", "Y0", "Y1"), d))
        adopt = Statement("Use {A} for the {T}".format(**f), "decide", "decide: use")
        label, _, text = replaces[i % len(replaces)]
        replace = Statement(text.format(**f), "decide", label)
        out.append(Chain("single", d, [[adopt, replace]], f"What do we use for the {f['T']}?", replace.text,
                         [adopt.text], f"Add a {f['A']} worker to the {f['T']}."))
    return out


# -- sessions through the real hooks -----------------------------------------------------------


def session_payloads(sid: str, cwd: str, statements: list[Statement]) -> list[tuple[str, dict]]:
    """SessionStart, each statement (a prompt, or a prompt + `engram decide` call), Stop, SessionEnd."""
    base = {"session_id": sid, "transcript_path": "", "cwd": cwd}
    out: list[tuple[str, dict]] = [("SessionStart", dict(base, hook_event_name="SessionStart", source="startup"))]
    for s in statements:
        prompt = s.text if s.via == "prompt" else "Please record the decision below in engram."
        out.append(("UserPromptSubmit", dict(base, hook_event_name="UserPromptSubmit", prompt=prompt)))
        if s.via == "decide":
            cmd = "engram decide " + shlex.quote(s.text)
            out.append(("PostToolUse", dict(base, hook_event_name="PostToolUse", tool_name="Bash",
                                            tool_input={"command": cmd},
                                            tool_response={"stdout": "recorded", "stderr": "", "interrupted": False})))
        out.append(("Stop", dict(base, hook_event_name="Stop", stop_hook_active=False,
                                 last_assistant_message="Noted.")))
    out.append(("SessionEnd", dict(base, hook_event_name="SessionEnd", reason="other")))
    return out


def _norm(text: str) -> str:
    return " ".join(str(text).casefold().replace("…", "").split()).rstrip(" .!")


def _matches(name: str, statement: str) -> bool:
    """A node is the statement's when their texts agree (names are clipped at 80 chars)."""
    a, b = _norm(name), _norm(statement)
    return bool(a) and (a == b or (len(a) >= 60 and b.startswith(a)))


def verdict(returned: list[str], chain: Chain) -> dict[str, bool]:
    """{"current", "stale", "right"} for the names a retrieval returned."""
    current = any(_matches(n, chain.current) for n in returned)
    stale = any(_matches(n, s) for n in returned for s in chain.superseded)
    return {"current": current, "stale": stale, "right": current and not stale}


# -- running the check -------------------------------------------------------------------------


def _build(chains: list[Chain], cwd: str, provider: str, real_decide: bool = False) -> None:
    """Every step as its own session, interleaved step by step, consolidated in turn;
    `real_decide`: each `engram decide` statement is also run, as the agent's shell would."""
    from engram import config
    from engram.consolidate import worker
    from engram.history.replay import replay

    from engram.providers import registry

    project = config.Project.from_cwd(cwd).ensure()
    cfg, _ = config.load_config()
    models = registry.consolidation(cfg, provider, project=project)
    for step in range(max(len(c.steps) for c in chains)):
        for i, c in enumerate(chains):
            if step < len(c.steps):
                sid = f"{c.hops}-{i:02d}-step{step + 1}"
                decides = iter(s.text for s in c.steps[step] if s.via == "decide")
                for event, payload in session_payloads(sid, cwd, c.steps[step]):
                    if real_decide and event == "PostToolUse":
                        _engram_decide(next(decides), cwd)
                    replay([(event, payload)], cwd)
                worker.consolidate_session(project, sid, cfg, models)


def _engram_decide(text: str, cwd: str) -> None:
    """`engram decide TEXT` as an agent's Bash tool runs it (its hook records the event)."""
    import sys

    from engram import workers

    done = workers.run_child([sys.executable, "-m", "engram", "decide", text, "--project", cwd],
                        env={**os.environ, "CLAUDECODE": "1"}, timeout=120)
    if done.code != 0:
        raise RuntimeError(f"engram decide failed: {done.text()[1].strip() or 'no answer within 120 s'}")


def _names(db: str, ids: list[str]) -> list[str]:
    from engram.graph import readonly

    conn = readonly.open_ro(db)
    try:
        nodes = readonly.nodes(conn, ids) if conn else {}
    finally:
        if conn:
            conn.close()
    return [nodes[i]["name"] for i in ids if i in nodes]


def _ask_hooks(chains: list[Chain], cwd: str, db: str, mention: bool = False) -> list[list[str]]:
    """What UserPromptSubmit injects for the question (or the mention) in a new session."""
    from engram.history.replay import replay
    from engram.evaluation.recorder import Recorder, Variant

    out = []
    for i, c in enumerate(chains):
        sid = f"{c.hops}-{i:02d}-{'mention' if mention else 'ask'}"
        base = {"session_id": sid, "transcript_path": "", "cwd": cwd}
        rec = Recorder(Variant.parse("spec"), sid)
        with rec.installed():
            replay([("SessionStart", dict(base, hook_event_name="SessionStart", source="startup")),
                    ("UserPromptSubmit", dict(base, hook_event_name="UserPromptSubmit",
                                              prompt=c.mention if mention else c.question))], cwd)
        out.append(_names(db, [it["node"] for it in rec.items if it["channel"] == "UserPromptSubmit"]))
    return out


def _ask_search(chains: list[Chain], cwd: str, db: str, method: str) -> list[list[str]]:
    """The top TOP_K of query_knowledge (engram) or of BM25 over the same live nodes."""
    from engram import config
    from engram.retrieve import keyword, query

    cfg, _ = config.load_config()
    conn = query.open_db(db)
    try:
        out = []
        for c in chains:
            if method == "bm25":
                ids = [nid for nid, _ in keyword.BM25(keyword.live_docs(conn)).rank(c.question, TOP_K)]
            else:
                ids = [h["id"] for h in query.search(conn, config.project_root(cwd), c.question, cfg)[:TOP_K]]
            out.append(_names(db, ids))
        return out
    finally:
        conn.close()


def latest_wins(chains: list[Chain]) -> list[list[str]]:
    """The newest statement (of the whole project) sharing a content word with the question."""
    from engram.retrieve.keyword import tokenize

    said = [s.text for step in range(3) for c in chains if step < len(c.steps) for s in c.steps[step]]
    out = []
    for c in chains:
        words = set(tokenize(c.question))
        hit = next((s for s in reversed(said) if words & set(tokenize(s))), None)
        out.append([hit] if hit else [])
    return out


def _supersession_off() -> Any:
    """A context in which the consolidator supersedes no decision (the ablation row)."""
    from engram.graph import supersession

    if hasattr(supersession, "supersede_replaced"):
        return sandbox.patched(supersession, "supersede_replaced", lambda *a, **k: [])
    return contextlib.nullcontext()


def check(base: str, n: int = len(DOMAINS), provider: str = "offline", ablation: bool = True,
          say: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Run both kinds of chains; {"methods": {method: {hops: [verdict per chain]}}, "chains": ...}."""
    from engram import config

    methods: dict[str, dict[str, list[dict[str, bool]]]] = {}
    listing: dict[str, list[dict[str, Any]]] = {}
    for hops in ("single", "multi"):
        chains = generate(hops, n)
        listing[hops] = [{"template": c.template, "question": c.question, "mention": c.mention,
                          "current": c.current, "superseded": c.superseded} for c in chains]
        runs = [("engram", None)] + ([("engram without decision supersession", _supersession_off)] if ablation else [])
        for j, (label, off) in enumerate(runs):
            home = os.path.join(base, f"{hops}-{j}")
            cwd = f"/engram-eval/supersession-{hops}"
            with sandbox.home(home, {"llmProvider": provider}, offline=provider == "offline"):
                with off() if off else contextlib.nullcontext():
                    _build(chains, cwd, provider)
                db = config.Project.from_cwd(cwd).db_path
                answers = {f"{label}: query_knowledge (top {TOP_K})": _ask_search(chains, cwd, db, "engram"),
                           f"{label}: the question as a prompt": _ask_hooks(chains, cwd, db),
                           f"{label}: a prompt naming the technologies": _ask_hooks(chains, cwd, db, True)}
                if label == "engram":
                    answers[f"BM25 over the same nodes (top {TOP_K})"] = _ask_search(chains, cwd, db, "bm25")
            answers.setdefault("latest-wins over the raw statements", latest_wins(chains))
            for method, returned in answers.items():
                methods.setdefault(method, {})[hops] = [verdict(r, c) for r, c in zip(returned, chains)]
            say(f"  supersession {hops}-hop, {label}: {len(chains)} chains")
    for method, verdicts in _check_real_decide(base, n, provider).items():
        methods[method] = {"single": verdicts}
    say(f"  supersession single-hop, {REAL_DECIDE}: {n} chains")
    return {"methods": methods, "chains": listing}


def _check_real_decide(base: str, n: int, provider: str) -> dict[str, list[dict[str, bool]]]:
    """{method: [verdict per chain]} for the `decided` chains (real `engram decide`, one session each)."""
    from engram import config

    chains, cwd = decided(n), "/engram-eval/supersession-decide"
    with sandbox.home(os.path.join(base, "single-decide"), {"llmProvider": provider}, offline=provider == "offline"):
        _build(chains, cwd, provider, real_decide=True)
        db = config.Project.from_cwd(cwd).db_path
        answers = {f"{REAL_DECIDE}: query_knowledge (top {TOP_K})": _ask_search(chains, cwd, db, "engram"),
                   f"{REAL_DECIDE}: the question as a prompt": _ask_hooks(chains, cwd, db)}
    return {m: [verdict(r, c) for r, c in zip(returned, chains)] for m, returned in answers.items()}

