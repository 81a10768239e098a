"""Vectors as engram stores them, and the cache that keeps remote embeddings paid for once.

* Encoding: little-endian float32 (`pack`, sqlite-vec's format) and int8 scaled per
  vector (`quantize`): a quarter of float32's bytes for a cosine error of ~0.0004 (p99
  0.002), so 5,000 nodes with 384-dim vectors fit the size budget. Hits and misses of the
  cache return the same (dequantized) values.
* `CachedEmbedder` puts any embedder behind the database's `embedding_cache` table, keyed
  by (provider/model, text hash), so the same text is never requested twice, not even
  after a model switch and back.
* The local model (LOCAL_MODEL, the offline provider's `LocalEmbedder`): signed feature
  hashing of word unigrams plus each word's character 3- and 4-grams into LOCAL_DIM
  dimensions, deterministic across processes and machines, ~50 µs per short text. Its
  function lives here, below the providers, so that `engram query` embeds its question
  with it (`LocalQuestion`) without importing the provider registry (~25 ms).
"""

from __future__ import annotations

import functools
import math
import sys
import zlib
from array import array

from engram.graph.store import transaction
from engram.hashing import sha256_hex

TYPE_CHECKING = False  # `typing` costs ~3 ms of import (engram query, the hooks); annotations only
if TYPE_CHECKING:
    from typing import Any, Sequence


def pack(vector: Sequence[float]) -> bytes:
    """Little-endian float32 bytes (sqlite-vec's format, and the fallback table's)."""
    a = array("f", vector)
    if sys.byteorder == "big":  # pragma: no cover
        a.byteswap()
    return a.tobytes()


def quantize(vector: Sequence[float]) -> bytes:
    """int8 bytes, scaled per vector so the largest component is +-127.

    Cosine similarity ignores scale, so similarities move by 0.0004 (median; p99 0.002,
    max 0.005 measured on generated node texts) while storing a quarter of float32: what lets 5,000 nodes with 384-dim vectors fit the size budget.
    """
    top = max((abs(x) for x in vector), default=0.0)
    if not top:
        return bytes(len(vector))
    scale = 127.0 / top
    return array("b", [max(-127, min(127, round(x * scale))) for x in vector]).tobytes()


def dequantize(blob: bytes) -> list[float]:
    """The unit vector an int8 blob stands for."""
    return normalise(array("b", blob).tolist())


def normalise(vector: Sequence[float]) -> list[float]:
    """Unit length (cosine similarity becomes a dot product); a zero vector stays zero."""
    norm = math.sqrt(math.fsum(x * x for x in vector))
    return [x / norm for x in vector] if norm else [0.0] * len(vector)


def text_hash(text: str) -> str:
    """A text's key in the embedding cache (`engram forget` deletes by it too)."""
    return sha256_hex(text)[:32]


class CachedEmbedder:
    """A provider behind the `embedding_cache` table: each (model, text) is fetched once."""

    def __init__(self, inner: Any, conn: Any):
        self.inner = inner
        self.conn = conn
        self.hits = 0
        self.misses = 0

    name = property(lambda self: self.inner.name)
    model = property(lambda self: self.inner.model)
    dim = property(lambda self: self.inner.dim)
    remote = property(lambda self: self.inner.remote)
    fallback_reason = property(lambda self: self.inner.fallback_reason)

    @property
    def cache_key(self) -> str:
        return f"{self.inner.name}/{self.inner.model}"

    def embed(self, texts: list[str]) -> list[list[float]]:
        hashes = [text_hash(t) for t in texts]
        found = self._lookup(set(hashes))
        missing = list(dict.fromkeys(h for h in hashes if h not in found))
        self.hits += len(texts) - sum(1 for h in hashes if h not in found)
        if missing:
            first = {h: t for t, h in zip(texts, hashes)}
            vectors = self.inner.embed([first[h] for h in missing])
            self.misses += len(missing)
            new = {h: quantize(v) for h, v in zip(missing, vectors)}
            self._store(new)
            found.update((h, dequantize(b)) for h, b in new.items())
        return [found[h] for h in hashes]

    def _lookup(self, hashes: set[str]) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        items = sorted(hashes)
        for i in range(0, len(items), 500):
            chunk = items[i : i + 500]
            q = "SELECT text_hash, vector FROM embedding_cache WHERE model = ? AND text_hash IN (%s)"
            for h, blob in self.conn.execute(q % ",".join("?" * len(chunk)), [self.cache_key, *chunk]):
                out[h] = dequantize(blob)
        return out

    def _store(self, new: dict[str, bytes]) -> None:
        with transaction(self.conn):
            self.conn.executemany(
                "INSERT OR REPLACE INTO embedding_cache (model, text_hash, vector) VALUES (?, ?, ?)",
                [(self.cache_key, h, blob) for h, blob in new.items()],
            )


def cached(embedder: Any, conn: Any) -> Any:
    """`embedder` behind this database's cache when it is remote (a local one is cheaper than a lookup)."""
    if getattr(embedder, "remote", False) and not isinstance(embedder, CachedEmbedder):
        return CachedEmbedder(embedder, conn)
    return embedder


def cached_vector(conn: Any, model: str, text: str) -> list[float] | None:
    """A cached embedding of exactly `text` by `model` (any provider), or None."""
    row = conn.execute("SELECT vector FROM embedding_cache WHERE model LIKE ? AND text_hash = ?",
                       ("%/" + model, text_hash(text))).fetchone()
    return dequantize(row[0]) if row else None


# -- the local model ---------------------------------------------------------------

LOCAL_MODEL = "engram-hash-v1"
LOCAL_DIM = 384


class LocalQuestion:
    """The local model as an embedder of a question: no batching, no network, no provider layer."""

    name = "local"
    model = LOCAL_MODEL
    dim = LOCAL_DIM
    remote = False

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [local_vector(t) for t in texts]


def local_vector(text: str, dim: int = LOCAL_DIM) -> list[float]:
    """The local model's unit vector of `text`."""
    vec = [0.0] * dim
    for word in _tokens(text):
        for index, weight in _word_features(word, dim):
            vec[index] += weight
    return normalise(vec)


_VERSION_CHARS = frozenset("0123456789.")
# Function words carry no identity: "Use WAL mode for SQLite" ~ "SQLite WAL mode". Not
# engram.text.STOPWORDS: that list also drops words that do tell entities apart ("add",
# "fix", "run", "file", "one", "new"), and every local vector, with the entity-resolution
# thresholds measured on them, depends on this one.
_STOP = frozenset(
    "a an and are as at be by for from in into is it its of on or that the this to use used"
    " uses using was we were when with".split()
)


def _tokens(text: str) -> list[str]:
    """Casefolded words; version numbers ("3.53.0", "v2.1") are dropped, so
    "SQLite 3.53.0" and "SQLite" are the same entity to the local embedder."""
    words, cur = [], []
    for ch in text.casefold():
        if ch.isalnum() or ch in "._":
            cur.append(ch)
        else:
            words.append("".join(cur))
            cur = []
    words.append("".join(cur))
    out = []
    for w in words:
        w = w.strip("._")
        if not w or w in _STOP:
            continue
        core = w[1:] if w[0] == "v" and len(w) > 1 else w
        if set(core) <= _VERSION_CHARS and any(c.isdigit() for c in core):
            continue
        out.append(w)
    return out


@functools.lru_cache(maxsize=50_000)
def _word_features(word: str, dim: int) -> tuple[tuple[int, float], ...]:
    """(index, signed weight) of one word's features: the word itself (weight 1) and its
    character 3- and 4-grams (sharing weight 1 between them). Cached: words repeat."""
    padded = f"<{word}>"
    grams = [padded[i : i + n] for n in (3, 4) for i in range(len(padded) - n + 1)]
    share = 1.0 / math.sqrt(len(grams)) if grams else 0.0
    out = []
    for feature, weight in [("w:" + word, 1.0)] + [("c:" + g, share) for g in grams]:
        h = zlib.crc32(feature.encode("utf-8"))
        out.append((h % dim, -weight if h & 0x80000000 else weight))
    return tuple(out)
