"""The model-call ledger (`model_calls`): one row per call, and the sums budgets and status read.

Written by the providers' meter (engram/providers/budget.py) on a read-write connection;
read on any connection, `open_ro`'s included: a database from before the table existed
reads as an empty ledger, so `engram status` never migrates anything to report it.

The sums decide whether the next call may spend, so a row counts only as what it could
truly hold: each token count from 0 to MAX_CALL_TOKENS (rows written before counts were
checked where they enter, engram/providers/base.py `tokens`, may hold a negative one,
which would lower the day's sum), and only rows dated up to now (`until`): a row dated
ahead (a clock set wrong when it was written) would otherwise refuse every call until
its date. `engram doctor` reports those rows (`future_rows`).
"""

from __future__ import annotations

from typing import Any

COLUMNS = ("at", "provider", "model", "purpose", "input_tokens", "output_tokens", "cache_read_tokens",
           "cache_write_tokens", "cost_usd", "ok", "error")
COUNTS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
MAX_CALL_TOKENS = 10_000_000  # one count of one call: several times the largest context window of any model
_CLAMPED = {c: f"max(0, min(coalesce({c}, 0), {MAX_CALL_TOKENS}))" for c in COUNTS}
TOKENS = " + ".join(_CLAMPED.values())


def record(conn: Any, row: dict[str, Any]) -> None:
    """Append one call (missing columns take their defaults; counts already checked by the
    meter are held to the ledger's range once more, so no row can hold what SQLite cannot)."""
    row = {**row, **{c: max(0, min(int(row[c]), MAX_CALL_TOKENS)) for c in COUNTS if c in row}}
    cols = [c for c in COLUMNS if c in row]
    conn.execute(f"INSERT INTO model_calls ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                 [row[c] for c in cols])


def _missing_table(exc: Exception) -> bool:
    return "no such table" in str(exc)


def tokens_since(conn: Any, provider: str, since: str, until: str) -> int:
    """Every token `provider` processed from `since` to `until` (UTC ISO text): what a budget counts."""
    try:
        row = conn.execute(f"SELECT coalesce(sum({TOKENS}), 0) FROM model_calls WHERE provider = ? AND at >= ? "
                           "AND at <= ?", (provider, since, until)).fetchone()
    except Exception as exc:
        if _missing_table(exc):
            return 0
        raise
    return int(row[0])


def totals_since(conn: Any, since: str, until: str) -> dict[str, dict[str, Any]]:
    """{provider: calls, failed, the four token counts, tokens, cost_usd} from `since` to `until`."""
    counts = ", ".join(f"sum({_CLAMPED[c]})" for c in COUNTS)
    sql = (f"SELECT provider, count(*), sum(1 - ok), {counts}, sum({TOKENS}), sum(max(0, cost_usd)) FROM model_calls "
           "WHERE at >= ? AND at <= ? GROUP BY provider")
    try:
        rows = conn.execute(sql, (since, until)).fetchall()
    except Exception as exc:
        if _missing_table(exc):
            return {}
        raise
    keys = ("calls", "failed", *COUNTS, "tokens", "cost_usd")
    return {r[0]: dict(zip(keys, r[1:])) for r in rows}


def future_rows(conn: Any, now: str) -> tuple[int, str]:
    """(rows dated after `now`, the latest date among them): what no sum counts."""
    try:
        row = conn.execute("SELECT count(*), max(at) FROM model_calls WHERE at > ?", (now,)).fetchone()
    except Exception as exc:
        if _missing_table(exc):
            return 0, ""
        raise
    return int(row[0]), str(row[1] or "")
