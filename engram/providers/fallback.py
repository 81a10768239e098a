"""Offline for the rest of the run when the model cannot be used: budget spent, CLI logged out.

The registry wraps every model-backed consolidator and checker in one of these. A model
failure that says the model is unusable now (LLMError / CheckFailed of kind `budget`,
`auth` or `unavailable`) does not fail the session or count against the checker: the same
work is done by the offline implementation, and so is everything after it in this process.
Any other failure (timeout, 5xx after retries, a malformed answer) passes through: the
worker consolidates a session with unusable answers offline and keeps one that timed out
queued (consolidate/worker.py), the check counts as failed. Each such failure is counted
against the provider and each job the model did clears the count (health.py); once the
provider is paused (`maxProviderFailures` in a row, by this process or another), every later
job of the run is done offline.

A full consolidation starts on the model only when its whole estimate fits in what is left
of today's budget (budget.Meter.session); a session that does not fit is consolidated
offline from its start, and the next one is tried on the model again: model work is never
spent on a session that would end offline halfway.

A logged-out or missing harness CLI (or a configured API provider without its key) is said
once a day per reason at the next SessionStart (engram.notices) and logged, whether it is
found at the call or when the registry chooses; so is a model that gave no answer within
its timeout (`cliTimeoutMs`, `probeTimeoutMs`); the spent budget is said by the meter
(budget.py).
"""

from __future__ import annotations

from typing import Any, Callable

from engram.errors import LLMError
from engram.providers import health
from engram.providers.base import estimate_tokens

UNUSABLE = ("budget", "auth", "unavailable")


def announce(project: Any, provider: str, kind: str, reason: str) -> None:
    """One notice a day per provider and kind, one log line, for a model that cannot be used
    (`kind`: auth, unavailable; a spent budget is the meter's to say) or that gave no answer
    in time (`timeout`: the call was killed, and its ledger row says so)."""
    from engram import notices
    from engram.log import log
    from engram.providers.budget import today

    if kind == "budget":
        return
    if kind == "timeout":
        text = (f"engram: {reason[:200]}; the call was stopped and recorded in the ledger. Raise that limit in "
                f"{project.home}/config.json if the model needs longer.")
        logged = f"{provider} timed out: {reason}"
    else:
        text = f"engram: {provider} cannot be used ({reason[:200]}); consolidating and checking offline."
        logged = f"{provider} unusable ({kind}): {reason}; offline for this run"
    if notices.post(project.home, f"{kind}-{provider}-{today()}", text):
        log(project.log_path, "providers", logged, "WARN")


class Consolidator:
    """A model consolidator that hands over to the offline one for good once the model is unusable."""

    def __init__(self, model: Any, offline: Any, project: Any, why: str = "", cfg: dict[str, Any] | None = None):
        self.model, self.offline, self.project, self.cfg = model, offline, project, cfg or {}
        self.active = model
        self.short = False  # the current session went offline because it did not fit
        self.why = self.chosen = why  # why the registry chose the model; `why` also says why not, when not

    @property
    def name(self) -> str:
        return self.active.name

    @property
    def models(self) -> dict[str, str]:
        return self.active.models

    def full(self, new: list[dict[str, Any]], prior: list[dict[str, Any]], cfg: dict[str, Any],
             usage: Any, known: list[str] = ()) -> dict[str, Any]:
        """Two passes on the model only if the whole session's estimate fits in today's budget
        (budget.Meter.session); otherwise this session, and only this one, offline from the start."""
        from engram.consolidate import passes

        job = lambda c: c.full(new, prior, cfg, usage, known)  # noqa: E731
        self._start()
        meter = self.model.client.meter
        if self.active is not self.model or meter is None:
            return self._run(job)
        need = sum(estimate_tokens(chars, out) for chars, out in passes.call_sizes(new, cfg, known))
        with meter.session(self.model.client.name, need) as fits:
            if fits:
                return self._run(job)
        self.active, self.short = self.offline, True
        self.why = f"{self.model.name}: this session's ~{need:,} tokens do not fit in what is left of today's budget"
        return job(self.offline)

    def discussion(self, new: list[dict[str, Any]], prior: list[dict[str, Any]], usage: Any) -> dict[str, Any]:
        self._start()
        return self._run(lambda c: c.discussion(new, prior, usage))

    def _start(self) -> None:
        """Before each session: back to the model if the last one did not fit in the budget (this
        one may); offline for good once the provider is paused."""
        if self.short:
            self.active, self.short, self.why = self.model, False, self.chosen
        paused = health.paused(self.project.home, self.model.name, self.cfg) if self.active is self.model else None
        if paused:
            self.active = self._offline(paused)

    def _run(self, job: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
        if self.active is self.model:
            try:
                done = job(self.model)
            except LLMError as exc:
                if exc.kind not in UNUSABLE:
                    health.failed(self.project, self.model.name, self.cfg, f"{exc.kind}: {exc}")
                    if exc.kind == "timeout":
                        announce(self.project, self.model.name, exc.kind, str(exc))
                    raise
                announce(self.project, self.model.name, exc.kind, str(exc))
                self.active = self._offline(f"{self.model.name} unusable: {exc}")
            else:
                health.succeeded(self.project.home, self.model.name)
                return done
        return job(self.offline)

    def _offline(self, why: str) -> Any:
        """Offline for the rest of this run, saying why."""
        self.why = why
        return self.offline


class Checker:
    """A model checker that hands over to the offline one for good once the model is unusable."""

    def __init__(self, model: Any, offline: Any, project: Any, cfg: dict[str, Any] | None = None):
        self.model, self.offline, self.project, self.cfg = model, offline, project, cfg or {}
        self.active = model

    @property
    def name(self) -> str:
        return self.active.name

    def check(self, decisions: list[dict[str, Any]], path: str, diff: str) -> Any:
        provider = self.model.name.split(":")[0]
        if self.active is self.model and health.paused(self.project.home, provider, self.cfg):
            self.active = self.offline
        if self.active is self.model:
            from engram.monitor.contradiction import CheckFailed

            try:
                verdict = self.model.check(decisions, path, diff)
            except CheckFailed as exc:
                if exc.kind not in UNUSABLE:
                    health.failed(self.project, provider, self.cfg, f"{exc.kind}: {exc}")
                    if exc.kind == "timeout":
                        announce(self.project, provider, exc.kind, str(exc))
                    raise
                announce(self.project, provider, exc.kind, str(exc))
                self.active = self.offline
            else:
                health.succeeded(self.project.home, provider)
                return verdict
        return self.offline.check(decisions, path, diff)
