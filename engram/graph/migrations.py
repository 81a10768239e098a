"""Schema migrations: ordered, named, forward-only, idempotent, one transaction each.

The SQL lives in schema.sql, cut into sections by `-- @migration <name>` headers; a
section may be followed by a Python step (`_AFTER`) run in the same transaction, for data
changes SQL cannot express. The name is the identity, recorded in `schema_migrations`;
the order is the file's order. A new database and an old one go through the same path,
so the upgrade path is exercised by every test that opens a database.

Two processes may open an old database at once: each migration runs under BEGIN
IMMEDIATE and re-checks its record once it holds the write lock, so it applies once.
"""

from __future__ import annotations

from importlib import resources
from typing import Any, Callable

from engram.graph.store import normalise_name, now

MARKER = "-- @migration "


def _backfill_name_key(conn: Any) -> None:
    rows = conn.execute("SELECT id, name FROM nodes").fetchall()
    conn.executemany(
        "UPDATE nodes SET name_key = ? WHERE id = ?", [(normalise_name(n), i) for i, n in rows]
    )


def _backfill_statements(conn: Any) -> None:
    """data.statement of every decision (what supersession and retrieval read its subject from)."""
    from engram import jsonio
    from engram.language.decision_text import statement

    rows = conn.execute("SELECT id, name, data FROM nodes WHERE type = 'decision'").fetchall()
    for nid, name, raw in rows:
        data = jsonio.loads(raw) if raw else {}
        data = data if isinstance(data, dict) else {}
        data["statement"] = statement(name)
        conn.execute("UPDATE nodes SET data = ? WHERE id = ?", (jsonio.dumps(data), nid))


def _clear_observed_outcomes(conn: Any) -> None:
    """Knowledge items count no outcome (graph/strength.py): clear theirs, recompute their strength."""
    from engram.graph.strength import OBSERVED_KINDS, node_strength

    cols = "id, status, strength, episode_count, sessions_without_reinforcement, causal, asserted, decay_rate"
    marks = ",".join("?" * len(OBSERVED_KINDS))
    rows = conn.execute(f"SELECT {cols} FROM nodes WHERE outcome_total > 0 AND json_valid(data) AND json_extract(data, '$.kind') "
                        f"IN ({marks})", OBSERVED_KINDS).fetchall()
    for row in rows:
        node = dict(zip(cols.split(", "), row), outcome_success=0, outcome_total=0)
        conn.execute("UPDATE nodes SET outcome_success = 0, outcome_total = 0, strength = ? WHERE id = ?",
                     (node_strength(node), node["id"]))


# Python steps that follow a SQL section, inside its transaction.
_AFTER: dict[str, Callable[[Any], None]] = {"m002_engram_tables": _backfill_name_key,
                                            "m004_decision_decay": _backfill_statements,
                                            "m009_decision_statements_r2": _backfill_statements,
                                            "m011_observed_outcomes": _clear_observed_outcomes,
                                            "m013_decision_statements_r3": _backfill_statements,
                                            "m014_decision_statements_r4": _backfill_statements,
                                            "m016_decision_statements_r5": _backfill_statements,
                                            "m017_decision_statements_r6": _backfill_statements}


def split_statements(sql: str) -> list[str]:
    """Split a script into statements (trigger bodies keep their inner semicolons).

    `executescript` would COMMIT any open transaction first, so migrations run their
    statements one by one instead.
    """
    import sqlite3

    out, buf = [], ""
    for line in sql.splitlines(keepends=True):
        if not buf and (not line.strip() or line.lstrip().startswith("--")):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        raise ValueError(f"schema.sql: unterminated statement: {buf.strip()[:80]!r}")
    return out


def sections() -> list[tuple[str, str]]:
    """[(migration name, SQL)] in file order; duplicate names are a bug and raise."""
    text = resources.files("engram.graph").joinpath("schema.sql").read_text("utf-8")
    out: list[tuple[str, list[str]]] = []
    for line in text.splitlines(keepends=True):
        if line.startswith(MARKER):
            name = line[len(MARKER) :].strip()
            if any(name == n for n, _ in out):
                raise ValueError(f"schema.sql: migration {name!r} appears twice")
            out.append((name, []))
        elif out:
            out[-1][1].append(line)
    return [(name, "".join(lines)) for name, lines in out]


def _ensure_table(conn: Any) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )


def applied(conn: Any) -> list[str]:
    """Names of applied migrations (empty for a database engram never touched)."""
    try:
        return [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY rowid")]
    except Exception as exc:
        if "no such table" in str(exc):
            return []
        raise


def pending(conn: Any) -> list[str]:
    """Names of migrations not yet applied; reads only."""
    done = set(applied(conn))
    return [name for name, _ in sections() if name not in done]


def _apply(conn: Any, name: str, sql: str) -> bool:
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (name,)).fetchone():
            conn.execute("ROLLBACK")
            return False  # another process applied it while we waited for the lock
        for stmt in split_statements(sql):
            conn.execute(stmt)
        if name in _AFTER:
            _AFTER[name](conn)
        conn.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)", (name, now()))
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone():
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                (str(conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0]),),
            )
        conn.execute("COMMIT")
        return True
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def migrate(conn: Any, *, upto: str | None = None) -> list[str]:
    """Apply pending migrations in order (through `upto` if given); return those applied.

    Idempotent: a second call applies nothing. Must not run inside a transaction.
    """
    if conn.in_transaction:
        raise RuntimeError("migrate() must not run inside a transaction")
    _ensure_table(conn)
    done = set(applied(conn))
    out = []
    for name, sql in sections():
        if name not in done and _apply(conn, name, sql):
            out.append(name)
        if name == upto:
            break
    return out


def schema_version(conn: Any) -> int:
    """The number of applied migrations: 1 is the spec's (docs/spec.md) schema, 2 adds engram's tables."""
    return len(applied(conn))
