"""GSD 2 sessions and units: the state GSD's session-less shell-hook payloads lack.

`sessions/gsd-current.json` in the project's data dir holds the session id minted at
SessionStart and the unit PreUnit started (cleared by PostUnit). See `gsd.py`.
"""

from __future__ import annotations

import os
import time

from engram import config, jsonio
from engram.fsio import write_atomic
from engram.harnesses.claude_code import as_dict as _d
from engram.harnesses.claude_code import as_str as _s

MARKER = "gsd-current.json"


def _marker_path(cwd: str) -> str:
    return os.path.join(config.Project.from_cwd(cwd).ensure().dir, "sessions", MARKER)


def _marker(cwd: str) -> dict:
    return jsonio.read_object(_marker_path(cwd))


def _save_marker(cwd: str, data: dict) -> None:
    write_atomic(_marker_path(cwd), jsonio.dumps(data).encode(), durable=False)


def session_id(payload: dict, cwd: str) -> str:
    """A stable id for GSD's session-less payloads (see the module docstring)."""
    env = os.environ.get("ENGRAM_SESSION")
    if env:
        return env
    if os.environ.get("GSD_HOOK_EVENT", "") == "SessionStart" or payload.get("type") == "session_start":
        sid = time.strftime("gsd-%Y%m%d-%H%M%S", time.localtime()) + "-%04x" % (os.getpid() & 0xFFFF)
        _save_marker(cwd, {"session": sid, "started": int(time.time())})
        return sid
    return _marker(cwd).get("session") or time.strftime("gsd-%Y%m%d", time.localtime())


def unit_tags(unit_id: str, unit_type: str = "") -> dict:
    """`M001/S01/T01` -> {unit, unit_type, milestone, slice, task} (only the parts present)."""
    parts = [p for p in _s(unit_id).split("/") if p]
    tags = {"unit": "/".join(parts)} if parts else {}
    for key, part in zip(("milestone", "slice", "task"), parts):
        tags[key] = part
    if unit_type:
        tags["unit_type"] = unit_type
    return tags


def prepare(ctx, event: str, payload: dict) -> None:
    """Tag every event with the running unit (PreUnit starts it, PostUnit ends it)."""
    if event in ("PreUnit", "PostUnit", "PostVerify"):
        ctx.extra.update(unit_tags(_s(payload.get("unitId")), _s(payload.get("unitType"))))
        if not ctx.extra.get("milestone") and _s(payload.get("milestoneId")):
            ctx.extra["milestone"] = payload["milestoneId"]
        return
    ctx.extra.update(_d(_marker(ctx.cwd).get("unit")))


def _session_start(ctx) -> None:
    from engram import lifecycle
    from engram.harnesses import gsd_knowledge

    text = lifecycle.session_start(ctx, "startup")
    gsd_knowledge.refresh(ctx, lifecycle.with_notice(ctx, text))  # GSD has no channel to the user


def _unit(ctx, status: str = "", start: bool = True) -> None:
    tags = {k: ctx.extra[k] for k in ("unit", "unit_type", "milestone", "slice", "task") if k in ctx.extra}
    with ctx.locked() as st:
        ctx.append(st, [{"type": "unit_start" if start else "unit_end", **({"status": status} if status else {})}])
    marker = _marker(ctx.cwd)
    marker["unit"] = tags if start else {}
    _save_marker(ctx.cwd, dict(marker, session=ctx.session))
    if not start:
        from engram.harnesses import gsd_knowledge

        gsd_knowledge.refresh(ctx)


def _verify(ctx, passed: bool, failures=None) -> None:
    with ctx.locked() as st:
        ctx.append(st, [{"type": "unit_verify", "passed": passed,
                         "failures": jsonio.dumps(failures)[:1000] if failures else ""}])


HANDLERS = {"gsd_session_start": _session_start, "unit_start": lambda ctx, status="": _unit(ctx, status, True),
            "unit_end": lambda ctx, status="": _unit(ctx, status, False), "verify": _verify}
