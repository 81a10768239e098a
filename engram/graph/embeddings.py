"""Node embeddings: a sqlite-vec `vec0` table in engram.db, or a plain-table fallback.

* `node_embeddings(node_id TEXT PRIMARY KEY, embedding INT8[dim] distance_metric=cosine)`
  is created at run time, because its dimension comes from the embedding model; the model,
  dimension and encoding are stored in `meta`. Switching any of them drops the index and
  re-embeds every node instead of mixing vectors from two models.
* Vectors are int8, scaled per vector (`quantize`): cosine ignores scale, so similarities
  move by ~0.0004 (p99 0.002) while the index takes a quarter of float32's space (a 384-dim float32
  index alone would be 7.7 MB at 5,000 nodes, most of the size budget).
* `chunk_size=64`: vec0 preallocates whole chunks (1,024 vectors by default, 1.5 MB at 384
  dimensions), which alone would break the size budget of a 500-node graph.
* Staleness is tracked in the plain table `embedded(node_id, text_hash)`; a trigger drops a
  node's row when its name or description changes, so `sync()` re-embeds exactly the nodes
  that are new or changed. (A trigger cannot touch the vec0 table itself: stdlib
  connections, which lack the extension, must still be able to update nodes.)
* Without sqlite-vec (no extension loading, or ENGRAM_NO_VECTORS) vectors go to
  `node_vectors` (the same int8 blobs) and `knn` is brute-force cosine in Python, which also
  reads the vectors that a vec0-capable process stored, straight from vec0's shadow
  tables. `vector_path(conn)` says which path is active; nothing is skipped silently.
"""

from __future__ import annotations

import math

from engram.errors import EngramError
from engram.graph.store import get_meta, set_meta, transaction
from engram.hashing import sha256_hex
from engram.graph.vectors import dequantize, normalise, quantize

TYPE_CHECKING = False  # `typing` costs ~3 ms of import (engram query, the hooks); annotations only
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Sequence

TABLE = "node_embeddings"
ENCODING = "int8"
CHUNK_SIZE = 64
MAX_K = 4096  # sqlite-vec's limit on k


class VectorsUnavailable(EngramError):
    """The database's vectors need sqlite-vec for this operation and it cannot load here."""


def has_vec(conn: Any) -> bool:
    return bool(getattr(conn, "vec_version", None))


def vector_path(conn: Any) -> str:
    """E.g. "sqlite-vec v0.1.9" or "python-fallback (sqlite-vec not loaded: ...)"."""
    if has_vec(conn):
        return f"sqlite-vec {conn.vec_version}"
    reason = getattr(conn, "vector_reason", "") or "standard-library connection without sqlite-vec"
    return f"python-fallback ({reason})"


def _vec_table_exists(conn: Any) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (TABLE,)).fetchone() is not None


def node_text(name: str, description: str = "") -> str:
    """What gets embedded for a node: the name, then the description."""
    return f"{name}. {description}".strip() if description else str(name)


def _text_hash(text: str) -> str:
    return sha256_hex(text)[:16]


# -- index lifecycle -----------------------------------------------------------------


def ensure_index(conn: Any, model: str, dim: int) -> bool:
    """Make the vector index fit (model, dim); True when it was (re)built empty.

    A change of model or dimension clears every stored vector (the next `sync` re-embeds
    all nodes). Vectors a fallback process left in `node_vectors` move into vec0 when
    sqlite-vec is available again.
    """
    if dim <= 0:
        raise ValueError(f"embedding dimension must be positive, got {dim}")
    same = (get_meta(conn, "embedding_model"), get_meta(conn, "embedding_dim"), get_meta(conn, "embedding_encoding")) == (
        model, str(dim), ENCODING
    )
    exists = _vec_table_exists(conn)
    if not (same and (exists or not has_vec(conn))):
        _rebuild(conn, model, dim, same=same, exists=exists)
    if has_vec(conn) and conn.execute("SELECT 1 FROM node_vectors LIMIT 1").fetchone():
        _adopt_fallback_vectors(conn)
    return not same


def _rebuild(conn: Any, model: str, dim: int, *, same: bool, exists: bool) -> None:
    with transaction(conn):
        if not same:
            if exists and not has_vec(conn):
                raise VectorsUnavailable(
                    f"switching embeddings to {model} ({dim}) needs sqlite-vec to rebuild {TABLE}: "
                    f"{vector_path(conn)}"
                )
            if exists:
                conn.execute(f"DROP TABLE {TABLE}")
            conn.execute("DELETE FROM node_vectors")
            conn.execute("DELETE FROM embedded")
        if has_vec(conn):
            conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {TABLE} USING vec0("
                f"node_id TEXT PRIMARY KEY, embedding INT8[{int(dim)}] distance_metric=cosine, "
                f"chunk_size={CHUNK_SIZE})"
            )
        set_meta(conn, "embedding_model", model)
        set_meta(conn, "embedding_dim", dim)
        set_meta(conn, "embedding_encoding", ENCODING)


_VEC_INSERT = f"INSERT INTO {TABLE} (node_id, embedding) VALUES (?, vec_int8(?))"


def _adopt_fallback_vectors(conn: Any) -> None:
    with transaction(conn):
        rows = conn.execute("SELECT node_id, vector FROM node_vectors").fetchall()
        conn.executemany(f"DELETE FROM {TABLE} WHERE node_id = ?", [(r[0],) for r in rows])
        conn.executemany(_VEC_INSERT, rows)
        conn.execute("DELETE FROM node_vectors")


# -- writing -------------------------------------------------------------------------


def upsert_embeddings(conn: Any, items: Iterable[tuple[str, Sequence[float], str]]) -> int:
    """Store (node_id, vector, text_hash) triples, quantized, in one transaction."""
    rows = [(nid, quantize(vec), h) for nid, vec, h in items]
    with transaction(conn):
        if has_vec(conn):
            conn.executemany(f"DELETE FROM {TABLE} WHERE node_id = ?", [(r[0],) for r in rows])
            conn.executemany(_VEC_INSERT, [r[:2] for r in rows])
        else:
            conn.executemany("INSERT OR REPLACE INTO node_vectors (node_id, vector) VALUES (?, ?)", [r[:2] for r in rows])
        conn.executemany(
            "INSERT OR REPLACE INTO embedded (node_id, text_hash) VALUES (?, ?)", [(r[0], r[2]) for r in rows]
        )
    return len(rows)


def upsert_embedding(conn: Any, node_id: str, vector: Sequence[float], text_hash: str = "") -> None:
    """Store one node's vector (replacing any previous one)."""
    upsert_embeddings(conn, [(node_id, vector, text_hash)])


def delete_embedding(conn: Any, node_id: str) -> None:
    with transaction(conn):
        if has_vec(conn) and _vec_table_exists(conn):
            conn.execute(f"DELETE FROM {TABLE} WHERE node_id = ?", (node_id,))
        conn.execute("DELETE FROM node_vectors WHERE node_id = ?", (node_id,))
        conn.execute("DELETE FROM embedded WHERE node_id = ?", (node_id,))


def stale_nodes(conn: Any, limit: int | None = None) -> list[tuple[str, str]]:
    """[(node_id, text)] for nodes with no up-to-date embedding (new or renamed)."""
    rows = conn.execute(
        "SELECT n.id, n.name, n.description FROM nodes n LEFT JOIN embedded e ON e.node_id = n.id"
        " WHERE e.node_id IS NULL ORDER BY n.rowid LIMIT ?",
        (-1 if limit is None else limit,),
    ).fetchall()
    return [(nid, node_text(name, desc)) for nid, name, desc in rows]


def sync(
    conn: Any, embedder: Any, *, batch: int = 256, progress: Callable[[int, int], None] | None = None
) -> int:
    """Embed every new or changed node with `embedder`; return how many were embedded.

    Call it after a consolidation's graph transaction (the embedder may do network I/O,
    which must not hold the write lock). A model switch re-embeds everything.
    """
    dim = embedder.dim or len(embedder.embed(["probe"])[0])
    ensure_index(conn, embedder.model, dim)
    todo = stale_nodes(conn)
    done = 0
    for i in range(0, len(todo), batch):
        chunk = todo[i : i + batch]
        vectors = embedder.embed([t for _, t in chunk])
        done += upsert_embeddings(conn, ((nid, v, _text_hash(t)) for (nid, t), v in zip(chunk, vectors)))
        if progress:
            progress(done, len(todo))
    return done


def purge_orphans(conn: Any) -> int:
    """Drop vectors of deleted nodes (vec0 rows are not covered by the delete trigger)."""
    if not (has_vec(conn) and _vec_table_exists(conn)):
        return 0
    with transaction(conn):
        ids = [r[0] for r in conn.execute(f"SELECT id FROM {TABLE}_rowids WHERE id NOT IN (SELECT id FROM nodes)")]
        conn.executemany(f"DELETE FROM {TABLE} WHERE node_id = ?", [(i,) for i in ids])
    return len(ids)


# -- reading -------------------------------------------------------------------------


def get_embedding(conn: Any, node_id: str) -> list[float] | None:
    row = conn.execute("SELECT vector FROM node_vectors WHERE node_id = ?", (node_id,)).fetchone()
    if row:
        return dequantize(row[0])
    if has_vec(conn) and _vec_table_exists(conn):
        row = conn.execute(f"SELECT embedding FROM {TABLE} WHERE node_id = ?", (node_id,)).fetchone()
        return dequantize(row[0]) if row else None
    for nid, vec in _shadow_vectors(conn, node_id):
        return vec
    return None


def knn(
    conn: Any, vector: Sequence[float], k: int = 10, *, include_superseded: bool = True
) -> list[tuple[str, float]]:
    """The k nodes whose embeddings are nearest `vector`: [(node_id, cosine similarity)].

    Superseded nodes are included by default (entity resolution must find them);
    ids of deleted nodes never appear.
    """
    if k <= 0:
        return []
    query = normalise(vector)
    if not any(query):
        return []  # an empty text: nothing is similar to nothing
    if has_vec(conn) and _vec_table_exists(conn):
        return _knn_vec(conn, query, k, include_superseded)
    return _knn_python(conn, query, k, include_superseded)


def _status_filter(conn: Any, ids: list[str], include_superseded: bool) -> set[str]:
    keep: set[str] = set()
    sql = "SELECT id FROM nodes WHERE id IN (%s)" + ("" if include_superseded else " AND status = 'active'")
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        keep.update(r[0] for r in conn.execute(sql % ",".join("?" * len(chunk)), chunk))
    return keep


def _knn_vec(conn: Any, query: list[float], k: int, include_superseded: bool) -> list[tuple[str, float]]:
    """sqlite-vec's scan, asked first for a few more than k: its cost grows with the k it keeps
    (k = 1,016 took ~10 ms more than k = 16 at 50,000 nodes, ~2% of them superseded), so the
    superseded are fetched past k only when the first answer holds too few live nodes."""
    fetch = min(MAX_K, 2 * k + 8)
    extra = None
    while True:
        rows = conn.execute(
            f"SELECT node_id, distance FROM {TABLE} WHERE embedding MATCH vec_int8(?) AND k = ? ORDER BY distance",
            (quantize(query), fetch),
        ).fetchall()
        keep = _status_filter(conn, [r[0] for r in rows], include_superseded)
        # a stored zero vector has no cosine distance (NULL): it matches nothing
        out = [(nid, 1.0 - dist) for nid, dist in rows if nid in keep and dist is not None]
        if len(out) >= k or len(rows) < fetch or fetch >= MAX_K:
            return out[:k]
        if extra is None:  # every superseded node may be among the nearest
            extra = conn.execute("SELECT count(*) FROM nodes WHERE status = 'superseded'").fetchone()[0]
            fetch = min(MAX_K, max(2 * fetch, k + extra + 8))
        else:
            fetch = min(MAX_K, 2 * fetch)


def _knn_python(conn: Any, query: list[float], k: int, include_superseded: bool) -> list[tuple[str, float]]:
    """Brute-force cosine over int8 vectors, scored like sqlite-vec (integer dot products)."""
    import heapq
    from array import array
    from operator import mul

    blobs = dict(_shadow_blobs(conn))
    blobs.update(conn.execute("SELECT node_id, vector FROM node_vectors").fetchall())
    keep = _status_filter(conn, list(blobs), include_superseded)
    q = array("b", quantize(query)).tolist()
    qnorm = math.sqrt(sum(x * x for x in q))
    scored = []
    for nid, blob in blobs.items():
        if nid not in keep:
            continue
        v = array("b", blob).tolist()
        vnorm = math.sqrt(sum(map(mul, v, v)))
        if vnorm:
            scored.append((sum(map(mul, q, v)) / (qnorm * vnorm), nid))
    return [(nid, sim) for sim, nid in heapq.nlargest(k, scored)]


def _shadow_vectors(conn: Any, node_id: str | None = None) -> Iterable[tuple[str, list[float]]]:
    for nid, blob in _shadow_blobs(conn, node_id):
        yield nid, dequantize(blob)


def _shadow_blobs(conn: Any, node_id: str | None = None) -> list[tuple[str, bytes]]:
    """Read vec0's storage without the extension (sqlite-vec 0.1.x layout).

    Rows: `<table>_rowids(id, chunk_id, chunk_offset)`; vectors: `<table>_vector_chunks00`,
    one int8 blob of chunk_size x dim bytes per chunk.
    """
    if not _vec_table_exists(conn):
        return []
    dim = int(get_meta(conn, "embedding_dim") or 0)
    where = " WHERE id = ?" if node_id else ""
    try:
        rows = conn.execute(
            f"SELECT id, chunk_id, chunk_offset FROM {TABLE}_rowids{where}", (node_id,) if node_id else ()
        ).fetchall()
        wanted = sorted({r[1] for r in rows})
        chunks: dict[int, bytes] = {}
        for i in range(0, len(wanted), 500):  # each chunk blob is read once, not once per row
            part = wanted[i : i + 500]
            q = f"SELECT rowid, vectors FROM {TABLE}_vector_chunks00 WHERE rowid IN (%s)" % ",".join("?" * len(part))
            chunks.update(conn.execute(q, part).fetchall())
    except Exception as exc:
        if "no such" in str(exc):
            raise VectorsUnavailable(
                f"{TABLE} uses a sqlite-vec storage layout this fallback cannot read; {vector_path(conn)}"
            ) from None
        raise
    return [(nid, chunks[c][off * dim : (off + 1) * dim]) for nid, c, off in rows if c in chunks]


def state(conn: Any) -> dict[str, Any]:
    """Which model the stored vectors are, how many nodes have one, how many wait, which index."""
    model, dim = get_meta(conn, "embedding_model"), get_meta(conn, "embedding_dim")
    try:
        embedded = conn.execute("SELECT count(*) FROM embedded").fetchone()[0]
        stale = conn.execute("SELECT count(*) FROM nodes WHERE id NOT IN (SELECT node_id FROM embedded)").fetchone()[0]
    except Exception:
        embedded, stale = 0, None
    index = _vec_table_exists(conn)
    return {
        "model": model,
        "dim": int(dim) if dim else None,
        "embedded": embedded,
        "stale": stale,
        "index": "sqlite-vec (vec0)" if index else ("python-fallback table" if model else None),
    }
