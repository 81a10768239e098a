"""Every model provider engram knows, in one place, and which one serves each job.

A provider is a module satisfying `ChatProvider` (consolidation and the contradiction
check) and/or `EmbeddingProvider`. The built-ins are listed here like any other, the
offline one included (the shape of pre-commit's `all_languages.py`):

* `llmProvider` (anthropic | openai | offline) chooses who consolidates and who checks
  writes against decisions;
* `embeddingProvider` (anthropic = Voyage, the vendor Anthropic recommends | voyage |
  openai | local) chooses who embeds node names for entity resolution and queries.

A configured provider that cannot run here (no key, or ENGRAM_OFFLINE=1) falls back to
offline, and the reason travels with the choice (`status`, `doctor` and the worker's log
say it); a provider the user asked for explicitly (`--provider`) is an error instead.
The jobs' code never chooses: the worker and command entry points ask here and hand the
result down (docs/architecture.md, "Layers").
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Protocol

from engram.errors import ConfigError
from engram.providers import anthropic, offline, openai, voyage
from engram.providers.base import offline_forced


class ChatProvider(Protocol):
    NAME: str
    KEY_ENV: str | None

    def unusable(self) -> str | None: ...  # why it cannot run here, or None
    def consolidator(self, cfg: dict[str, Any]) -> Any: ...  # engram.consolidate.worker.Consolidator
    def checker(self, cfg: dict[str, Any]) -> Any: ...  # engram.monitor.contradiction.Checker


class EmbeddingProvider(Protocol):
    NAME: str
    KEY_ENV: str | None

    def unusable(self) -> str | None: ...
    def embedder(self, cfg: dict[str, Any]) -> Any: ...  # .name .model .dim .remote .embed(texts)


CHAT: dict[str, ModuleType] = {"anthropic": anthropic, "openai": openai, "offline": offline}
EMBEDDINGS: dict[str, ModuleType] = {"anthropic": voyage, "voyage": voyage, "openai": openai, "local": offline,
                                     "offline": offline}


def choose(cfg: dict[str, Any], requested: str | None = None) -> tuple[ModuleType, str]:
    """(chat provider, why it was chosen): the requested or configured one if usable, else offline."""
    if requested and requested not in CHAT:
        raise ConfigError(f"--provider {requested!r} is not one of {', '.join(CHAT)}")
    name = requested or str(cfg.get("llmProvider") or "anthropic")
    if name not in CHAT:
        raise ConfigError(f"config.json: llmProvider {name!r} is not one of {', '.join(CHAT)}")
    provider = CHAT[name]
    if provider is offline:
        return offline, "requested" if requested else "llmProvider is offline"
    if not requested and offline_forced():
        return offline, "ENGRAM_OFFLINE is set"
    why_not = provider.unusable()
    if why_not:
        if requested:
            raise ConfigError(f"--provider {name} needs {provider.KEY_ENV} in the environment")
        return offline, why_not
    return provider, "key found"


def consolidator(cfg: dict[str, Any], requested: str | None = None) -> Any:
    """The consolidator of the chosen provider; its `why` says why that one."""
    provider, why = choose(cfg, requested)
    chosen = provider.consolidator(cfg)
    chosen.why = why
    return chosen


def checker(cfg: dict[str, Any]) -> Any:
    """The contradiction checker of the configured provider (offline without a key)."""
    provider, _ = choose(cfg)
    return provider.checker(cfg)


def embedder(cfg: dict[str, Any] | None = None, conn: Any = None) -> Any:
    """The configured embedder when it can run, else the local one with `fallback_reason` set.

    With `conn`, a remote embedder is put behind the database's embedding cache.
    """
    cfg = cfg or {}
    name = str(cfg.get("embeddingProvider") or "anthropic").lower()
    if name not in EMBEDDINGS:
        raise ConfigError(f"config.json: embeddingProvider {name!r} is not one of anthropic, voyage, openai, local")
    provider = EMBEDDINGS[name]
    reason = "ENGRAM_OFFLINE is set" if offline_forced() and provider is not offline else None
    if reason is None and provider.unusable():
        reason = f"embeddingProvider {name!r} needs {provider.KEY_ENV}"
    if reason:
        local = offline.embedder(cfg)
        local.fallback_reason = reason
        return local
    chosen = provider.embedder(cfg)
    if conn is not None:
        from engram.graph.vectors import cached

        return cached(chosen, conn)
    return chosen


def consolidation(cfg: dict[str, Any], requested: str | None = None) -> Any:
    """The consolidator and the embedder a consolidation worker runs with, and, when the
    consolidator is a model's, the adjudicator of entity resolution's ambiguous band (on
    its discussion model, the cheapest step's)."""
    from engram.consolidate.worker import Models

    chosen = consolidator(cfg, requested)
    judge = None
    if getattr(chosen, "client", None) is not None:
        from engram.consolidate.adjudicate import ModelAdjudicator

        judge = ModelAdjudicator(chosen.client, chosen.models.get("discussion") or chosen.models.get("pass1", ""))
    return Models(chosen, embedder(cfg), judge)
