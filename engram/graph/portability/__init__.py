"""`engram export` / `engram import`: a project as plain files, and back.

An export is a directory:

    manifest.json            format, version, project root and name, counts
    events/<session>.jsonl   the event streams, byte for byte (complete lines only)
    episodes/<s>.episode.json
    graph.json               every row of the graph tables, JSON columns decoded
    graph.graphml            nodes and edges for graph tools (Gephi, networkx, yEd)

`graph.json` is what import reads; GraphML is for looking. Vectors are not exported: they
are derived from node text and re-embedded on import by whatever embedder the importing
machine has. Import refuses to overwrite: into a project that already has any of the
exported sessions or nodes it stops, unless `merge` is set (then existing rows and
sessions are kept and only new ones are added).
"""

from __future__ import annotations

import os
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from engram import jsonio
from engram.errors import EngramError
from engram.fsio import private_dir, write_atomic
from engram.graph.portability import export_files

FORMAT = "engram-export"
VERSION = 1
# table -> columns holding JSON text (decoded in graph.json, encoded again on import)
TABLES: dict[str, tuple[str, ...]] = {
    "nodes": ("affected_files", "source_episodes", "data"),
    "edges": ("source_episodes", "data"),
    "episodes": ("episode_data",),
    "consolidations": (),
    "decay_sessions": (),
    "tombstones": (),
    # what each item earned, its pin and evidence, and its curation log (docs/curation.md)
    "injections": (),
    "item_state": ("evidence",),
    "session_payoff": (),
    "curation_log": ("detail",),
    "passages": (),  # the agent's turn-final replies (retrieve/replies.py)
}
GRAPHML_NODE = ("name", "type", "description", "summary", "strength", "status", "affected_files", "created_at")
GRAPHML_EDGE = ("type", "strength", "created_at")


class ImportConflict(EngramError):
    """The target project already holds sessions or nodes of the export."""


# -- export ----------------------------------------------------------------------------------


def _tables(conn: Any) -> list[str]:
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return [t for t in TABLES if t in have]


def dump_graph(conn: Any) -> dict[str, list[dict[str, Any]]]:
    """{table: rows} with JSON columns decoded, in a stable order (rowid)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for table in _tables(conn):
        cur = conn.execute(f"SELECT * FROM {table} ORDER BY rowid" if table in ("nodes", "edges", "episodes")
                           else f"SELECT * FROM {table} ORDER BY 1, 2")
        cols = [d[0] for d in cur.description]
        rows = []
        for r in cur.fetchall():
            row = dict(zip(cols, r))
            for c in TABLES[table]:
                if isinstance(row.get(c), str):
                    try:
                        row[c] = jsonio.loads(row[c])
                    except ValueError:
                        pass
            rows.append(row)
        out[table] = rows
    return out


def graphml(graph: dict[str, list[dict[str, Any]]]) -> str:
    """GraphML 1.0 with the node and edge attributes a graph tool can show."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">']
    for k in GRAPHML_NODE:
        kind = "double" if k == "strength" else "string"
        lines.append(f'  <key id="n_{k}" for="node" attr.name="{k}" attr.type="{kind}"/>')
    for k in GRAPHML_EDGE:
        kind = "double" if k == "strength" else "string"
        lines.append(f'  <key id="e_{k}" for="edge" attr.name="{k}" attr.type="{kind}"/>')
    lines.append('  <graph id="engram" edgedefault="directed">')
    for n in graph.get("nodes", []):
        lines.append(f"    <node id={quoteattr(n['id'])}>")
        for k in GRAPHML_NODE:
            v = n.get(k)
            v = jsonio.dumps(v) if isinstance(v, (list, dict)) else v
            lines.append(f'      <data key="n_{k}">{escape(str(v if v is not None else ""))}</data>')
        lines.append("    </node>")
    for e in graph.get("edges", []):
        lines.append(f"    <edge id={quoteattr(e['id'])} source={quoteattr(e['from_node'])} target={quoteattr(e['to_node'])}>")
        for k in GRAPHML_EDGE:
            lines.append(f'      <data key="e_{k}">{escape(str(e.get(k, "")))}</data>')
        lines.append("    </edge>")
    lines += ["  </graph>", "</graphml>", ""]
    return "\n".join(lines)


def _read(path: str) -> bytes:
    from engram.fsio import NotRegular, read_file

    try:
        return read_file(path, export_files.MAX_FILE_BYTES)
    except NotRegular:
        raise EngramError(f"{path} is not a regular file; remove it (`engram doctor` lists such files)") from None


def _complete_lines(path: str) -> bytes:
    """An event stream minus a torn last line (a hook may be appending right now)."""
    data = _read(path)
    return data[: data.rfind(b"\n") + 1]


def export_project(project: Any, out_dir: str) -> dict[str, int]:
    """Write the export directory (must not exist or be empty); return counts."""
    from engram.graph.connect import connect

    if os.path.exists(out_dir) and os.listdir(out_dir):
        raise EngramError(f"{out_dir} exists and is not empty; choose a new directory")
    private_dir(out_dir)  # an export holds every session: private like ENGRAM_HOME
    os.chmod(out_dir, 0o700)
    for sub in ("events", "episodes"):
        private_dir(os.path.join(out_dir, sub))
    counts = {"sessions": 0, "episode_files": 0}
    for sub, suffix, key in (("events", ".jsonl", "sessions"), ("episodes", ".episode.json", "episode_files")):
        src = os.path.join(project.dir, sub)
        for name in sorted(os.listdir(src)) if os.path.isdir(src) else []:
            if name.endswith(suffix):
                data = _complete_lines(os.path.join(src, name)) if sub == "events" else _read(os.path.join(src, name))
                write_atomic(os.path.join(out_dir, sub, name), data)
                counts[key] += 1
    graph: dict[str, list[dict[str, Any]]] = {t: [] for t in TABLES}
    if os.path.exists(project.db_path):
        conn = connect(project.db_path, vectors=False)
        try:
            graph.update(dump_graph(conn))
        finally:
            conn.close()
    counts.update({t: len(rows) for t, rows in graph.items()})
    write_atomic(os.path.join(out_dir, "graph.json"), jsonio.dumps(graph).encode())
    write_atomic(os.path.join(out_dir, "graph.graphml"), graphml(graph).encode())
    manifest = {"format": FORMAT, "version": VERSION, "project": {"root": project.root, "name": os.path.basename(project.root)},
                "created_at": _now(), "counts": counts}
    write_atomic(os.path.join(out_dir, "manifest.json"), jsonio.dumps(manifest).encode())
    return counts


def _now() -> str:
    from engram.graph.store import now

    return now()


# -- import ----------------------------------------------------------------------------------


def read_export(src: str) -> export_files.Export:
    """An export, every file of it read and checked (engram.graph.portability.export_files)."""
    export = export_files.read(src, TABLES)
    version = export.manifest.get("version", 0)
    if not isinstance(version, int) or version > VERSION:
        raise EngramError(f"{src} was exported by a newer engram (format {version!r}); upgrade engram")
    return export


def _conflicts(project: Any, conn: Any, export: export_files.Export) -> list[str]:
    out = [f"session {name[: -len('.jsonl')]}" for name in export.files["events"]
           if os.path.exists(os.path.join(project.dir, "events", name))]
    ids = [n["id"] for n in export.graph.get("nodes", [])]
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        q = "SELECT id FROM nodes WHERE id IN (%s)" % ",".join("?" * len(chunk))
        out += [f"node {r[0]}" for r in conn.execute(q, chunk)]
    return out


def _insert_rows(conn: Any, table: str, rows: list[dict[str, Any]]) -> int:
    have = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
    n = 0
    for row in rows:
        cols = [c for c in row if c in have]
        vals = [jsonio.dumps(row[c]) if c in TABLES[table] and not isinstance(row[c], str) else row[c] for c in cols]
        cur = conn.execute(f"INSERT OR IGNORE INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", vals)
        n += cur.rowcount
    return n


def import_project(project: Any, src: str, *, merge: bool = False, embedder: Any = None) -> dict[str, int]:
    """Load an export into `project` (the target root's data dir); return counts added.

    All or nothing: the export is read and checked whole first; its files are staged next
    to their places, the graph rows committed in one transaction, and only then the staged
    files renamed into place (a failure before that removes them, and the graph is untouched).
    `embedder` (the caller's choice, engram.providers) recomputes the imported nodes'
    vectors; without one they are left for the next consolidation's sync.
    """
    from engram.graph import store as g
    from engram.graph.connect import connect

    export = read_export(src)
    project.ensure()
    conn = connect(project.db_path)
    try:
        conflicts = _conflicts(project, conn, export)
        if conflicts and not merge:
            raise ImportConflict(f"{project.dir} already holds {len(conflicts)} item(s) of this export "
                                 f"({', '.join(conflicts[:3])}...); use --merge to add only what is new")
        kept = {c.split(" ", 1)[1] for c in conflicts if c.startswith("session ")}
        staged = _stage_files(project, export)
        try:
            counts: dict[str, int] = {}
            with g.transaction(conn):
                for table in _tables(conn):
                    rows = export.graph.get(table, [])
                    if table == "consolidations":  # a kept local session is consolidated from its own events
                        rows = [r for r in rows if r.get("session_id") not in kept]
                    counts[table] = _insert_rows(conn, table, rows)
                conn.execute("INSERT OR IGNORE INTO node_files (node_id, path) SELECT n.id, j.value FROM nodes n, "
                             "json_each(n.affected_files) j WHERE json_valid(n.affected_files) AND j.type = 'text'")
        except BaseException:
            _unstage(staged)
            raise
        counts.update(_publish(staged))
        if embedder is not None:
            _embed(conn, embedder)
    finally:
        conn.close()
    return counts


def _stage_files(project: Any, export: export_files.Export) -> list[tuple[str, str, str]]:
    """Each export file not already present, written beside its place: [(sub, temp, dest)]."""
    staged: list[tuple[str, str, str]] = []
    try:
        for sub, files in export.files.items():
            private_dir(os.path.join(project.dir, sub))
            for name, data in files.items():
                dest = os.path.join(project.dir, sub, name)
                if os.path.lexists(dest):
                    continue  # never over an existing session's file
                tmp = f"{dest}.import.{os.getpid()}"
                write_atomic(tmp, data)
                staged.append((sub, tmp, dest))
    except BaseException:
        _unstage(staged)
        raise
    return staged


def _unstage(staged: list[tuple[str, str, str]]) -> None:
    for _, tmp, _ in staged:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _publish(staged: list[tuple[str, str, str]]) -> dict[str, int]:
    counts = {"sessions": 0, "episode_files": 0}
    for sub, tmp, dest in staged:
        os.replace(tmp, dest)
        counts["sessions" if sub == "events" else "episode_files"] += 1
    return counts


def _embed(conn: Any, embedder: Any) -> None:
    """Vectors for the imported nodes, by this machine's embedder."""
    from engram.graph import embeddings
    from engram.graph.vectors import cached

    try:
        embeddings.sync(conn, cached(embedder, conn))
    except Exception as exc:  # the next consolidation embeds whatever is still stale
        from engram.log import log

        log(None, "import", f"embedding deferred: {exc}", "WARN")
