"""Retrieval quality on real sessions: replay a project's transcripts in time order through
the real hooks with the offline consolidator, and score what retrieval injected against
what each later session then read, edited or failed on.

    python bench/retrieval_quality.py [TRANSCRIPT_DIR] [--json OUT] [--verbose] [--sweep]

A thin wrapper over `engram.evaluation` (the same replay and scoring `engram eval` runs),
printing the file-level figures of docs/retrieval.md: precision = injected file-linked
nodes whose files the session touched after the injection (a first-read note counts its
own file); recall = of the files the session touched that the graph knew at its start,
the share an injected node covered at or before their first touch ("start+prompts":
SessionStart and prompts; "all": also first reads); tokens = injected text / 4.
Default TRANSCRIPT_DIR: ../shared/fixtures/transcripts/kesslerio-attio-mcp-server.
`engram eval` reports the same replay with tests and errors as targets too, MRR, the
recency and no-memory baselines, and the full sensitivity analysis.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DEFAULT_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared",
                           "fixtures", "transcripts", "kesslerio-attio-mcp-server")
VARIANTS = ("spec", "fan", "spec+noisy-or", "bm25")


def replay_all(folder: str, names: list[str], base: str, verbose: bool) -> dict[str, list[dict]]:
    """{variant: per-session rows} over every project in the folder (paired replay)."""
    from engram.evaluation import engine
    from engram.history import corpus
    from engram.evaluation.recorder import Variant

    variants = [Variant.parse(n) for n in names]
    say = (lambda m: print(m, file=sys.stderr)) if verbose else (lambda m: None)
    rows: dict[str, list[dict]] = {n: [] for n in names}
    cache = engine.StreamCache()
    for i, project in enumerate(corpus.load([folder])):
        run = engine.run_project(project, variants, engine.Build(), os.path.join(base, str(i)), cache, say)
        for n in names:
            rows[n] += run.rows[n]
    return rows


def summarize(name: str, rows: list[dict]) -> dict:
    """The docs/retrieval.md columns (file targets, graph-known denominator)."""
    from engram.evaluation import report, scoring

    s = scoring.summarize(rows)
    n = max(1, len(rows))
    return {
        "variant": name, "sessions": len(rows), "knowable": s["known"]["file"], "touched": s["targets"]["file"],
        "seen_before": s["revisited"]["file"],
        "pre_precision": report.ratio(s["file_precision_pre"]), "pre_recall": report.ratio(s["recall_pre_known_file"]),
        "all_precision": report.ratio(s["file_precision_all"]), "all_recall": report.ratio(s["recall_all_known_file"]),
        "pre_injected_per_session": round(sum(r["pre"]["file_linked"] for r in rows) / n, 1),
        "tokens_pre_per_session": s["tokens_pre_per_session"],
        "tokens_read_per_session": s["tokens_per_session"]["first read"],
    }  # fmt: skip


def combine(reps: list[dict]) -> dict:
    """One summary per variant over repeats: the value, or "min-max" when they differ."""
    out = dict(reps[0])
    for k in reps[0]:
        vals = [r[k] for r in reps]
        if k != "variant" and len(set(map(str, vals))) > 1:
            out[k] = f"{min(vals)}-{max(vals)}"
    return out


def table(summaries: list[dict]) -> str:
    head = ("| variant | precision (start+prompts) | recall (start+prompts) | precision (all) | recall (all) "
            "| nodes injected / session (start+prompts) | tokens / session (start+prompts) "
            "| tokens / session (first reads) |")
    lines = [head, "|" + "---|" * 8]
    for s in summaries:
        lines.append(f"| {s['variant']} | {s['pre_precision']} | {s['pre_recall']} | {s['all_precision']} | "
                     f"{s['all_recall']} | {s['pre_injected_per_session']} | {s['tokens_pre_per_session']} | "
                     f"{s['tokens_read_per_session']} |")
    return "\n".join(lines)


def per_session_table(name: str, rows: list[dict]) -> str:
    lines = [f"{name}: session, events, targets, touched before, graph-known, "
             "pre shown/hits/covered, all shown/hits/covered, tokens start/prompts/reads"]
    for r in rows:
        p, a, t = r["pre"], r["all"], r["tokens"]
        lines.append(f"  {r['session'][:8]} {r['events']:>4} {sum(r['targets'].values()):>4} "
                     f"{sum(r['revisited'].values()):>4} {sum(r['known'].values()):>4}   "
                     f"{p['injected']:>3}/{p['hits']:>3}/{sum(p['covered_known'].values()):>3}   "
                     f"{a['injected']:>3}/{a['hits']:>3}/{sum(a['covered_known'].values()):>3}   "
                     f"{t['SessionStart']}/{t['UserPromptSubmit']}/{t['first read']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", nargs="?", default=DEFAULT_DIR)
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="comma-separated; a variant may carry settings, e.g. spec:decay=0.4:threshold=0.2")
    ap.add_argument("--sweep", action="store_true",
                    help="add the spec rule at decayFactor 0.4/0.6/0.8 x activationThreshold 0.1/0.2/0.3,"
                         " and at tokenBudget 600 and 300")
    ap.add_argument("--json", default=None, help="also write all measurements to this file")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--repeats", type=int, default=2,
                    help="independent replays (fresh graphs; node ids are random, ties differ)")
    args = ap.parse_args(argv)
    names = args.variants.split(",")
    if args.sweep:
        names += [f"spec:decay={d}:threshold={t}" for d in (0.4, 0.6, 0.8) for t in (0.1, 0.2, 0.3)
                  if (d, t) != (0.6, 0.1)]
        names += ["spec:budget=600", "spec:budget=300"]
    print(f"transcripts: {os.path.abspath(args.folder)}")
    with tempfile.TemporaryDirectory(prefix="engram-quality-") as base:
        reps = [replay_all(args.folder, names, os.path.join(base, f"r{r}"), args.verbose) for r in range(args.repeats)]
    for n in names:
        print(per_session_table(n, reps[0][n]))
    summaries = [combine([summarize(n, rep[n]) for rep in reps]) for n in names]
    s0 = summaries[0]
    print(f"\n{s0['sessions']} scored sessions touched {s0['touched']} files; {s0['seen_before']} of them had been "
          f"touched by an earlier session, {s0['knowable']} were linked in the graph at the session's start.")
    print(f"{len(reps)} independent replay(s); a cell with a range shows min-max over them")
    print(table(summaries))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"runs": reps, "summaries": summaries}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
