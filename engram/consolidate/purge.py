"""`engram forget` in the files: JSONL lines, episode files, session state, faults and logs.

The JSONL is append-only except here. A line that mentions a forgotten term, or that a
deleted node came from, becomes a stub `{"type":"forgotten","ts","session","seq","turn"}`:
`seq` stays gap-free and readers need no special case. The file is rewritten to a temp
file and renamed over the old one while holding both the session's hook lock (so no
append is lost) and its consolidation lock (so no worker reads half a rewrite); the
episode file's mark is moved to the new size when it was up to date, so the session does
not look unconsolidated afterwards.
"""

from __future__ import annotations

import os
from typing import Any

from engram import jsonio, workers
from engram.capture import session_state
from engram.consolidate import episode_file, trigger
from engram.errors import EngramError
from engram.fsio import write_atomic
from engram.graph.privacy import Terms, contains, scrub

STUB_KEYS = ("ts", "session", "seq", "turn")


def sessions(project: Any) -> list[str]:
    try:
        names = os.listdir(os.path.join(project.dir, "events"))
    except FileNotFoundError:
        return []
    return sorted(n[: -len(".jsonl")] for n in names if n.endswith(".jsonl"))


def rewrite_lines(data: bytes, terms: Terms, seqs: set[int]) -> tuple[bytes, int]:
    """(new content, lines replaced): matching lines become stubs, matching torn lines go."""
    out, changed = [], 0
    for raw in data.split(b"\n"):
        if not raw.strip():
            out.append(raw)
            continue
        try:
            ev = jsonio.loads(raw.decode("utf-8", "replace"))
        except ValueError:
            ev = None
        if not isinstance(ev, dict):
            if contains(raw.decode("utf-8", "replace"), terms):
                changed += 1
                continue
            out.append(raw)
            continue
        if ev.get("seq") in seqs or contains(ev, terms):
            stub = {"type": "forgotten", **{k: ev[k] for k in STUB_KEYS if k in ev}}
            out.append(jsonio.dumps(stub).encode())
            changed += 1
        else:
            out.append(raw)
    return b"\n".join(out), changed


def purge_session(project: Any, session: str, terms: Terms, seqs: set[int], lock_timeout: float = 60) -> int:
    """Rewrite one session's JSONL, state and episode file; return the lines replaced."""
    lock = workers.lock(trigger.session_lock_path(project, session), lock_timeout)
    if lock is None:
        raise EngramError(f"session {session} is being consolidated for more than {lock_timeout:.0f} s; "
                          "run the command again later")
    try:
        locked = session_state.Locked(project.state_path(session), project.events_path(session))
        with locked as st:
            path = project.events_path(session)
            try:
                with open(path, "rb") as f:
                    old = f.read()
            except FileNotFoundError:
                return 0
            new, changed = rewrite_lines(old, terms, seqs)
            if changed:
                write_atomic(path, new)
                st["size"] = len(new)
            _scrub_state(st, terms)
            _rewrite_episode_file(project, session, terms, len(old), len(new))
    finally:
        os.close(lock)
    return changed


def _scrub_state(st: dict[str, Any], terms: Terms) -> None:
    """The hook state keeps text too (the last prompt, queued context, file lists)."""
    for key in ("seen", "written", "recent_reads", "pending", "turn_events"):
        if isinstance(st.get(key), list):
            st[key] = [v for v in st[key] if not contains(v, terms)]
    if isinstance(st.get("write_ranges"), dict):
        st["write_ranges"] = {k: v for k, v in st["write_ranges"].items() if not contains(k, terms)}
    for key, value in list(st.items()):
        if isinstance(value, (str, dict, list)) and contains(value, terms):
            st[key] = scrub(value, terms)


def _rewrite_episode_file(project: Any, session: str, terms: Terms, old_size: int, new_size: int) -> None:
    path = project.episode_path(session)
    rec = episode_file.read(path)
    if rec is None:
        return
    mark = episode_file.read_mark(path)
    size = new_size if mark.events_size == old_size else mark.events_size
    episodes = rec.get("episodes") if isinstance(rec.get("episodes"), list) else []
    if size == mark.events_size and not contains(episodes, terms):
        return
    episodes = [scrub(e, terms) for e in episodes]
    episode_file.write(path, session, episode_file.Mark(mark.consolidated_to, size), episodes)


def purge_text_files(project: Any, terms: Terms) -> int:
    """Log lines and fault records that mention a term are removed; returns how many."""
    removed = 0
    logs = [project.log_path, project.log_path + ".1"]
    for path in logs:
        try:
            with open(path, "rb") as f:
                lines = f.read().split(b"\n")
        except FileNotFoundError:
            continue
        keep = [ln for ln in lines if not contains(ln.decode("utf-8", "replace"), terms)]
        if len(keep) != len(lines):
            removed += len(lines) - len(keep)
            write_atomic(path, b"\n".join(keep))
    fdir = os.path.join(project.dir, trigger.FAULTS)
    for name in os.listdir(fdir) if os.path.isdir(fdir) else []:
        path = os.path.join(fdir, name)
        with open(path, "rb") as f:
            if contains(f.read().decode("utf-8", "replace"), terms):
                os.unlink(path)
                removed += 1
    return removed
