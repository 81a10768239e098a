"""`llmProvider: "gemini-cli"`: the user's own logged-in Gemini CLI, run headless.

    GEMINI_SYSTEM_MD=<call dir>/system.md gemini --output-format json [-m geminiModel]
                                                        (the prompt on stdin)

A piped stdin is headless mode, and GEMINI_SYSTEM_MD replaces the CLI's system prompt
with ours (docs/harness-cli-providers.md). The answer is one JSON object: `response`
(the text), `stats.models.<model>.tokens` (prompt, which includes cached, candidates,
thoughts, cached), or `error` (`type`, `message`, `code`); exit code 41 is an
authentication error. Gemini CLI reports no cost. `geminiModel` "" leaves the model to
the user's Gemini CLI settings.
"""

from __future__ import annotations

import os
from typing import Any

from engram.providers.base import Reply, tokens, tokens_less, tokens_sum
from engram.providers.cli import CLIChat, first_json, missing

NAME = "gemini-cli"
KEY_ENV = None
COMMAND = "gemini"
AUTH_EXIT = 41


def unusable() -> str | None:
    return missing(COMMAND)


def client(cfg: dict[str, Any], meter: Any = None) -> GeminiChat:
    chat = GeminiChat(timeout=float(cfg.get("cliTimeoutMs", 180000)) / 1000.0)
    chat.meter = meter
    return chat


def models(cfg: dict[str, Any]) -> dict[str, str]:
    m = str(cfg.get("geminiModel") or "")
    return {"pass1": m, "pass2": m, "discussion": m}


def consolidator(cfg: dict[str, Any], meter: Any = None) -> Any:
    from engram.consolidate.passes import ModelConsolidator

    return ModelConsolidator(NAME, client(cfg, meter), models(cfg))


def checker(cfg: dict[str, Any], meter: Any = None) -> Any:
    from engram.monitor.model_checker import ModelChecker

    model = models(cfg)["pass1"]
    return ModelChecker(f"{NAME}:{model or 'default'}", client(cfg, meter), model)


def usage(stats: Any, model: str) -> Reply:
    """The tokens of every model the CLI called (its own helper calls included), as a Reply."""
    per_model = stats.get("models") if isinstance(stats, dict) and isinstance(stats.get("models"), dict) else {}
    prompt = cached = output = 0
    for m in per_model.values():
        t = m.get("tokens") if isinstance(m, dict) and isinstance(m.get("tokens"), dict) else {}
        prompt, cached = tokens_sum(prompt, tokens(t.get("prompt"))), tokens_sum(cached, tokens(t.get("cached")))
        output = tokens_sum(output, tokens(t.get("candidates")), tokens(t.get("thoughts")))
    return Reply("", tokens_less(prompt, cached), output, model or next(iter(per_model), ""), cache_read_tokens=cached)


class GeminiChat(CLIChat):
    name = NAME
    command = COMMAND

    def invocation(self, system: str, user: str, model: str, cwd: str) -> tuple[list[str], str, dict[str, str]]:
        path = os.path.join(cwd, "system.md")
        with open(path, "w", encoding="utf-8") as f:
            f.write(system)
        argv = [COMMAND, "--output-format", "json"] + (["-m", model] if model else [])
        return argv, user, {"GEMINI_SYSTEM_MD": path}

    def parse(self, code: int, out: str, err: str, model: str) -> Reply:
        obj = first_json(out)
        if not isinstance(obj, dict) or not ("response" in obj or "error" in obj):
            raise self.fail(code, err)
        reply = usage(obj.get("stats"), model)
        error = obj.get("error") if isinstance(obj.get("error"), dict) else None
        if error or code != 0 or not isinstance(obj.get("response"), str):
            message = f"{(error or {}).get('type') or 'error'}: {(error or {}).get('message') or ''}"
            exc = self.fail(code, err, message, reply if reply.input_tokens or reply.output_tokens else None)
            if code == AUTH_EXIT:
                exc.kind = "auth"
            raise exc
        reply.text = obj["response"]
        return reply
