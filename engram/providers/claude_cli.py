"""`llmProvider: "claude-code"`: the user's own logged-in Claude Code, run headless.

    claude -p --output-format json --model M --system-prompt S --tools "" --max-turns 1
           --settings '{"disableAllHooks": true}'     (the prompt on stdin)

Our system prompt replaces Claude Code's, no tool is available, one turn, and the child's
own hooks are off on top of ENGRAM_DISABLE=1 (cli.py). The answer is Claude Code's JSON
result (docs/harness-cli-providers.md): `result` (the text), `is_error`, `usage`
(input / output / cache-creation / cache-read tokens) and `total_cost_usd`, which the
ledger keeps as the call's cost. Models per step are the Anthropic provider's
(`consolidationModel`, `episodeExtractionModel`, `discussionModel`, `contradictionModel`).
"""

from __future__ import annotations

from typing import Any

from engram.providers import anthropic
from engram.providers.base import Reply, tokens
from engram.providers.cli import CLIChat, first_json, missing

NAME = "claude-code"
KEY_ENV = None
COMMAND = "claude"
NO_HOOKS = '{"disableAllHooks": true}'


def unusable() -> str | None:
    return missing(COMMAND)


def client(cfg: dict[str, Any], meter: Any = None) -> ClaudeCodeChat:
    chat = ClaudeCodeChat(timeout=float(cfg.get("cliTimeoutMs", 180000)) / 1000.0)
    chat.meter = meter
    return chat


def consolidator(cfg: dict[str, Any], meter: Any = None) -> Any:
    from engram.consolidate.passes import ModelConsolidator

    return ModelConsolidator(NAME, client(cfg, meter), anthropic.models(cfg))


def checker(cfg: dict[str, Any], meter: Any = None) -> Any:
    from engram.monitor.model_checker import ModelChecker

    model = str(cfg["contradictionModel"])
    return ModelChecker(f"{NAME}:{model}", client(cfg, meter), model)


class ClaudeCodeChat(CLIChat):
    name = NAME
    command = COMMAND
    # The worker is started by a hook Claude Code ran, so it inherits these; with them set,
    # recent Claude Code refuses to start ("cannot be launched inside another Claude Code
    # session", docs/harness-cli-providers.md). The child is a separate session, not nested.
    unset_env = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT")

    def invocation(self, system: str, user: str, model: str, cwd: str) -> tuple[list[str], str, dict[str, str]]:
        argv = [COMMAND, "-p", "--output-format", "json", "--system-prompt", system, "--tools", "",
                "--max-turns", "1", "--settings", NO_HOOKS]
        if model:
            argv[4:4] = ["--model", model]
        return argv, user, {}

    def parse(self, code: int, out: str, err: str, model: str) -> Reply:
        obj = first_json(out)
        if not isinstance(obj, dict) or "result" not in obj and "is_error" not in obj:
            raise self.fail(code, err)
        u = obj.get("usage") if isinstance(obj.get("usage"), dict) else {}
        reply = Reply(str(obj.get("result") or ""), tokens(u.get("input_tokens")), tokens(u.get("output_tokens")),
                      model, cache_read_tokens=tokens(u.get("cache_read_input_tokens")),
                      cache_write_tokens=tokens(u.get("cache_creation_input_tokens")),
                      cost_usd=obj.get("total_cost_usd"))
        if obj.get("is_error") or obj.get("subtype", "success") != "success" or code != 0:
            raise self.fail(code, err, f"{obj.get('subtype') or 'error'}: {reply.text or obj.get('errors') or ''}",
                            reply)
        return reply
