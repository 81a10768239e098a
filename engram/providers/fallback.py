"""Offline for the rest of the run when the model cannot be used: budget spent, CLI logged out.

The registry wraps every model-backed consolidator and checker in one of these. A model
failure that says the model is unusable now (LLMError / CheckFailed of kind `budget`,
`auth` or `unavailable`) does not fail the session or count against the checker: the same
work is done by the offline implementation, and so is everything after it in this process.
Any other failure (timeout, 5xx after retries, a malformed answer) passes through as
before: the session stays queued, the check counts as failed.

A logged-out or missing harness CLI is said once a day at the next SessionStart
(engram.notices) and logged; the spent budget is said by the meter (budget.py).
"""

from __future__ import annotations

from typing import Any, Callable

from engram.errors import LLMError

UNUSABLE = ("budget", "auth", "unavailable")


def announce(project: Any, provider: str, exc: Exception) -> None:
    """One notice a day per provider and kind, one log line, for a model that cannot be used."""
    from engram import notices
    from engram.log import log
    from engram.providers.budget import today

    kind = getattr(exc, "kind", "")
    if kind == "budget":
        return  # the meter said it
    text = f"engram: {provider} cannot be used ({str(exc)[:200]}); consolidating and checking offline."
    if notices.post(project.home, f"{kind}-{provider}-{today()}", text):
        log(project.log_path, "providers", f"{provider} unusable ({kind}): {exc}; offline for this run", "WARN")


class Consolidator:
    """A model consolidator that hands over to the offline one for good once the model is unusable."""

    def __init__(self, model: Any, offline: Any, project: Any):
        self.model, self.offline, self.project = model, offline, project
        self.active = model
        self.why = ""

    @property
    def name(self) -> str:
        return self.active.name

    @property
    def models(self) -> dict[str, str]:
        return self.active.models

    def full(self, new: list[dict[str, Any]], prior: list[dict[str, Any]], cfg: dict[str, Any],
             usage: Any, known: list[str] = ()) -> dict[str, Any]:
        return self._run(lambda c: c.full(new, prior, cfg, usage, known))

    def discussion(self, new: list[dict[str, Any]], prior: list[dict[str, Any]], usage: Any) -> dict[str, Any]:
        return self._run(lambda c: c.discussion(new, prior, usage))

    def _run(self, job: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
        if self.active is self.model:
            try:
                return job(self.model)
            except LLMError as exc:
                if exc.kind not in UNUSABLE:
                    raise
                announce(self.project, self.model.name, exc)
                self.active, self.why = self.offline, f"{self.model.name} unusable: {exc}"
        return job(self.offline)


class Checker:
    """A model checker that hands over to the offline one for good once the model is unusable."""

    def __init__(self, model: Any, offline: Any, project: Any):
        self.model, self.offline, self.project = model, offline, project
        self.active = model

    @property
    def name(self) -> str:
        return self.active.name

    def check(self, decisions: list[dict[str, Any]], path: str, diff: str) -> Any:
        if self.active is self.model:
            from engram.monitor.contradiction import CheckFailed

            try:
                return self.model.check(decisions, path, diff)
            except CheckFailed as exc:
                if exc.kind not in UNUSABLE:
                    raise
                announce(self.project, self.model.name.split(":")[0], exc)
                self.active = self.offline
        return self.offline.check(decisions, path, diff)
