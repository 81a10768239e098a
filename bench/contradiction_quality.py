"""Precision and recall of the contradiction checkers on the labelled cases.

    python bench/contradiction_quality.py [--split NAME|all] [--verbose] [--offline-only]
    python bench/contradiction_quality.py --cv [--group rule|project]
    python bench/contradiction_quality.py --cross [N]
    python bench/contradiction_quality.py --rules [--markdown]

Seven sets, each printed per split (docs/labelled-sets.md, "Method"):
tests/monitor/real_rules5.json (round 5: 52 new rules taken from public projects' ADRs,
contributing / style guides and lint configurations, all `holdout5`, written blind to the
checker and never tuned on; its line is the headline), tests/monitor/real_rules4.json (round 4:
48 rules, `holdout4`, changes written as an agent's ordinary task; read after its held-out run and
tuned on in round 5),
tests/monitor/real_rules3.json (round 3: 58 rules, `holdout3`; tuned on in round 4),
tests/monitor/real_rules2.json (round 2: rules of public projects, changes written the way
an agent's edits are, split by rule into `dev2` and `holdout2` before round-2 tuning; both
halves tuned on in round 3), tests/monitor/real_rules.json (round 1: `dev`, and
`holdout`, whose round-1 first run was its held-out figure; both halves were tuned on in
round 2), tests/monitor/audit_cases.json (the auditor's `audit` cases, written before
round 2, not tuned on) and tests/monitor/cases.json (the older in-sample triples).

A "warning" is any verdict other than NO_CONTRADICTION: precision = correct warnings /
warnings, recall = contradictions warned / contradictions. A case that changes several
files warns when the check of any of them does. When engram may use a model (a key given to
it, ENGRAM_ANTHROPIC_API_KEY / ENGRAM_OPENAI_API_KEY, or llmProvider named in config.json,
and ENGRAM_OFFLINE not set), the configured API checker runs on the same cases too
(one request per file); `--offline-only` skips it. `--verbose` lists every miss and false
warning of the splits it prints: keep it off a held-out split until its figure is taken.

`--cv` measures generalisation on the development material only (every set but round 5):
leave-one-group-out over rules (or source projects), where each mechanism of the offline
checker (`offline_checker.all_matches`, the `mechanism` of a match) may warn on the left-out
group only if, on the other groups, its warnings were right at least `--min-precision` of the
time on at least `--min-groups` groups. A mechanism that only ever fires on the rules it was
written for is thereby switched off for them, so the figure is what the checker does on rules
it was not tuned for. It prints each mechanism's record and the gate the whole material gives.

`--rules` is each rule's record (the `mechanism` of its matches), leave one SET out: for each
labelled set (all seven, round 5 included), the rule's right and wrong warnings on it, and whether
the other sets alone would have let it warn there (precision >= `--min-precision`, right at least
once); its pooled precision, and `held-out`: the cases it caught on sets it was admitted to by the
others. A rule ships when its pooled precision is >= 0.95 and it catches held-out cases
(docs/monitoring.md, "The rule catalogue"). `--markdown` prints the table for that section.

`--cross N` is the negative control: each development decision checked against the changes of N
cases of other rules (chosen by a hash, the same every run). A decision says nothing about an
unrelated change, so nearly every warning there is false; they are printed, by mechanism, to be
read (an unrelated pair can still be a true contradiction: "no console.log" against another
rule's diff that adds one).
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
    (MONITOR / "real_rules5.json", "round 5: held out whole, rules of ADRs, contributing guides and lint configurations",
     ("holdout5",)),
    (MONITOR / "real_rules4.json", "round 4: public projects' rules, changes made in ordinary tasks (tuned on in round 5)",
     ("holdout4",)),
    (MONITOR / "real_rules3.json", "round 3: public projects' rules (tuned on in round 4)", ("holdout3",)),
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
    from engram.language import decision_text

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


DEV_SETS = ("real_rules.json", "real_rules2.json", "real_rules3.json", "real_rules4.json", "audit_cases.json",
            "cases.json")


def group_of(case: dict, by: str) -> str:
    """A case's group: its rule (or its source project), else its decision's words."""
    if by == "project" and case.get("source", "").count("/") >= 1:
        return "/".join(case["source"].split("/")[:2])
    return case.get("rule") or " | ".join(case["decisions"])


def fired(case: dict) -> dict[str, int]:
    """mechanism -> the verdict rank it reaches on the case, over every file it changes."""
    from engram.monitor.offline_checker import all_matches

    out: dict[str, int] = {}
    for path, diff in files_of(case):
        for m in all_matches(decision_nodes(case), path, diff):
            out[m["mechanism"]] = max(out.get(m["mechanism"], 0), 2 if m["kind"] == "direct" else 1)
    return out


def mechanism_record(rows: list[tuple[str, bool, dict]]) -> dict[str, dict]:
    """Per mechanism: cases it fired on, right and wrong, and the groups where it was right."""
    rec: dict[str, dict] = {}
    for group, positive, mech in rows:
        for m in mech:
            r = rec.setdefault(m, {"tp": 0, "fp": 0, "groups": set(), "fp_groups": set()})
            r["tp" if positive else "fp"] += 1
            (r["groups"] if positive else r["fp_groups"]).add(group)
    return rec


def gate_from(rec: dict[str, dict], min_precision: float, min_groups: int) -> set[str]:
    """The mechanisms allowed to warn: right often enough, on enough groups."""
    return {m for m, r in rec.items()
            if r["tp"] / (r["tp"] + r["fp"]) >= min_precision and len(r["groups"]) >= min_groups}


def cross_validate(by: str, min_precision: float, min_groups: int) -> None:
    """Leave one group out; the figure is printed for each set's rules alone too (the later rounds'
    rules were not in view when the parser was first written)."""
    rows = []
    for name in DEV_SETS:
        for c in load_cases("all", MONITOR / name):
            rows.append((f"{name}:{group_of(c, by)}", c["expected"] != NO, fired(c)))
    groups = sorted({g for g, _, _ in rows})
    cv = {"tp": 0, "fp": 0, "fn": 0}
    cv_of = {name: {"tp": 0, "fp": 0, "fn": 0} for name in DEV_SETS}
    for g in groups:
        allowed = gate_from(mechanism_record([r for r in rows if r[0] != g]), min_precision, min_groups)
        for _, positive, mech in (r for r in rows if r[0] == g):
            warn = any(m in allowed for m in mech)
            key = ("tp" if positive else "fp") if warn else ("fn" if positive else None)
            if key:
                cv[key] += 1
                if g.split(":", 1)[0] in cv_of:
                    cv_of[g.split(":", 1)[0]][key] += 1
    ins = {"tp": sum(1 for _, p, m in rows if p and m), "fp": sum(1 for _, p, m in rows if not p and m),
           "fn": sum(1 for _, p, m in rows if p and not m)}
    figures = [("in-sample, no gate", ins, rows), (f"cross-validated, leave one {by} out", cv, rows)]
    figures += [(f"  of which {name}'s rules", s, [r for r in rows if r[0].startswith(name + ":")])
                for name, s in cv_of.items()]
    for label, s, part in figures:
        prec = s["tp"] / (s["tp"] + s["fp"]) if s["tp"] + s["fp"] else float("nan")
        rec_ = s["tp"] / (s["tp"] + s["fn"]) if s["tp"] + s["fn"] else float("nan")
        print(f"{label:<40} n={len(part)} groups={len({g for g, _, _ in part})} tp={s['tp']} fp={s['fp']} fn={s['fn']} "
              f"precision={prec:.3f} recall={rec_:.3f}")
    rec = mechanism_record(rows)
    allowed = gate_from(rec, min_precision, min_groups)
    print(f"\ngate (precision >= {min_precision}, right on >= {min_groups} {by}s): "
          f"{len(allowed)} of {len(rec)} mechanisms warn")
    for m, r in sorted(rec.items(), key=lambda kv: (-len(kv[1]["groups"]), kv[0])):
        print(f"  {'on ' if m in allowed else 'OFF'} {m:<34} right {r['tp']:>3} in {len(r['groups']):>2} {by}s, "
              f"wrong {r['fp']:>2} in {len(r['fp_groups']):>2}")


ALL_SETS = ("real_rules5.json",) + DEV_SETS


def set_records() -> tuple[dict[str, dict[str, dict]], dict[str, int]]:
    """rule -> set -> {tp, fp}, over every labelled set; and each set's number of contradictions."""
    rec: dict[str, dict[str, dict]] = {}
    positives = {}
    for name in ALL_SETS:
        cases = load_cases("all", MONITOR / name)
        positives[name] = sum(c["expected"] != NO for c in cases)
        for c in cases:
            for mech in fired(c):
                r = rec.setdefault(mech, {}).setdefault(name, {"tp": 0, "fp": 0})
                r["tp" if c["expected"] != NO else "fp"] += 1
    return rec, positives


def rule_table(min_precision: float) -> list[dict]:
    """Each rule's pooled and leave-one-set-out record (see `--rules`)."""
    rec, positives = set_records()
    rows = []
    for mech, by_set in rec.items():
        tp = sum(r["tp"] for r in by_set.values())
        fp = sum(r["fp"] for r in by_set.values())
        held = {"tp": 0, "fp": 0}
        for name, r in by_set.items():
            o_tp = sum(x["tp"] for s, x in by_set.items() if s != name)
            o_fp = sum(x["fp"] for s, x in by_set.items() if s != name)
            if o_tp and o_tp / (o_tp + o_fp) >= min_precision:
                held["tp"] += r["tp"]
                held["fp"] += r["fp"]
        rows.append({"rule": mech, "tp": tp, "fp": fp, "precision": tp / (tp + fp), "held_tp": held["tp"],
                     "held_fp": held["fp"], "sets": by_set,
                     "recall": tp / sum(positives.values()),
                     "ships": tp / (tp + fp) >= min_precision and held["tp"] > 0})
    return sorted(rows, key=lambda r: (not r["ships"], -r["tp"], r["rule"]))


def print_rules(min_precision: float, markdown: bool) -> None:
    rows = rule_table(min_precision)
    short = {n: n.replace("real_rules", "r").replace(".json", "").replace("audit_cases", "audit").replace("cases", "old")
             for n in ALL_SETS}
    if markdown:
        print("| rule | " + " | ".join(short[n] for n in ALL_SETS) + " | precision | recall | held-out | ships |")
        print("|---|" + "---|" * (len(ALL_SETS) + 4))
    for r in rows:
        cells = [f"{r['sets'][n]['tp']}/{r['sets'][n]['fp']}" if n in r["sets"] else "-" for n in ALL_SETS]
        if markdown:
            print(f"| `{r['rule']}` | " + " | ".join(cells) + f" | {r['precision']:.3f} | {r['recall']:.3f} | "
                  f"{r['held_tp']}/{r['held_fp']} | {'yes' if r['ships'] else 'no'} |")
        else:
            print(f"{r['rule']:<34} " + " ".join(f"{c:>6}" for c in cells) + f"  p={r['precision']:.3f} "
                  f"r={r['recall']:.3f} held-out {r['held_tp']}/{r['held_fp']} {'ships' if r['ships'] else 'DELETE'}")
    if not markdown:
        print(f"{'':<34} " + " ".join(f"{short[n]:>6}" for n in ALL_SETS) + "  (right/wrong warnings per set)")
        print(f"{len(rows)} rules fire; {sum(r['ships'] for r in rows)} ship")


def cross_check(n: int) -> None:
    import hashlib

    from engram.monitor.offline_checker import all_matches

    cases = [(name, c) for name in DEV_SETS for c in load_cases("all", MONITOR / name)]
    decisions = {}
    for name, c in cases:
        decisions.setdefault(f"{name}:{group_of(c, 'rule')}", c)
    pairs = fires = 0
    by_mech: dict[str, list[str]] = {}
    for group, owner in decisions.items():
        others = [c for name, c in cases if f"{name}:{group_of(c, 'rule')}" != group]
        others.sort(key=lambda c: hashlib.sha256((group + c["id"]).encode()).hexdigest())
        for other in others[:n]:
            pairs += 1
            found = [m for path, diff in files_of(other) for m in all_matches(decision_nodes(owner), path, diff)]
            fires += bool(found)
            for m in {m["mechanism"]: m for m in found}.values():
                by_mech.setdefault(m["mechanism"], []).append(
                    f"{owner['decisions'][0][:70]!r} x {other['id']}: {m['text'][:70]}")
    print(f"{pairs} unrelated (decision, change) pairs, {fires} warned ({1000 * fires / max(1, pairs):.1f} per 1000)")
    for mech, rows in sorted(by_mech.items(), key=lambda kv: -len(kv[1])):
        print(f"  {mech:<30} {len(rows)}")
        for r in rows[:12]:
            print(f"      {r}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=SPLITS + ["all"], default="all")
    ap.add_argument("--verbose", "-v", action="store_true", help="list every misclassified case")
    ap.add_argument("--offline-only", action="store_true", help="skip the API checker even when a key is set")
    ap.add_argument("--cv", action="store_true", help="grouped cross-validation of the offline checker (development sets)")
    ap.add_argument("--group", choices=("rule", "project"), default="rule")
    ap.add_argument("--min-precision", type=float, default=0.95)
    ap.add_argument("--min-groups", type=int, default=1)
    ap.add_argument("--cross", type=int, metavar="N", help="each decision against N other rules' changes")
    ap.add_argument("--rules", action="store_true", help="each rule's record, leave one labelled set out")
    ap.add_argument("--markdown", action="store_true", help="with --rules: the table of docs/monitoring.md")
    args = ap.parse_args()
    if args.rules:
        print_rules(args.min_precision, args.markdown)
        return 0
    if args.cross:
        cross_check(args.cross)
        return 0
    if args.cv:
        cross_validate(args.group, args.min_precision, args.min_groups)
        return 0
    from engram.monitor.offline_checker import OfflineChecker

    checkers = [OfflineChecker()]
    if not args.offline_only:
        from engram import config
        from engram.providers import registry

        here = config.Project.from_cwd(str(REPO)).ensure()  # the API calls go to this checkout's ledger and budget
        api = registry.checker(config.load_config()[0], project=here)
        if api.name == "offline":
            print("api        not run: no key given to engram (ENGRAM_ANTHROPIC_API_KEY / ENGRAM_OPENAI_API_KEY, "
                  "or llmProvider in config.json), or ENGRAM_OFFLINE is set\n")
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
