"""What the consolidation worker last ran with: `ENGRAM_HOME/worker.json`.

The worker is started by a hook and inherits the harness's environment; `engram status` and
`engram doctor` run in the user's shell. The same resolution (registry.choose) can come out
differently in the two (a key exported for the harness only), so the worker writes down what
it actually used, after each run that consolidated something: {"provider", "model", "why",
"at"}. Status and doctor show it beside what the shell would choose. The file is small,
replaced atomically, read bounded, and a record that is not one engram wrote reads as none.
"""

from __future__ import annotations

import os
from typing import Any

from engram import jsonio
from engram.clock import utc_iso, valid_iso
from engram.fsio import write_atomic

FILE = "worker.json"
MAX_BYTES = 4096
LIMITS = {"provider": 40, "model": 200, "why": 600}  # field: the most characters it keeps


def _path(home: str) -> str:
    return os.path.join(home, FILE)


def record(home: str, provider: str, model: str, why: str) -> None:
    """Write what the worker used, now."""
    body = {"provider": provider, "model": model, "why": why}
    body = {k: v[: LIMITS[k]] for k, v in body.items()}
    write_atomic(_path(home), jsonio.dumps({**body, "at": utc_iso(0)}).encode(), durable=False)


def read(home: str) -> dict[str, Any] | None:
    """The worker's last record, or None (none yet, damaged, or not engram's)."""
    rec = jsonio.read_object(_path(home), MAX_BYTES)
    if not all(isinstance(rec.get(k), str) and len(rec[k]) <= n for k, n in LIMITS.items()):
        return None
    if not rec["provider"] or valid_iso(rec.get("at")) is None:
        return None
    return {k: rec[k] for k in (*LIMITS, "at")}


def text(rec: dict[str, Any]) -> str:
    """"offline (auto: ...), 2026-07-01T10:00:00Z": one record for people."""
    model = f" {rec['model']}" if rec["model"] else ""
    return f"{rec['provider']}{model} ({rec['why']}), {rec['at']}"
