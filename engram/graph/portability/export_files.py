"""An export directory, read and checked in full before `engram import` writes anything.

An export is a directory a person hands engram: it can hold a symlink (to /etc/passwd), a
FIFO or /dev/zero, a file that is not an event stream, a name that is not a session id
(which would later break crash recovery for the whole project), a directory where a stream
should be. Each is refused here, naming the path, before the graph transaction starts: an
import changes everything or nothing (engram.graph.portability).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from typing import Any

from engram import jsonio
from engram.errors import EngramError, UnsafeIdentifier

MAX_FILE_BYTES = 1 << 30
SUBDIRS = {"events": ".jsonl", "episodes": ".episode.json"}
# columns every row of a table must hold, with their type
REQUIRED: dict[str, dict[str, type]] = {
    "nodes": {"id": str, "name": str, "type": str},
    "edges": {"id": str, "from_node": str, "to_node": str, "type": str},
    "episodes": {"id": str, "session_id": str},
    "consolidations": {"session_id": str, "from_seq": int, "to_seq": int},
    "decay_sessions": {},
    "tombstones": {"key": str},
}


class BadExport(EngramError):
    """The directory is not an export engram can load; the message names the file."""


@dataclass
class Export:
    manifest: dict[str, Any]
    graph: dict[str, list[dict[str, Any]]]
    files: dict[str, dict[str, bytes]] = field(default_factory=dict)  # "events" -> {name: content}


def read(src: str, tables: dict[str, tuple[str, ...]]) -> Export:
    """The whole export, validated; raises BadExport naming the first problem."""
    if not os.path.isdir(src):
        raise BadExport(f"{src} is not a directory; pass the directory `engram export` wrote")
    manifest = _json(os.path.join(src, "manifest.json"), "an engram export manifest")
    graph = _json(os.path.join(src, "graph.json"), "an engram graph dump")
    if manifest.get("format") != "engram-export":
        raise BadExport(f"{src}/manifest.json is not an engram export manifest")
    _check_graph(src, graph, tables)
    return Export(manifest, graph, {sub: _entries(src, sub, suffix) for sub, suffix in SUBDIRS.items()})


def _read(path: str) -> bytes:
    from engram.fsio import NotRegular, read_file

    try:
        data = read_file(path, MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise BadExport(f"{path} is missing; an export holds manifest.json, graph.json, events/, episodes/") from None
    except NotRegular:
        raise BadExport(f"{path} is not a regular file (a symlink, FIFO, device or directory); "
                        "an export holds plain files only") from None
    except OSError as exc:
        raise BadExport(f"{path}: cannot read ({exc.strerror})") from None
    if len(data) > MAX_FILE_BYTES:
        raise BadExport(f"{path} is larger than {MAX_FILE_BYTES} bytes")
    return data


def _json(path: str, what: str) -> dict[str, Any]:
    try:
        obj = jsonio.loads(_read(path).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadExport(f"{path} is not {what} ({exc})") from None
    if not isinstance(obj, dict):
        raise BadExport(f"{path} is not {what} (not a JSON object)")
    return obj


def _entries(src: str, sub: str, suffix: str) -> dict[str, bytes]:
    """{name: content} of events/ or episodes/: regular files with valid names and content only."""
    from engram.config import safe_name

    folder = os.path.join(src, sub)
    try:
        mode = os.lstat(folder).st_mode
    except FileNotFoundError:
        return {}
    if not stat.S_ISDIR(mode):
        raise BadExport(f"{folder} is not a directory")
    out = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        try:
            safe_name(name[: -len(suffix)] if name.endswith(suffix) else "", f"{sub} file name")
        except UnsafeIdentifier:
            raise BadExport(f"{path}: not a {sub} file (<session id>{suffix}, the id of letters, digits, - _ .)") from None
        data = _read(path)
        (_check_stream if sub == "events" else _check_episode)(path, data)
        out[name] = data
    return out


def _check_stream(path: str, data: bytes) -> None:
    """Complete lines, each a JSON object with an integer seq and a type."""
    if data and not data.endswith(b"\n"):
        raise BadExport(f"{path} ends in a torn line; exports hold complete lines only")
    for n, raw in enumerate(data.split(b"\n")[:-1], 1):
        try:
            ev = jsonio.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise BadExport(f"{path}:{n} is not a JSON line; not an engram event stream") from None
        if not (isinstance(ev, dict) and isinstance(ev.get("seq"), int) and isinstance(ev.get("type"), str)):
            raise BadExport(f"{path}:{n} is not an engram event (no integer seq and type)")


def _check_episode(path: str, data: bytes) -> None:
    try:
        rec = jsonio.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise BadExport(f"{path} is not JSON; not an engram episode file") from None
    if not (isinstance(rec, dict) and isinstance(rec.get("mark"), dict) and isinstance(rec.get("episodes"), list)):
        raise BadExport(f"{path} is not an engram episode file (no mark and episodes)")


def _check_graph(src: str, graph: dict[str, Any], tables: dict[str, tuple[str, ...]]) -> None:
    for table, rows in graph.items():
        if table not in tables:
            raise BadExport(f"{src}/graph.json holds an unknown table {table!r}")
        if not isinstance(rows, list):
            raise BadExport(f"{src}/graph.json: {table} is not a list of rows")
        for i, row in enumerate(rows):
            if not isinstance(row, dict):
                raise BadExport(f"{src}/graph.json: {table}[{i}] is not an object")
            for col, kind in REQUIRED.get(table, {}).items():
                if not isinstance(row.get(col), kind) or isinstance(row.get(col), bool):
                    raise BadExport(f"{src}/graph.json: {table}[{i}].{col} must be {kind.__name__}")
