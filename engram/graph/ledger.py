"""The model-call ledger (`model_calls`): one row per call, and the sums budgets and status read.

Written by the providers' meter (engram/providers/budget.py) on a read-write connection;
read on any connection, `open_ro`'s included: a database from before the table existed
reads as an empty ledger, so `engram status` never migrates anything to report it.
"""

from __future__ import annotations

from typing import Any

COLUMNS = ("at", "provider", "model", "purpose", "input_tokens", "output_tokens", "cache_read_tokens",
           "cache_write_tokens", "cost_usd", "ok", "error")
TOKENS = "input_tokens + output_tokens + cache_read_tokens + cache_write_tokens"


def record(conn: Any, row: dict[str, Any]) -> None:
    """Append one call (missing columns take their defaults)."""
    cols = [c for c in COLUMNS if c in row]
    conn.execute(f"INSERT INTO model_calls ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                 [row[c] for c in cols])


def _missing_table(exc: Exception) -> bool:
    return "no such table" in str(exc)


def tokens_since(conn: Any, provider: str, since: str) -> int:
    """Every token `provider` processed since `since` (UTC ISO text): what a budget counts."""
    try:
        row = conn.execute(f"SELECT coalesce(sum({TOKENS}), 0) FROM model_calls WHERE provider = ? AND at >= ?",
                           (provider, since)).fetchone()
    except Exception as exc:
        if _missing_table(exc):
            return 0
        raise
    return int(row[0])


def totals_since(conn: Any, since: str) -> dict[str, dict[str, Any]]:
    """{provider: calls, failed, the four token counts, tokens, cost_usd} since `since`."""
    sql = ("SELECT provider, count(*), sum(1 - ok), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), "
           f"sum(cache_write_tokens), sum({TOKENS}), sum(cost_usd) FROM model_calls WHERE at >= ? GROUP BY provider")
    try:
        rows = conn.execute(sql, (since,)).fetchall()
    except Exception as exc:
        if _missing_table(exc):
            return {}
        raise
    keys = ("calls", "failed", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "tokens",
            "cost_usd")
    return {r[0]: dict(zip(keys, r[1:])) for r in rows}
