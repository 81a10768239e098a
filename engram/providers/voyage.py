"""Voyage AI embeddings over HTTPS with the standard library (no SDK), the vendor Anthropic
recommends: `embeddingProvider` "voyage", or "anthropic" (the spec's (docs/spec.md) default).

The key comes from ENGRAM_VOYAGE_API_KEY, else VOYAGE_API_KEY (used only when the user chose
the provider: providers/consent.py), and the endpoint from VOYAGE_BASE_URL (tests point it at
a local server on 127.0.0.1).
"""

from __future__ import annotations

import os
from typing import Any

from engram.providers.base import KNOWN_DIMS, BaseEmbedder, EmbeddingError, _Retryable, env_api_key, retry_after, \
    vectors_from

NAME = "voyage"
KEY_ENV = "VOYAGE_API_KEY"


def embedder(cfg: dict[str, Any]) -> VoyageEmbedder:
    model = str(cfg.get("embeddingModel") or "")
    return VoyageEmbedder(model if model.startswith("voyage") else "voyage-3-lite")


class VoyageEmbedder(BaseEmbedder):
    """Voyage AI's /v1/embeddings over HTTPS (Anthropic's recommended embedding vendor)."""

    name = "voyage"
    remote = True
    batch_size = 128
    key_env = "VOYAGE_API_KEY"

    def __init__(self, model: str = "voyage-3-lite", *, api_key: str | None = None,
                 base_url: str | None = None, dim: int | None = None, **kw: Any):  # fmt: skip
        super().__init__(**kw)
        self.model = model
        self.dim = dim or KNOWN_DIMS.get(model, 0)
        self.api_key = api_key or env_api_key(self.key_env)
        base = base_url or os.environ.get("VOYAGE_BASE_URL") or "https://api.voyageai.com"
        self.url = base.rstrip("/") + ("/embeddings" if base.rstrip("/").endswith("/v1") else "/v1/embeddings")

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        import json
        import urllib.error
        import urllib.request

        body = json.dumps({"input": texts, "model": self.model}).encode()
        req = urllib.request.Request(
            self.url, data=body, method="POST",
            headers={"Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json"},
        )  # fmt: skip
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                payload = json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:200].decode("utf-8", "replace")
            if exc.code == 429 or exc.code >= 500:
                raise _Retryable("rate_limit" if exc.code == 429 else "server", f"HTTP {exc.code} from {self.url}",
                                 retry_after(exc.headers)) from None
            hint = f"; check {self.key_env}" if exc.code in (401, 403) else ""
            raise EmbeddingError(f"voyage: HTTP {exc.code} from {self.url}: {detail}{hint}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            raise _Retryable("connection", f"cannot reach {self.url}: {getattr(exc, 'reason', exc)}") from None
        return vectors_from(payload, self)
