"""Entity resolution: is a proposed node one the graph already holds?

Runs between Pass 2 and the graph write, for every proposed node except the episode:

1. names first (`engram.language.names`): the existing nodes of the same type whose
   names could be related to the proposal (same first letters as any of its words, or as
   any name the curated alias table gives its canonical or the canonicals it is a part
   of, or a word of it anywhere in their name: "AWS Secrets Manager" for "Secrets
   Manager", "attio MCP server" for "github MCP server") are compared by rule. A merge
   wins over a child; a rule's "new" rules that node out of step 2 ("React Native" never
   merges into "React", however alike they embed);
2. otherwise name + description (and the name alone) are embedded to find the nearest
   existing nodes of the same type, superseded ones included, and the best cosine
   similarity between the names picks the band (the bands are calibrated on names):
   above `merge` -> MERGE, between `child` and `merge` -> CHILD (a new node with a
   version_of edge to the match), below `child` -> NEW;
3. where a model provider is configured, a similarity in the ambiguous band (from
   `child - AMBIGUOUS_MARGIN` up to `merge`) is put to the adjudicator instead, and its
   decision and reason are written to the project log.

The bands depend on the embedding model (a feature-hashing vector and a neural one put
"the same concept" at very different cosines), so they are looked up per model in
`BANDS`; the values come from `bench/entity_resolution_calibration.py` on the development
half of the labelled pairs (docs/labelled-sets.md has the method and the figures). A model
with no calibration gets the spec's (docs/spec.md, "Entity resolution") 0.95 / 0.80.

File concepts (data.kind == "file") resolve by exact path only: two paths that embed
alike ("src/a/util.py", "src/b/util.py") are still two files.

A concept's versioned name is the thing itself (the spec's "SQLite 3.53.0" merges with
"SQLite"); `Resolution.version` carries the version, which graph_apply keeps in the node's
`data.versions` and retrieval shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol

from engram.language import names
from engram.graph import embeddings, fulltext, store
from engram.language import aliases

SPEC_BANDS = (0.95, 0.80)
# (merge above, child above), per embedding model; see the module docstring.
BANDS: dict[str, tuple[float, float]] = {
    "engram-hash-v1": (0.95, 0.53),
}
AMBIGUOUS_MARGIN = 0.10
KNN_K = 20
CANDIDATES_PER_PREFIX = 200
CANDIDATES_BY_WORD = 50
# Node types that name a thing, which is the same thing at any version (docs/spec.md: "SQLite
# 3.53.0" merges with "SQLite"); a decision's or a finding's name is a statement, and one about
# another version is another statement.
ENTITY_TYPES = frozenset(["concept"])


class Adjudicator(Protocol):
    """A model's verdict on one ambiguous pair: (merge | child | new, its reason)."""

    def adjudicate(self, proposed: dict[str, Any], existing: dict[str, Any]) -> tuple[str, str]: ...


def bands_for(model: str) -> tuple[float, float]:
    return BANDS.get(model, SPEC_BANDS)


def name_relation(a: str, b: str, table: aliases.Table | None = None) -> str | None:
    """merge / child / new when the names alone decide, else None (see engram.language.names)."""
    return names.relate(a, b, table or aliases.table())[0]


def band(similarity: float, bands: tuple[float, float]) -> str:
    """merge / child / new for a cosine similarity under (merge above, child above)."""
    if similarity > bands[0]:
        return "merge"
    return "child" if similarity > bands[1] else "new"


def ambiguous(similarity: float, bands: tuple[float, float]) -> bool:
    """Whether a similarity is one the model adjudicates (where the bands are least sure)."""
    return bands[1] - AMBIGUOUS_MARGIN < similarity <= bands[0]


def _numbers(name: str) -> list[str]:
    """The numbers a name states, in order. Embedders drop them (the offline one does), so "Use Go
    1.20" and "go 1.22", "Page size is 50" and "Page size is 100" embed alike; as statements
    (decisions, findings: not ENTITY_TYPES) they are two, and merging the newer into the older
    lost it: the newer never became a decision of its own, so it could replace nothing."""
    import re

    return re.findall(r"\d+(?:\.\d+)*", name)


def _cos(a: list[float], b: list[float]) -> float:
    na = sum(x * x for x in a) ** 0.5
    nb = sum(x * x for x in b) ** 0.5
    return sum(x * y for x, y in zip(a, b)) / (na * nb) if na and nb else 0.0


@dataclass
class Resolution:
    action: str  # merge | child | new
    node_id: str | None = None
    similarity: float = 0.0
    how: str = ""  # exact | normalised | alias | part | version | qualified | embedding | adjudicated | ...
    superseded: bool = False
    version: str = ""  # the version a concept's name gives it ("3.53.0" of "SQLite 3.53.0"): kept in data.versions


class Resolver:
    """Resolves proposals against one connection with one embedder (and optionally a model)."""

    def __init__(self, conn: Any, embedder: Any, bands: tuple[float, float] | None = None, *,
                 table: aliases.Table | None = None, adjudicator: Adjudicator | None = None,
                 log: Callable[[str], None] | None = None):
        self.conn = conn
        self.embedder = embedder
        self.merge_above, self.child_above = bands or bands_for(getattr(embedder, "model", ""))
        self.table = table or aliases.table()
        self.adjudicator = adjudicator
        self.log = log or (lambda _msg: None)
        self._index_ready = False
        self._ruled_out: set[str] = set()

    def resolve(self, name: str, type: str, description: str = "", *, exact_only: bool = False) -> Resolution:
        self._ruled_out = set()
        hit = self.by_name(name, type, exact_only=exact_only)
        if exact_only:
            return hit or Resolution("new")
        res = hit or self.by_embedding(name, type, description)
        if type in ENTITY_TYPES:  # the version a concept's name gives it: an attribute of the one node
            res.version = names.product_version(name, self.table)
        return res

    def by_name(self, name: str, type: str, *, exact_only: bool = False) -> Resolution | None:
        exact = store.find_by_name(self.conn, name, type=type, limit=1)
        if exact:
            return Resolution("merge", exact[0]["id"], 1.0, "exact", exact[0]["status"] == "superseded")
        if exact_only:
            return None
        decided = []
        for nid, other, status in self._candidates(name, type):
            action, how = names.relate(name, other, self.table, entity=type in ENTITY_TYPES)
            if action == "new":
                self._ruled_out.add(nid)
            elif action:
                decided.append((action, how, nid, status))
        for wanted in ("merge", "child"):
            for action, how, nid, status in decided:
                if action == wanted:
                    return Resolution(action, nid, 1.0, how, status == "superseded")
        return None

    def _candidates(self, name: str, type: str) -> list[tuple[str, str, str]]:
        """Existing nodes whose names start like a name the rules could relate to the proposal
        (names.search_prefixes), or hold a word of it."""
        rows: dict[str, tuple[str, str, str]] = {}
        for prefix in sorted(names.search_prefixes(name, self.table)):
            for nid, other, status in store.names_starting(self.conn, prefix, type, CANDIDATES_PER_PREFIX):
                rows.setdefault(nid, (nid, other, status))
        for node in self._sharing_a_word(names.search_words(name), type):
            rows.setdefault(node["id"], (node["id"], node["name"], node["status"]))
        return list(rows.values())

    def _sharing_a_word(self, words: list[str], type: str) -> list[dict[str, Any]]:
        """Live nodes of `type` whose text holds a word of the proposal (the keyword index, best first)."""
        if not words or not fulltext.available(self.conn):
            return []
        ids = [nid for nid, _ in fulltext.search(self.conn, words, CANDIDATES_BY_WORD)]
        return [n for n in store.get_nodes(self.conn, ids).values() if n["type"] == type]

    def by_embedding(self, name: str, type: str, description: str) -> Resolution:
        """Candidates by knn on name + description (and on the name alone), decided on the names.

        The bands are calibrated on names; descriptions are written anew by every episode,
        so a cosine over name + description would drift with the writing, not the identity.
        """
        self._ensure_index()
        full, bare = self.embedder.embed([embeddings.node_text(name, description), name])
        ids = [nid for vec in (full, bare) for nid, _ in embeddings.knn(self.conn, vec, KNN_K)]
        nodes = [n for n in store.get_nodes(self.conn, ids).values()
                 if n["type"] == type and n["id"] not in self._ruled_out
                 and (type in ENTITY_TYPES or _numbers(n["name"]) == _numbers(name))]
        if not nodes:
            return Resolution("new")
        vectors = self.embedder.embed([n["name"] for n in nodes])
        scored = sorted(((_cos(bare, v), n) for v, n in zip(vectors, nodes)), key=lambda x: -x[0])
        sim, node = scored[0]
        bands = (self.merge_above, self.child_above)
        if self.adjudicator is not None and ambiguous(sim, bands):
            return self._adjudicate({"name": name, "type": type, "description": description}, node, sim, bands)
        action = band(sim, bands)
        if action == "new":
            return Resolution("new", None, sim, "embedding")
        return Resolution(action, node["id"], sim, "embedding", node["status"] == "superseded")

    def _adjudicate(self, proposed: dict[str, Any], node: dict[str, Any], sim: float,
                    bands: tuple[float, float]) -> Resolution:
        """The model decides; a failure falls back to the bands (consolidation never stops for it)."""
        try:
            action, reason = self.adjudicator.adjudicate(proposed, node)  # type: ignore[union-attr]
        except Exception as exc:
            action, reason = band(sim, bands), f"adjudicator failed ({type(exc).__name__}: {exc}); bands decided"
        self.log(f"entity resolution: {proposed['name']!r} vs {node['name']!r} (cosine {sim:.2f}): "
                 f"{action} - {reason}")
        if action == "new":
            return Resolution("new", None, sim, "adjudicated")
        return Resolution(action, node["id"], sim, "adjudicated", node["status"] == "superseded")

    def _ensure_index(self) -> None:
        """Bring the vector index up to date before the first lookup (nodes written since)."""
        if not self._index_ready:
            embeddings.sync(self.conn, self.embedder)
            self._index_ready = True
