"""Precision and recall of the contradiction checkers on the labelled cases.

    python bench/contradiction_quality.py [--split NAME|all] [--verbose] [--offline-only]

Five sets, each printed per split (docs/labelled-sets.md, "Contradiction cases"):
tests/monitor/real_rules3.json (round 3: 58 new rules of public projects, all `holdout3`, never
tuned on; its line is the headline), tests/monitor/real_rules2.json (round 2: rules of public projects, changes written the way
an agent's edits are, split by rule into `dev2` and `holdout2` before round-2 tuning; both
halves tuned on in round 3), tests/monitor/real_rules.json (round 1: `dev`, and
`holdout`, whose round-1 first run was its held-out figure; both halves were tuned on in
round 2), tests/monitor/audit_cases.json (the auditor's `audit` cases, written before
round 2, not tuned on) and tests/monitor/cases.json (the older in-sample triples).

A "warning" is any verdict other than NO_CONTRADICTION: precision = correct warnings /
warnings, recall = contradictions warned / contradictions. A case that changes several
files warns when the check of any of them does. When ANTHROPIC_API_KEY or OPENAI_API_KEY
is set (and ENGRAM_OFFLINE is not), the configured API checker runs on the same cases too
(one request per file); `--offline-only` skips it. `--verbose` lists every miss and false
warning of the splits it prints: keep it off a held-out split until its figure is taken.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

MONITOR = REPO / "tests" / "monitor"
SETS = (  # (file, label, splits in print order)
    (MONITOR / "real_rules3.json", "round 3: held out whole, public projects' rules", ("holdout3",)),
    (MONITOR / "real_rules2.json", "round 2: public projects' rules, agent-sized changes", ("dev2", "holdout2")),
    (MONITOR / "real_rules.json", "round 1: public projects' rules (both halves tuned on in round 2)",
     ("dev", "holdout")),
    (MONITOR / "audit_cases.json", "the auditor's fresh cases (not tuned on)", ("audit",)),
    (MONITOR / "cases.json", "older in-sample cases", ("dev", "holdout", "fresh", "fresh2")),
)
SPLITS = sorted({s for _, _, splits in SETS for s in splits})
NO = "NO_CONTRADICTION"
_RANK = {NO: 0, "INDIRECT_CONTRADICTION": 1, "DIRECT_CONTRADICTION": 2}


def load_cases(split: str, path: Path) -> list[dict]:
    cases = json.loads(path.read_text())["cases"]
    return [c for c in cases if split == "all" or c["split"] == split]


def files_of(case: dict) -> list[tuple[str, str]]:
    """(path, diff text) of each file the case changes (older sets: one `path` and `diff`)."""
    files = case.get("files") or [{"path": case["path"], "diff": case["diff"]}]
    return [(f["path"], "\n".join(f["diff"]) + "\n") for f in files]


def decision_nodes(case: dict) -> list[dict]:
    """The decision nodes the graph would hold: text as name, consolidation's parsed data."""
    from engram.graph import decision_text

    return [{"id": f"{case['id']}#{i}", "name": text, "description": text, "strength": 0.8,
             "data": {"explicit": True, **decision_text.parse(text)}} for i, text in enumerate(case["decisions"])]


def score(rows: list[tuple[dict, str]]) -> dict:
    tp = sum(1 for c, v in rows if v != NO and c["expected"] != NO)
    fp = sum(1 for c, v in rows if v != NO and c["expected"] == NO)
    fn = sum(1 for c, v in rows if v == NO and c["expected"] != NO)
    exact = sum(1 for c, v in rows if v == c["expected"])
    return {"n": len(rows), "tp": tp, "fp": fp, "fn": fn,
            "precision": tp / (tp + fp) if tp + fp else None, "recall": tp / (tp + fn) if tp + fn else None,
            "exact": exact / len(rows) if rows else 0.0}


def _fmt(x: float | None) -> str:
    return "n/a  " if x is None else f"{x:.3f}"


def verdict_of(checker, case: dict) -> str:
    """The case's verdict: the strongest over the files it changes."""
    nodes = decision_nodes(case)
    verdicts = [checker.check(nodes, path, diff).verdict for path, diff in files_of(case)]
    return max(verdicts, key=lambda v: _RANK.get(v, 0))


def run(checker, cases: list[dict]) -> tuple[list[tuple[dict, str]], float]:
    rows = []
    t0 = time.perf_counter()
    for c in cases:
        try:
            v = verdict_of(checker, c)
        except Exception as exc:  # an API failure is a miss, and is shown
            print(f"  {c['id']}: {type(exc).__name__}: {exc}", file=sys.stderr)
            v = NO
        rows.append((c, v))
    return rows, (time.perf_counter() - t0) / max(1, len(cases))


def report(name: str, rows: list[tuple[dict, str]], per_case: float, verbose: bool, splits: tuple[str, ...]) -> None:
    for split in splits:
        part = [(c, v) for c, v in rows if c["split"] == split]
        if not part:
            continue
        s = score(part)
        by_kind: dict[str, list] = {}
        for c, v in part:
            by_kind.setdefault(c["kind"], []).append(v != NO)
        print(f"{name:<10} {split:<8} n={s['n']:<3} warnings={s['tp'] + s['fp']:<3} tp={s['tp']:<3} fp={s['fp']:<3} "
              f"fn={s['fn']:<3} precision={_fmt(s['precision'])} recall={_fmt(s['recall'])} "
              f"exact-verdict={s['exact']:.3f}")
        print(f"{'':<10} {'':<8} warned by kind: " + ", ".join(f"{k} {sum(x)}/{len(x)}" for k, x in sorted(by_kind.items())))
    print(f"{name:<10} {per_case * 1000:.1f} ms per case")
    if verbose:
        for c, v in rows:
            if (v != NO) != (c["expected"] != NO):
                what = "FALSE WARNING" if v != NO else "missed"
                print(f"  {what:<13} [{c['split']}] {c['id']} ({c.get('category') or c.get('lang')}, {c['kind']}) -> {v}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=SPLITS + ["all"], default="all")
    ap.add_argument("--verbose", "-v", action="store_true", help="list every misclassified case")
    ap.add_argument("--offline-only", action="store_true", help="skip the API checker even when a key is set")
    args = ap.parse_args()
    from engram.monitor.offline_checker import OfflineChecker

    checkers = [OfflineChecker()]
    if not args.offline_only:
        from engram import config
        from engram.providers import registry

        here = config.Project.from_cwd(str(REPO)).ensure()  # the API calls go to this checkout's ledger and budget
        api = registry.checker(config.load_config()[0], project=here)
        if api.name == "offline":
            print("api        not run: no ANTHROPIC_API_KEY / OPENAI_API_KEY (or ENGRAM_OFFLINE is set)\n")
        else:
            checkers.append(api)
    for path, label, splits in SETS:
        cases = load_cases(args.split, path)
        if not cases:
            continue
        print(f"{len(cases)} cases, {label} ({path.relative_to(REPO)}), split={args.split}")
        for checker in checkers:
            rows, per = run(checker, cases)
            report(checker.name.split(":")[0], rows, per, args.verbose, splits)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
