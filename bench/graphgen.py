"""Synthetic engram graphs shaped like the spec's (docs/spec.md) growth table, for benchmarks and tests.

    python bench/graphgen.py 5000 [--seed 0] [--home DIR] [--no-embed]

`generate(n)` returns plain data (nodes, edges, episodes, files) and `build(...)` writes it
to a real project under ENGRAM_HOME through engram's bulk paths, then embeds every node
with the LocalEmbedder. The shape, per 1,000 nodes: ~100 sessions with one episode each,
~200 source files (each node links 1-3, episode nodes more), ~3 edges per node with
preferential attachment (so hubs exist and the pattern scan has work), 15% decisions
with structured data (rationale, requires, forbids), ~2% superseded nodes in
supersedes / version_of chains, strength inputs spread over realistic ranges.
Deterministic for a given (n, seed).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TECH = ("SQLite", "WAL", "Flask", "JWT", "Redis", "pytest", "asyncio", "FastAPI", "Postgres", "Docker",
        "gRPC", "Celery", "React", "webpack", "OAuth", "S3", "Kafka", "numpy", "pandas", "SQLAlchemy",
        "alembic", "nginx", "uvicorn", "pydantic", "mypy", "ruff", "tox", "GraphQL", "websocket", "cron")  # fmt: skip
ASPECT = ("connection pool", "migration", "retry policy", "cache invalidation", "auth middleware",
          "rate limiter", "schema", "serializer", "config loader", "error handler", "test fixture",
          "build step", "index", "transaction", "timeout", "logging", "session store", "router",
          "background job", "file upload", "pagination", "permissions", "feature flag", "healthcheck")  # fmt: skip
VERBS = ("fails when", "requires", "breaks under", "is faster with", "must not use", "depends on",
         "was fixed by", "times out without", "leaks unless", "needs")  # fmt: skip
DIRS = ("src", "src/api", "src/db", "src/auth", "src/jobs", "tests", "lib", "app/models", "app/views", "scripts")
TYPES = (("concept", 35), ("finding", 25), ("decision", 15), ("error", 12), ("episode", 13))
EDGE_TYPES = (("requires", 20), ("interacts_with", 25), ("discovered_during", 20), ("caused_by", 10),
              ("resolved_by", 10), ("similar_to", 10), ("contradicts", 5))  # fmt: skip


def _pick(rng: random.Random, weighted: tuple[tuple[str, int], ...]) -> str:
    return rng.choices([w[0] for w in weighted], [w[1] for w in weighted])[0]


def _sentence(rng: random.Random) -> str:
    return f"{rng.choice(TECH)} {rng.choice(ASPECT)} {rng.choice(VERBS)} {rng.choice(TECH)} {rng.choice(ASPECT)}"


def generate(n: int, seed: int = 0) -> dict[str, Any]:
    """Nodes, edges, episodes and file paths for an n-node graph (plain dicts)."""
    rng = random.Random(seed)
    n_files = max(20, n // 5)
    files = [f"{rng.choice(DIRS)}/{rng.choice(TECH).lower()}_{rng.choice(ASPECT).split()[0]}_{i}.py"
             for i in range(n_files)]  # fmt: skip
    n_sessions = max(5, n // 10)
    episodes = []
    for s in range(n_sessions):
        outcome = rng.choices(("success", "partial", "failure"), (70, 20, 10))[0]
        session = "%08x-%04x-%04x-%04x-%012x" % tuple(rng.getrandbits(b) for b in (32, 16, 16, 16, 48))
        episodes.append({
            "id": _id(rng, "ep"), "session_id": session, "outcome": outcome,
            "goal": _sentence(rng), "approach": _sentence(rng),
            "created_at": f"2026-{1 + s * 11 // n_sessions:02d}-01T00:00:{s % 60:02d}.{s:06d}Z",
            "episode_data": {"discoveries": [_sentence(rng)], "files": rng.sample(files, 3)},
        })  # fmt: skip
    outcome_of = {e["id"]: e["outcome"] for e in episodes}
    session_of = {e["id"]: e["session_id"] for e in episodes}
    nodes = [_node(rng, i, files, episodes, outcome_of, session_of) for i in range(n)]
    edges = _edges(rng, nodes)
    return {"nodes": nodes, "edges": edges, "episodes": episodes, "files": files}


def _id(rng: random.Random, prefix: str) -> str:
    """Shaped like engram.graph.store.new_id (prefix + 16 hex digits), but reproducible."""
    return f"{prefix}_{rng.getrandbits(64):016x}"


def _node(rng: random.Random, i: int, files: list[str], episodes: list[dict[str, Any]],
          outcome_of: dict[str, str], session_of: dict[str, str]) -> dict[str, Any]:  # fmt: skip
    ntype = _pick(rng, TYPES)
    eps = [e["id"] for e in rng.sample(episodes, min(len(episodes), rng.choice((1, 1, 1, 2, 2, 3, 4))))]
    judged = [outcome_of[e] for e in eps if rng.random() < 0.8]
    name = f"{rng.choice(TECH)} {rng.choice(ASPECT)}" + (f" #{i}" if rng.random() < 0.7 else "")
    node = {
        "id": _id(rng, "n"), "name": name, "type": ntype,
        "description": ". ".join(_sentence(rng) for _ in range(rng.randint(2, 4))) + ".",
        "summary": _sentence(rng),
        "affected_files": rng.sample(files, rng.randint(1, 6 if ntype == "episode" else 3)),
        "source_episodes": eps,
        "sessions_without_reinforcement": rng.choice((0, 0, 1, 2, 3, 5, 8, 13, 21)),
        "outcome_success": judged.count("success"), "outcome_total": len(judged),
        "causal": ntype == "error" or rng.random() < 0.1,
        "last_reinforced_session": session_of[eps[-1]],
    }  # fmt: skip
    if ntype == "decision":
        explicit = rng.random() < 0.5
        node["data"] = {
            "explicit": explicit, "rationale": _sentence(rng),
            "requires": [rng.choice(TECH)], "forbids": [rng.choice(TECH)] if rng.random() < 0.5 else [],
        }  # fmt: skip
    return node


def _edges(rng: random.Random, nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """~3 edges per node; targets by preferential attachment (a few hubs, a long tail)."""
    edges: dict[tuple[str, str, str], dict[str, Any]] = {}
    targets: list[str] = [nodes[0]["id"]]
    for i, node in enumerate(nodes[1:], 1):
        for _ in range(rng.choice((2, 3, 3, 4))):
            other = rng.choice(targets) if rng.random() < 0.7 else nodes[rng.randrange(i)]["id"]
            etype = _pick(rng, EDGE_TYPES)
            key = (node["id"], other, etype)
            if other != node["id"] and key not in edges:
                eps = node["source_episodes"][:2]
                edges[key] = {"from_node": node["id"], "to_node": other, "type": etype,
                              "strength": round(rng.uniform(0.3, 1.0), 2), "source_episodes": eps}  # fmt: skip
                targets.append(other)
        targets.append(node["id"])
    # lineage: ~2% of nodes superseded by a newer node, ~2% versions of an older one
    for i in range(50, len(nodes), 50):
        old, new = nodes[i - 25], nodes[i]
        edges[(new["id"], old["id"], "supersedes")] = {
            "from_node": new["id"], "to_node": old["id"], "type": "supersedes", "strength": 1.0,
            "data": {"reason": "replaced by a newer approach", "episode_id": new["source_episodes"][0]},
        }  # fmt: skip
        old.update(status="superseded", strength=0.0, superseded_by=new["id"])
        v = nodes[i - 10]
        edges[(v["id"], nodes[i - 40]["id"], "version_of")] = {
            "from_node": v["id"], "to_node": nodes[i - 40]["id"], "type": "version_of", "strength": 0.9}
    return list(edges.values())


def build(n: int, *, home: str, seed: int = 0, embed: bool = True) -> dict[str, Any]:
    """Write an n-node graph as a project under `home`; return paths and phase timings."""
    os.environ["ENGRAM_HOME"] = home
    from engram.config import Project
    from engram.graph import embeddings, store
    from engram.graph.connect import connect
    from engram.providers.offline import LocalEmbedder

    t0 = time.perf_counter()
    data = generate(n, seed)
    root = os.path.join(home, "repos", f"graph{n}")
    for path in data["files"]:
        os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
        open(os.path.join(root, path), "w").close()
    project = Project(root).ensure()
    t1 = time.perf_counter()
    conn = connect(project.db_path)
    with store.transaction(conn):
        for ep in data["episodes"]:
            store.insert_episode(conn, **ep)
            store.record_consolidation(conn, ep["session_id"], 1, 40, ep["id"])
        conn.executemany("INSERT INTO decay_sessions (session_id, counted_at) VALUES (?, ?)",
                         [(e["session_id"], e["created_at"]) for e in data["episodes"]])  # fmt: skip
        store.insert_nodes(conn, data["nodes"])
        store.insert_edges(conn, data["edges"])
    t2 = time.perf_counter()
    embedded = embeddings.sync(conn, LocalEmbedder(), batch=1024) if embed else 0
    t3 = time.perf_counter()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return {
        "n": n, "root": root, "project": project, "db_path": project.db_path, "data": data,
        "embedded": embedded, "generate_s": t1 - t0, "insert_s": t2 - t1, "embed_s": t3 - t2,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--home", default=None, help="ENGRAM_HOME to build into (default: a temp dir)")
    ap.add_argument("--no-embed", action="store_true")
    args = ap.parse_args(argv)
    import tempfile

    home = args.home or tempfile.mkdtemp(prefix="engram-graphgen-")
    out = build(args.n, home=home, seed=args.seed, embed=not args.no_embed)
    size = os.path.getsize(out["db_path"])
    print(f"{args.n} nodes, {len(out['data']['edges'])} edges, {len(out['data']['episodes'])} episodes -> "
          f"{out['db_path']} ({size / 1e6:.2f} MB); insert {out['insert_s']:.2f} s, embed {out['embed_s']:.2f} s")  # fmt: skip
    print(f"ENGRAM_HOME={home} engram status")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
