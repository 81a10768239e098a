"""Entity resolution: is a proposed node one the graph already holds?

Runs between Pass 2 and the graph write, for every proposed node except the episode:

1. names are normalised first (casefold, whitespace, a trailing dotted version such as
   "3.53.0" or "v1.2"), and an exact match on the normalised name of a node of the same
   type is a MERGE without any embedding;
2. otherwise name + description is embedded and compared with existing nodes of the same
   type, superseded ones included; the best cosine similarity picks the band:
   above `merge` -> MERGE, between `child` and `merge` -> CHILD (a new node with a
   version_of edge to the match), below `child` -> NEW.

The bands depend on the embedding model (a feature-hashing vector and a neural one put
"the same concept" at very different cosines), so they are looked up per model in
`BANDS`; the values come from `bench/entity_resolution_calibration.py` over the labelled
pairs in tests/consolidation/data/concept_pairs.tsv (docs/consolidation.md has the table).
A model with no calibration gets the spec's 0.95 / 0.80.

File concepts (data.kind == "file") resolve by exact path only: two paths that embed
alike ("src/a/util.py", "src/b/util.py") are still two files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engram.db import embeddings, graph

SPEC_BANDS = (0.95, 0.80)
# (merge above, child above), per embedding model; see the module docstring.
BANDS: dict[str, tuple[float, float]] = {
    "engram-hash-v1": (0.86, 0.55),
}
KNN_K = 20
_VERSION = re.compile(r"(?:\s+|-)(?:v(?:ersion)?\s*)?\d+(?:\.\d+)+[a-z0-9.+-]*$", re.I)


def bands_for(model: str) -> tuple[float, float]:
    return BANDS.get(model, SPEC_BANDS)


def normalise(name: str) -> str:
    """The identity of a name: "  SQLite 3.53.0 " -> "sqlite", "API v2" stays "api v2".

    Only dotted versions are dropped: "v2" vs "v3" usually names two different things.
    """
    key = graph.normalise_name(name).strip(" .,:;!?'\"`")
    stripped = _VERSION.sub("", key).strip()
    return stripped or key


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
        exact = graph.find_by_name(self.conn, name, type=type, limit=1)
        if exact:
            return Resolution("merge", exact[0]["id"], 1.0, "exact", exact[0]["status"] == "superseded")
        key = normalise(name)
        head = key.split(" ")[0]
        rows = self.conn.execute(
            "SELECT id, name, status FROM nodes WHERE type = ? AND name_key >= ? AND name_key < ?"
            " ORDER BY (status = 'active') DESC, strength DESC LIMIT 200",
            (type, head, head + "\uffff"),
        ).fetchall()
        for nid, other, status in rows:
            if normalise(other) == key:
                return Resolution("merge", nid, 1.0, "normalised", status == "superseded")
        return None

    def by_embedding(self, name: str, type: str, description: str) -> Resolution:
        self._ensure_index()
        vec = self.embedder.embed([embeddings.node_text(name, description)])[0]
        hits = embeddings.knn(self.conn, vec, KNN_K, include_superseded=True)
        if not hits:
            return Resolution("new")
        nodes = graph.get_nodes(self.conn, [h[0] for h in hits])
        for nid, sim in hits:
            node = nodes.get(nid)
            if node is None or node["type"] != type:
                continue
            superseded = node["status"] == "superseded"
            if sim > self.merge_above:
                return Resolution("merge", nid, sim, "embedding", superseded)
            if sim > self.child_above:
                return Resolution("child", nid, sim, "embedding", superseded)
            break
        return Resolution("new", None, hits[0][1], "embedding")

    def _ensure_index(self) -> None:
        """Bring the vector index up to date before the first lookup (nodes written since)."""
        if not self._index_ready:
            embeddings.sync(self.conn, self.embedder)
            self._index_ready = True
