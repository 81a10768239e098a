"""On-demand retrieval: `engram query` and the MCP tool `query_knowledge(question, scope)`.

Same spreading activation as the hooks, with richer entry points, since nobody waits on
a hook here:
* the question's file paths, module names and names (as in a prompt);
* keyword seeds: the best BM25 matches over node names, summaries, descriptions and
  files, from the persisted full-text index (engram.graph.fulltext);
* vector seeds: nearest nodes by embedding when the database holds vectors and the
  question can be embedded without a network call (the caller's embedder when it is the
  local one the vectors came from, or a cached remote embedding of this exact text). Otherwise vectors are skipped and `notes` says why.
A keyword or vector seed starts at strength x its match score (normalised to [0, 1]), so
a weak textual match does not outrank a node the question names exactly. A decision the
question names by its subject ("what do we use for the job queue?" and "Use SQLite for
the job queue") starts at TOPIC_ACTIVATION whatever its strength: the question asks what
was decided about that thing, so that decision comes first (issue 14, finding 7); so does
one stated in a session that is not consolidated yet (pending.py).
No session memory applies: every call sees the whole result.
"""

from __future__ import annotations

import os

from engram.graph import fulltext, readonly
from engram.retrieve import entry_points, activation, pending, seeds, sections, tiers
from engram.retrieve.screens import conflicts
from engram.redact.injection import withhold
from engram.text import AS_DATA, clip, inert

KEYWORD_SEEDS = 8
VECTOR_SEEDS = 8
MIN_SIMILARITY = 0.35
TOPIC_ACTIVATION = 1.0
SCOPES = ("current_project", "all")
MAX_WEAKER = 12  # names on the closing "Weaker matches" line; --json lists every hit
MAX_RELATED = 2  # related decisions named after a decision
# At equal activation, what the question names comes before a textual match, and that before
# spread: the top keyword match of a small graph starts at its node's full strength, as a
# decision on the question's subject does, and the tie must not fall to the node id.
SEED_ORDER = {kind: i for i, kind in enumerate(("topic", "pending", "file", "name", "loose", "keyword", "vector"))}


def _keyword_seeds(conn, question: str, notes: list[str]) -> dict[str, tuple[float, str]]:
    if not fulltext.available(conn):
        notes.append("keyword seeds skipped: this database predates the full-text index; the next "
                     "consolidation or `engram maintain` adds it")
        return {}
    return seeds.keyword(conn, question, KEYWORD_SEEDS)


def _question_vector(conn, question: str, embedder) -> tuple[list[float] | None, str]:
    """The question as a vector of the model the graph's vectors were made with, without
    a network call: by `embedder` when it is that model and local, else from the cache.
    `embedder` may be a function of the stored vectors' model that builds one: it is called
    only here, once vectors are known to exist (the registry's import alone costs ~25 ms)."""
    from engram.graph.store import get_meta

    model = get_meta(conn, "embedding_model")
    if not model:
        return None, "no embeddings stored yet"
    from engram.graph.vectors import cached_vector

    if embedder is not None and not hasattr(embedder, "embed"):
        embedder = embedder(model)
    if embedder is not None and embedder.model == model and not embedder.remote:
        return embedder.embed([question])[0], ""
    vec = cached_vector(conn, model, question)
    if vec is not None:
        return vec, ""
    return None, f"vectors are {model}; embedding the question would need an API call"


def _vector_seeds(conn, question: str, embedder, notes: list[str]) -> dict[str, tuple[float, str]]:
    try:
        vec, why = _question_vector(conn, question, embedder)
        if vec is None:
            notes.append(f"vectors skipped: {why}")
            return {}
        from engram.graph import embeddings

        near = [(n, s) for n, s in embeddings.knn(conn, vec, VECTOR_SEEDS, include_superseded=False)
                if s >= MIN_SIMILARITY]  # fmt: skip
    except Exception as exc:  # a broken vector index must not break the query
        notes.append(f"vectors skipped: {type(exc).__name__}: {exc}")
        return {}
    if not near:
        return {}
    strength = readonly.strengths(conn, [n for n, _ in near])
    return {nid: (strength.get(nid, 0.0) * sim, f"vector:{sim:.2f}") for nid, sim in near}


def search(conn, project_root: str, question: str, cfg: dict, *, vectors: bool = True, embedder=None,
           notes: list[str] | None = None) -> list[dict]:
    """Ranked hits [{id, name, type, activation, tier, files, why, node}] for one database
    (`line(hit)` is the hit's line of text, for --json)."""
    notes = notes if notes is not None else []
    terms = entry_points.terms_from_text(question, project_root)
    found = seeds.match(conn, terms)
    for nid, (a, why) in found.items():  # the question asks what this decision decided
        if why.startswith("topic:"):
            found[nid] = (max(a, TOPIC_ACTIVATION), why)
    for extra in (_keyword_seeds(conn, question, notes), _vector_seeds(conn, question, embedder, notes) if vectors else {}):
        for nid, (a, why) in extra.items():
            if a > found.get(nid, (0.0, ""))[0]:
                found[nid] = (a, why)
    acts = activation.spread(conn, {n: a for n, (a, _) in found.items()},
                            decay=float(cfg["decayFactor"]), threshold=float(cfg["activationThreshold"]),
                            rule=str(cfg["spreadingRule"]), limit=200)  # fmt: skip
    ranked = activation.rank(acts)[:200]
    nodes = readonly.nodes(conn, [n for n, _ in ranked])
    hits = []
    for nid, a in ranked:
        node = nodes.get(nid)
        if node is None:
            continue
        level = tiers.tier(a)
        hits.append({"id": nid, "name": node["name"], "type": node["type"], "activation": round(a, 4),
                     "tier": tiers.TIER_NAMES[level], "files": tiers.files_of(node),
                     "why": found[nid][1] if nid in found else "spread", "node": node})  # fmt: skip
    hits.sort(key=order)
    return hits


def order(hit: dict) -> tuple:
    """Sort key, best first: activation, then how the hit was found (SEED_ORDER), project, id."""
    kind = hit["why"].split(":", 1)[0]
    return (-hit["activation"], SEED_ORDER.get(kind, len(SEED_ORDER)), hit.get("project", ""), hit["id"])


def pending_hits(conn, project_root: str, question: str, events_dir: str) -> tuple[list[dict], set[str]]:
    """(decisions stated in a session not consolidated yet that the question names by subject,
    ranked like a decision named by its subject; the ids of live decisions they replace)
    (pending.py); `conn` None: no graph yet."""
    words = seeds.subject_words(entry_points.terms_from_text(question, project_root))
    stated, replaced = pending.decisions(conn, events_dir)
    return [{"id": n["id"], "name": n["name"], "type": "decision", "activation": TOPIC_ACTIVATION,
             "tier": tiers.TIER_NAMES[tiers.FULL], "files": [], "why": "pending",
             "node": n} for n in pending.about(stated, words)], replaced


def mark_related(conn, hits: list[dict]) -> None:
    """Each decision hit linked to a live decision as related (graph/supersession.py: both
    kept when a newer one might or might not replace it) says so: `related` lists the
    names, and its text ends "(related decision: NAME)", so the answer shows that the two
    must be read together. Two queries for all the hits (one per hit cost ~4 ms at 50,000 nodes)."""
    ids = {h["id"] for h in hits if h["type"] == "decision" and not h["id"].startswith("pending:")}
    others: dict[str, set[str]] = {}
    for a, b in readonly.related_links(conn, list(ids)):
        others.setdefault(a, set()).add(b)
        others.setdefault(b, set()).add(a)
    linked = readonly.nodes(conn, sorted(set().union(*others.values()))) if others else {}
    for h in hits:
        if h["id"] not in ids or h["id"] not in others:
            continue
        mine = others[h["id"]]
        names = [n["name"] for nid, n in linked.items() if nid in mine and n["type"] == "decision"][:MAX_RELATED]
        if names:
            h["related"] = names
            h["node"] = _saying_related(h["node"], names)


def _saying_related(node: dict, names: list[str]) -> dict:
    """The node with "(related decision: NAME)" after its summary and its description."""
    return tiers.with_note(node, " ".join(f"(related decision: {clip(n, 120)})" for n in names))  # made inert whole


def line(hit: dict) -> str:
    """A hit's line of text at its tier (the summary at least): what --json shows of it."""
    return tiers.line(hit["node"], max(tiers.tier(hit["activation"]), tiers.SUMMARY))


def json_row(hit: dict) -> dict:
    """A hit as `engram query --json` prints it. Its name, files, reason and project are tool
    text like the text output's fields, and a script may paste them into a prompt: each is
    shown through `inert` (one line, no markup) and guarded like a line (`tiers.guarded`); a
    decision linked to another as related lists their names under `related`."""
    return {"id": hit["id"], "name": inert(tiers.guarded(hit["node"], hit["name"]), 200), "type": hit["type"],
            "activation": hit["activation"], "tier": hit["tier"], "files": [inert(f, 400) for f in hit["files"]],
            "why": inert(withhold(hit["why"]), 200), "project": inert(hit.get("project", ""), 400), "line": line(hit),
            **({"related": [inert(withhold(n), 200) for n in hit["related"]]} if hit.get("related") else {})}


def open_db(db_path: str, vectors: bool = True):
    """A connection to the database, or None if there is no file; it can read vectors
    (sqlite-vec when available) only when asked and the graph holds any, since loading
    the extension costs more than the rest of a query."""
    if not os.path.exists(db_path):
        return None
    from engram.graph.connect import add_vectors, connect
    from engram.graph.store import get_meta

    conn = connect(db_path, vectors=vectors, migrate=False, readonly=True, load_vectors=False)
    if vectors and get_meta(conn, "embedding_model"):
        add_vectors(conn)
    # Read pages, not mmap (readonly.open_ro's default): a query touches thousands of pages
    # once, and their page faults and unmapping cost ~8 ms more at 50,000 nodes.
    conn.execute("PRAGMA mmap_size = 0")
    return conn


def run(question: str, cwd: str, *, scope: str = "current_project", cfg: dict | None = None,
        vectors: bool = True, embedder=None) -> tuple[list[dict], list[str]]:
    """(hits across the scope, notes): the shared core of the CLI command and the MCP tool.

    `embedder` is the configured one (engram.providers.registry.embedder): it embeds the
    question when the stored vectors are its model's and it needs no network.
    """
    from engram import config

    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {', '.join(SCOPES)}, got {scope!r}")
    if cfg is None:
        cfg, _ = config.load_config()
    here = config.Project.from_cwd(cwd)
    projects = config.all_projects() if scope == "all" else [here]
    hits: list[dict] = []
    notes: list[str] = []
    for project in projects:
        conn = open_db(project.db_path, vectors)
        events_dir = os.path.join(project.dir, "events")
        try:
            found, replaced = pending_hits(conn, project.root, question, events_dir)
            if conn is None and scope != "all" and not found:
                notes.append(f"no memory yet for {project.root} ({project.db_path} does not exist)")
            if conn is not None:
                found += search(conn, project.root, question, cfg, vectors=vectors, embedder=embedder, notes=notes)
            found = [h for h in found if h["id"] not in replaced]  # a newer pending decision replaces it
            if conn is not None:
                found = conflicts.serve_one_hits(conn, found)
                mark_related(conn, found)
        finally:
            if conn is not None:
                conn.close()
        for h in found:
            h["project"] = project.root
            hits.append(h)
    hits.sort(key=order)
    return hits, sorted(set(notes))


def format_text(question: str, hits: list[dict], budget: int, scope: str) -> str:
    """The tiers as text within `budget` tokens (what the MCP tool and `engram query` return),
    framed as recalled facts; the question is shown through `inert` like every field."""
    asked = "“" + inert(question, 200) + "”"
    if not hits:
        return f"engram has no stored knowledge matching {asked}."
    multi = scope == "all" and len({h["project"] for h in hits}) > 1
    weak = [h for h in hits if tiers.tier(h["activation"]) == tiers.LOW]
    shown = [h for h in hits if tiers.tier(h["activation"]) > tiers.LOW] + weak[:MAX_WEAKER]
    items = []
    for h in shown:
        node = dict(h["node"])
        if multi:
            node["name"] = f"[{os.path.basename(h['project'])}] {node['name']}"
        items.append((node, h["activation"]))
    text, _ = sections.render(items, budget, f"engram memory for {asked} ({AS_DATA}):", low_prefix="Weaker matches: ")
    return text or f"engram has no stored knowledge matching {asked}."
