"""Every row of issue 28's table in one run: CPU time of each path against a bare start.

    python bench/retrieval_latency.py [--runs 20] [--keep DIR]

Builds, with bench/graphgen.py and bench/retrieval_bench.py's git repository and previous
session, a 5,000-node graph and a 50,000-node graph with local embeddings (`--keep DIR`
keeps them there and reuses them on the next run), then times, interleaved so machine
noise hits every case alike, the CPU time (user + system, `getrusage(RUSAGE_CHILDREN)`)
of whole processes:

* bare: `python -P -c pass`, the same interpreter: the baseline of every ratio;
* the hooks as `engram install` starts them (config.HOOK_ARGS), each run a session's
  first (its state file and stream deleted before, outside the timing): PostToolUse Edit in a
  project with no memory and of a file linked to decisions at 5,000 nodes, PostToolUse
  Read of a file with >= 3 strong nodes (the first-read note), SessionStart at 5,000 and
  50,000 nodes, UserPromptSubmit at 5,000 (and at 50,000, no goal); and, no goal, the
  session's second prompt at 5,000 (its state and stream restored as the first left them);
* `engram query <word>` (the console script) at 50,000 nodes, with its vector seeds and
  with --no-vectors.

Prints the median CPU ms, the median wall ms and the ratio to bare of each row, with the
issue's goal; then the share of the vector search's top 8 that the exhaustive scan over
every vector also ranks in its top 8, over questions made from the graph's own nodes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from engram.config import HOOK_ARGS  # the hook as `engram install` starts it

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# (row, goal: a ratio to bare, or CPU ms for the query)
GOALS = {
    "PostToolUse Edit, no memory": (1.3, "x"),
    "PostToolUse Edit, decisions file, 5k": (1.3, "x"),
    "PostToolUse Read + note, 5k": (1.5, "x"),
    "SessionStart, 5k": (2.0, "x"),
    "SessionStart, 50k": (2.0, "x"),
    "UserPromptSubmit, 5k": (2.0, "x"),
    "UserPromptSubmit, 50k": (None, "x"),
    "UserPromptSubmit, 5k, a later prompt": (None, "x"),
    "engram query, 50k + vectors": (100.0, "ms"),
    "engram query, 50k --no-vectors": (None, "ms"),
}
AGREEMENT_QUESTIONS = 40


def graph(keep: str, n: int, embed: bool) -> tuple[str, dict, dict]:
    """(project root, env, facts) of an n-node graph, built once under `keep`."""
    from retrieval_bench import build

    from engram.config import Project

    stamp = os.path.join(keep, f"graph{n}.json")
    if os.path.exists(stamp):
        with open(stamp) as f:
            root, env_home, facts = json.load(f)
    else:
        root, env, facts = build(keep, n, embed)
        env_home = env["ENGRAM_HOME"]
        with open(stamp, "w") as f:
            json.dump([root, env_home, facts], f)
    db = Project(os.path.realpath(root), env_home).db_path
    facts.setdefault("decided", _decided_file(db))
    facts.setdefault("word", facts["concept"].split()[0])
    env = dict(os.environ, ENGRAM_HOME=env_home, ENGRAM_NO_WORKER="1")
    return root, env, facts


def _decided_file(db: str) -> str:
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT f.path FROM node_files f JOIN nodes n ON n.id = f.node_id WHERE n.type = 'decision' "
            "AND n.status = 'active' GROUP BY f.path ORDER BY count(*) DESC, f.path LIMIT 1").fetchone()[0]
    finally:
        conn.close()


def edit_payload(session: str, proj: str, rel: str) -> dict:
    path = os.path.join(proj, rel)
    return {"session_id": session, "transcript_path": "", "cwd": proj, "hook_event_name": "PostToolUse",
            "tool_name": "Edit", "tool_input": {"file_path": path, "old_string": "a", "new_string": "b"},
            "tool_response": {"filePath": path, "structuredPatch": [
                {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-a", "+b"]}]}}


def run_once(argv: list[str], data: bytes, env: dict) -> tuple[float, float, bytes]:
    """(CPU seconds of the child, wall seconds, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(argv, input=data, env=env, capture_output=True, check=False, timeout=60).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall, out


def cases(keep: str) -> dict[str, tuple]:
    """{row: (argv, stdin, env, (home, project root, session) to forget or None)}."""
    from retrieval_bench import payload

    r5, env5, f5 = graph(keep, 5000, embed=False)
    r50, env50, f50 = graph(keep, 50000, embed=True)
    empty = os.path.join(keep, "empty")
    os.makedirs(os.path.join(empty, ".git"), exist_ok=True)
    hook = [sys.executable, *HOOK_ARGS]
    engram = os.path.join(os.path.dirname(sys.executable), "engram")
    query = [engram, "query", f50["word"], "--project", r50]
    out: dict[str, tuple] = {"bare": ([sys.executable, "-P", "-c", "pass"], b"", env5, None)}

    def hook_case(row: str, event: str, root: str, env: dict, data: dict) -> None:
        session = data["session_id"]
        out[row] = (hook + [event], json.dumps(data).encode(), env, (env["ENGRAM_HOME"], root, session))

    hook_case("PostToolUse Edit, no memory", "PostToolUse", empty, env5, edit_payload("lat-e0", empty, "a.py"))
    hook_case("PostToolUse Edit, decisions file, 5k", "PostToolUse", r5, env5, edit_payload("lat-e5", r5, f5["decided"]))
    hook_case("PostToolUse Read + note, 5k", "PostToolUse", r5, env5, payload("PostToolUse", "lat-r5", r5, f5))
    hook_case("SessionStart, 5k", "SessionStart", r5, env5, payload("SessionStart", "lat-s5", r5, f5))
    hook_case("SessionStart, 50k", "SessionStart", r50, env50, payload("SessionStart", "lat-s50", r50, f50))
    hook_case("UserPromptSubmit, 5k", "UserPromptSubmit", r5, env5, payload("UserPromptSubmit", "lat-u5", r5, f5))
    hook_case("UserPromptSubmit, 50k", "UserPromptSubmit", r50, env50,
              payload("UserPromptSubmit", "lat-u50", r50, f50))
    later = payload("UserPromptSubmit", "lat-v5", r5, f5)
    out["UserPromptSubmit, 5k, a later prompt"] = (hook + ["UserPromptSubmit"], json.dumps(later).encode(), env5,
                                                   _after_first_prompt(hook, later, env5, r5))
    out["engram query, 50k + vectors"] = (query, b"", env50, None)
    out["engram query, 50k --no-vectors"] = (query + ["--no-vectors"], b"", env50, None)
    return out


def _after_first_prompt(hook: list[str], data: dict, env: dict, root: str):
    """A restore of the session as its first prompt (one naming nothing) left it, state and
    stream, for the row of a later prompt: no keyword seeds, no earlier replies, the turn's
    own budget."""
    import shutil

    from engram.config import Project
    from retrieval_bench import _forget as forget_state

    project = Project(os.path.realpath(root), env["ENGRAM_HOME"])
    session = data["session_id"]
    forget_state(env["ENGRAM_HOME"], root, session)
    first = dict(data, prompt="Let us begin.")  # names nothing: the measured prompt finds all it names unshown
    subprocess.run(hook + ["UserPromptSubmit"], input=json.dumps(first).encode(), env=env, capture_output=True,
                   check=True, timeout=60)
    saved = [(path, path + ".first") for path in (project.state_path(session), project.events_path(session))]
    for path, copy in saved:
        shutil.copyfile(path, copy)
    return lambda: [shutil.copyfile(copy, path) for path, copy in saved]


def _forget(forget) -> None:
    if callable(forget):
        forget()
    elif forget:
        from retrieval_bench import _forget as forget_state

        forget_state(*forget)


def measure(run: dict[str, tuple], runs: int) -> dict[str, list[tuple[float, float]]]:
    times: dict[str, list[tuple[float, float]]] = {c: [] for c in run}
    for r in range(runs + 2):  # two warm-up rounds (page cache, .pyc) are discarded
        for case, (argv, data, env, forget) in run.items():
            _forget(forget)
            cpu, wall, out = run_once(argv, data, env)
            if r == 0 and case.startswith(("PostToolUse Read", "SessionStart", "UserPrompt")) and not out.strip():
                print(f"  WARNING: {case} produced no context", file=sys.stderr)
            if r >= 2:
                times[case].append((cpu, wall))
    return times


def report(times: dict[str, list[tuple[float, float]]]) -> bool:
    bare = statistics.median(c for c, _ in times["bare"])
    ok = True
    print(f"{'path':<38} {'CPU ms':>7} {'wall ms':>8} {'x bare':>7}  goal")
    for case, ts in times.items():
        cpu = statistics.median(c for c, _ in ts)
        wall = statistics.median(w for _, w in ts)
        goal, unit = GOALS.get(case, (None, ""))
        verdict = ""
        if goal is not None:
            good = (cpu / bare if unit == "x" else cpu * 1000) <= goal
            ok &= good
            verdict = f"<= {goal:g}{'x' if unit == 'x' else ' ms CPU'} {'OK' if good else 'OVER'}"
        print(f"{case:<38} {cpu * 1000:>7.1f} {wall * 1000:>8.1f} {cpu / bare:>7.2f}  {verdict}")
    return ok


def exhaustive(conn, vec: list[float], k: int) -> list[tuple[str, float]]:
    """The live top k of sqlite-vec's scan asked for MAX_K rows: the reference of `knn`."""
    from engram.graph import embeddings, vectors

    rows = conn.execute("SELECT node_id, distance FROM node_embeddings WHERE embedding MATCH vec_int8(?) AND k = ? "
                        "ORDER BY distance", (vectors.quantize(vectors.normalise(vec)), embeddings.MAX_K)).fetchall()
    live = {r[0] for r in conn.execute("SELECT id FROM nodes WHERE status = 'active'")}
    return [(n, 1.0 - d) for n, d in rows if n in live and d is not None][:k]


def agreement(keep: str) -> tuple[float, float, float]:
    """(mean share of `knn`'s top 8 in the exhaustive top 8, median CPU ms of `knn`, of the
    exhaustive scan) at 50,000 nodes, over questions made from the graph's own nodes: half a
    description, and a name's words."""
    from engram.config import Project
    from engram.graph import embeddings
    from engram.graph.connect import connect
    from engram.providers.offline import LocalEmbedder

    root, env, _ = graph(keep, 50000, embed=True)
    conn = connect(Project(os.path.realpath(root), env["ENGRAM_HOME"]).db_path, vectors=True, migrate=False,
                   readonly=True)
    rows = conn.execute("SELECT name, description FROM nodes WHERE description != '' ORDER BY id").fetchall()
    questions = []
    for name, desc in random.Random(1).sample(rows, AGREEMENT_QUESTIONS // 2):
        words = desc.split()
        questions += [" ".join(words[: len(words) // 2]), name.split("#")[0].strip()]
    embedder = LocalEmbedder()
    shares, ours, ref = [], [], []
    for question in questions:
        vec = embedder.embed([question])[0]
        t0 = time.process_time()
        got = embeddings.knn(conn, vec, 8, include_superseded=False)
        t1 = time.process_time()
        want = exhaustive(conn, vec, 8)
        ref.append(time.process_time() - t1)
        ours.append(t1 - t0)
        shares.append(len({n for n, _ in got} & {n for n, _ in want}) / max(1, len(want)))
    conn.close()
    return statistics.mean(shares), statistics.median(ours) * 1000, statistics.median(ref) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--keep", default=None, help="build the graphs here once and reuse them (default: a temp dir)")
    args = ap.parse_args()
    import compileall

    import engram

    compileall.compile_dir(os.path.dirname(engram.__file__), quiet=1)
    keep = args.keep or tempfile.mkdtemp(prefix="engram-latency-")
    os.makedirs(keep, exist_ok=True)
    run = cases(keep)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {args.runs} interleaved runs each; "
          "bare = `python -P -c pass`; CPU = user + system of the whole process")
    ok = report(measure(run, args.runs))
    share, ours, ref = agreement(keep)
    print(f"vector search at 50,000 nodes, {AGREEMENT_QUESTIONS} questions: top 8 shared with the exhaustive "
          f"scan {share:.2f}; CPU median {ours:.1f} ms vs {ref:.1f} ms")
    print(f"all goals met: {'yes' if ok else 'NO'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
