"""Retrieval quality on real sessions: replay a project's transcripts in time order through
the real hooks with the offline consolidator, and score what retrieval injected against
what each later session then read, edited or failed on.

    python bench/retrieval_quality.py [TRANSCRIPT_DIR] [--json OUT] [--verbose]

Default TRANSCRIPT_DIR: ../shared/fixtures/transcripts/kesslerio-attio-mcp-server. Any
directory of Claude Code transcripts (native JSONL or chat.json arrays) works: records
are merged across files (deduplicated by uuid), grouped by session id and replayed
session by session, oldest first. After each session, the offline consolidator folds
it into the graph (as the Stop-hook worker would), so session k sees sessions 1..k-1.

Measured per session (from the second on), per variant:
* injected: file-linked nodes shown at SessionStart, on each prompt, and on first reads;
* precision: injected file-linked nodes whose files the session touched (read, wrote or
  failed on) after the injection (a first-read annotation counts its own file);
* recall: of the files the session touched that the graph already knew at its start
  (linked to a live node), the share covered by an injected node before (or at) their
  first touch; "pre" counts SessionStart + prompts only, "all" adds first-read notes;
* tokens: injected text / 4.
Variants: the spec rule (default), the fan-normalised rule, the spec rule with noisy-OR
combination, and a BM25 keyword baseline that ranks the same live nodes by the same
entry-point text and renders them through the same tiers and budget. First-read
annotations are the same lookup in every variant (not spreading activation).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DEFAULT_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared",
                           "fixtures", "transcripts", "kesslerio-attio-mcp-server")
VARIANTS = ("spec", "fan", "spec+noisy-or", "bm25")
PRE = ("SessionStart", "UserPromptSubmit")


# -- transcripts -> sessions ---------------------------------------------------------------


def load_sessions(folder: str) -> list[tuple[str, list[dict]]]:
    """[(session id, records)] oldest first; records merged across files by uuid."""
    from engram import replay

    seen: set[str] = set()
    groups: dict[str, list[dict]] = defaultdict(list)
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not (name.endswith(".json") or name.endswith(".jsonl")) or not os.path.isfile(path):
            continue
        for rec in replay.load_records(path):
            uid, sid = rec.get("uuid"), rec.get("sessionId")
            if not isinstance(sid, str) or not sid or (uid and uid in seen):
                continue
            if uid:
                seen.add(uid)
            groups[sid].append(rec)
    out = []
    for sid, recs in groups.items():
        recs.sort(key=lambda r: r.get("timestamp") or "")
        out.append((recs[0].get("timestamp") or "", sid, recs))
    return [(sid, recs) for _, sid, recs in sorted(out)]


# -- recording what retrieval showed ---------------------------------------------------------


class Recorder:
    """Wraps the three retrieval entry points to log (session, channel, seq, node files)."""

    def __init__(self) -> None:
        self.shown: list[dict] = []
        self.tokens: dict[tuple[str, str], int] = defaultdict(int)
        self.session = ""  # the session being replayed (set by replay_all)

    def install(self, variant: str) -> None:
        from engram.core import inject, involuntary

        self._orig = (inject.session_start, inject.prompt, involuntary.annotate, inject.retrieve)
        ss, pr, an, retrieve = self._orig
        inject.session_start = self._wrap(ss, "SessionStart", lambda a: (a[0].db_path, a[3]))
        inject.prompt = self._wrap(pr, "UserPromptSubmit", lambda a: (a[0].db_path, a[3]))
        involuntary.annotate = self._wrap(an, "first read", lambda a: (a[0], a[3]), read_path=lambda a: a[1])
        if variant == "bm25":
            inject.retrieve = bm25_retrieve
        elif variant == "spec+noisy-or":
            inject.retrieve = lambda conn, terms, cfg, combine="max": retrieve(conn, terms, cfg, combine="noisy_or")

    def uninstall(self) -> None:
        from engram.core import inject, involuntary

        inject.session_start, inject.prompt, involuntary.annotate, inject.retrieve = self._orig

    def _wrap(self, fn, channel: str, ctx_of, read_path=None):
        from engram.core import shown

        def wrapped(*args, **kw):
            db, st = ctx_of(args)
            session = self.session
            before = dict(shown.rstate(st)["injected"])
            out = fn(*args, **kw)
            after = shown.rstate(st)["injected"]
            new = [n for n, v in after.items() if before.get(n) != v]
            if out:
                self.tokens[(session, channel)] += (len(out) + 3) // 4
            if new:
                files = node_files(db, new)
                for n in new:
                    self.shown.append({"session": session, "channel": channel, "seq": st["seq"], "node": n,
                                       "files": files.get(n, []), "read": read_path(args) if read_path else None})
            return out

        return wrapped


def node_files(db_path: str, ids: list[str]) -> dict[str, list[str]]:
    from engram.core import graphread

    conn = graphread.open_ro(db_path)
    try:
        rows = conn.execute("SELECT node_id, path FROM node_files WHERE node_id IN (%s)" % ",".join("?" * len(ids)),
                            ids).fetchall()  # fmt: skip
    finally:
        conn.close()
    out: dict[str, list[str]] = defaultdict(list)
    for nid, path in rows:
        out[nid].append(path)
    return out


def bm25_retrieve(conn, terms, cfg, combine="max"):
    """The keyword baseline: BM25 over live nodes' text, queried with the entry-point text."""
    from engram.core import keyword

    words = terms.paths + terms.suffixes + [n for n in terms.names if " " not in n]
    hits = keyword.BM25(keyword.live_docs(conn)).rank(" ".join(words), 200)
    if not hits:
        return []
    top = hits[0][1]
    return [(nid, 0.95 * s / top) for nid, s in hits if 0.95 * s / top >= float(cfg["activationThreshold"])]


# -- replay ------------------------------------------------------------------------------------


def parse_variant(spec: str) -> tuple[str, dict]:
    """"spec:decay=0.4:threshold=0.2" -> ("spec", {"decayFactor": 0.4, "activationThreshold": 0.2})."""
    name, *opts = spec.split(":")
    keys = {"decay": "decayFactor", "threshold": "activationThreshold", "budget": "tokenBudget"}
    params = {}
    for opt in opts:
        k, _, v = opt.partition("=")
        params[keys[k]] = int(v) if k == "budget" else float(v)
    return name, params


def knowable_files(db_path: str) -> set[str]:
    from engram.core import graphread

    conn = graphread.open_ro(db_path)
    if conn is None:
        return set()
    try:
        return {r[0] for r in conn.execute(
            "SELECT DISTINCT f.path FROM node_files f JOIN nodes n ON n.id = f.node_id "
            "WHERE n.status = 'active' AND n.strength > 0")}  # fmt: skip
    finally:
        conn.close()


def touched(events_path: str) -> list[tuple[int, str]]:
    """[(seq, path)] of reads, writes and failed calls on files, in order."""
    from engram.core.event_stream import read_events

    out = []
    for ev in read_events(events_path)[0]:
        path = ev.get("path")
        if not isinstance(path, str) or not path or os.path.isabs(path):
            continue
        if ev["type"] in ("file_read", "file_write") or ev.get("ok") is False:
            out.append((ev["seq"], path))
    return out


def use_home(home: str, variant: str) -> None:
    """Point engram at `home` with the variant's settings in its config.json."""
    name, params = parse_variant(variant)
    os.makedirs(home, exist_ok=True)
    os.environ.update(ENGRAM_HOME=home, ENGRAM_NO_WORKER="1", ENGRAM_OFFLINE="1")
    with open(os.path.join(home, "config.json"), "w") as f:
        json.dump({"spreadingRule": "fan" if name == "fan" else "spec", "llmProvider": "offline", **params}, f)


def replay_session(items: list, cwd: str) -> None:
    from engram import hook

    for event, payload in items:
        hook.run(event, None, json.dumps(payload).encode(), cwd)


def replay_all(sessions, variants: list[str], base: str, verbose: bool) -> list[dict]:
    """Paired replay: every variant sees each session against the same graph snapshot.

    A master home replays and consolidates the sessions in order. Before the master
    replays session k, each variant gets a copy of the master (the graph of sessions
    1..k-1 and their event streams), replays session k there with its settings, and is
    scored; the copies are thrown away. So variants differ only in retrieval, never in
    the graph (node ids are random, and a separately built graph would break ties
    differently).
    """
    import shutil

    from engram import config, replay
    from engram.core import consolidation

    master = os.path.join(base, "master")
    scratch = os.path.join(base, "scratch")
    results: dict[str, list] = {v: [] for v in variants}
    earlier: set[str] = set()  # files touched by the sessions replayed so far
    for sid, records in sessions:
        items = list(replay._session_payloads(records))
        cwd = items[0][1]["cwd"]
        use_home(master, "spec")
        config.Project.from_cwd(cwd).ensure()
        for v in variants:
            shutil.rmtree(scratch, ignore_errors=True)
            shutil.copytree(master, scratch)
            use_home(scratch, v)
            project = config.Project.from_cwd(cwd)
            known = knowable_files(project.db_path)
            rec = Recorder()
            rec.install(parse_variant(v)[0])
            rec.session = sid
            try:
                replay_session(items, cwd)
            finally:
                rec.uninstall()
            results[v].append(score(sid, rec, known, touched(project.events_path(sid)), len(items), earlier))
        use_home(master, "spec")
        project = config.Project.from_cwd(cwd)
        t0 = time.perf_counter()
        replay_session(items, cwd)
        cfg, _ = config.load_config()
        outcome = consolidation.consolidate_session(project, sid, cfg, provider="offline")
        earlier.update(p for _, p in touched(project.events_path(sid)))
        if verbose:
            print(f"  {sid[:8]} {len(items)} payloads x {len(variants) + 1} replays, "
                  f"consolidation {outcome.status} ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    return [{"variant": v, "sessions": results[v]} for v in variants]


def score(sid: str, rec: Recorder, known: set[str], touches: list[tuple[int, str]], payloads: int,
          earlier: set[str]) -> dict:
    """Precision, recall and tokens of what was injected into one session."""
    shown = [s for s in rec.shown if s["session"] == sid and s["files"]]
    first_touch: dict[str, int] = {}
    for seq, path in touches:
        first_touch.setdefault(path, seq)
    def hit(s: dict) -> bool:
        if s["read"] and s["read"] in s["files"]:
            return True
        return any(seq > s["seq"] and path in s["files"] for seq, path in touches)
    out = {"session": sid, "payloads": payloads, "touched": len(first_touch)}
    targets = {f for f in first_touch if f in known}
    out["knowable"] = len(targets)
    out["seen_before"] = len({f for f in first_touch if f in earlier})
    for label, chans in (("pre", PRE), ("read", ("first read",)), ("all", PRE + ("first read",))):
        sel = [s for s in shown if s["channel"] in chans]
        out[f"{label}_injected"] = len(sel)
        out[f"{label}_hits"] = sum(1 for s in sel if hit(s))
        covered = {f for f in targets if any(f in s["files"] and s["seq"] <= first_touch[f] for s in sel)}
        out[f"{label}_covered"] = len(covered)
    out["tokens"] = {ch: rec.tokens.get((sid, ch), 0) for ch in PRE + ("first read",)}
    return out


# -- report --------------------------------------------------------------------------------------


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.2f} ({a}/{b})" if b else "-"


def summarize(run: dict) -> dict:
    rows = run["sessions"][1:]  # the first session has nothing to retrieve
    tot = defaultdict(int)
    for r in rows:
        for k, v in r.items():
            if isinstance(v, int):
                tot[k] += v
        for ch, t in r["tokens"].items():
            tot["tok_" + ch] += t
    n = max(1, len(rows))
    return {
        "variant": run["variant"], "sessions": len(rows), "knowable": tot["knowable"],
        "touched": tot["touched"], "seen_before": tot["seen_before"],
        "pre_precision": _ratio(tot["pre_hits"], tot["pre_injected"]),
        "pre_recall": _ratio(tot["pre_covered"], tot["knowable"]),
        "all_precision": _ratio(tot["all_hits"], tot["all_injected"]),
        "all_recall": _ratio(tot["all_covered"], tot["knowable"]),
        "pre_injected_per_session": round(tot["pre_injected"] / n, 1),
        "tokens_pre_per_session": round((tot["tok_SessionStart"] + tot["tok_UserPromptSubmit"]) / n),
        "tokens_read_per_session": round(tot["tok_first read"] / n),
    }  # fmt: skip


def combine(reps: list[dict]) -> dict:
    """One summary per variant over repeats: the value, or "min-max" when they differ."""
    out = dict(reps[0])
    for k, v in reps[0].items():
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


def per_session_table(run: dict) -> str:
    lines = [f"{run['variant']}: session, payloads, files touched, touched before, knowable, "
             "pre inj/hits/covered, all inj/hits/covered, tokens start/prompts/reads"]
    for r in run["sessions"]:
        t = r["tokens"]
        lines.append(f"  {r['session'][:8]} {r['payloads']:>4} {r['touched']:>4} {r['seen_before']:>4} "
                     f"{r['knowable']:>4}   "
                     f"{r['pre_injected']:>3}/{r['pre_hits']:>3}/{r['pre_covered']:>3}   "
                     f"{r['all_injected']:>3}/{r['all_hits']:>3}/{r['all_covered']:>3}   "
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
    sessions = load_sessions(args.folder)
    print(f"{len(sessions)} sessions from {os.path.abspath(args.folder)}: "
          + ", ".join(f"{sid[:8]}({len(r)})" for sid, r in sessions))
    base = tempfile.mkdtemp(prefix="engram-quality-")
    variants = args.variants.split(",")
    if args.sweep:
        variants += [f"spec:decay={d}:threshold={t}" for d in (0.4, 0.6, 0.8) for t in (0.1, 0.2, 0.3)
                     if (d, t) != (0.6, 0.1)]
        variants += ["spec:budget=600", "spec:budget=300"]
    all_runs = []
    for r in range(args.repeats):
        all_runs.append(replay_all(sessions, variants, os.path.join(base, f"r{r}"), args.verbose))
    runs = all_runs[0]
    for run in runs:
        print(per_session_table(run))
    summaries = [combine([summarize(rep[i]) for rep in all_runs]) for i in range(len(variants))]
    s0 = summaries[0]
    print(f"\n{s0['sessions']} scored sessions touched {s0['touched']} files; {s0['seen_before']} of them had been "
          f"touched by an earlier session, {s0['knowable']} were linked in the graph at the session's start.")
    print(f"{len(all_runs)} independent replay(s); a cell with a range shows min-max over them")
    print(table(summaries))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"runs": all_runs, "summaries": summaries}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
