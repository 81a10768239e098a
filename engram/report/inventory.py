"""What `engram status` and `engram show` report, as plain data (the commands format it).

Reads only: databases are opened with the standard library in read-only mode, so
inspecting never migrates, creates or locks anything a hook or worker needs.
"""

from __future__ import annotations

import os
from typing import Any

from engram.config import Project, all_projects, project_root
from engram.errors import EngramError


def resolve_project(spec: str | None) -> Project:
    """A project from `--project DIR` (a project root, or a data dir holding project.json),
    else from the current directory."""
    path = os.path.abspath(spec or os.getcwd())
    if os.path.isfile(os.path.join(path, "project.json")):
        return Project.from_dir(path)
    if spec and not os.path.isdir(path):
        raise EngramError(f"--project {spec}: no such directory")
    return Project(project_root(path))


def select_projects(spec: str | None) -> list[Project]:
    """`--project DIR` → that project; otherwise every project under ENGRAM_HOME."""
    return [resolve_project(spec)] if spec else all_projects()


def db_bytes(path: str) -> int:
    """The database with its WAL and shared-memory files (what the disk actually holds)."""
    total = 0
    for suffix in ("", "-wal", "-shm"):
        try:
            total += os.path.getsize(path + suffix)
        except OSError:
            pass
    return total


def _sessions(project: Project) -> int:
    try:
        return sum(1 for n in os.listdir(os.path.join(project.dir, "events")) if n.endswith(".jsonl"))
    except OSError:
        return 0


def project_status(project: Project) -> dict[str, Any]:
    """Sessions, graph counts, database size, schema and embedding state of one project."""
    from engram.graph import store
    from engram.graph.readonly import open_ro
    from engram.graph.migrations import applied, sections

    out: dict[str, Any] = {
        "id": project.id,
        "root": project.root,
        "name": os.path.basename(project.root) or project.root,
        "dir": project.dir,
        "sessions": _sessions(project),
        "db": {"path": project.db_path, "exists": os.path.exists(project.db_path), "bytes": db_bytes(project.db_path)},
    }
    from engram.consolidate.trigger import lost_in_graph

    try:
        lost = lost_in_graph(project)
    except Exception as exc:  # a database that cannot be read is reported below
        lost, out["error"] = [], f"{project.db_path}: {exc}"
    if lost:  # damage is loud: the episode files claim more than the graph holds
        out["lost_sessions"] = lost
        out["error"] = (f"{project.db_path} is missing, empty or replaced: {len(lost)} consolidated session(s) are not "
                        "in it; `engram consolidate --all` rebuilds them from the event streams")
    conn = open_ro(project.db_path) if "error" not in out else None
    if conn is None:
        return out
    try:
        done = applied(conn)
        out["db"]["schema_version"] = len(done)
        out["db"]["pending_migrations"] = [n for n, _ in sections() if n not in done]
        out.update(store.counts(conn))
        out["embeddings"] = _embedding_state(conn)
        out["payoff"] = payoff(conn)
    except Exception as exc:  # a corrupt or foreign file: report it, keep going
        out["error"] = f"{project.db_path}: {exc}"
    finally:
        conn.close()
    return out


PAYOFF_SESSIONS = 20  # `engram status`'s payoff: the last sessions that were shown anything


def payoff(conn: Any) -> dict[str, int]:
    """{"sessions", "injected", "used", "words"} over the last PAYOFF_SESSIONS sessions (docs/curation.md)."""
    from engram.graph import items

    return items.payoff(conn, PAYOFF_SESSIONS)


def payoff_line(p: dict[str, int]) -> str:
    """The payoff in one line, as `engram status` and the demo print it."""
    if not p.get("sessions"):
        return "payoff: nothing injected yet (or not consolidated yet)"
    rate = f" ({p['used'] * 100 // max(1, p['injected'])}%)" if p["injected"] else ""
    return (f"payoff: last {p['sessions']} session(s): {p['injected']} item(s) injected ({p['words']:,} words), "
            f"{p['used']} used{rate}")


def _embedding_state(conn: Any) -> dict[str, Any]:
    from engram.graph.embeddings import state

    return state(conn)


def model_use(projects: list[Project]) -> dict[str, dict[str, dict[str, Any]]]:
    """{"today" | "last_7_days": {provider: calls, failed, tokens by kind, tokens, cost_usd}},
    summed over the projects' ledgers (local days; cost_usd None when no call reported one)."""
    from engram.clock import utc_iso
    from engram.graph import ledger
    from engram.graph.readonly import open_ro
    from engram.providers.budget import since

    out: dict[str, dict[str, dict[str, Any]]] = {"today": {}, "last_7_days": {}}
    now = utc_iso(6)  # a row dated ahead counts for no day yet (graph/ledger.py)
    for p in projects:
        conn = open_ro(p.db_path)
        if conn is None:
            continue
        try:
            for window, start in (("today", since(0)), ("last_7_days", since(6))):
                for provider, row in ledger.totals_since(conn, start, now).items():
                    have = out[window].setdefault(provider, {})
                    for key, value in row.items():  # cost_usd stays None until a call reports one
                        have[key] = have.get(key) if value is None else (have.get(key) or 0) + value
        except Exception:  # a corrupt or foreign file: project_status reports it
            continue
        finally:
            conn.close()
    return out


def models(cfg: dict[str, Any], projects: list[Project]) -> dict[str, Any]:
    """Who consolidates and checks here (and why: the variable or config key that decided), what
    the worker last used in the harness's environment, the daily budget, and the ledger's sums."""
    from engram.config import engram_home
    from engram.errors import ConfigError
    from engram import worker_use
    from engram.providers import budget, registry

    try:
        provider, why = registry.choose(cfg)
        chosen = provider.NAME
    except ConfigError as exc:
        chosen, why = "?", str(exc)
    return {"llmProvider": cfg.get("llmProvider"), "provider": chosen, "why": why,
            "worker": worker_use.read(engram_home()),
            "daily_token_budget": budget.limit(cfg), "use": model_use(projects),
            "spent_today_all_projects": model_use(all_projects())["today"]}


def status(spec: str | None = None) -> dict[str, Any]:
    """Everything `engram status` prints: home, embedder, vector path, models, projects."""
    from engram.config import engram_home, load_config
    from engram.graph.connect import vector_status
    from engram.providers import registry

    cfg, warnings = load_config()
    embedder = registry.embedder(cfg)
    version, reason = vector_status()
    projects = select_projects(spec)
    return {
        "home": engram_home(),
        "embedder": {
            "provider": embedder.name,
            "model": embedder.model,
            "dim": embedder.dim,
            "fallback_reason": getattr(embedder, "fallback_reason", None),
        },
        "vector_path": f"sqlite-vec {version}" if version else f"python-fallback ({reason})",
        "models": models(cfg, projects),
        "config_warnings": warnings,
        "projects": [project_status(p) for p in projects],
    }


def node_report(conn: Any, node_or_name: str) -> dict[str, Any]:
    """A node with its edges (neighbour names resolved), episodes, history and trajectory."""
    from engram.graph.supersession import trajectory
    from engram.graph import store

    node = store.get_node(conn, node_or_name)
    others: list[dict[str, Any]] = []
    if node is None:
        matches = store.find_by_name(conn, node_or_name)
        if not matches:
            raise EngramError(f"no node with id or name {node_or_name!r}; try `engram status` or a shorter name")
        node, others = matches[0], matches[1:]
    edges = store.edges_of(conn, node["id"])
    names = {n["id"]: n["name"] for n in store.get_nodes(conn, {e["from_node"] for e in edges} | {e["to_node"] for e in edges}).values()}
    for e in edges:
        e["direction"] = "out" if e["from_node"] == node["id"] else "in"
        e["other"] = e["to_node"] if e["direction"] == "out" else e["from_node"]
        e["other_name"] = names.get(e["other"], "?")
    episodes = [ep for ep in (store.get_episode(conn, i) for i in node["source_episodes"][-10:]) if ep]
    lineage = trajectory(conn, node["id"])
    return {
        "node": node,
        "edges": edges,
        "episodes": episodes,
        "trajectory": lineage if len(lineage) > 1 else [],
        "other_matches": [{"id": o["id"], "name": o["name"], "type": o["type"], "status": o["status"]} for o in others],
    }
