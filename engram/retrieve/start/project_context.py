"""SessionStart entry points: what the project was doing when this session begins.

Four sources, all read from files (no subprocess, no model):

* the files written in the last few sessions that wrote anything, from the tails of
  their event streams (`events/*.jsonl`, newest first, at most MAX_STREAMS looked at;
  the current session's own stream is skipped);
* the git branch (its words become name terms: "feature/retry-client" -> "retry client")
  and the tracked files changed in the working tree (`engram.retrieve.start.gitstate`);
* a GSD plan when present: `.planning/STATE.md` (GSD v1) and `.gsd/STATE.md` (GSD 2),
  plus a `*-PLAN.md` file that the state file names.

Reading a tail is bounded (TAIL_BYTES per stream), and only lines that mention
`file_write` or `decision` are decoded.
"""

from __future__ import annotations

import os

from engram import jsonio
from engram.fsio import read_regular
from engram.retrieve.start import gitstate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engram.retrieve.entry_points import Terms

RECENT_SESSIONS = 3  # sessions with writes whose files become entry points
MAX_STREAMS = 8  # streams looked at to find them (pure Q&A sessions have no writes)
TAIL_BYTES = 131072
MAX_FILES = 30
PLAN_BYTES = 8192
GSD_STATE_FILES = (".planning/STATE.md", ".gsd/STATE.md")


def recent_streams(events_dir: str, exclude: str | None, n: int = RECENT_SESSIONS) -> list[str]:
    """The n most recently modified event streams other than `exclude` (a session id)."""
    try:
        names = [x for x in os.listdir(events_dir) if x.endswith(".jsonl")]
    except OSError:
        return []
    if exclude:
        names = [x for x in names if x != exclude + ".jsonl"]
    stamped = []
    for name in names:
        path = os.path.join(events_dir, name)
        try:
            stamped.append((os.stat(path).st_mtime_ns, name, path))
        except OSError:
            continue
    stamped.sort(reverse=True)
    return [p for _, _, p in stamped[:n]]


def written_in(path: str) -> list[str]:
    """The distinct files written (and named by decisions) near the end of one event stream,
    newest first. A write of a file already found is not parsed again (a session that
    edits one file a hundred times has a hundred such lines): see `_known_write`."""
    out: list[str] = []
    known: set[bytes] = set()
    for ev in jsonio.tail_objects(path, TAIL_BYTES, (b'"file_write"', b'"decision"'),
                                  skip=lambda raw: _known_write(raw, known)):
        if ev.get("type") == "file_write" and ev.get("ok") and isinstance(ev.get("path"), str):
            found = [ev["path"]]
        elif ev.get("type") == "decision" and isinstance(ev.get("files"), list):
            found = [f for f in ev["files"] if isinstance(f, str)]
        else:
            continue
        for p in found:
            if p not in out:
                out.append(p)
                if p.isascii() and '"' not in p and "\\" not in p:
                    known.add(p.encode())
    return out


_PATH_KEY = b'"path":"'


def _known_write(raw: bytes, known: set[bytes]) -> bool:
    """Whether a line can only name a file already found: no decision in it, one "path" key,
    whose value (plain ASCII, no escapes, as engram's JSON writes a path) is known."""
    if not known or b'"decision"' in raw or raw.count(_PATH_KEY) != 1:
        return False
    start = raw.index(_PATH_KEY) + len(_PATH_KEY)
    end = raw.find(b'"', start)
    return end > 0 and raw[start:end] in known


def recent_files(events_dir: str, session: str | None) -> list[str]:
    """Files written in the last RECENT_SESSIONS sessions that wrote any, newest first, capped."""
    out: list[str] = []
    seen: set[str] = set()
    with_writes = 0
    for stream in recent_streams(events_dir, session, MAX_STREAMS):
        files = [p for p in written_in(stream) if not os.path.isabs(p)]
        if not files:
            continue
        with_writes += 1
        for p in files:
            if p not in seen:
                seen.add(p)
                out.append(p)
                if len(out) >= MAX_FILES:
                    return out
        if with_writes >= RECENT_SESSIONS:
            break
    return out


def _read_head(path: str, root: str, limit: int = PLAN_BYTES) -> str:
    """The head of a file the project holds: a regular file inside `root` (a committed
    symlink to /proc/self/fd/1, a FIFO or /dev/zero reads as nothing)."""
    data = read_regular(path, limit, within=root)
    return data.decode("utf-8", "replace") if data is not None else ""


def gsd_plan_text(root: str) -> str:
    """The GSD state file(s) and the plan file they name, bounded; "" when there is none."""
    parts: list[str] = []
    for rel in GSD_STATE_FILES:
        text = _read_head(os.path.join(root, rel), root)
        if not text:
            continue
        parts.append(text)
        from engram.retrieve.entry_points import STRIP

        for token in text.split():
            token = token.strip(STRIP)
            if token.endswith("-PLAN.md") and "/" in token and ".." not in token:
                plan = _read_head(os.path.join(root, token.lstrip("/")), root)
                if plan:
                    parts.append(plan)
                    break
    return "\n".join(parts)


def session_start_inputs(root: str, events_dir: str, session: str | None) -> dict:
    """What SessionStart's entry points are made of, as plain values: the files the last
    sessions wrote, the working tree's changed files, the branch, the GSD plan's text. The
    context cache (retrieve/start/cache.py) compares them whole."""
    return {"recent_files": recent_files(events_dir, session), "git_changed": gitstate.changed_files(root),
            "branch": gitstate.branch(root), "gsd_plan": gsd_plan_text(root)}


def terms_of(inputs: dict, root: str) -> Terms:
    """The entry-point terms of `session_start_inputs`: the files' paths, the branch's words
    ("feature/retry-client" -> "retry client"), the plan's terms."""
    from engram.retrieve import entry_points

    terms = entry_points.terms_from_paths(inputs["git_changed"] + inputs["recent_files"])
    br = inputs["branch"]
    if br and br not in ("main", "master", "trunk", "develop"):
        terms.names.extend(entry_points.name_terms(" ".join(entry_points.split_ident(br))))
    if inputs["gsd_plan"]:
        terms.add(entry_points.terms_from_text(inputs["gsd_plan"], root))
    return terms


def session_start_terms(root: str, events_dir: str, session: str | None) -> tuple[Terms, dict]:
    """(terms, sources) for SessionStart; `sources` says where each kind came from."""
    inputs = session_start_inputs(root, events_dir, session)
    sources = {"recent_files": len(inputs["recent_files"]), "git_changed": len(inputs["git_changed"]),
               "branch": inputs["branch"], "gsd_plan": bool(inputs["gsd_plan"])}
    return terms_of(inputs, root), sources
