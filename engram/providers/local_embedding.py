"""The local embedder's function: signed feature hashing, standard library only.

`offline.LocalEmbedder` (the offline provider's embedder, with the batching every embedder
has) computes its vectors here; `engram query` embeds its question here directly when the
stored vectors are this model's, without importing the provider registry (~25 ms: every
provider and its rules). Word unigrams plus character 3- and 4-grams of each word, hashed
into DIM dimensions: deterministic across processes and machines, ~50 µs per short text.
"""

from __future__ import annotations

import functools
import math
import zlib

from engram.graph.vectors import normalise

MODEL = "engram-hash-v1"
DIM = 384


class Local:
    """The local model as an embedder for one question: no batching, no network."""

    name = "local"
    model = MODEL
    dim = DIM
    remote = False

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [vector(t) for t in texts]


def vector(text: str, dim: int = DIM) -> list[float]:
    """The unit vector of `text`."""
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
