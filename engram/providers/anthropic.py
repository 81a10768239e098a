"""Anthropic: Claude for consolidation (Sonnet / Opus / Haiku per config) and the
contradiction check (Haiku with extended thinking); Voyage for embeddings, the vendor
Anthropic recommends (`embeddingProvider: "anthropic"` means Voyage).

The key comes from ENGRAM_ANTHROPIC_API_KEY, else ANTHROPIC_API_KEY (used only when the user
chose the provider: providers/consent.py), and the endpoint from ANTHROPIC_BASE_URL (tests
point it at a local server on 127.0.0.1 that speaks the Messages API).

The system prompt (the fixed instructions and the answer's schema) is marked for prompt
caching (`cache_control: ephemeral`), so the Pass 1 windows of a session, sent within
minutes of each other, read it from the cache. Anthropic caches a prefix only from a
per-model minimum length (1,024 to 4,096 tokens); below it the mark costs nothing and
caches nothing, and the usage says which happened (cache_creation / cache_read tokens,
kept in the ledger).
"""

from __future__ import annotations

import os
from typing import Any

from engram.providers import voyage
from engram.providers.base import ChatClient, Reply, classify_error, env_api_key

NAME = "anthropic"
KEY_ENV = "ANTHROPIC_API_KEY"
URL_ENV = "ANTHROPIC_BASE_URL"
THINKING_BUDGET = 1024  # the minimum Anthropic allows; a verdict itself is ~200 tokens


def client(cfg: dict[str, Any], retries: int = 3, meter: Any = None) -> AnthropicChat:
    chat = AnthropicChat(api_key=env_api_key(KEY_ENV), base_url=os.environ.get(URL_ENV),
                         timeout=float(cfg.get("probeTimeoutMs", 30000)) / 1000.0, retries=retries)
    chat.meter = meter
    return chat


def models(cfg: dict[str, Any]) -> dict[str, str]:
    """Model per step: Sonnet for Pass 1, Opus for Pass 2, Haiku for discussion (config keys)."""
    return {"pass1": str(cfg["consolidationModel"]), "pass2": str(cfg["episodeExtractionModel"]),
            "discussion": str(cfg["discussionModel"])}


def consolidator(cfg: dict[str, Any], meter: Any = None) -> Any:
    from engram.consolidate.passes import ModelConsolidator

    return ModelConsolidator(NAME, client(cfg, meter=meter), models(cfg))


def checker(cfg: dict[str, Any], meter: Any = None) -> Any:
    """One check is one request (no retries): a failure counts towards disabling the checker."""
    from engram.monitor.model_checker import ModelChecker

    model = str(cfg["contradictionModel"])
    return ModelChecker(f"{NAME}:{model}", client(cfg, retries=0, meter=meter), model, thinking=THINKING_BUDGET)


def embedder(cfg: dict[str, Any]) -> Any:
    return voyage.embedder(cfg)


class AnthropicChat(ChatClient):
    name = "anthropic"

    def _make_client(self) -> Any:
        import anthropic

        return anthropic.Anthropic(api_key=self.api_key, base_url=self.base_url,
                                   timeout=self.timeout, max_retries=0)

    def _request(self, system: str, user: str, model: str, max_tokens: int, thinking: int) -> Reply:
        import anthropic

        extra: dict[str, Any] = {}
        if thinking:  # the budget comes on top of the answer's tokens
            extra = {"thinking": {"type": "enabled", "budget_tokens": thinking}}
            max_tokens += thinking
        try:
            msg = self.client().messages.create(
                model=model, max_tokens=max_tokens,
                system=[{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
                messages=[{"role": "user", "content": user}], **extra)  # fmt: skip
        except anthropic.APIError as exc:
            raise classify_error(anthropic, exc, self.base_url or "api.anthropic.com") from None
        text = "".join(getattr(b, "text", "") for b in msg.content or [] if getattr(b, "type", "") == "text")
        u = msg.usage
        return Reply(text, getattr(u, "input_tokens", 0), getattr(u, "output_tokens", 0),
                     str(getattr(msg, "model", "") or model),
                     cache_read_tokens=getattr(u, "cache_read_input_tokens", 0),
                     cache_write_tokens=getattr(u, "cache_creation_input_tokens", 0))
