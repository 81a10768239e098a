"""Precision and recall of the contradiction checkers on the labelled cases.

    python bench/contradiction_quality.py [--split dev|holdout|fresh|fresh2|all] [--verbose] [--offline-only]

Two sets. tests/monitor/real_rules.json: rules of public projects with realistic diffs,
split by rule into `dev` and `holdout` before the checker was tuned on `dev` (issue 17;
docs/labelled-sets.md): its `holdout` line is the headline figure. tests/monitor/cases.json:
the older, in-sample (decisions, diff, verdict) triples in several languages, incl.
look-alikes; its splits are printed as "in-sample". A "warning" is any verdict other than
NO_CONTRADICTION: precision = correct warnings / warnings, recall = contradictions
warned / contradictions. When ANTHROPIC_API_KEY or OPENAI_API_KEY is set (and
ENGRAM_OFFLINE is not), the configured API checker runs on the same cases too (one
request per case); `--offline-only` skips it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CASES = REPO / "tests" / "monitor" / "cases.json"
REAL = REPO / "tests" / "monitor" / "real_rules.json"


def load_cases(split: str = "all", path: Path = CASES) -> list[dict]:
    cases = json.loads(path.read_text())["cases"]
    return [c for c in cases if split == "all" or c["split"] == split]


def decision_nodes(case: dict) -> list[dict]:
    """The decision nodes the graph would hold: text as name, consolidation's parsed data."""
    from engram.graph import decision_text

    return [{"id": f"{case['id']}#{i}", "name": text, "description": text, "strength": 0.8,
             "data": {"explicit": True, **decision_text.parse(text)}} for i, text in enumerate(case["decisions"])]


def score(rows: list[tuple[dict, str]]) -> dict:
    tp = sum(1 for c, v in rows if v != "NO_CONTRADICTION" and c["expected"] != "NO_CONTRADICTION")
    fp = sum(1 for c, v in rows if v != "NO_CONTRADICTION" and c["expected"] == "NO_CONTRADICTION")
    fn = sum(1 for c, v in rows if v == "NO_CONTRADICTION" and c["expected"] != "NO_CONTRADICTION")
    exact = sum(1 for c, v in rows if v == c["expected"])
    return {"n": len(rows), "tp": tp, "fp": fp, "fn": fn,
            "precision": tp / (tp + fp) if tp + fp else None, "recall": tp / (tp + fn) if tp + fn else None,
            "exact": exact / len(rows) if rows else 0.0}


def _fmt(x: float | None) -> str:
    return "n/a  " if x is None else f"{x:.3f}"


def run(checker, cases: list[dict]) -> tuple[list[tuple[dict, str]], float]:
    rows = []
    t0 = time.perf_counter()
    for c in cases:
        diff = "\n".join(c["diff"]) + "\n"
        try:
            v = checker.check(decision_nodes(c), c["path"], diff).verdict
        except Exception as exc:  # an API failure is a miss, and is shown
            print(f"  {c['id']}: {type(exc).__name__}: {exc}", file=sys.stderr)
            v = "NO_CONTRADICTION"
        rows.append((c, v))
    return rows, (time.perf_counter() - t0) / max(1, len(cases))


def report(name: str, rows: list[tuple[dict, str]], per_case: float, verbose: bool,
           splits: tuple[str, ...] = ("dev", "holdout", "fresh", "fresh2", "all")) -> None:
    for split in splits:
        part = [(c, v) for c, v in rows if split == "all" or c["split"] == split]
        if not part:
            continue
        s = score(part)
        print(f"{name:<10} {split:<8} n={s['n']:<3} warnings={s['tp'] + s['fp']:<3} tp={s['tp']:<3} fp={s['fp']:<3} "
              f"fn={s['fn']:<3} precision={_fmt(s['precision'])} recall={_fmt(s['recall'])} "
              f"exact-verdict={s['exact']:.3f}")
    by_kind: dict[str, list] = {}
    for c, v in rows:
        by_kind.setdefault(c["kind"], []).append(v != "NO_CONTRADICTION")
    print(f"{name:<10} warned by kind: " + ", ".join(f"{k} {sum(x)}/{len(x)}" for k, x in sorted(by_kind.items()))
          + f"; {per_case * 1000:.1f} ms per case")
    if verbose:
        for c, v in rows:
            if (v != "NO_CONTRADICTION") != (c["expected"] != "NO_CONTRADICTION"):
                what = "FALSE WARNING" if v != "NO_CONTRADICTION" else "missed"
                print(f"  {what:<13} [{c['split']}] {c['id']} ({c['lang']}, {c['kind']}) -> {v}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("dev", "holdout", "fresh", "fresh2", "all"), default="all")
    ap.add_argument("--verbose", "-v", action="store_true", help="list every misclassified case")
    ap.add_argument("--offline-only", action="store_true", help="skip the API checker even when a key is set")
    args = ap.parse_args()
    from engram.monitor.offline_checker import OfflineChecker

    real = load_cases(args.split, REAL) if args.split in ("dev", "holdout", "all") else []
    cases = load_cases(args.split)
    checker = OfflineChecker()
    if real:
        print(f"{len(real)} cases from public projects' rules ({REAL.relative_to(REPO)}), split={args.split}; "
              f"headline: holdout")
        rows, per = run(checker, real)
        report("offline", rows, per, args.verbose, ("dev", "holdout"))
    print(f"\n{len(cases)} in-sample cases ({CASES.relative_to(REPO)}), split={args.split}")
    rows, per = run(checker, cases)
    report("offline", rows, per, args.verbose)
    if args.offline_only:
        return 0
    from engram import config
    from engram.providers import registry

    here = config.Project.from_cwd(str(REPO)).ensure()  # the API calls go to this checkout's ledger and budget
    checker = registry.checker(config.load_config()[0], project=here)
    if checker.name == "offline":
        print("api        not run: no ANTHROPIC_API_KEY / OPENAI_API_KEY (or ENGRAM_OFFLINE is set)")
        return 0
    rows, per = run(checker, cases)
    report(checker.name.split(":")[0], rows, per, args.verbose)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
