"""`engram query` / query_knowledge time on generated graphs, against the per-call index it replaced.

    python bench/query_bench.py [--sizes 5000,50000] [--runs 15] [--embed]

For each size, a graph built by `bench/graphgen.py` with its git repository (as in
bench/retrieval_bench.py), then, interleaved so machine noise hits all cases alike:

* query (FTS5)        : `engram.retrieve.query.run` + the text the tool returns, in process:
                        the persisted full-text index (engram/graph/fulltext.py);
* query (per-call BM25): the same question scored by an in-memory BM25 index built from
                        every live node on each call (what query did before the index);
                        the baseline of the ratio;
* engram query (CLI)  : the command as a subprocess, interpreter start included;
* SessionStart, UserPromptSubmit: the hooks as subprocesses (their retrieval does not
                        use the keyword index; listed because the target covers them);
* bare                : `python -c pass`, the baseline of the subprocess ratios.

Prints medians, p90, the ratio to its baseline and the target: every case < 200 ms at
50,000 nodes. Without --embed the graph has no vectors, so vector seeds are skipped (as
in a graph consolidated offline before its first embedding sync); --embed adds them.

Then how far the keyword search's row budget (engram/graph/fulltext.py) keeps to the
exhaustive ranking it replaced (every match of the words in at most half the nodes): the
share of its top 8 in the exhaustive top 8, and the CPU time of each, over AGREEMENT_QUESTIONS
questions made from the graph's own node descriptions and file names.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

from engram.config import HOOK_ARGS  # the hook as `engram install` starts it

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

QUESTION = "why do {concept} retries time out in {file}?"
TARGET_S = 0.2


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def cases(root: str, env: dict, facts: dict) -> dict:
    """{case: a function running it once} for one graph."""
    from retrieval_bench import payload, run_once

    from engram import config
    from engram.graph.connect import connect
    from engram.retrieve import keyword, query

    question = QUESTION.format(concept=facts["concept"], file=facts["prompt_files"][0])
    cfg = dict(config.DEFAULTS)
    db = config.Project.from_cwd(root, env["ENGRAM_HOME"]).db_path

    def fts() -> None:
        hits, _ = query.run(question, root, cfg=cfg)
        query.format_text(question, hits, 2 * cfg["tokenBudget"], "current_project")

    def per_call_bm25() -> None:
        conn = connect(db, vectors=False, migrate=False)
        try:
            keyword.BM25(keyword.live_docs(conn)).rank(question, query.KEYWORD_SEEDS)
        finally:
            conn.close()

    cli = [sys.executable, "-m", "engram", "query", question, "--project", root]
    hooks = {event: (json.dumps(payload(event, f"qb-{event[:4]}", root, facts)).encode(),
                     [sys.executable, *HOOK_ARGS, event]) for event in ("SessionStart", "UserPromptSubmit")}
    out = {"bare": lambda: run_once([sys.executable, "-c", "pass"], b"", env),
           "query (FTS5)": fts, "query (per-call BM25)": per_call_bm25,
           "engram query (CLI)": lambda: run_once(cli, b"", env)}
    for event, (data, argv) in hooks.items():
        out[event] = lambda data=data, argv=argv, event=event: _hook(argv, data, env, root, event)
    return out


def _hook(argv: list[str], data: bytes, env: dict, root: str, event: str) -> None:
    from retrieval_bench import _forget, run_once

    _forget(env["ENGRAM_HOME"], root, f"qb-{event[:4]}")  # every run a session's first
    run_once(argv, data, env)


def bench_size(base: str, n: int, runs: int, embed: bool) -> dict[str, list[float]]:
    from retrieval_bench import build

    from engram import config

    root, env, facts = build(base, n, embed)
    os.environ["ENGRAM_HOME"] = env["ENGRAM_HOME"]
    share, ours, ref = agreement(config.Project.from_cwd(root, env["ENGRAM_HOME"]).db_path)
    print(f"\n{n:,} nodes: keyword top 8 vs the exhaustive ranking over {AGREEMENT_QUESTIONS} questions: "
          f"{share:.2f} shared; CPU median {ours:.1f} ms vs {ref:.1f} ms")
    run = cases(root, env, facts)
    times: dict[str, list[float]] = {c: [] for c in run}
    for r in range(runs + 2):  # two warm-up rounds (page cache, .pyc) are discarded
        for case, fn in run.items():
            t = _timed(fn)
            if r >= 2:
                times[case].append(t)
    return times


AGREEMENT_QUESTIONS = 40


def exhaustive(conn, words: list[str], limit: int) -> list[str]:
    """The ranking before the row budget: every match of the words in at most half the nodes."""
    from engram.graph import fulltext

    total = fulltext.indexed_rows(conn)
    counts = {w: fulltext._count(conn, w, total) for w in words}
    kept = [w for w, n in counts.items() if n and n * 2 <= total] or [w for w, n in counts.items() if n]
    return [nid for nid, _ in fulltext._ranked(conn, fulltext.match_expression(kept), limit)]


def agreement(db: str) -> tuple[float, float, float]:
    """(mean share of the budgeted top 8 in the exhaustive top 8, median CPU ms budgeted, exhaustive)."""
    import random

    from engram.graph import fulltext, readonly
    from engram.retrieve import keyword

    conn = readonly.open_ro(db)
    rows = conn.execute("SELECT description, affected_files FROM nodes WHERE description != '' ORDER BY id").fetchall()
    questions = []
    for desc, files in random.Random(1).sample(rows, AGREEMENT_QUESTIONS // 2):
        path = (json.loads(files) or ["x.py"])[0]
        questions += [f"why does {desc.split('.')[0].lower()} happen?",
                      f"what breaks in {os.path.basename(path)} when {' '.join(desc.split()[:3]).lower()}?"]
    shares, cpu = [], {"budget": [], "exhaustive": []}
    for q in questions:
        words = keyword.words(q)
        t0 = time.process_time()
        ours = [nid for nid, _ in fulltext.search(conn, words, 8)]
        t1 = time.process_time()
        ref = exhaustive(conn, words, 8)
        cpu["budget"].append(t1 - t0)
        cpu["exhaustive"].append(time.process_time() - t1)
        shares.append(len(set(ours) & set(ref)) / max(1, len(ref)))
    conn.close()
    return (statistics.mean(shares), statistics.median(cpu["budget"]) * 1000,
            statistics.median(cpu["exhaustive"]) * 1000)


BASELINE = {"query (FTS5)": "query (per-call BM25)", "engram query (CLI)": "bare", "SessionStart": "bare",
            "UserPromptSubmit": "bare"}


def report(n: int, times: dict[str, list[float]]) -> bool:
    ok = True
    print(f"\n{n:,} nodes ({len(times['bare'])} runs each)")
    print(f"{'case':<24} {'median ms':>10} {'p90 ms':>8} {'ratio':>14}  target")
    for case, ts in times.items():
        med = statistics.median(ts)
        p90 = sorted(ts)[int(len(ts) * 0.9) - 1]
        base = BASELINE.get(case)
        ratio = f"{med / statistics.median(times[base]):.3f}x {'old' if base != 'bare' else 'bare'}" if base else ""
        target = ""
        if base and n >= 50000:
            good = med < TARGET_S
            target = f"< 200 ms {'OK' if good else 'OVER'}"
            ok &= good
        print(f"{case:<24} {med * 1000:>10.1f} {p90 * 1000:>8.1f} {ratio:>14}  {target}")
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="5000,50000")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--embed", action="store_true", help="also store local embeddings (vector seeds)")
    args = ap.parse_args()
    import compileall
    import shutil

    import engram

    compileall.compile_dir(os.path.dirname(engram.__file__), quiet=1)
    base = tempfile.mkdtemp(prefix="engram-qbench-")
    try:
        print(f"python {sys.version.split()[0]}, interleaved runs; ratios against the per-call BM25 "
              "index (old) or `python -c pass` (bare), same run")
        ok = True
        for n in (int(s) for s in args.sizes.split(",")):
            ok &= report(n, bench_size(base, n, args.runs, args.embed))
        print(f"\nall targets met: {'yes' if ok else 'NO'}")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
