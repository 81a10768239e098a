"""Entity resolution: is a proposed node one the graph already holds?

Runs between Pass 2 and the graph write, for every proposed node except the episode:

1. names are normalised first (casefold, whitespace, a trailing dotted version such as
   "3.53.0" or "v1.2", plural -s), and an exact match on the normalised name of a node of
   the same type is a MERGE without any embedding; names that differ only in a trailing
   "v2" / "3" are siblings: a CHILD of the existing one;
2. otherwise name + description (and the name alone) are embedded to find the nearest
   existing nodes of the same type, superseded ones included, and the best cosine
   similarity between the names picks the band (the bands are calibrated on names):
   above `merge` -> MERGE, between `child` and `merge` -> CHILD (a new node with a
   version_of edge to the match), below `child` -> NEW.

The bands depend on the embedding model (a feature-hashing vector and a neural one put
"the same concept" at very different cosines), so they are looked up per model in
`BANDS`; the values come from `bench/entity_resolution_calibration.py` over the labelled
pairs in tests/consolidate/data/concept_pairs.tsv (docs/consolidation.md has the table).
A model with no calibration gets the spec's (docs/spec.md) 0.95 / 0.80.

File concepts (data.kind == "file") resolve by exact path only: two paths that embed
alike ("src/a/util.py", "src/b/util.py") are still two files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engram.graph import embeddings, store
from engram.text import singular

SPEC_BANDS = (0.95, 0.80)
# (merge above, child above), per embedding model; see the module docstring.
BANDS: dict[str, tuple[float, float]] = {
    "engram-hash-v1": (0.95, 0.53),
}
KNN_K = 20
_VERSION = re.compile(r"(?:\s+|-)(?:v(?:ersion)?\s*)?\d+(?:\.\d+)+[a-z0-9.+-]*$", re.I)
_SIBLING = re.compile(r"\s+v?\d+$")


def bands_for(model: str) -> tuple[float, float]:
    return BANDS.get(model, SPEC_BANDS)


def normalise(name: str) -> str:
    """The identity of a name: "  SQLite 3.53.0 " -> "sqlite", "API v2" stays "api v2".

    Only dotted versions are dropped: "v2" vs "v3" usually names two different things.
    """
    key = store.normalise_name(name).strip(" .,:;!?'\"`")
    key = _VERSION.sub("", key).strip() or key
    return " ".join(singular(w) for w in key.split(" "))


def name_relation(a: str, b: str) -> str | None:
    """"merge" for one normalised name, "child" for siblings ("API v2" / "API v3"), else None."""
    ka, kb = normalise(a), normalise(b)
    if ka == kb:
        return "merge"
    fa, fb = _SIBLING.sub("", ka), _SIBLING.sub("", kb)
    return "child" if fa and fa == fb and (fa != ka or fb != kb) else None


def band(similarity: float, bands: tuple[float, float]) -> str:
    """merge / child / new for a cosine similarity under (merge above, child above)."""
    if similarity > bands[0]:
        return "merge"
    return "child" if similarity > bands[1] else "new"


def _cos(a: list[float], b: list[float]) -> float:
    na = sum(x * x for x in a) ** 0.5
    nb = sum(x * x for x in b) ** 0.5
    return sum(x * y for x, y in zip(a, b)) / (na * nb) if na and nb else 0.0


@dataclass
class Resolution:
    action: str  # merge | child | new
    node_id: str | None = None
    similarity: float = 0.0
    how: str = ""  # exact | normalised | embedding | ""
    superseded: bool = False


class Resolver:
    """Resolves proposals against one connection with one embedder."""

    def __init__(self, conn: Any, embedder: Any, bands: tuple[float, float] | None = None):
        self.conn = conn
        self.embedder = embedder
        self.merge_above, self.child_above = bands or bands_for(getattr(embedder, "model", ""))
        self._index_ready = False

    def resolve(self, name: str, type: str, description: str = "", *, exact_only: bool = False) -> Resolution:
        hit = self.by_name(name, type)
        if hit is not None or exact_only:
            return hit or Resolution("new")
        return self.by_embedding(name, type, description)

    def by_name(self, name: str, type: str) -> Resolution | None:
        exact = store.find_by_name(self.conn, name, type=type, limit=1)
        if exact:
            return Resolution("merge", exact[0]["id"], 1.0, "exact", exact[0]["status"] == "superseded")
        head = store.normalise_name(name).split(" ")[0][:3]
        rows = store.names_starting(self.conn, head, type)
        related = [(name_relation(name, other), nid, status) for nid, other, status in rows]
        for relation in ("merge", "child"):
            for rel, nid, status in related:
                if rel == relation:
                    return Resolution(rel, nid, 1.0, "normalised" if rel == "merge" else "sibling",
                                      status == "superseded")
        return None

    def by_embedding(self, name: str, type: str, description: str) -> Resolution:
        """Candidates by knn on name + description (and on the name alone), decided on the names.

        The bands are calibrated on names; descriptions are written anew by every episode,
        so a cosine over name + description would drift with the writing, not the identity.
        """
        self._ensure_index()
        full, bare = self.embedder.embed([embeddings.node_text(name, description), name])
        ids = [nid for vec in (full, bare) for nid, _ in embeddings.knn(self.conn, vec, KNN_K)]
        nodes = [n for n in store.get_nodes(self.conn, ids).values() if n["type"] == type]
        if not nodes:
            return Resolution("new")
        names = self.embedder.embed([n["name"] for n in nodes])
        scored = sorted(((_cos(bare, v), n) for v, n in zip(names, nodes)), key=lambda x: -x[0])
        sim, node = scored[0]
        action = band(sim, (self.merge_above, self.child_above))
        if action == "new":
            return Resolution("new", None, sim, "embedding")
        return Resolution(action, node["id"], sim, "embedding", node["status"] == "superseded")

    def _ensure_index(self) -> None:
        """Bring the vector index up to date before the first lookup (nodes written since)."""
        if not self._index_ready:
            embeddings.sync(self.conn, self.embedder)
            self._index_ready = True
