"""Periodic maintenance (docs/spec.md, "Periodic maintenance"): graph queries, no LLM calls.

Steps, each its own short write transaction so hooks and workers keep running:
1. decay catch-up and strength recomputation (activity-relative; see decay.py);
2. file check: links to renamed files follow the rename (git history and the working
   tree's staged renames, when the project is a git repository); a node all of whose
   files are gone is superseded (no successor), but only for files this project is known
   to have had (`existed`: written in a consolidated episode, in the git index or
   history, or read or written in the event stream) and deleted since: a decision about
   a file not written yet (`engram decide ... --files jobs/queue.py`) is never retired.
   Episode nodes are history and are left alone. When most linked files are missing at
   once (another branch checked out, a moved checkout) nothing is superseded and a
   warning says why;
3. cross-episode pattern scan (after the file check, so it sees the surviving graph): a
   node with 3+ edges of one type in one direction gets one `pattern` node, linked to it
   by an `interacts_with` edge (the spec's (docs/spec.md) edge types have no "generalises";
   interacts_with is its generic association). The pattern's id is derived from
   (node, edge type, direction), so the next run updates it instead of duplicating it.
   Edges touching pattern nodes, and lineage edges (supersedes, version_of), never count,
   and edges that all come from one single episode are not a cross-episode pattern;
4. embeddings for new pattern nodes, and removal of vectors of deleted nodes.

Everything is idempotent: a second run reports zero changes.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from engram import workers
from engram.graph import store
from engram.graph import decay
from engram.graph.supersession import supersede

PATTERN_MIN_EDGES = 3
MASS_MISSING_SHARE = 0.5  # above this share of missing files (and > 10), supersede nothing
_SKIP_FILE_TYPES = ("episode", "pattern")
GIT_TIMEOUT = 60.0  # seconds for one git command, its output read included

Progress = Callable[[str], None]


@dataclass
class MaintainReport:
    sessions_counted: int = 0
    strength_changed: int = 0
    patterns_created: int = 0
    patterns_updated: int = 0
    files_checked: int = 0
    links_renamed: int = 0
    nodes_superseded: int = 0
    nodes_unseen: int = 0  # every file missing, but never seen in this project: kept
    embedded: int = 0
    vectors_purged: int = 0
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)

    def changes(self) -> int:
        return (
            self.sessions_counted + self.strength_changed + self.patterns_created + self.patterns_updated
            + self.links_renamed + self.nodes_superseded + self.embedded + self.vectors_purged
        )  # fmt: skip

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def maintain(
    conn: Any,
    *,
    root: str | None,
    embedder: Any = None,
    dry_run: bool = False,
    progress: Progress | None = None,
    events_dir: str | None = None,
) -> MaintainReport:
    """Run every maintenance step on one project's database and report what changed.

    `events_dir` (the project's `events/`) is where files seen only in the event stream
    are looked up.

    `dry_run` runs the same steps inside one transaction and rolls it back (embeddings,
    which may need the network, are skipped).
    """
    say = progress or (lambda _msg: None)
    report = MaintainReport()
    start = time.monotonic()
    if dry_run:
        conn.execute("BEGIN IMMEDIATE")
    try:
        say("strength")
        report.sessions_counted, changed = decay.catch_up_decay(conn)
        report.strength_changed = changed + decay.recompute(conn)
        say("files")
        check_files(conn, root, report, events_dir)
        say("patterns")
        report.patterns_created, report.patterns_updated = pattern_scan(conn)
        if not dry_run:
            say("embeddings")
            _embeddings(conn, embedder, report)
    finally:
        if dry_run and conn.in_transaction:
            conn.execute("ROLLBACK")
    report.seconds = time.monotonic() - start
    return report


# -- patterns -------------------------------------------------------------------------


_GROUPS_SQL = """
    WITH live AS MATERIALIZED (SELECT id FROM nodes WHERE status = 'active' AND type != 'pattern'),
    e AS MATERIALIZED (
        -- unary +: scan edges once; never let the planner drive edges_from_node per pair of
        -- live ids (it did, and went quadratic)
        SELECT from_node, to_node, type, strength, source_episodes FROM edges
        WHERE type NOT IN ('supersedes', 'version_of') AND +from_node IN live AND +to_node IN live
    ),
    sides AS (
        SELECT from_node AS hub, type, 'out' AS dir, to_node AS other, strength, source_episodes FROM e
        UNION ALL
        SELECT to_node, type, 'in', from_node, strength, source_episodes FROM e
    )
    SELECT hub, type, dir, group_concat(other, char(31)), avg(strength), group_concat(source_episodes, char(30))
    FROM sides GROUP BY hub, type, dir HAVING count(*) >= ?
"""


def _pattern_groups(conn: Any) -> list[tuple[str, str, str, list[str], list[str], float]]:
    """[(hub, edge type, "out"|"in", member ids, episode ids, mean edge strength)], grouped in SQL."""
    from engram import jsonio

    out = []
    for hub, etype, direction, others, mean, episodes_raw in conn.execute(_GROUPS_SQL, (PATTERN_MIN_EDGES,)):
        episodes = {ep for raw in (episodes_raw or "").split("\x1e") if raw for ep in jsonio.loads(raw)}
        if len(episodes) == 1:
            continue  # all seen in one episode: not a cross-episode pattern
        out.append((hub, etype, direction, sorted(set(others.split("\x1f"))), sorted(episodes), mean))
    return sorted(out)


def pattern_id(hub: str, edge_type: str, direction: str) -> str:
    from engram.hashing import sha256_hex

    return "p_" + sha256_hex(f"{hub}|{edge_type}|{direction}")[:16]


_PHRASES = {"out": "{hub} {verb} {n} nodes", "in": "{n} nodes {verb} {hub}"}


def _pattern_fields(conn: Any, hub: str, etype: str, direction: str, members: list[str],
                    episodes: list[str], outcomes: dict[str, str]) -> dict[str, Any]:  # fmt: skip
    names = dict(conn.execute(
        "SELECT id, name FROM nodes WHERE id IN (%s)" % ",".join("?" * len(members[:8] + [hub])), members[:8] + [hub]
    ).fetchall())  # fmt: skip
    verb = etype.replace("_", " ")
    head = _PHRASES[direction].format(hub=names.get(hub, hub), verb=verb, n=len(members))
    listed = ", ".join(names.get(m, m) for m in members[:8]) + (", ..." if len(members) > 8 else "")
    judged = [outcomes[e] for e in episodes if e in outcomes]
    return {
        "name": f"Pattern: {names.get(hub, hub)} / {verb} ({direction})",
        "summary": head,
        "description": f"Recurring across episodes: {head}: {listed}.",
        "episode_count": len(episodes),
        "outcome_total": len(judged),
        "outcome_success": judged.count("success"),
        "causal": etype in ("caused_by", "resolved_by"),
        "source_episodes": episodes,
    }


def pattern_scan(conn: Any) -> tuple[int, int]:
    """Create or refresh one pattern node per qualifying (node, edge type, direction).

    Returns (created, updated); (0, 0) when nothing changed since the last run. A group
    whose member set is unchanged is skipped before any text is built.
    """
    from engram import jsonio

    created = updated = 0
    with store.transaction(conn):
        existing = dict(conn.execute("SELECT id, data FROM nodes WHERE type = 'pattern'").fetchall())
        outcomes = dict(conn.execute("SELECT id, outcome FROM episodes").fetchall())
        new_nodes: list[dict[str, Any]] = []
        new_edges: list[dict[str, Any]] = []
        touched: list[str] = []
        for hub, etype, direction, members, episodes, mean in _pattern_groups(conn):
            key = {"hub": hub, "edge_type": etype, "direction": direction, "members": members}
            pid = pattern_id(hub, etype, direction)
            if pid in existing and jsonio.loads(existing[pid]).get("pattern") == key:
                continue
            fields = _pattern_fields(conn, hub, etype, direction, members, episodes, outcomes)
            if not episodes:  # asserted knowledge keeps the mean strength of its edges
                fields["strength"] = mean
            if pid not in existing:
                new_nodes.append({"id": pid, "type": "pattern", "data": {"pattern": key}, **fields})
                new_edges.append({"from_node": pid, "to_node": hub, "type": "interacts_with", "strength": mean})
                created += 1
            else:
                store.update_node(conn, pid, data={"pattern": key}, **fields)
                updated += 1
            touched.append(pid)
        store.insert_nodes(conn, new_nodes)
        store.insert_edges(conn, new_edges)
        decay.recompute(conn, touched)
    return created, updated


# -- files ----------------------------------------------------------------------------


def _git(cmd: list[str]) -> str | None:
    """A git command's stdout; None when git cannot run or gives no whole answer in time (a
    partial listing would make files that exist look gone)."""
    try:
        done = workers.run_child(cmd, timeout=GIT_TIMEOUT)
    except OSError:
        return None
    return None if done.timed_out else done.text()[0]


def git_renames(root: str) -> dict[str, str]:
    """{old path: new path} from git history (oldest first) and staged renames; {} if not git."""
    if not os.path.exists(os.path.join(root, ".git")):
        return {}
    renames: dict[str, str] = {}
    cmds = (
        ["git", "-C", root, "log", "--reverse", "--name-status", "-M", "--diff-filter=R", "--format="],
        ["git", "-C", root, "diff", "--cached", "--name-status", "-M", "--diff-filter=R"],
    )
    for cmd in cmds:
        out = _git(cmd)
        if out is None:
            return renames
        for line in out.splitlines():
            parts = line.split("\t")
            if len(parts) == 3 and parts[0].startswith("R"):
                renames[parts[1]] = parts[2]
    return renames


def _follow(path: str, renames: dict[str, str], exists: Callable[[str], bool]) -> str | None:
    seen = {path}
    while path in renames:
        path = renames[path]
        if path in seen:
            return None  # a rename cycle (a -> b -> a): treat as deleted
        seen.add(path)
    return path if exists(path) else None


def git_known(root: str, paths: list[str]) -> set[str]:
    """The paths, among these, that the git index or any commit of the history holds."""
    if not paths or not os.path.exists(os.path.join(root, ".git")):
        return set()
    out: set[str] = set()
    for i in range(0, len(paths), 200):
        spec = ["--", *paths[i : i + 200]]
        for cmd in (["git", "-C", root, "ls-files", "-z", *spec],
                    ["git", "-C", root, "log", "--all", "--format=", "--name-only", "-z", *spec]):
            listed = _git(cmd)
            if listed is None:
                return out
            out.update(p.strip() for p in listed.split("\0") if p.strip())
    return out & set(paths)


def _in_events(events_dir: str | None, paths: set[str]) -> set[str]:
    """The paths, among these, that some session read or wrote (events/*.jsonl)."""
    from engram.jsonio import read_jsonl

    if not events_dir or not os.path.isdir(events_dir) or not paths:
        return set()
    out: set[str] = set()
    for name in sorted(os.listdir(events_dir)):
        if name.endswith(".jsonl"):
            events, _, _ = read_jsonl(os.path.join(events_dir, name))
            out.update(e["path"] for e in events if isinstance(e, dict) and e.get("path") in paths
                       and e.get("type") in ("file_read", "file_write") and e.get("ok", True))
    return out


def existed(conn: Any, root: str, events_dir: str | None, paths: set[str]) -> set[str]:
    """The paths, among these, this project is known to have had (cheapest evidence first)."""
    known = store.paths_written(conn, sorted(paths))
    known |= git_known(root, sorted(paths - known))
    return known | _in_events(events_dir, paths - known)


def check_files(conn: Any, root: str | None, report: MaintainReport, events_dir: str | None = None) -> None:
    """Follow renames, then supersede nodes whose every linked file existed and is gone."""
    if not root or not os.path.isdir(root):
        report.warnings.append(f"project root {root!r} is not a directory; file check skipped")
        return
    exists = lambda p: os.path.exists(p if os.path.isabs(p) else os.path.join(root, p))  # noqa: E731
    skip = ",".join(f"'{t}'" for t in _SKIP_FILE_TYPES)
    links = conn.execute(
        "SELECT f.node_id, f.path FROM node_files f JOIN nodes n ON n.id = f.node_id"
        f" WHERE n.status = 'active' AND n.type NOT IN ({skip})"
    ).fetchall()
    paths = {p for _, p in links}
    missing = {p for p in paths if not exists(p)}
    report.files_checked = len(paths)
    if not missing:
        return
    if len(missing) > 10 and len(missing) > MASS_MISSING_SHARE * len(paths):
        report.warnings.append(
            f"{len(missing)} of {len(paths)} linked files are missing under {root}; is another "
            "branch checked out? nothing superseded"
        )
        return
    renames = git_renames(root)
    moved = {p: _follow(p, renames, exists) for p in missing}
    gone_by_node: dict[str, list[str]] = {}
    files_by_node: dict[str, int] = {}
    for node_id, path in links:
        files_by_node[node_id] = files_by_node.get(node_id, 0) + 1
        if path in missing and moved[path] is None:
            gone_by_node.setdefault(node_id, []).append(path)
    seen = existed(conn, root, events_dir, {p for gone in gone_by_node.values() for p in gone})
    with store.transaction(conn):
        for node_id, path in links:
            if path in missing and moved[path] is not None:
                store.replace_file(conn, node_id, path, moved[path])
                report.links_renamed += 1
        for node_id, gone in sorted(gone_by_node.items()):
            if len(gone) < files_by_node[node_id]:
                continue
            if not set(gone) <= seen:
                report.nodes_unseen += 1
                continue
            supersede(conn, node_id, None, reason="affected files no longer exist: " + ", ".join(sorted(gone)))
            report.nodes_superseded += 1


# -- embeddings -------------------------------------------------------------------------


def _embeddings(conn: Any, embedder: Any, report: MaintainReport) -> None:
    from engram.graph import embeddings

    report.vectors_purged = embeddings.purge_orphans(conn)
    if embedder is None:
        return
    try:
        report.embedded = embeddings.sync(conn, embedder)
    except Exception as exc:  # network or vector trouble: the graph work above still stands
        report.warnings.append(f"embeddings not updated: {exc}")
