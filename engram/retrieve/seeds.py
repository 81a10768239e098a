"""Entry-point terms -> seed nodes (the starting points of spreading activation).

Matching order, each step deterministic:
1. files: exact project-relative paths through the `node_files` index;
2. path suffixes ("retry.ts", "core/retrieval" from a module name) against the linked paths
   of the nodes whose indexed text holds the suffix's words (graph/fulltext.linked_paths),
   asked only when a suffix did not already match as an exact path;
3. names: exact `name_key` (indexed); then, for terms that matched nothing exactly, their
   loose variants: the words of the term (split on separators and camelCase) joined by
   " ", "-", "_", "." or nothing, so "retry client", "retryClient" and "retry_client" find
   a node named "Retry-Client". Still index lookups: a scan that normalised every stored
   name cost 5.5 ms at 5,000 nodes, 55 ms at 50,000.

A seed's initial activation is its node's strength (the spec's (docs/spec.md) rule). `keyword`
adds the best full-text (BM25) matches of a text, each at strength x its score over the best
score, so a weak textual match does not outrank a node the text names. The embedding index
is never consulted here: the hooks must not load sqlite-vec or call an API; the on-demand
query (`engram.retrieve.query`) adds vector seeds on top.
"""

from __future__ import annotations

from engram.graph import fulltext, readonly
from engram.retrieve import keyword as bm25
from engram.retrieve.entry_points import Terms, split_ident
from engram.language.aliases import concern_words

MAX_SEEDS = 60
LOOSE_JOINERS = (" ", "-", "_", ".", "")
MAX_LOOSE_WORDS = 4


def _stem(path: str) -> str:
    base = path.rsplit("/", 1)[-1]
    if "." in base.strip("."):
        path = path[: len(path) - len(base)] + base.rsplit(".", 1)[0]
    return path[: -len("/__init__")] if path.endswith("/__init__") else path


def suffix_hits(suffixes: list[str], paths: list[str]) -> list[str]:
    """Known paths that end with one of the suffixes, as a path or as an extension-less stem."""
    if not suffixes:
        return []
    by_name: dict[str, list[str]] = {}
    for p in paths:
        base = p.rsplit("/", 1)[-1]
        by_name.setdefault(base, []).append(p)
        stem_base = _stem(p).rsplit("/", 1)[-1]
        if stem_base != base:
            by_name.setdefault(stem_base, []).append(p)
    out: list[str] = []
    for s in suffixes:
        s = s.strip("/")
        for p in by_name.get(s.rsplit("/", 1)[-1], ()):
            if p == s or p.endswith("/" + s) or _stem(p) == s or _stem(p).endswith("/" + s):
                out.append(p)
    return sorted(set(out))


def loose_variants(terms: list[str]) -> list[str]:
    """Separator variants of the terms (see the module docstring), minus the terms themselves."""
    out: set[str] = set()
    for t in terms:
        words = split_ident(t)
        if 0 < len(words) <= MAX_LOOSE_WORDS:
            out.update(j.join(words) for j in LOOSE_JOINERS)
    return sorted(out - set(terms) - {""})


def subject_words(terms: Terms) -> set[str]:
    """The words of the terms read as a decision's subject is (aliases.concern_words)."""
    return {c for t in terms.names if " " not in t for w in [t, *split_ident(t)] for c in concern_words([w])}


def match(conn, terms: Terms, *, loose: bool = True) -> dict[str, tuple[float, str]]:
    """{node id: (initial activation, why)} for the terms; at most MAX_SEEDS, strongest first."""
    found: dict[str, tuple[float, str]] = {}

    def put(rows, kind: str) -> None:
        for nid, strength, key in rows:
            if nid not in found:
                found[nid] = (float(strength), f"{kind}:{key}")

    if terms.paths:
        put(readonly.by_paths(conn, sorted(set(terms.paths))), "file")
    hit_paths = {why[5:] for _, why in found.values()}
    suffixes = [s for s in terms.suffixes if s not in hit_paths]
    if suffixes:
        extra = [p for p in suffix_hits(suffixes, fulltext.linked_paths(conn, suffixes)) if p not in hit_paths]
        if extra:
            put(readonly.by_paths(conn, extra), "file")
    if terms.names:
        exact = readonly.by_names(conn, terms.names)
        put(exact, "name")
        if loose:
            hit = {key for _, _, key in exact}
            variants = loose_variants([t for t in terms.names if t not in hit])
            if variants:
                put(readonly.by_names(conn, variants), "loose")
    phrases = [t for t in terms.names if " " in t]
    words = subject_words(terms)
    if phrases or words:
        put(readonly.decisions_about(conn, phrases, words), "topic")
    ranked = sorted(found.items(), key=lambda kv: (-kv[1][0], kv[0]))[:MAX_SEEDS]
    return dict(ranked)


def keyword(conn, text: str, limit: int, rows: int | None = None) -> dict[str, tuple[float, str]]:
    """{node id: (strength x score / best score, why)} for the text's `limit` best full-text
    matches (ranking at most `rows` matches, when given); {} when the database has no
    full-text index yet."""
    hits = bm25.search(conn, text, limit, rows) if fulltext.available(conn) else []
    if not hits:
        return {}
    top = hits[0][1]
    strength = readonly.strengths(conn, [h for h, _ in hits])
    return {nid: (strength.get(nid, 0.0) * (score / top), f"keyword:{score:.2f}") for nid, score in hits}
