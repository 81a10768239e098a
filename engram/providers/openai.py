"""OpenAI: a chat model for consolidation and the contradiction check (`openaiModel`,
JSON mode), and text-embedding-3 models for embeddings, through the official SDK.

The key comes from ENGRAM_OPENAI_API_KEY, else OPENAI_API_KEY (used only when the user chose
the provider: providers/consent.py), and the endpoint from OPENAI_BASE_URL (tests point it
at a local server on 127.0.0.1 that speaks Chat Completions and embeddings).
"""

from __future__ import annotations

import os
from typing import Any

from engram.providers.base import KNOWN_DIMS, BaseEmbedder, ChatClient, EmbeddingError, Reply, _Retryable, \
    classify_error, env_api_key, retry_after, tokens, tokens_less, vectors_from

NAME = "openai"
KEY_ENV = "OPENAI_API_KEY"
URL_ENV = "OPENAI_BASE_URL"


def client(cfg: dict[str, Any], retries: int = 3, meter: Any = None) -> OpenAIChat:
    chat = OpenAIChat(api_key=env_api_key(KEY_ENV), base_url=os.environ.get(URL_ENV),
                      timeout=float(cfg.get("probeTimeoutMs", 30000)) / 1000.0, retries=retries)
    chat.meter = meter
    return chat


def models(cfg: dict[str, Any]) -> dict[str, str]:
    m = str(cfg.get("openaiModel") or "gpt-4.1-mini")
    return {"pass1": m, "pass2": m, "discussion": m}


def consolidator(cfg: dict[str, Any], meter: Any = None) -> Any:
    from engram.consolidate.passes import ModelConsolidator

    return ModelConsolidator(NAME, client(cfg, meter=meter), models(cfg))


def checker(cfg: dict[str, Any], meter: Any = None) -> Any:
    """One check is one request (no retries): a failure counts towards disabling the checker."""
    from engram.monitor.model_checker import ModelChecker

    model = models(cfg)["pass1"]
    return ModelChecker(f"{NAME}:{model}", client(cfg, retries=0, meter=meter), model)


def embedder(cfg: dict[str, Any]) -> OpenAIEmbedder:
    model = str(cfg.get("embeddingModel") or "")
    return OpenAIEmbedder(model if model.startswith("text-embedding") else "text-embedding-3-small")


class OpenAIChat(ChatClient):
    name = "openai"

    def _make_client(self) -> Any:
        import openai

        return openai.OpenAI(api_key=self.api_key, base_url=self.base_url,
                             timeout=self.timeout, max_retries=0)

    def _request(self, system: str, user: str, model: str, max_tokens: int, thinking: int) -> Reply:
        import openai

        try:
            resp = self.client().chat.completions.create(
                model=model, max_completion_tokens=max_tokens, temperature=0,
                response_format={"type": "json_object"},
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}])  # fmt: skip
        except openai.APIError as exc:
            raise classify_error(openai, exc, self.base_url or "api.openai.com") from None
        choice = resp.choices[0] if resp.choices else None
        text = (choice.message.content or "") if choice else ""
        u = resp.usage
        prompt = tokens(getattr(u, "prompt_tokens", 0))  # cached input included (OpenAI's automatic caching)
        cached = tokens(getattr(getattr(u, "prompt_tokens_details", None), "cached_tokens", 0))
        return Reply(text, tokens_less(prompt, cached), getattr(u, "completion_tokens", 0),
                     str(getattr(resp, "model", "") or model), cache_read_tokens=cached)


class OpenAIEmbedder(BaseEmbedder):
    """OpenAI embeddings through the official SDK; its own retries are off (ours apply)."""

    name = "openai"
    remote = True
    batch_size = 256
    key_env = "OPENAI_API_KEY"

    def __init__(self, model: str = "text-embedding-3-small", *, api_key: str | None = None,
                 base_url: str | None = None, dim: int | None = None, **kw: Any):  # fmt: skip
        super().__init__(**kw)
        self.model = model
        self.dim = dim or KNOWN_DIMS.get(model, 0)
        self.api_key = api_key or env_api_key(self.key_env)
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self._client: Any = None

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        import openai

        if self._client is None:
            self._client = openai.OpenAI(
                api_key=self.api_key, base_url=self.base_url, max_retries=0, timeout=self.timeout
            )
        try:
            resp = self._client.embeddings.create(model=self.model, input=texts)
        except (openai.RateLimitError, openai.InternalServerError) as exc:
            raise _Retryable("rate_limit" if exc.status_code == 429 else "server", f"HTTP {exc.status_code}",
                             retry_after(exc.response.headers)) from None
        except openai.APIConnectionError as exc:  # includes timeouts
            raise _Retryable("connection", f"cannot reach {self.base_url or 'api.openai.com'}: {exc}") from None
        except openai.APIStatusError as exc:
            if exc.status_code >= 500:
                raise _Retryable("server", f"HTTP {exc.status_code}") from None
            hint = f"; check {self.key_env}" if exc.status_code in (401, 403) else ""
            raise EmbeddingError(f"openai: HTTP {exc.status_code}: {exc.message[:200]}{hint}") from None
        payload = {"data": [{"index": d.index, "embedding": d.embedding} for d in resp.data]}
        return vectors_from(payload, self)
