"""The daily token budget and the ledger: what every model call goes through.

A `Meter` belongs to one project (its ledger is that project's `model_calls` table) and is
handed to every chat client the registry builds (`ChatClient.meter`), so consolidation and
the contradiction check, API or harness CLI, cannot call a model around it:

* `session(provider, need)` before a full consolidation's first call: the whole session's
  estimate (passes.call_sizes) is held only if it fits in what is left of the day; if not,
  the session is consolidated offline from the start, so no model work is spent on a
  session that would end offline halfway (its partial answers would be thrown away).
* `admit(provider, estimate)` before each call: from the session's hold when it covers the
  call, otherwise refused (LLMError "budget") once the tokens `provider` processed today,
  across every project under ENGRAM_HOME, plus every process's reservations, reach
  `dailyTokenBudget`. The decision and the reservation are one step under a lock every
  process takes (reservations.py), so however many workers run, the day ends at the budget
  plus at most the one call admitted just under the line (when every call costs at most its
  estimate: prompt characters / 4 plus the output cap). The first refusal of the day posts
  one notice for the next SessionStart (engram.notices) and logs one line.
* `settle(...)` after it: one ledger row (time, provider, model, purpose, the four token
  counts, the reported cost), failed calls included with what they spent (nothing) and why
  they failed (`error`: `timeout` for a call killed at its deadline), and the
  reservation released, in the same step; the call that crosses the budget posts the notice
  itself, so it is said even when no later call of that day is ever refused. The counts were
  checked where they entered (base.Reply): a report that cannot be true (a negative or NaN
  count, or one past MAX_CALL_TOKENS) is charged at least the call's estimate and logged, so
  no report can lower the day's sum or let a call through for free.

Tokens count everything the model processed: input, output, cache reads and writes. The
day is the local calendar day: the budget resets at local midnight; rows dated after now
(a clock that was set ahead) count for no day until their time comes (graph/ledger.py).
"""

from __future__ import annotations

import itertools
import time
from contextlib import contextmanager
from typing import Any, Iterator

from engram.clock import utc_iso
from engram.errors import LLMError
from engram.providers import reservations


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


def used_today(home: str, provider: str, mine: tuple[str, Any] | None = None) -> int:
    """Tokens `provider` processed since local midnight, summed over every project's ledger.

    `mine` is (database path, an open connection to it): that project is read through it.
    A process must never hold one database file with two SQLite libraries (sqlean's for the
    worker, the standard library's for `open_ro`): closing one drops the other's locks.
    """
    from engram.config import all_projects
    from engram.graph import ledger
    from engram.graph.readonly import open_ro

    total, start, now = 0, since(0), utc_iso(6)
    for project in all_projects(home):
        if mine is not None and project.db_path == mine[0]:
            total += ledger.tokens_since(mine[1], provider, start, now)
            continue
        conn = open_ro(project.db_path)
        if conn is None:
            continue
        try:
            total += ledger.tokens_since(conn, provider, start, now)
        finally:
            conn.close()
    return total


def spent_today(home: str, provider: str) -> int:
    """Today's tokens of `provider`: the ledgers' and what calls and sessions in flight hold."""
    return used_today(home, provider) + reservations.reserved(home, provider)


def exhausted_reason(home: str, provider: str, cap: int) -> str | None:
    """Why `provider` may not be used today (its budget of `cap` tokens is spent), or None."""
    spent = spent_today(home, provider)
    if spent < cap:
        return None
    return f"today's token budget for {provider} is spent ({spent:,} of {cap:,} tokens): offline until midnight"


class Meter:
    """The budget check and the ledger of one project's model calls (thread-safe: every
    decision is taken under the provider's lock, reservations.py)."""

    def __init__(self, project: Any, cfg: dict[str, Any]):
        self.project = project
        self.limit = limit(cfg)
        self._ids = itertools.count(1)
        self._holds: dict[str, str] = {}  # provider -> the key of the session this meter holds for

    def admit(self, provider: str, estimate: int) -> tuple[str, str, int]:
        """A ticket for one call, or LLMError("budget") when the day's budget is spent.

        A call the session's hold covers is admitted from it; any other (a repair past the
        hold, a check, a discussion) only while the day's tokens, used and reserved, are
        below the budget."""
        home = self.project.home
        with reservations.locked(home, provider) as book:
            spent = self._used(provider) + sum(book.values())
            hold = self._holds.get(provider, "")
            covered = min(estimate, book.get(hold, 0))
            if covered < estimate and spent >= self.limit:
                self._refused(provider, spent)
                raise LLMError("budget", f"{provider}: today's token budget of {self.limit:,} is spent "
                                         f"({spent:,} used or in flight); offline until midnight")
            if covered:
                book[hold] -= covered
            key = self._key(home)
            book[key] = estimate
        return provider, key, estimate

    def settle(self, ticket: tuple[str, str, int], model: str, purpose: str, reply: Any, ok: bool = True,
               error: str = "") -> None:
        """Write the call to the ledger (`reply`: what it cost, None when nothing is known to
        have been spent; `error`: the LLMError kind of a failed call, `timeout` for one killed
        at its deadline) and release its reservation, in one step under the lock."""
        from engram.graph import ledger

        provider, key, estimate = ticket
        row: dict[str, Any] = {"at": utc_iso(6), "provider": provider, "model": model or "", "purpose": purpose,
                               "ok": int(ok), "error": "" if ok else error}
        if reply is not None:
            row.update(model=reply.model or model or "", input_tokens=reply.input_tokens,
                       output_tokens=reply.output_tokens, cache_read_tokens=reply.cache_read_tokens,
                       cache_write_tokens=reply.cache_write_tokens, cost_usd=reply.cost_usd)
            if reply.doubtful:
                self._doubtful(provider, row, estimate)
        with reservations.locked(self.project.home, provider) as book:
            try:
                conn = self._open()
                try:
                    ledger.record(conn, row)
                    spent = used_today(self.project.home, provider, (self.project.db_path, conn))
                finally:
                    conn.close()
            finally:
                book.pop(key, None)
            if reply is not None and spent >= self.limit:
                self._refused(provider, spent)

    @contextmanager
    def session(self, provider: str, need: int) -> Iterator[bool]:
        """Hold `need` tokens (a whole session's estimate) before its first call: True when
        they fit in what is left of today's budget, and the session's calls are admitted from
        the hold; False (nothing held, said once a day) when they do not."""
        home = self.project.home
        with reservations.locked(home, provider) as book:
            spent = self._used(provider) + sum(book.values())
            fits = spent + need <= self.limit
            if fits:
                self._holds[provider] = key = self._key(home)
                book[key] = need
        if not fits:
            self._short(provider, spent, need)
        try:
            yield fits
        finally:
            if fits:
                with reservations.locked(home, provider) as book:
                    book.pop(self._holds.pop(provider), None)

    def _doubtful(self, provider: str, row: dict[str, Any], estimate: int) -> None:
        """A usage report that cannot be true: the row is charged at least the call's estimate."""
        from engram.graph.ledger import COUNTS
        from engram.log import log

        reported = sum(row[c] for c in COUNTS)
        row["input_tokens"] += max(0, estimate - reported)
        log(self.project.log_path, "budget", f"{provider} reported token counts out of range (negative, NaN or "
            f"past the cap): charged {max(reported, estimate):,} tokens, at least the call's estimate", "WARN")

    def _key(self, home: str) -> str:
        return f"{reservations.owner(home)}:{id(self)}.{next(self._ids)}"

    def _open(self) -> Any:
        """A connection to this project's database, by the driver the worker's own uses
        (graph.connect): one SQLite library per file and process. Opened per use, so none
        stays open between calls."""
        from engram.graph.connect import connect

        return connect(self.project.db_path)

    def _used(self, provider: str) -> int:
        conn = self._open()
        try:
            return used_today(self.project.home, provider, (self.project.db_path, conn))
        finally:
            conn.close()

    def _refused(self, provider: str, spent: int) -> None:
        """The budget is reached: said once a day per provider (whichever process gets there
        first) at the next SessionStart, and logged."""
        self._say(provider, f"is spent ({spent:,} of {self.limit:,} tokens): consolidation and write checks run "
                            "offline until midnight", f"spent ({spent:,} tokens); offline until midnight")

    def _short(self, provider: str, spent: int, need: int) -> None:
        """A session does not fit in what is left: said like a spent budget (one line a day)."""
        from engram.log import log

        left = max(0, self.limit - spent)
        self._say(provider, f"has {left:,} of {self.limit:,} tokens left, too few for a session that needs "
                            f"~{need:,}: sessions that do not fit are consolidated offline until midnight",
                  f"too small for a session of ~{need:,} tokens ({left:,} left)")
        log(self.project.log_path, "budget", f"{provider}: a session needing ~{need:,} tokens does not fit in "
            f"today's budget ({spent:,} of {self.limit:,} used or in flight): consolidated offline", "INFO")

    def _say(self, provider: str, state: str, logged: str) -> None:
        from engram import notices
        from engram.log import log

        text = (f"engram: today's model token budget for {provider} {state}; raise dailyTokenBudget in "
                f"{self.project.home}/config.json to allow more.")
        if notices.post(self.project.home, f"budget-{provider}-{today()}", text):
            log(self.project.log_path, "budget", f"{provider}: daily token budget {self.limit:,} {logged}", "WARN")
