"""Sessions whose model answers were unusable: consolidated offline from then on.

A model that answers a session with something that does not validate, twice (the answer and
its one repair), is not asked again for that session: retrying on every Stop spent 14 calls
and 18k tokens on one 13-event session for nothing (issue 24). The worker consolidates such a
session offline at once and records it here, `unusable/<session>.json` in the project's
data directory ({"at", "provider", "reason"}); later runs read it and skip the model for that
session's new events. `engram consolidate --redo SESSION` removes the record, so the model
is tried on that session again.
"""

from __future__ import annotations

import os
from typing import Any

from engram import jsonio
from engram.clock import utc_iso
from engram.fsio import private_dir, write_atomic

DIR = "unusable"


def _path(project: Any, session: str) -> str:
    from engram.config import safe_name

    return os.path.join(project.dir, DIR, safe_name(session) + ".json")


def record(project: Any, session: str, provider: str, reason: str) -> None:
    """Remember that `provider`'s answers for `session` were unusable."""
    private_dir(os.path.join(project.dir, DIR))
    body = {"at": utc_iso(0), "provider": provider, "reason": reason[:300]}
    write_atomic(_path(project, session), jsonio.dumps(body).encode(), durable=False)


def recorded(project: Any, session: str) -> dict[str, Any] | None:
    """The record of `session`, or None (no file, or not one engram wrote)."""
    rec = jsonio.read_object(_path(project, session), 4096)
    return rec if isinstance(rec.get("provider"), str) and isinstance(rec.get("at"), str) else None


def forget(project: Any, session: str) -> bool:
    """Remove the record of `session` (the model may be asked again); True when there was one."""
    try:
        os.unlink(_path(project, session))
        return True
    except FileNotFoundError:
        return False
