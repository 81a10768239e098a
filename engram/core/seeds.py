"""Entry-point terms -> seed nodes (the starting points of spreading activation).

Matching order, each step deterministic:
1. files: exact project-relative paths through the `node_files` index;
2. path suffixes ("retry.ts", "core/retrieval" from a module name) against the distinct
   linked paths, fetched only when the text named such a suffix;
3. names: exact `name_key` (indexed), then the loose form (separators and camelCase
   removed) for terms that matched nothing exactly.

A seed's initial activation is its node's strength (the spec's rule). The embedding
index is never consulted here: the hooks must not load sqlite-vec or call an API; the
on-demand query (`engram.core.query`) adds vector and keyword seeds on top.
"""

from __future__ import annotations

from engram.core import graphread
from engram.core.entry_points import Terms, normalise

MAX_SEEDS = 60


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


def match(conn, terms: Terms, *, loose: bool = True) -> dict[str, tuple[float, str]]:
    """{node id: (initial activation, why)} for the terms; at most MAX_SEEDS, strongest first."""
    found: dict[str, tuple[float, str]] = {}

    def put(rows, kind: str) -> None:
        for nid, strength, key in rows:
            if nid not in found:
                found[nid] = (float(strength), f"{kind}:{key}")

    paths = list(terms.paths)
    if terms.suffixes:
        paths += suffix_hits(terms.suffixes, graphread.known_paths(conn))
    if paths:
        put(graphread.by_paths(conn, sorted(set(paths))), "file")
    if terms.names:
        exact = graphread.by_names(conn, terms.names)
        put(exact, "name")
        if loose:
            hit = {key for _, _, key in exact}
            cands: set[str] = set()
            for t in terms.names:
                if t not in hit:
                    n = normalise(t)
                    cands.update((n, n.replace(" ", "")))
            cands.discard("")
            if cands:
                put(graphread.by_loose_names(conn, sorted(cands)), "loose")
    ranked = sorted(found.items(), key=lambda kv: (-kv[1][0], kv[0]))[:MAX_SEEDS]
    return dict(ranked)
