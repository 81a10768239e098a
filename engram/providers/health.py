"""A provider that keeps failing is paused until midnight, said once.

Every model job (a session's consolidation, a write check) that ends without a usable
answer from its model is a failure of the provider: a timeout, an HTTP error after the
retries, an answer still unusable after its one repair. A job the model did is a success and
clears the count. After `maxProviderFailures` failures in a row (default 3) the provider is
paused for the rest of the local day: the registry chooses offline instead of it (its reason
says so, in the worker, `status` and `doctor` alike), the wrappers of fallback.py hand the
rest of a run over to offline, and one notice tells the user at the next SessionStart. A
budget that is spent or a CLI that is logged out is no failure of this kind: those are
fallback.py's to say.

State: `ENGRAM_HOME/budget/<provider>.failures.json` = {"day", "count", "last"}, changed under
its own lock (two workers failing together count two); a day other than today counts 0.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from engram import jsonio, workers
from engram.fsio import private_dir, write_atomic
from engram.providers.budget import today
from engram.providers.reservations import DIR

LOCK_WAIT = 10.0


def limit(cfg: dict[str, Any]) -> int:
    """`maxProviderFailures`: failures in a row that pause a provider for the day."""
    from engram.config import DEFAULTS

    return int(cfg.get("maxProviderFailures", DEFAULTS["maxProviderFailures"]))


def _path(home: str, provider: str) -> str:
    return os.path.join(home, DIR, provider + ".failures.json")


def _today(home: str, provider: str) -> dict[str, Any]:
    """Today's count and last failure ({"count": 0} for another day or a damaged file)."""
    state = jsonio.read_object(_path(home, provider), 4096)
    count = state.get("count")
    if state.get("day") != today() or not isinstance(count, int) or count < 0:
        return {"count": 0}
    return {"count": count, "last": str(state.get("last") or "")[:300]}


def paused(home: str, provider: str, cfg: dict[str, Any]) -> str | None:
    """Why `provider` is paused for the rest of today, or None."""
    state = _today(home, provider)
    if state["count"] < limit(cfg):
        return None
    return f"{provider} is paused until midnight after {state['count']} failures in a row (last: {state['last']})"


def _update(home: str, provider: str, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    folder = private_dir(os.path.join(home, DIR))
    fd = workers.lock(os.path.join(folder, provider + ".failures.lock"), LOCK_WAIT)
    if fd is None:  # a stuck holder: this job's count is lost, nothing else
        return _today(home, provider)
    try:
        state = _today(home, provider)
        change(state)
        write_atomic(_path(home, provider), jsonio.dumps({"day": today(), **state}).encode(), durable=False)
        return state
    finally:
        os.close(fd)


def failed(project: Any, provider: str, cfg: dict[str, Any], reason: str) -> None:
    """Count one failed job of `provider`; at the limit it is paused: the notice is posted once
    a day, by whichever process gets there first, and logged."""
    from engram import notices
    from engram.log import log

    def add(state: dict[str, Any]) -> None:
        state["count"] += 1
        state["last"] = reason[:300]

    state = _update(project.home, provider, add)
    if state["count"] < limit(cfg):
        return
    text = (f"engram: {provider} failed {state['count']} times in a row (last: {reason[:160]}); paused until "
            "midnight, consolidating and checking offline. `engram status` shows it.")
    if notices.post(project.home, f"paused-{provider}-{today()}", text):
        log(project.log_path, "providers", f"{provider} paused until midnight after {state['count']} failures "
            f"in a row: {reason}", "WARN")


def succeeded(home: str, provider: str) -> None:
    """A job the model did: the count starts again (written only when there is one to clear)."""
    if _today(home, provider)["count"]:
        _update(home, provider, lambda state: state.update(count=0, last=""))
