"""Harness CLIs as chat models: the user's own logged-in CLI, run headless, one call each.

Opt-in (`llmProvider`: claude-code | codex | gemini-cli) and never chosen by `auto`: a
subscription login is the user's to spend. `CLIChat` is a `ChatClient`, so the model
consolidator and checker use it unchanged, and the meter (budget.py) sees every call.
One call is one child process:

* the prompt on stdin (no argv length limit, nothing in `ps`), its arguments from the
  provider module (claude_cli.py, codex_cli.py, gemini_cli.py);
* `ENGRAM_DISABLE=1` in its environment: engram's hooks in that harness record nothing of
  engram's own calls (hook.py honours it first thing), whatever else the CLI runs;
* a fresh empty working directory, removed afterwards: no project instructions, settings
  or files for the CLI to pick up, nothing for it to change;
* its own process group, killed whole and its pipes closed when `cliTimeoutMs` passes, even
  if a grandchild in another session still holds them (engram/workers.py, run_child);
* its stdout read as the CLI's documented JSON (docs/harness-cli-providers.md).

Failures, as LLMError kinds: not on PATH -> `unavailable`; the CLI says it is not logged
in -> `auth` (both make the rest of the run offline: fallback.py); no answer in time ->
`timeout`; an error result -> `client`; stdout that is not the documented JSON ->
`malformed`. No retries: a failed session stays queued for the next worker.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from typing import Any

from engram.errors import LLMError
from engram.providers.base import ChatClient, Reply

_AUTH = re.compile(r"log ?in\b|logged (?:out|in)|authenticat|unauthori[sz]ed|\b401\b|api key|credential|oauth|"
                   r"token (?:has )?expired", re.I)


def missing(command: str) -> str | None:
    """Why `command` cannot run here (not on PATH), or None."""
    return None if shutil.which(command) else f"{command} is not on PATH"


def failure(kind: str, message: str, spent: Reply | None = None) -> LLMError:
    """An LLMError of `kind`, or `auth` when the message says the CLI is not logged in;
    `spent` is what the failed call still cost, for the ledger."""
    if kind != "timeout" and _AUTH.search(message):
        kind = "auth"
    exc = LLMError(kind, message[:500])
    exc.spent = spent  # type: ignore[attr-defined]
    return exc


def first_json(text: str) -> Any:
    """The first JSON value in `text` (a CLI may print a line of noise before it), or None."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text[start:])[0]
    except ValueError:
        return None


class CLIChat(ChatClient):
    """One headless CLI run per completion; subclasses say how to call it and read it."""

    command = ""
    unset_env: tuple[str, ...] = ()  # variables of the parent harness the child must not inherit

    def __init__(self, timeout: float):
        super().__init__(api_key="", base_url=None, timeout=timeout, retries=0)

    def _request(self, system: str, user: str, model: str, max_tokens: int, thinking: int) -> Reply:
        with tempfile.TemporaryDirectory(prefix="engram-cli-") as cwd:
            argv, stdin, env = self.invocation(system, user, model, cwd)
            code, out, err = self.run(argv, stdin, cwd, env)
        return self.parse(code, out, err, model)

    def invocation(self, system: str, user: str, model: str, cwd: str) -> tuple[list[str], str, dict[str, str]]:
        """(argv, stdin text, extra environment) of one call."""
        raise NotImplementedError

    def parse(self, code: int, out: str, err: str, model: str) -> Reply:
        raise NotImplementedError

    def run(self, argv: list[str], stdin: str, cwd: str, extra_env: dict[str, str]) -> tuple[int, str, str]:
        """(exit code, stdout, stderr) of the child; at the timeout its process group is killed
        and its pipes closed, whatever still holds them (engram/workers.py, run_child)."""
        from engram import workers

        env = {k: v for k, v in os.environ.items() if k not in self.unset_env}
        env.update(extra_env, ENGRAM_DISABLE="1")
        try:
            done = workers.run_child(argv, input=stdin.encode("utf-8"), cwd=cwd, env=env, timeout=self.timeout)
        except OSError as exc:  # not on PATH, not executable
            raise LLMError("unavailable", f"{self.name}: cannot run {argv[0]}: {exc.strerror or exc}") from None
        if done.timed_out:
            raise LLMError("timeout", f"{self.name}: no answer from {argv[0]} within {self.timeout:g} s "
                                      "(cliTimeoutMs)") from None
        out, err = done.text()
        return done.code or 0, out, err

    def fail(self, code: int, err: str, message: str = "", spent: Reply | None = None) -> LLMError:
        """The error of a run without a usable answer: the CLI's own error message when it gave
        one, else its exit code and the last line of its stderr."""
        if message:
            return failure("client", f"{self.name}: {message}", spent)
        last = err.strip().splitlines()[-1] if err.strip() else ""
        if code == 0:
            return failure("malformed", f"{self.name}: {self.command} printed no answer in its JSON format"
                                        + (f" ({last})" if last else ""), spent)
        return failure("client", f"{self.name}: {self.command} exited {code}" + (f": {last}" if last else ""), spent)
