"""The offline provider: engram's model-backed steps without a model, a key or a network.

Registered like any other provider (providers/registry.py). Each job has a real,
deterministic implementation producing the same shapes as the model-backed ones:
consolidation reads the episode and the graph changes off the events themselves
(engram.consolidate.offline), the contradiction check applies rules over what each
decision forbids, requires and limits (engram.monitor.offline_checker), and embeddings
are `LocalEmbedder`'s feature hashing. What each can and cannot infer: docs/consolidation.md,
docs/monitoring.md.

`LocalEmbedder` is signed feature hashing (word unigrams plus character 3- and 4-grams of
each word) into 384 dimensions. It is deterministic across processes and machines, cheap
(~50 µs per short text), and good at what engram asks of it: the same entity named
slightly differently scores high, unrelated concepts score near zero. It knows nothing
of synonyms ("auth" vs "login"): a remote model does that better, at a price.
"""

from __future__ import annotations

import functools
import math
import zlib
from typing import Any

from engram.graph.vectors import normalise
from engram.providers.base import BaseEmbedder

NAME = "offline"
KEY_ENV = None
LOCAL_MODEL = "engram-hash-v1"
LOCAL_DIM = 384


def unusable() -> str | None:
    """Why this provider cannot run here (None: it always can)."""
    return None


def consolidator(cfg: dict[str, Any], meter: Any = None) -> Any:
    from engram.consolidate.offline import OfflineConsolidator

    return OfflineConsolidator()


def checker(cfg: dict[str, Any], meter: Any = None) -> Any:
    from engram.monitor.offline_checker import OfflineChecker

    return OfflineChecker()


def embedder(cfg: dict[str, Any]) -> LocalEmbedder:
    return LocalEmbedder()


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


class LocalEmbedder(BaseEmbedder):
    """Deterministic signed feature hashing; the offline default (no download, no network)."""

    name = "local"
    model = LOCAL_MODEL
    dim = LOCAL_DIM
    batch_size = 1024

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_one(t) for t in texts]

    def embed_one(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        for word in _tokens(text):
            for index, weight in _word_features(word, self.dim):
                vec[index] += weight
        return normalise(vec)


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
