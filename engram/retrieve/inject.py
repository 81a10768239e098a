"""Pre-execution retrieval for SessionStart and UserPromptSubmit, with per-session memory.

The hook calls these inside the session's state lock with `st`, the session state dict.
Retrieval keeps its own bookkeeping under `st["retrieval"]`:

* `injected`: {node id: [updated_at, tier]} of everything shown this session, so a node
  is not shown again unless it changed (its updated_at moved) or is now shown at a
  higher tier than before (e.g. first listed by name, later in full);
* `sig`: the graph's stamp (size + mtime of engram.db and its WAL) at the last prompt.
  UserPromptSubmit compares it first: when a consolidation changed the graph since the
  last prompt, the files this session has written become entry points too, so what the
  graph now knows about them (from other sessions) can surface. Nodes learnt only from
  this session's own episodes are not injected back into it on prompts.

Nothing here opens the database when it does not exist, or when an unchanged graph meets
a prompt that names nothing; a new session's context comes from the per-project cache
while nothing it depends on changed (retrieve/start/cache.py). The ranking and rendering
modules are imported by the functions that use them: a cached SessionStart never loads them.
"""

from __future__ import annotations

import os

from engram.graph import signature
from engram.retrieve.shown import is_new, remember, rstate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engram.retrieve.entry_points import Terms

FETCH_LIMIT = 80  # candidates formatted; 1,200 tokens hold ~30 lines, or ~80 names
# The closing names-only line names the query_knowledge tool only where the agent has it
# (lifecycle chooses, from engram.config.mcp_registered).
PLAIN_LOW_PREFIX = "Also in memory: "
# `context` frames a header as recalled facts (text.AS_DATA) where it renders it.
SESSION_HEADER = "Project memory from earlier sessions (engram; {}):"
PROMPT_HEADER = "Project memory related to this prompt (engram; {}):"
RESET_SOURCES = ("clear", "compact")  # the agent's context was wiped or summarised
# The knowledge a session starts with whatever it names (consolidate/knowledge), per kind.
STANDING = (("unfinished", 8), ("command", 8), ("command_run", 6), ("gotcha", 8), ("instruction", 8))
RECENT_FILES, STRONG_FILES = 20, 10  # the files the latest sessions worked on, and the most worked on
RULES_FILES = 6  # the project's rules files for the agent, whatever their age
STANDING_EPISODES = 2
# A session's first prompt says what it is about in words that often name no path or
# identifier: its few best full-text matches seed the spread too (ranking at most
# PROMPT_KEYWORD_ROWS matches, ~2 ms; docs/retrieval.md). Later prompts seed by what they
# name only: a keyword match on every prompt cost a third more words for one more hit.
PROMPT_KEYWORD_SEEDS, PROMPT_KEYWORD_ROWS = 5, 500


def retrieve(conn, terms: Terms, cfg: dict, *, combine: str = "max",
             top: int = 2 * FETCH_LIMIT, text: str = "") -> list[tuple[str, float]]:
    """Ranked [(node id, activation)] for the terms (and `text`'s best full-text matches, when
    given): the exact `top` most active (no session filtering)."""
    from engram.retrieve import activation, seeds

    found = seeds.match(conn, terms) if terms else {}
    for nid, (a, why) in (seeds.keyword(conn, text, PROMPT_KEYWORD_SEEDS, PROMPT_KEYWORD_ROWS) if text else {}).items():
        if a > found.get(nid, (0.0, ""))[0]:
            found[nid] = (a, why)
    if not found:
        return []
    acts = activation.spread(conn, {nid: a for nid, (a, _) in found.items()},
                            decay=float(cfg["decayFactor"]), threshold=float(cfg["activationThreshold"]),
                            rule=str(cfg["spreadingRule"]), combine=combine,
                            limit=top if combine == "max" else None)
    return activation.rank(acts)


def wanted(rs: dict) -> int:
    """How many top nodes to rank: enough that FETCH_LIMIT remain after dropping those shown."""
    return FETCH_LIMIT + len(rs["injected"])


def context(conn, ranked: list[tuple[str, float]], cfg: dict, rs: dict, header: str,
            exclude: set[str] = frozenset(), standing: list[tuple[dict, float]] = (),
            low_prefix: str | None = None, root: str | None = None, log: dict | None = None,
            budget: int | None = None) -> str | None:
    """Drop what this session already saw, render within the budget, remember what was shown.

    `standing`: (node, activation) pairs shown whatever the entry points (SessionStart's
    pinned items, unfinished work, commands, known problems, instructions), placed before
    the ranked ones. Faded items and items whose evidence no longer holds in the project at
    `root` are left out (retrieve/screens/curation.py; `log` gets the fingerprints of the
    files checked). `header` is a template its frame (text.AS_DATA) fills; `low_prefix` the
    names-only line's opening (None: tiers.LOW_PREFIX).
    """
    from engram.graph import readonly
    from engram.retrieve import sections, tiers
    from engram.retrieve.screens import conflicts, curation
    from engram.text import AS_DATA

    ranked = [(nid, a) for nid, a in ranked if nid not in exclude]
    injected = rs["injected"]
    candidates = ranked[: wanted(rs)]
    nodes = readonly.nodes(conn, [nid for nid, _ in candidates]) if candidates else {}
    served = conflicts.serve_one(conn, [(nodes[nid], a) for nid, a in candidates if nid in nodes])
    nodes.update({n["id"]: n for n, _ in served})
    items = [(n, a) for n, a in served if is_new(injected, n, tiers.level(n, a))][:FETCH_LIMIT]
    # Ties by name, not by id: ids are random, so an id order would differ between two
    # graphs built from the same events.
    items.sort(key=lambda it: (-round(it[1], 9), it[0]["name"], it[0]["id"]))
    # a pinned decision that a newer one may replace is served as the newer, naming it
    standing = conflicts.serve_one(conn, list(standing))
    first = [(n, a) for n, a in standing if n["id"] not in exclude and is_new(injected, n, tiers.level(n, a))]
    first, items = curation.screen_both(conn, root, first, items, log)
    if not first and not items:
        return None
    text, shown = sections.render(first + items, int(cfg["tokenBudget"]) if budget is None else budget,
                                  header.format(AS_DATA),
                                  tiers.LOW_PREFIX if low_prefix is None else low_prefix)
    remember(injected, {**nodes, **{n["id"]: n for n, _ in first}}, shown)
    return text


def standing(conn) -> list[tuple[dict, float]]:
    """What a session starts with whatever it names: per kind, strongest then newest first."""
    from engram.graph import readonly

    out: list[tuple[dict, float]] = []
    for kind, n in STANDING:
        out += [(node, 1.0) for node in readonly.of_kind(conn, kind, n)]
    out += [(node, 1.0) for node in readonly.rules_files(conn, RULES_FILES)]  # instructions, wherever they live
    out += [(node, 0.9) for node in readonly.of_kind(conn, "file", RECENT_FILES, "recent")]
    out += [(node, 0.8) for node in readonly.of_kind(conn, "file", STRONG_FILES)]  # render shows each once
    return out + [(node, 0.5) for node in distinct_episodes(readonly.latest_episodes(conn, 4 * STANDING_EPISODES))]


def distinct_episodes(nodes: list[dict]) -> list[dict]:
    """The newest episode of each session, one line per distinct goal: a session consolidated
    in several ranges (turns, compactions) is one earlier session, not several."""
    from engram.retrieve.tiers import data_of

    seen: set[str] = set()
    out = []
    for node in nodes:
        data = data_of(node)
        keys = {str(data.get("session") or node["id"]), " ".join(str(node.get("name") or "").casefold().split())}
        if not keys & seen:
            out.append(node)
        seen |= keys
    return out[:STANDING_EPISODES]


def low_prefix(harness: str, home: str | None = None) -> str | None:
    """The closing names-only line's opening for an agent of `harness`: naming query_knowledge
    (None: tiers.LOW_PREFIX) only where the agent has the tool (config.mcp_registered)."""
    from engram import config

    return None if config.mcp_registered(harness, home) else PLAIN_LOW_PREFIX


def warm(project, cfg: dict, harness: str) -> None:
    """Make the context a new session of `harness` would get now, so that the context cache
    holds it (`engram worker --warm`, started after a drain once the graph is past the
    cache's racy window): the next session starts from the cache if nothing changed since."""
    session_start(project, "", cfg, {}, "startup", low_prefix(harness, project.home))


def session_start(project, session: str, cfg: dict, st: dict, source: str = "startup",
                  low_prefix: str | None = None) -> str | None:
    """Context for a new (or resumed, cleared, compacted) session, or None. A session shown
    nothing yet is served from the context cache when it holds this context's inputs, and
    stores it there when not (retrieve/start/cache.py)."""
    rs = rstate(st)
    if source in RESET_SOURCES:
        rs["injected"] = {}
    db = project.db_path
    sig = rs["sig"] = signature(db)
    if not os.path.exists(db):
        return None
    from engram.retrieve.start import cache, project_context  # SessionStart only: git and event-stream readers

    inputs = project_context.session_start_inputs(project.root, os.path.join(project.dir, "events"), session)
    want = cache.key(sig, inputs, cfg, low_prefix, project.root) if not rs["injected"] else None
    hit = cache.load(project.dir, want) if want else None
    if hit is not None:
        for nid, updated, level in hit[1]:
            rs["injected"][nid] = [updated, level]
        rs["start_size"] = _size(hit[0])
        return hit[0]
    files: dict = {}
    text = _session_context(db, project.root, project_context.terms_of(inputs, project.root), cfg, rs, low_prefix,
                            files)
    if want:
        cache.store(project.dir, want, (sig, signature(db)), files, text, rs["injected"])
    rs["start_size"] = _size(text)
    return text


def _size(text: str | None) -> list[int]:
    """[characters, words, CJK characters] of SessionStart's context (tiers.tokens_of): the first
    prompt's budget leaves room for it."""
    from engram.text import cjk_count

    text = text or ""
    return [len(text), len(text.split()), cjk_count(text)]


def _session_context(db: str, root: str, terms: Terms, cfg: dict, rs: dict, low_prefix: str | None,
                     files: dict) -> str | None:
    """SessionStart's context from the graph (`files`: the evidence files its screen checked)."""
    from engram.graph import readonly
    from engram.retrieve.screens import curation

    conn = readonly.open_ro(db)
    try:
        ranked = retrieve(conn, terms, cfg, top=wanted(rs)) if terms else []
        return context(conn, ranked, cfg, rs, SESSION_HEADER, standing=curation.pinned(conn) + standing(conn),
                       low_prefix=low_prefix, root=root, log=files)
    finally:
        conn.close()


def own_nodes(conn, session: str, ids: list[str]) -> set[str]:
    """Which of these nodes were learnt only from this session's own episodes."""
    from engram.graph import readonly
    from engram.retrieve.tiers import json_strings

    mine = readonly.session_episode_ids(conn, session)
    if not mine or not ids:
        return set()
    out = set()
    for nid, raw in readonly.source_episodes(conn, ids):
        eps = json_strings(raw)
        if eps and set(eps) <= mine:
            out.add(nid)
    return out


def prompt(project, session: str, cfg: dict, st: dict, text: str, cwd: str | None = None,
           low_prefix: str | None = None) -> str | None:
    """Context for one user prompt, or None."""
    from engram.graph import readonly
    from engram.retrieve import entry_points, tiers
    rs = rstate(st)
    db = project.db_path
    sig = signature(db)
    changed = rs.get("sig") is not None and sig != rs.get("sig")
    rs["sig"] = sig
    if not os.path.exists(db):
        return None
    terms = entry_points.terms_from_text(text, project.root, cwd)
    if changed:
        terms.add(entry_points.terms_from_paths(list(st.get("written") or [])[-10:]))
    first = st.get("turn") == 1
    words = text if first else ""
    if not terms and not words.strip():
        return None
    # the first turn's whole injection (SessionStart's and this) within firstTurnTokenBudget
    budget = int(cfg["tokenBudget"])
    if first:
        size = rs.pop("start_size", None)
        ok = isinstance(size, list) and len(size) == 3 and all(type(n) is int and n >= 0 for n in size)
        shown = tiers.tokens_of(*size) if ok else 0  # a state file is untrusted
        budget = min(budget, int(cfg["firstTurnTokenBudget"]) - shown)
        if budget <= 0:
            return None
    conn = readonly.open_ro(db)
    try:
        ranked = retrieve(conn, terms, cfg, top=wanted(rs), text=words)
        own = own_nodes(conn, session, [nid for nid, _ in ranked[: wanted(rs)]]) if ranked else set()
        items = context(conn, ranked, cfg, rs, PROMPT_HEADER, exclude=own, low_prefix=low_prefix,
                        root=project.root, budget=budget) if ranked else None
        said = None
        if words.strip():
            from engram.retrieve import replies

            said = replies.recall(conn, words, session, budget - tiers.tokens(items or ""))
        return "\n".join(x for x in (items, said) if x) or None
    finally:
        conn.close()
