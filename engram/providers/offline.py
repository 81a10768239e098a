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

from typing import Any

from engram.graph import vectors
from engram.providers.base import BaseEmbedder

NAME = "offline"
KEY_ENV = None
LOCAL_MODEL = vectors.LOCAL_MODEL
LOCAL_DIM = vectors.LOCAL_DIM


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


class LocalEmbedder(BaseEmbedder):
    """Deterministic signed feature hashing; the offline default (no download, no network)."""

    name = "local"
    model = LOCAL_MODEL
    dim = LOCAL_DIM
    batch_size = 1024

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_one(t) for t in texts]

    def embed_one(self, text: str) -> list[float]:
        return vectors.local_vector(text, self.dim)
