"""`engram forget` in the files: JSONL lines, episode files, session state, queued checks,
caches, faults and logs (`dry_run` counts what would change, names the files it would
rewrite or delete, and writes nothing).

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

from engram import jsonio, worker_use, workers
from engram.capture import session_state
from engram.consolidate import episode_file, trigger
from engram.consolidate.worker import ANSWERS, UNUSABLE
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
                  dry_run: bool = False) -> tuple[int, list[str]]:
    """Rewrite one session's JSONL, state and episode file; (the lines replaced, the files
    rewritten). A dry run computes both from a snapshot and writes nothing; a session with
    nothing to change is not locked or written at all."""
    path = project.events_path(session)
    try:
        changes = _session_changes(project, session, read_file(path, MAX_STREAM_BYTES),
                                   session_state.read(project.state_path(session)), terms, seqs)
    except FileNotFoundError:
        return 0, []
    if dry_run or not changes[1]:
        return changes
    lock = workers.lock(trigger.session_lock_path(project, session), lock_timeout)
    if lock is None:
        raise EngramError(f"session {session} is being consolidated for more than {lock_timeout:.0f} s; "
                          "run the command again later")
    try:
        with session_state.Locked(project.state_path(session), path) as st:
            try:
                old = read_file(path, MAX_STREAM_BYTES)
            except FileNotFoundError:
                return 0, []
            changes = _session_changes(project, session, old, dict(st), terms, seqs)
            new, changed = rewrite_lines(old, terms, seqs)
            if changed:
                write_atomic(path, new)
                st["size"] = len(new)
            _scrub_state(st, terms)
            episode = _episode_file(project, session, terms, len(old), len(new))
            if episode is not None:
                episode_file.write(project.episode_path(session), session, *episode)
    finally:
        os.close(lock)
    return changes


def _session_changes(project: Any, session: str, old: bytes, st: dict[str, Any], terms: Terms,
                     seqs: set[int]) -> tuple[int, list[str]]:
    """(lines a purge replaces, files it rewrites) for a session's stream bytes and state."""
    new, changed = rewrite_lines(old, terms, seqs)
    files = [project.events_path(session)] if changed else []
    scrubbed = jsonio.loads(jsonio.dumps(st))  # a deep copy: `st` may be the locked state
    if changed:
        scrubbed["size"] = len(new)
    _scrub_state(scrubbed, terms)
    if scrubbed != st:
        files.append(project.state_path(session))
    if _episode_file(project, session, terms, len(old), len(new)) is not None:
        files.append(project.episode_path(session))
    return changed, files


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


def _episode_file(project: Any, session: str, terms: Terms, old_size: int,
                  new_size: int) -> tuple[episode_file.Mark, list[dict[str, Any]]] | None:
    """The episode file's new (mark, episodes) after a purge, or None when it stays as it is."""
    path = project.episode_path(session)
    rec = episode_file.read(path)
    if rec is None:
        return None
    mark = episode_file.read_mark(path)
    size = new_size if mark.events_size == old_size else mark.events_size
    episodes = rec.get("episodes") if isinstance(rec.get("episodes"), list) else []
    if size == mark.events_size and not contains(episodes, terms):
        return None
    return episode_file.Mark(mark.consolidated_to, size), [scrub(e, terms) for e in episodes]


def purge_text_files(project: Any, terms: Terms, dry_run: bool = False) -> tuple[int, list[str]]:
    """Log lines, fault records, unusable-answer marks, a model's kept answers, queued write
    checks (they hold a diff), the file-to-decision cache, SessionStart's context cache
    (retrieve/start/cache.py) and the worker's record (worker.json) that mention a term are
    removed; (how many, the files rewritten or deleted)."""
    lines_removed, rewritten = 0, []
    for path in (project.log_path, project.log_path + ".1"):
        try:
            lines = read_file(path, MAX_STREAM_BYTES).split(b"\n")
        except FileNotFoundError:
            continue
        keep = [ln for ln in lines if not contains(ln.decode("utf-8", "replace"), terms)]
        if len(keep) != len(lines):
            lines_removed += len(lines) - len(keep)
            rewritten.append(path)
            if not dry_run:
                write_atomic(path, b"\n".join(keep))
    dropped = _drop_files(os.path.join(project.dir, trigger.FAULTS), terms, dry_run)
    dropped += _drop_files(os.path.join(project.dir, UNUSABLE), terms, dry_run)
    dropped += _drop_files(project.home, terms, dry_run, only=(worker_use.FILE,))
    dropped += _drop_files(os.path.join(project.dir, "checks"), terms, dry_run)
    answers = os.path.join(project.dir, ANSWERS)
    for session in sorted(os.listdir(answers)) if os.path.isdir(answers) else []:
        dropped += _drop_files(os.path.join(answers, session), terms, dry_run)
    dropped += _drop_files(project.dir, terms, dry_run, only=("decision_files.json", "session_start.cache"))
    return lines_removed + len(dropped), rewritten + dropped


def _drop_files(folder: str, terms: Terms, dry_run: bool, only: tuple[str, ...] = ()) -> list[str]:
    """Delete the files of `folder` (or just `only`) whose text mentions a term; their paths."""
    removed = []
    for name in only or (sorted(os.listdir(folder)) if os.path.isdir(folder) else []):
        path = os.path.join(folder, name)
        try:
            text = read_file(path, MAX_STREAM_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        try:  # a JSON file's strings, unescaped: "staging\\nbox" holds the words of "staging box"
            value = jsonio.loads(text) if name.endswith((".json", ".cache")) else text
        except ValueError:
            value = text
        if contains(value, terms) or contains(text, terms):
            removed.append(path)
            if not dry_run:
                os.unlink(path)
    return removed
