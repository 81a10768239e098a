"""Whether the user let engram spend on an API provider, and the variable that decided it.

Hooks inherit the harness's environment: a Claude Code started with ANTHROPIC_API_KEY hands
that key to engram's detached worker. The key was given to the harness, not to engram, so
on its own it never spends (issue 24). Engram calls a model, chat or embeddings, only when
the user chose it:

* an engram-specific variable (`ENGRAM_ANTHROPIC_API_KEY`, `ENGRAM_OPENAI_API_KEY`,
  `ENGRAM_VOYAGE_API_KEY`) is consent wherever it is set, and the only kind `auto` counts;
* a provider the user named (`llmProvider` / `embeddingProvider` in config.json, or
  `--provider`) is consent too: its engram variable is still preferred, and its generic one
  (`ANTHROPIC_API_KEY`, ...) is accepted, because they chose that provider.

Harness CLIs are not keys: they are opt-in by name only (registry.py). The reasons returned
here are what `status`, `doctor` and the worker's record say, word for word.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

from engram.config import DEFAULTS, user_keys


def own_env(provider: ModuleType) -> str:
    """The engram-specific variable of an API provider: ENGRAM_ + its generic one."""
    return "ENGRAM_" + str(provider.KEY_ENV)


def named(cfg: dict[str, Any], key: str, home: str | None = None) -> bool:
    """Whether the user named the provider of `key` (llmProvider, embeddingProvider): a value
    other than the default can only come from them (config.json or an override), and the
    default counts when config.json spells it out."""
    return cfg.get(key, DEFAULTS[key]) != DEFAULTS[key] or key in user_keys(home)


def key(provider: ModuleType, chosen: bool) -> tuple[str | None, str]:
    """(the variable engram may call `provider` with, or None; why, naming the variables)."""
    own, generic = own_env(provider), str(provider.KEY_ENV)
    if os.environ.get(own):
        return own, f"{own} is set"
    if chosen:
        if os.environ.get(generic):
            return generic, f"{generic} is set"
        return None, f"neither {own} nor {generic} is set"
    return None, f"{own} is not set" + ignored([provider])


def ignored(providers: list[ModuleType]) -> str:
    """"; ANTHROPIC_API_KEY ignored: not chosen" for each generic key set that `auto` or a
    default provider may not spend ("" when none is set)."""
    return "".join(f"; {p.KEY_ENV} ignored: not chosen" for p in providers if os.environ.get(str(p.KEY_ENV)))
