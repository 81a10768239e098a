"""Storage benchmark: database size, lookup latency and `engram maintain` time per graph size.

    python bench/graph_bench.py                 # 500, 5,000 and 50,000 nodes (~2-3 minutes)
    python bench/graph_bench.py --sizes 500 5000

For each size it builds a graph with bench/graphgen.py (LocalEmbedder vectors), then prints:
the database size (after a WAL checkpoint) and bytes per node; find_by_file and
find_by_name through the hook's read-only standard-library connection; k-nearest search
(k=10) through sqlite-vec, and through the pure-Python fallback up to 5,000 nodes; the
decay step a consolidation runs per session (`apply_session`); and `engram maintain` run
twice as a real subprocess, the second run showing idempotence (no changes).
Latencies are medians (p95 in brackets) and, because this machine is noisy, also ratios
to a trivial `SELECT 1` on the same connection measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import graphgen  # noqa: E402


def timed(fn: Callable[[], Any], n: int) -> tuple[float, float]:
    """(median, p95) seconds per call over n calls."""
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    samples.sort()
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]


def fmt(med: float, p95: float, base: float) -> str:
    unit, k = ("ms", 1e3) if med >= 1e-3 else ("us", 1e6)
    return f"{med * k:7.1f} {unit} (p95 {p95 * k:.1f}) = {med / base:5.1f}x SELECT 1"


def size_breakdown(db_path: str) -> str:
    from engram.graph.connect import connect

    conn = connect(db_path, migrate=False)
    rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    conn.close()
    groups: dict[str, int] = {}
    for name, size in rows:
        key = ("vectors (vec0)" if name.startswith("node_embeddings") else "nodes + indexes" if name.startswith(("nodes", "sqlite_autoindex_nodes"))
               else "edges + indexes" if name.startswith(("edges", "sqlite_autoindex_edges")) else "node_files" if name.startswith("node_files")
               else "other")  # fmt: skip
        groups[key] = groups.get(key, 0) + size
    return ", ".join(f"{k} {v / 1e6:.2f}" for k, v in sorted(groups.items(), key=lambda kv: -kv[1]))


def lookups(built: dict[str, Any], rng: random.Random) -> list[str]:
    from engram.graph import embeddings, store
    from engram.graph.connect import connect
    from engram.graph.readonly import open_ro
    from engram.providers.offline import LocalEmbedder

    n, out = built["n"], []
    ro = open_ro(built["db_path"])
    base, _ = timed(lambda: ro.execute("SELECT 1").fetchone(), 2000)
    files, nodes = built["data"]["files"], built["data"]["nodes"]
    paths = iter([rng.choice(files) for _ in range(2000)] * 2)
    med, p95 = timed(lambda: store.find_by_file(ro, next(paths), min_strength=0.5, limit=3), 2000)
    out.append(f"  find_by_file (stdlib, read-only)  {fmt(med, p95, base)}")
    names = iter([rng.choice(nodes)["name"].upper() for _ in range(1000)] * 2)
    med, p95 = timed(lambda: store.find_by_name(ro, next(names), limit=5), 1000)
    out.append(f"  find_by_name (normalised)         {fmt(med, p95, base)}")
    queries = LocalEmbedder().embed([rng.choice(nodes)["name"] + " issue" for _ in range(200)])
    conn = connect(built["db_path"])
    q = iter(queries * 2)
    med, p95 = timed(lambda: embeddings.knn(conn, next(q), 10), 200)
    out.append(f"  knn k=10 ({embeddings.vector_path(conn)}) {fmt(med, p95, base)}")
    if n <= 5000:
        plain = connect(built["db_path"], vectors=False)
        q = iter(queries)
        med, p95 = timed(lambda: embeddings.knn(plain, next(q), 10), 10 if n > 1000 else 50)
        out.append(f"  knn k=10 (python fallback)        {fmt(med, p95, base)}")
        plain.close()
    from engram.graph.decay import apply_session

    t = time.perf_counter()
    res = apply_session(conn, "bench-session", [nodes[0]["id"]])
    out.append(f"  apply_session (decay {res['decayed']} nodes)   {(time.perf_counter() - t) * 1e3:7.1f} ms")
    conn.close()
    return out


def run_maintain(built: dict[str, Any], home: str) -> tuple[float, dict[str, Any]]:
    env = {**os.environ, "ENGRAM_HOME": home, "PYTHONPATH": os.path.dirname(HERE), "ENGRAM_OFFLINE": "1"}
    t = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "engram.cli", "maintain", "--project", built["root"], "--json"],
                         capture_output=True, text=True, env=env)  # fmt: skip
    wall = time.perf_counter() - t
    if res.returncode != 0:
        raise SystemExit(f"engram maintain failed ({res.returncode}): {res.stderr[-2000:]}")
    return wall, json.loads(res.stdout)[0]


def bench_size(n: int, home: str) -> list[str]:
    from engram.report.inventory import db_bytes

    t = time.perf_counter()
    built = graphgen.build(n, home=home, seed=n)
    total = time.perf_counter() - t
    data = built["data"]
    size = db_bytes(built["db_path"])
    lines = [
        f"{n:,} nodes, {len(data['edges']):,} edges, {len(data['episodes']):,} episodes, {len(data['files']):,} files",
        f"  build {total:.1f} s (bulk insert {built['insert_s']:.2f} s, embed {built['embed_s']:.2f} s)",
        f"  database {size / 1e6:.2f} MB = {size / n:,.0f} bytes/node  [{size_breakdown(built['db_path'])} MB]",
    ]
    lines += lookups(built, random.Random(n))
    for run in (1, 2):
        wall, rep = run_maintain(built, home)
        changes = {k: v for k, v in rep.items() if isinstance(v, int) and v and k != "files_checked"}
        lines.append(f"  engram maintain run {run}: {wall:.2f} s wall ({rep['seconds']:.2f} s in maintain) "
                     f"changes: {changes or 'none'}")  # fmt: skip
    after = db_bytes(built["db_path"])
    lines.append(f"  database after maintain {after / 1e6:.2f} MB")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="engram storage benchmark")
    ap.add_argument("--sizes", type=int, nargs="+", default=[500, 5000, 50000])
    args = ap.parse_args(argv)
    os.environ["ENGRAM_OFFLINE"] = "1"
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    startup = time.perf_counter() - t
    import sqlite3

    print(f"python {sys.version.split()[0]}, stdlib sqlite {sqlite3.sqlite_version}, "
          f"interpreter start {startup * 1e3:.0f} ms (baseline for the maintain subprocess)")  # fmt: skip
    for n in args.sizes:
        with tempfile.TemporaryDirectory(prefix=f"engram-bench-{n}-") as home:
            for line in bench_size(n, home):
                print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
