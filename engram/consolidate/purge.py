"""`engram forget` in the files: JSONL lines, episode files, session state, queued checks,
caches, faults and logs (`dry_run` counts what would change and writes nothing).

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
from engram.fsio import read_file, write_atomic
from engram.graph.privacy import Terms, contains, scrub

STUB_KEYS = ("ts", "session", "seq", "turn")
MAX_STREAM_BYTES = 1 << 31


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


def purge_session(project: Any, session: str, terms: Terms, seqs: set[int], lock_timeout: float = 60,
                  dry_run: bool = False) -> int:
    """Rewrite one session's JSONL, state and episode file; return the lines replaced."""
    path = project.events_path(session)
    if dry_run:
        try:
            return rewrite_lines(read_file(path, MAX_STREAM_BYTES), terms, seqs)[1]
        except FileNotFoundError:
            return 0
    lock = workers.lock(trigger.session_lock_path(project, session), lock_timeout)
    if lock is None:
        raise EngramError(f"session {session} is being consolidated for more than {lock_timeout:.0f} s; "
                          "run the command again later")
    try:
        locked = session_state.Locked(project.state_path(session), path)
        with locked as st:
            try:
                old = read_file(path, MAX_STREAM_BYTES)
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


def purge_text_files(project: Any, terms: Terms, dry_run: bool = False) -> int:
    """Log lines, fault records, queued write checks (they hold a diff) and the file-to-decision
    cache that mention a term are removed; returns how many."""
    removed = 0
    for path in (project.log_path, project.log_path + ".1"):
        try:
            lines = read_file(path, MAX_STREAM_BYTES).split(b"\n")
        except FileNotFoundError:
            continue
        keep = [ln for ln in lines if not contains(ln.decode("utf-8", "replace"), terms)]
        if len(keep) != len(lines):
            removed += len(lines) - len(keep)
            if not dry_run:
                write_atomic(path, b"\n".join(keep))
    for sub in (trigger.FAULTS, "checks"):
        removed += _drop_files(os.path.join(project.dir, sub), terms, dry_run)
    removed += _drop_files(project.dir, terms, dry_run, only=("decision_files.json",))
    return removed


def _drop_files(folder: str, terms: Terms, dry_run: bool, only: tuple[str, ...] = ()) -> int:
    """Delete the files of `folder` (or just `only`) whose text mentions a term."""
    removed = 0
    for name in only or (sorted(os.listdir(folder)) if os.path.isdir(folder) else []):
        path = os.path.join(folder, name)
        try:
            text = read_file(path, MAX_STREAM_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        try:  # a JSON file's strings, unescaped: "staging\\nbox" holds the words of "staging box"
            value = jsonio.loads(text) if name.endswith(".json") else text
        except ValueError:
            value = text
        if contains(value, terms) or contains(text, terms):
            removed += 1
            if not dry_run:
                os.unlink(path)
    return removed
