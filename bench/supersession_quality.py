"""Precision and recall of supersession on the labelled cases, with the latest-wins baseline.

    python bench/supersession_quality.py [--set r1|r2|r3|r4|r5] [--half dev|holdout|all] [--verbose]

`--set r1` (the default) is tests/graph/data/supersession_cases.json (issue 14;
docs/labelled-sets.md), `--set r2` tests/graph/data/supersession_cases_r2.json (issue 30:
138 sequences written blind, by a helper who had not read the rule, in the categories
replace / chain / different / refine), `--set r3` tests/graph/data/supersession_cases_r3.json
(issue 30, second round: 159 sequences written blind by another helper who had read only
the brief, same categories), `--set r4` tests/graph/data/supersession_cases_r4.json (issue 30,
third round: 158 sequences written blind by a third helper from the brief alone, same
categories), `--set r5` tests/graph/data/supersession_cases_r5.json (issue 30, fourth round:
172 sequences written blind by a fourth helper asked for the phrasings of notes, chats,
commit messages, ADR titles and PR descriptions). All are sequences of
explicit decisions, each recorded through `consolidate.graph_apply` (the real
consolidation transaction on a real SQLite file, offline embedder) as its own
consolidation, the way `engram decide` or a stated decision reaches the graph. A case
labels which of its decisions must end superseded; every other must stay active.

Counted over the decisions that could be retired (all but each case's last):
precision = retired and labelled retired / retired (1.0: no valid decision is ever
retired), recall = retired / labelled retired. Same run, same cases: latest-wins, the
trivial rule (a newer decision retires every older one it shares a content word with).
The `holdout` line is the headline; the rule was tuned on `dev` only. "different kept"
counts the `different` cases (different subjects, all must stay current) that retire
nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CASES = REPO / "tests" / "graph" / "data" / "supersession_cases.json"
SETS = {"r1": CASES, "r2": REPO / "tests" / "graph" / "data" / "supersession_cases_r2.json",
        "r3": REPO / "tests" / "graph" / "data" / "supersession_cases_r3.json",
        "r4": REPO / "tests" / "graph" / "data" / "supersession_cases_r4.json",
        "r5": REPO / "tests" / "graph" / "data" / "supersession_cases_r5.json"}


def load_cases(half: str = "all", path: Path = CASES) -> list[dict]:
    cases = json.loads(path.read_text())["cases"]
    return [c for c in cases if half == "all" or c["half"] == half]


def record(conn, text: str) -> str:
    """One explicit decision through graph_apply, as its own consolidation; its node id."""
    from engram.consolidate import graph_apply
    from engram.consolidate.entity_resolution import Resolver
    from engram.graph import store
    from engram.providers.offline import LocalEmbedder

    node = {"key": "d1", "op": "create", "name": text, "type": "decision", "description": text,
            "files": [], "evidence": [], "explicit": True, "rationale": "", "alternatives": []}
    request = {"episode": {"goal": text, "approach": "", "outcome": "success"},
               "graph": {"nodes": [node], "edges": []}}
    record = {"id": store.new_id("ep"), "goal": text, "outcome": "success", "from_seq": 1, "to_seq": 1,
              "kind": "full", "files_modified": []}
    planned = graph_apply.plan(request, Resolver(conn, LocalEmbedder()))
    graph_apply.apply(conn, session=store.new_id("s"), from_seq=1, to_seq=1, record=record, request=request,
                      planned=planned)
    return store.find_by_name(conn, text, type="decision")[0]["id"]


def engram_retired(case: dict, workdir: str) -> set[int]:
    """The indexes of the case's decisions that end superseded in a fresh graph."""
    from engram.graph import store
    from engram.graph.connect import connect

    conn = connect(str(Path(workdir) / f"{case['id']}.db"))
    try:
        ids = [record(conn, text) for text in case["decisions"]]
        return {i for i, nid in enumerate(ids) if store.get_node(conn, nid)["status"] == "superseded"}
    finally:
        conn.close()


def latest_wins_retired(case: dict) -> set[int]:
    """The trivial rule: a newer decision retires every older one sharing a content word."""
    from engram.retrieve.keyword import tokenize

    words = [set(tokenize(t)) for t in case["decisions"]]
    return {i for i in range(len(words)) for j in range(i + 1, len(words)) if words[i] & words[j]}


def score(rows: list[tuple[dict, set[int]]]) -> dict:
    tp = fp = fn = 0
    for case, retired in rows:
        want = set(case["retired"])
        for i in range(len(case["decisions"]) - 1):
            tp += i in retired and i in want
            fp += i in retired and i not in want
            fn += i not in retired and i in want
    return {"cases": len(rows), "tp": tp, "fp": fp, "fn": fn,
            "precision": tp / (tp + fp) if tp + fp else None, "recall": tp / (tp + fn) if tp + fn else None,
            "exact": sum(1 for c, r in rows if r == set(c["retired"])) / len(rows) if rows else 0.0,
            "different": sum(1 for c, _ in rows if c["category"] == "different"),
            "different_kept": sum(1 for c, r in rows if c["category"] == "different" and not r)}


def _fmt(x: float | None) -> str:
    return "n/a  " if x is None else f"{x:.3f}"


def line(label: str, s: dict) -> str:
    kept = f"  different kept {s['different_kept']}/{s['different']}" if s["different"] else ""
    return (f"{label:<34} cases {s['cases']:>3}  precision {_fmt(s['precision'])}  recall {_fmt(s['recall'])}"
            f"  exact {s['exact']:.3f}  (tp {s['tp']}, fp {s['fp']}, fn {s['fn']}){kept}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=tuple(SETS), default="r1", dest="which", help="which labelled set")
    ap.add_argument("--half", choices=("dev", "holdout", "all"), default="all")
    ap.add_argument("--verbose", action="store_true", help="list every case the rule gets wrong")
    args = ap.parse_args(argv)
    halves = ("dev", "holdout") if args.half == "all" else (args.half,)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="engram-supersession-") as tmp:
        for half in halves:
            cases = load_cases(half, SETS[args.which])
            ours = [(c, engram_retired(c, tmp)) for c in cases]
            mine, base = score(ours), score([(c, latest_wins_retired(c)) for c in cases])
            print(line(f"{half}: engram", mine))
            print(line(f"{half}: latest-wins", base))
            if mine["precision"] and base["precision"] and mine["recall"] and base["recall"]:
                print(f"{half}: engram / latest-wins: precision x{mine['precision'] / base['precision']:.2f}, "
                      f"recall x{mine['recall'] / base['recall']:.2f}")
            for cat in sorted({c["category"] for c in cases}):
                print(line(f"  {cat}", score([r for r in ours if r[0]["category"] == cat])))
            if args.verbose:
                for c, got in ours:
                    if got != set(c["retired"]):
                        print(f"    {c['id']}: retired {sorted(got)}, labelled {c['retired']}: {c['decisions']}")
    print(f"(set {args.which}, {time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
