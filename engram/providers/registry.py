"""Every model provider engram knows, in one place, and which one serves each job.

A provider is a module satisfying `ChatProvider` (consolidation and the contradiction
check) and/or `EmbeddingProvider`. The built-ins are listed here like any other, the
offline one included (the shape of pre-commit's `all_languages.py`):

* `llmProvider` chooses who consolidates and who checks writes against decisions:
  `auto` (the default: the best API provider whose key is set, Anthropic then OpenAI,
  else offline), `anthropic`, `openai`, `offline`, or a harness CLI the user is logged in
  to (`claude-code`, `codex`, `gemini-cli`: opt-in only, `auto` never spends a
  subscription login);
* `embeddingProvider` (anthropic = Voyage, the vendor Anthropic recommends | voyage |
  openai | local) chooses who embeds node names for entity resolution and queries.

A configured provider that cannot run here (no key, its CLI not on PATH, ENGRAM_OFFLINE=1,
or today's token budget spent) falls back to offline, and the reason travels with the
choice (`status`, `doctor` and the worker's log say it); a provider the user asked for
explicitly (`--provider`) is an error instead. Every model-backed consolidator and checker
is metered (budget.py: the daily budget and the ledger, in the project's database) and
hands over to offline when the model becomes unusable mid-run (fallback.py). The jobs'
code never chooses: the worker and command entry points ask here and hand the result
down (docs/architecture.md, "Layers").
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Protocol

from engram.errors import ConfigError
from engram.providers import anthropic, budget, claude_cli, codex_cli, fallback, gemini_cli, offline, openai, voyage
from engram.providers.base import offline_forced


class ChatProvider(Protocol):
    NAME: str
    KEY_ENV: str | None  # the API key it needs, or None (a harness CLI: COMMAND on PATH)

    def unusable(self) -> str | None: ...  # why it cannot run here, or None
    def consolidator(self, cfg: dict[str, Any], meter: Any = None) -> Any: ...  # consolidate.worker.Consolidator
    def checker(self, cfg: dict[str, Any], meter: Any = None) -> Any: ...  # monitor.contradiction.Checker


class EmbeddingProvider(Protocol):
    NAME: str
    KEY_ENV: str | None

    def unusable(self) -> str | None: ...
    def embedder(self, cfg: dict[str, Any]) -> Any: ...  # .name .model .dim .remote .embed(texts)


CHAT: dict[str, ModuleType] = {"anthropic": anthropic, "openai": openai, "offline": offline,
                               "claude-code": claude_cli, "codex": codex_cli, "gemini-cli": gemini_cli}
AUTO = (anthropic, openai)  # what `auto` may pick, best first: API keys only
CHOICES = ("auto", *CHAT)
EMBEDDINGS: dict[str, ModuleType] = {"anthropic": voyage, "voyage": voyage, "openai": openai, "local": offline,
                                     "offline": offline}


def _home(home: str | None) -> str:
    from engram.config import engram_home

    return home or engram_home()


def choose(cfg: dict[str, Any], requested: str | None = None, home: str | None = None) -> tuple[ModuleType, str]:
    """(chat provider, why it was chosen): the requested or configured one if usable, else offline."""
    if requested and requested not in CHOICES:
        raise ConfigError(f"--provider {requested!r} is not one of {', '.join(CHOICES)}")
    name = requested or str(cfg.get("llmProvider") or "auto")
    if name not in CHOICES:
        raise ConfigError(f"config.json: llmProvider {name!r} is not one of {', '.join(CHOICES)}")
    if name == "offline":
        return offline, "requested" if requested else "llmProvider is offline"
    if not requested and offline_forced():
        return offline, "ENGRAM_OFFLINE is set"
    if name == "auto":
        return _auto(cfg, _home(home))
    provider = CHAT[name]
    missing = provider.unusable()
    why_not = missing or budget.exhausted_reason(_home(home), provider.NAME, budget.limit(cfg))
    if why_not and requested:
        if missing and provider.KEY_ENV:
            raise ConfigError(f"--provider {name} needs {provider.KEY_ENV} in the environment")
        raise ConfigError(f"--provider {name}: {why_not}; or use --provider offline")
    if why_not:
        return offline, why_not
    return provider, f"{provider.KEY_ENV} is set" if provider.KEY_ENV else f"{provider.COMMAND} is on PATH"


def _auto(cfg: dict[str, Any], home: str) -> tuple[ModuleType, str]:
    """The first API provider with a key and budget left today, else offline (CLIs are opt-in)."""
    spent = []
    for provider in AUTO:
        if provider.unusable():
            continue
        reason = budget.exhausted_reason(home, provider.NAME, budget.limit(cfg))
        if reason is None:
            return provider, f"auto: {provider.KEY_ENV} is set"
        spent.append(reason)
    if spent:
        return offline, "auto: " + "; ".join(spent)
    return offline, f"auto: neither {' nor '.join(str(p.KEY_ENV) for p in AUTO)} is set; harness CLIs are opt-in"


def _meter(project: Any, cfg: dict[str, Any]) -> budget.Meter:
    if project is None:
        raise ValueError("a model provider needs the project whose ledger meters its calls (project=)")
    return budget.Meter(project, cfg)


def _home_of(project: Any) -> str | None:
    return project.home if project is not None else None


def _chosen(cfg: dict[str, Any], requested: str | None, project: Any) -> tuple[ModuleType, str]:
    """`choose` for a worker: a configured provider that cannot run here for a reason of its
    own (its CLI not on PATH, its key not set) is said at the next SessionStart, once a day."""
    provider, why = choose(cfg, requested, _home_of(project))
    configured = CHAT.get(str(cfg.get("llmProvider") or "auto"))
    if provider is offline and configured not in (None, offline) and project is not None and not offline_forced():
        missing = configured.unusable()
        if missing:
            fallback.announce(project, configured.NAME, "unavailable", missing)
    return provider, why


def consolidator(cfg: dict[str, Any], requested: str | None = None, *, project: Any = None) -> Any:
    """The consolidator of the chosen provider, metered against `project`'s ledger; its
    `why` says why that one."""
    provider, why = _chosen(cfg, requested, project)
    if provider is not offline:
        model = provider.consolidator(cfg, _meter(project, cfg))
        return fallback.Consolidator(model, offline.consolidator(cfg), project, why)
    chosen = offline.consolidator(cfg)
    chosen.why = why
    return chosen


def checker(cfg: dict[str, Any], *, project: Any = None) -> Any:
    """The contradiction checker of the configured provider (offline without one), metered."""
    provider, _ = _chosen(cfg, None, project)
    if provider is offline:
        return offline.checker(cfg)
    return fallback.Checker(provider.checker(cfg, _meter(project, cfg)), offline.checker(cfg), project)


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


def consolidation(cfg: dict[str, Any], requested: str | None = None, *, project: Any = None) -> Any:
    """The consolidator and the embedder a consolidation worker of `project` runs with, and,
    when the consolidator is a model's, the adjudicator of entity resolution's ambiguous band
    (on its discussion model, the cheapest step's)."""
    from engram.consolidate.worker import Models

    chosen = consolidator(cfg, requested, project=project)
    model = getattr(chosen, "model", chosen)  # a fallback wrapper holds the model consolidator
    judge = None
    if getattr(model, "client", None) is not None:
        from engram.consolidate.adjudicate import ModelAdjudicator

        judge = ModelAdjudicator(model.client, model.models.get("discussion") or model.models.get("pass1", ""))
    return Models(chosen, embedder(cfg), judge)
