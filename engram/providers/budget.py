"""The daily token budget and the ledger: what every model call goes through.

A `Meter` belongs to one project (its ledger is that project's `model_calls` table) and is
handed to every chat client the registry builds (`ChatClient.meter`), so consolidation and
the contradiction check, API or harness CLI, cannot call a model around it:

* `admit(provider, estimate)` before a call: refused (LLMError "budget") once the tokens
  `provider` processed today, across every project under ENGRAM_HOME, plus the estimates
  of calls still in flight in this process, reach `dailyTokenBudget`. A call admitted just
  under the line may cross it, so the day ends at the budget plus at most one call (per
  worker process running at that moment). The first refusal of the day posts one notice
  for the next SessionStart (engram.notices) and logs one line.
* `settle(...)` after it: one ledger row (time, provider, model, purpose, the four token
  counts, the reported cost), failed calls included with what they spent (nothing); the
  call that crosses the budget posts the notice itself, so it is said even when no later
  call of that day is ever refused.

Tokens count everything the model processed: input, output, cache reads and writes. The
day is the local calendar day: the budget resets at local midnight.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from engram.clock import utc_iso
from engram.errors import LLMError


def since(days_back: int = 0) -> str:
    """Local midnight `days_back` days before today, as the ledger's UTC ISO text."""
    lt = time.localtime()
    return utc_iso(6, time.mktime((lt.tm_year, lt.tm_mon, lt.tm_mday - days_back, 0, 0, 0, 0, 0, -1)))


def today() -> str:
    """The local date, for keys that hold for one day (a notice is said once a day)."""
    return time.strftime("%Y-%m-%d")


def limit(cfg: dict[str, Any]) -> int:
    """`dailyTokenBudget`: tokens per provider and local day."""
    from engram.config import DEFAULTS

    return int(cfg.get("dailyTokenBudget", DEFAULTS["dailyTokenBudget"]))


def spent_today(home: str, provider: str, mine: tuple[str, Any] | None = None) -> int:
    """Tokens `provider` processed since local midnight, summed over every project's ledger.

    `mine` is (database path, an open connection to it): that project is read through it.
    A process must never hold one database file with two SQLite libraries (sqlean's for the
    worker, the standard library's for `open_ro`): closing one drops the other's locks.
    """
    from engram.config import all_projects
    from engram.graph import ledger
    from engram.graph.readonly import open_ro

    total, start = 0, since(0)
    for project in all_projects(home):
        if mine is not None and project.db_path == mine[0]:
            total += ledger.tokens_since(mine[1], provider, start)
            continue
        conn = open_ro(project.db_path)
        if conn is None:
            continue
        try:
            total += ledger.tokens_since(conn, provider, start)
        finally:
            conn.close()
    return total


def exhausted_reason(home: str, provider: str, cap: int) -> str | None:
    """Why `provider` may not be used today (its budget of `cap` tokens is spent), or None."""
    spent = spent_today(home, provider)
    if spent < cap:
        return None
    return f"today's token budget for {provider} is spent ({spent:,} of {cap:,} tokens): offline until midnight"


class Meter:
    """The budget check and the ledger of one project's model calls (thread-safe)."""

    def __init__(self, project: Any, cfg: dict[str, Any]):
        self.project = project
        self.limit = limit(cfg)
        self._lock = threading.Lock()
        self._reserved: dict[str, int] = {}

    def admit(self, provider: str, estimate: int) -> tuple[str, int]:
        """A ticket for one call, or LLMError("budget") when the day's budget is spent."""
        with self._lock:
            spent = self._spent(provider)
            if spent + self._reserved.get(provider, 0) >= self.limit:
                self._refused(provider, spent)
                raise LLMError("budget", f"{provider}: today's token budget of {self.limit:,} is spent "
                                         f"({spent:,} used); offline until midnight")
            self._reserved[provider] = self._reserved.get(provider, 0) + estimate
            return provider, estimate

    def settle(self, ticket: tuple[str, int], model: str, purpose: str, reply: Any, ok: bool = True) -> None:
        """Write the call to the ledger (`reply`: what it cost, None when nothing is known to
        have been spent) and release its reservation."""
        from engram.graph import ledger

        provider, estimate = ticket
        row: dict[str, Any] = {"at": utc_iso(6), "provider": provider, "model": model or "", "purpose": purpose,
                               "ok": int(ok)}
        if reply is not None:
            row.update(model=reply.model or model or "", input_tokens=reply.input_tokens,
                       output_tokens=reply.output_tokens, cache_read_tokens=reply.cache_read_tokens,
                       cache_write_tokens=reply.cache_write_tokens, cost_usd=reply.cost_usd)
        with self._lock:
            try:
                conn = self._open()
                try:
                    ledger.record(conn, row)
                    spent = spent_today(self.project.home, provider, (self.project.db_path, conn))
                finally:
                    conn.close()
            finally:
                self._reserved[provider] -= estimate
            if reply is not None and spent >= self.limit:
                self._refused(provider, spent)

    def _open(self) -> Any:
        """A connection to this project's database, by the driver the worker's own uses
        (graph.connect): one SQLite library per file and process. Opened per use, so none
        stays open between calls."""
        from engram.graph.connect import connect

        return connect(self.project.db_path)

    def _spent(self, provider: str) -> int:
        conn = self._open()
        try:
            return spent_today(self.project.home, provider, (self.project.db_path, conn))
        finally:
            conn.close()

    def _refused(self, provider: str, spent: int) -> None:
        """Once a day per provider (whichever process gets there first): the notice for the
        next SessionStart, one log line."""
        from engram import notices
        from engram.log import log

        text = (f"engram: today's model token budget for {provider} is spent ({spent:,} of {self.limit:,} "
                f"tokens): consolidation and write checks run offline until midnight; raise dailyTokenBudget "
                f"in {self.project.home}/config.json to allow more.")
        if notices.post(self.project.home, f"budget-{provider}-{today()}", text):
            log(self.project.log_path, "budget", f"{provider}: daily token budget {self.limit:,} spent "
                f"({spent:,} tokens); offline until midnight", "WARN")
