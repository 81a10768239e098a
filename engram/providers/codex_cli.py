"""`llmProvider: "codex"`: the user's own logged-in Codex CLI, run headless.

    codex exec --json --skip-git-repo-check --sandbox read-only [-m codexModel] -
                                       (our instructions, then the prompt, on stdin)

`codex exec` has no documented switch that replaces its own instructions, so ours lead the
prompt inside <instructions> tags (the data after them sits in its own tags). The output
is JSON Lines (docs/harness-cli-providers.md): the answer is the last `item.completed`
whose item is an `agent_message` (`text`), the tokens are summed over `turn.completed`
events (`usage`: input_tokens, which include cached_input_tokens, and output_tokens), and
`turn.failed` / `error` events carry the failure. Codex reports no cost. `codexModel` ""
leaves the model to the user's Codex configuration.
"""

from __future__ import annotations

from typing import Any

from engram.providers.base import Reply, tokens, tokens_less, tokens_sum
from engram.providers.cli import CLIChat, first_json, missing

NAME = "codex"
KEY_ENV = None
COMMAND = "codex"


def unusable() -> str | None:
    return missing(COMMAND)


def client(cfg: dict[str, Any], meter: Any = None) -> CodexChat:
    chat = CodexChat(timeout=float(cfg.get("cliTimeoutMs", 180000)) / 1000.0)
    chat.meter = meter
    return chat


def models(cfg: dict[str, Any]) -> dict[str, str]:
    m = str(cfg.get("codexModel") or "")
    return {"pass1": m, "pass2": m, "discussion": m}


def consolidator(cfg: dict[str, Any], meter: Any = None) -> Any:
    from engram.consolidate.passes import ModelConsolidator

    return ModelConsolidator(NAME, client(cfg, meter), models(cfg))


def checker(cfg: dict[str, Any], meter: Any = None) -> Any:
    from engram.monitor.model_checker import ModelChecker

    model = models(cfg)["pass1"]
    return ModelChecker(f"{NAME}:{model or 'default'}", client(cfg, meter), model)


def events(out: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL stdout; other lines are skipped."""
    found = []
    for line in out.splitlines():
        obj = first_json(line) if line.strip().startswith("{") else None
        if isinstance(obj, dict):
            found.append(obj)
    return found


class CodexChat(CLIChat):
    name = NAME
    command = COMMAND

    def invocation(self, system: str, user: str, model: str, cwd: str) -> tuple[list[str], str, dict[str, str]]:
        argv = [COMMAND, "exec", "--json", "--skip-git-repo-check", "--sandbox", "read-only"]
        if model:
            argv += ["-m", model]
        return argv + ["-"], f"<instructions>\n{system}\n</instructions>\n\n{user}", {}

    def parse(self, code: int, out: str, err: str, model: str) -> Reply:
        text, errors, inp, cached, output = None, [], 0, 0, 0
        for ev in events(out):
            kind = ev.get("type")
            item = ev.get("item") if isinstance(ev.get("item"), dict) else {}
            if kind == "item.completed" and item.get("type") == "agent_message":
                text = str(item.get("text") or "")
            elif kind == "turn.completed" and isinstance(ev.get("usage"), dict):
                u = ev["usage"]
                inp, cached, output = (tokens_sum(inp, tokens(u.get("input_tokens"))),
                                       tokens_sum(cached, tokens(u.get("cached_input_tokens"))),
                                       tokens_sum(output, tokens(u.get("output_tokens"))))
            elif kind in ("turn.failed", "error"):
                e = ev.get("error") if isinstance(ev.get("error"), dict) else ev
                errors.append(str(e.get("message") or kind))
        reply = Reply(text or "", tokens_less(inp, cached), output, model, cache_read_tokens=cached)
        if errors or text is None or code != 0:
            raise self.fail(code, err, "; ".join(errors)[:400], reply if inp or output else None)
        return reply
