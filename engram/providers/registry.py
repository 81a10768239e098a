"""Every model provider engram knows, in one place, and which one serves each job.

A provider is a module satisfying `ChatProvider` (consolidation and the contradiction
check) and/or `EmbeddingProvider`. The built-ins are listed here like any other, the
offline one included (the shape of pre-commit's `all_languages.py`):

* `llmProvider` chooses who consolidates and who checks writes against decisions:
  `auto` (the default: the best API provider whose ENGRAM_* key is set, Anthropic then
  OpenAI, else offline), `anthropic`, `openai`, `offline`, or a harness CLI the user is
  logged in to (`claude-code`, `codex`, `gemini-cli`: opt-in only, `auto` never spends a
  subscription login);
* `embeddingProvider` (anthropic = Voyage, the vendor Anthropic recommends | voyage |
  openai | local) chooses who embeds node names for entity resolution and queries.

Nothing is spent without the user's consent (consent.py): `auto` and a default provider
count only engram's own key variables, never the generic ones a harness passes to its hooks;
a provider the user named may use either. A configured provider that cannot run here (no
key, its CLI not on PATH, ENGRAM_OFFLINE=1, today's token budget spent, or paused after
failing again and again: health.py) falls back to offline, and the reason travels with the
choice, naming the variable or config key that decided (`status`, `doctor` and the worker's
record, engram/worker_use.py, say it); a provider the user asked for explicitly (`--provider`)
is an error instead. Every model-backed consolidator and checker is metered (budget.py: the
daily budget and the ledger, in the project's database) and hands over to offline when the
model becomes unusable mid-run (fallback.py). The jobs' code never chooses: the worker and
command entry points ask here and hand the result down (docs/architecture.md, "Layers").
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Protocol

from engram.errors import ConfigError
from engram.providers import anthropic, budget, claude_cli, codex_cli, consent, fallback, gemini_cli, health, \
    offline, openai, voyage
from engram.providers.base import offline_forced


class ChatProvider(Protocol):
    NAME: str
    KEY_ENV: str | None  # its API key's generic variable (consent.py decides), or None: a harness CLI or offline

    def unusable(self) -> str | None: ...  # KEY_ENV None only: why it cannot run here, or None
    def consolidator(self, cfg: dict[str, Any], meter: Any = None) -> Any: ...  # consolidate.worker.Consolidator
    def checker(self, cfg: dict[str, Any], meter: Any = None) -> Any: ...  # monitor.contradiction.Checker


class EmbeddingProvider(Protocol):
    NAME: str
    KEY_ENV: str | None

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


def valid(name: str, where: str = "--provider") -> str:
    """`name` when it is a chat provider's (or auto), else ConfigError in one line."""
    if name not in CHOICES:
        raise ConfigError(f"{where} {name!r} is not one of {', '.join(CHOICES)}")
    return name


def _runnable(provider: ModuleType, chosen: bool) -> tuple[bool, str]:
    """(may run here, why): an API provider when consent.py lets it spend, a harness CLI when
    it is on PATH (naming one is its consent)."""
    if provider.KEY_ENV:
        var, why = consent.key(provider, chosen)
        return var is not None, why
    missing = provider.unusable()
    return missing is None, missing or f"{provider.COMMAND} is on PATH"


def _held_back(provider: ModuleType, cfg: dict[str, Any], home: str) -> str | None:
    """Why a provider that may run is not used today: its budget is spent, or it is paused."""
    return budget.exhausted_reason(home, provider.NAME, budget.limit(cfg)) or health.paused(home, provider.NAME, cfg)


def choose(cfg: dict[str, Any], requested: str | None = None, home: str | None = None) -> tuple[ModuleType, str]:
    """(chat provider, why it was chosen): the requested or configured one if it may run, else offline."""
    name = valid(requested) if requested else valid(str(cfg.get("llmProvider") or "auto"), "config.json: llmProvider")
    said = f"--provider {name}" if requested else f"llmProvider is {name}"
    if name == "offline":
        return offline, said
    if not requested and offline_forced():
        return offline, "ENGRAM_OFFLINE is set"
    if name == "auto":
        return _auto(cfg, _home(home))
    provider = CHAT[name]
    ok, why = _runnable(provider, chosen=True)
    why_not = _held_back(provider, cfg, _home(home)) if ok else why
    if why_not and requested:
        if not ok and provider.KEY_ENV:
            raise ConfigError(f"--provider {name} needs {consent.own_env(provider)} (or {provider.KEY_ENV}) "
                              "in the environment")
        raise ConfigError(f"--provider {name}: {why_not}; or use --provider offline")
    if why_not:
        return offline, f"{said}, but {why_not}"
    return provider, f"{said}; {why}"


def _auto(cfg: dict[str, Any], home: str) -> tuple[ModuleType, str]:
    """The first API provider with an ENGRAM_* key, budget left today and not paused, else
    offline (generic keys and harness CLIs need the user to name the provider)."""
    held = []
    for provider in AUTO:
        ok, why = _runnable(provider, chosen=False)
        if not ok:
            continue
        reason = _held_back(provider, cfg, home)
        if reason is None:
            return provider, f"auto: {why}"
        held.append(reason)
    if held:
        return offline, "auto: " + "; ".join(held)
    return offline, "auto: no ENGRAM_* key" + consent.ignored(list(AUTO))


def _meter(project: Any, cfg: dict[str, Any]) -> budget.Meter:
    if project is None:
        raise ValueError("a model provider needs the project whose ledger meters its calls (project=)")
    return budget.Meter(project, cfg)


def _home_of(project: Any) -> str | None:
    return project.home if project is not None else None


def _chosen(cfg: dict[str, Any], requested: str | None, project: Any) -> tuple[ModuleType, str]:
    """`choose` for a worker: a configured provider that cannot run here for a reason of its
    own (its CLI not on PATH, neither of its keys set) is said at the next SessionStart, once a day."""
    provider, why = choose(cfg, requested, _home_of(project))
    configured = CHAT.get(str(cfg.get("llmProvider") or "auto"))
    if provider is offline and configured not in (None, offline) and project is not None and not offline_forced():
        ok, missing = _runnable(configured, chosen=True)
        if not ok:
            fallback.announce(project, configured.NAME, "unavailable", missing)
    return provider, why


def consolidator(cfg: dict[str, Any], requested: str | None = None, *, project: Any = None) -> Any:
    """The consolidator of the chosen provider, metered against `project`'s ledger; its
    `why` says why that one."""
    provider, why = _chosen(cfg, requested, project)
    if provider is not offline:
        model = provider.consolidator(cfg, _meter(project, cfg))
        return fallback.Consolidator(model, offline.consolidator(cfg), project, why, cfg)
    chosen = offline.consolidator(cfg)
    chosen.why = why
    return chosen


def checker(cfg: dict[str, Any], *, project: Any = None) -> Any:
    """The contradiction checker of the configured provider (offline without one), metered."""
    provider, _ = _chosen(cfg, None, project)
    if provider is offline:
        return offline.checker(cfg)
    return fallback.Checker(provider.checker(cfg, _meter(project, cfg)), offline.checker(cfg), project, cfg)


def embedder(cfg: dict[str, Any] | None = None, conn: Any = None, home: str | None = None) -> Any:
    """The configured embedder when it may run, else the local one with `fallback_reason` set.

    The spec's default (`anthropic`, Voyage) embeds remotely only on ENGRAM_VOYAGE_API_KEY;
    VOYAGE_API_KEY counts once the user names a provider in config.json (consent.py). With
    `conn`, a remote embedder is put behind the database's embedding cache.
    """
    cfg = cfg or {}
    name = str(cfg.get("embeddingProvider") or "anthropic").lower()
    if name not in EMBEDDINGS:
        raise ConfigError(f"config.json: embeddingProvider {name!r} is not one of anthropic, voyage, openai, local")
    provider = EMBEDDINGS[name]
    reason = None
    if provider is not offline and offline_forced():
        reason = "ENGRAM_OFFLINE is set"
    elif provider is not offline:
        ok, why = _runnable(provider, consent.named(cfg, "embeddingProvider", home))
        reason = None if ok else f"embeddingProvider {name!r}: {why}"
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
    (on its discussion model, the cheapest step's) and the offline consolidator a session
    whose answers are unusable goes to."""
    from engram.consolidate.worker import Models

    chosen = consolidator(cfg, requested, project=project)
    model = getattr(chosen, "model", chosen)  # a fallback wrapper holds the model consolidator
    if getattr(model, "client", None) is None:
        return Models(chosen, embedder(cfg, home=_home_of(project)))
    from engram.consolidate.adjudicate import ModelAdjudicator

    judge = ModelAdjudicator(model.client, model.models.get("discussion") or model.models.get("pass1", ""))
    return Models(chosen, embedder(cfg, home=_home_of(project)), judge, chosen.offline)
