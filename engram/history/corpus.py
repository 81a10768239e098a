"""Transcripts -> sessions: merged across files, grouped by project, oldest first.

A directory may hold transcripts directly (one project's `~/.claude/projects/<dir>`) or in
sub-directories (the shared fixtures, or all of `~/.claude/projects`): every `*.jsonl` /
`*.json` file below it is read, in both layouts `engram.history.transcripts` knows (native JSONL and
the `chat.json` array). Records are deduplicated by `uuid` (a session continued in a
second file repeats its history), grouped by `sessionId`, and ordered by timestamp.
A session belongs to the project engram would file it under: the git top-level of its
first `cwd` (else that cwd), exactly as the live hook decides.

A labelled corpus folder (`load_project`) is read another way: one session a `NN-*` file, in
any format history/formats.py knows, in file-name order, all under the one root its caller names.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

EXTENSIONS = (".jsonl", ".json")
CORPUS_EXTENSIONS = (".jsonl", ".json", ".md")
CLAUDE_PROJECTS = os.path.join("~", ".claude", "projects")


@dataclass
class Session:
    id: str
    start: str  # timestamp of its first record (ISO-8601 sorts as text)
    cwd: str
    records: list[dict] = field(repr=False)
    harness: str = "claude-code"  # whose hook payloads these are: the adapter a replay names
    converted: list[tuple[str, dict]] | None = field(default=None, repr=False)  # a format other than Claude Code's

    def payloads(self, cwd: str | None = None) -> list[tuple[str, dict]]:
        """The hook payloads a live session sent, every `cwd` pinned to the project's and every
        `session_id` to this session's id.

        A session that `cd`s into a sub-directory of a checkout that is not on this
        machine would otherwise land in another project (no `.git` to walk up to).
        """
        from engram.history import transcripts

        where = cwd or self.cwd
        items = self.converted if self.converted is not None else transcripts._session_payloads(self.records)
        return [(event, dict(p, cwd=where, session_id=self.id)) for event, p in items]


@dataclass
class Project:
    root: str
    sessions: list[Session]

    @property
    def name(self) -> str:
        return os.path.basename(self.root.rstrip("/")) or self.root


def shared_transcripts() -> str | None:
    """The shared fixtures folder's transcripts, if present: the folder is $ENGRAM_SHARED, else
    the one named `shared` beside the checkout (the repository itself ships no transcripts)."""
    env = os.environ.get("ENGRAM_SHARED")
    base = Path(env) if env else Path(__file__).resolve().parents[2].parent / "shared"
    path = base / "fixtures" / "transcripts"
    return str(path) if path.is_dir() else None


def claude_dir_names(path: str) -> list[str]:
    """Claude Code's folder names for a project path: "/" -> "-" (and every other
    non-alphanumeric character -> "-", which newer versions do), most literal first."""
    a = path.replace("/", "-")
    b = "".join(c if c.isascii() and c.isalnum() else "-" for c in path)
    return list(dict.fromkeys([a, b]))


def claude_history_dir(project_root: str) -> str | None:
    """`~/.claude/projects/<project path with "/" -> "-">` when it exists."""
    base = os.path.expanduser(CLAUDE_PROJECTS)
    for name in claude_dir_names(project_root):
        path = os.path.join(base, name)
        if os.path.isdir(path):
            return path
    return None


def transcript_files(dirs: list[str]) -> list[str]:
    """Every transcript-like file below the directories (or the files themselves), sorted."""
    out: list[str] = []
    for d in dirs:
        if os.path.isfile(d):
            out.append(os.path.abspath(d))
            continue
        for root, subdirs, files in os.walk(d):
            subdirs.sort()
            out += [os.path.join(root, f) for f in sorted(files) if f.endswith(EXTENSIONS)]
    return list(dict.fromkeys(out))


def _records(files: list[str]) -> Iterator[dict]:
    """Records with a session id, each uuid once, across files."""
    from engram.history import transcripts

    seen: set[str] = set()
    for path in files:
        try:
            recs = transcripts.load_records(path)
        except (OSError, ValueError):
            continue  # not a transcript (or unreadable): nothing to replay
        for rec in recs:
            uid, sid = rec.get("uuid"), rec.get("sessionId")
            if not isinstance(sid, str) or not sid or (uid and uid in seen):
                continue
            if uid:
                seen.add(uid)
            yield rec


def load_sessions(files: list[str]) -> list[Session]:
    """Sessions with a working directory, oldest first (records sorted by timestamp)."""
    groups: dict[str, list[dict]] = {}
    for rec in _records(files):
        groups.setdefault(rec["sessionId"], []).append(rec)
    out = []
    for sid, recs in groups.items():
        recs.sort(key=lambda r: str(r.get("timestamp") or ""))
        cwd = next((r["cwd"] for r in recs if isinstance(r.get("cwd"), str) and r["cwd"]), "")
        if cwd:
            out.append(Session(sid, str(recs[0].get("timestamp") or ""), cwd, recs))
    return sorted(out, key=lambda s: (s.start, s.id))


def by_project(sessions: list[Session]) -> list[Project]:
    """Sessions grouped under engram's project root, each group oldest first."""
    from engram.config import project_root

    groups: dict[str, list[Session]] = {}
    for s in sessions:
        groups.setdefault(project_root(s.cwd), []).append(s)
    return [Project(root, sorted(ss, key=lambda s: (s.start, s.id))) for root, ss in sorted(groups.items())]


def load(dirs: list[str], max_sessions: int | None = None) -> list[Project]:
    """Projects from transcript directories; `max_sessions` keeps each project's latest N."""
    projects = by_project(load_sessions(transcript_files(dirs)))
    if max_sessions:
        for p in projects:
            p.sessions = p.sessions[-max_sessions:]
    return projects


def session_name(file_name: str) -> str:
    """A corpus file's session id: its name without the extension, as `config.safe_name` takes it
    (accents dropped; each run of other characters outside A-Z a-z 0-9 _ . one dash)."""
    from engram.config import safe_name

    stem = unicodedata.normalize("NFKD", os.path.splitext(file_name)[0]).encode("ascii", "ignore").decode()
    return safe_name(re.sub(r"[^A-Za-z0-9_.]+", "-", stem).strip("-.")[:128].strip("-.") or "session")


def load_project(folder: str, root: str) -> Project:
    """A corpus project folder: one session a `NN-*` transcript file (its format sniffed from its
    content), in file-name order, each with its `cwd` pinned to `root`. A file in no known
    format raises ValueError naming it."""
    from engram.history import formats

    sessions = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if re.match(r"\d+-", name) and name.endswith(CORPUS_EXTENSIONS) and os.path.isfile(path):
            sid = session_name(name)
            conv = formats.convert(path, sid)
            sessions.append(Session(sid, conv.start, root, conv.records, conv.harness, conv.payloads))
    return Project(root, sessions)
