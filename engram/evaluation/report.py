"""The evaluation report: `report.md` (tables, plots when matplotlib is there) + `report.json`."""

from __future__ import annotations

import json
import os
from typing import Any

LABELS = {
    "engram": "engram (spreading activation, defaults)",
    "spec+noisy-or": "engram, noisy-OR across seeds",
    "bm25": "BM25 keyword search over the same nodes",
    "recency": "recency only (previous session's files)",
    "none": "no memory",
}
CHANNEL_NOTE = ("start+prompts = SessionStart and prompt injections; all = also first-read notes. "
                "Recall is over targets an earlier session touched; graph-known = over targets a live node "
                "was about at the session's start.")


def write(data: dict[str, Any], out: str) -> list[str]:
    """Write report.json, report.md and (when matplotlib is installed) plots/*.png; the paths.
    Without matplotlib the report and stderr say so."""
    import sys

    from engram.evaluation import plots

    if not plots.available():
        print(plots.MISSING, file=sys.stderr)
    os.makedirs(out, exist_ok=True)
    paths = [os.path.join(out, "report.json"), os.path.join(out, "report.md")]
    with open(paths[0], "w") as f:
        json.dump(data, f, indent=1, default=str)
    images = plots.draw(data, os.path.join(out, "plots"))
    with open(paths[1], "w") as f:
        f.write(render(data, images))
    return paths + [os.path.join(out, p) for p in images.values()]


def ratio(r: dict[str, Any] | None) -> str:
    if not r or r.get("value") is None:
        return "–"
    return f"{r['value']:.2f} ({r['num']}/{r['den']})"


def num(v: Any) -> str:
    if v is None:
        return "–"
    return f"{v:.2f}" if isinstance(v, float) else str(v)


def table(head: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def render(data: dict[str, Any], images: dict[str, str]) -> str:
    from engram.evaluation import plots

    missing = "" if plots.available() else plots.MISSING
    parts = [_header(data), missing, _comparison(data, images), _knowledge(data.get("knowledge")),
             _supersession(data["supersession"]), _cost(data),
             _sensitivity(data["sweep"], images), _per_session(data), _definitions()]
    return "\n\n".join(p for p in parts if p) + "\n"


def _header(data: dict[str, Any]) -> str:
    m = data["meta"]
    sessions = sum(c["sessions"] for c in data["corpus"])
    scored = sum(c["scored"] for c in data["corpus"])
    lines = [f"# engram evaluation ({m['date']})", "",
             f"`{m['command'] or 'engram eval'}`: engram {m['engram']}, Python {m['python']}, consolidation "
             f"provider `{m['provider']}`, sweep `{m['sweep']}`, {m['seconds']} s.", "",
             f"{sessions} session(s) in {len(data['corpus'])} project(s), replayed in time order through the real "
             f"hooks; {scored} later session(s) scored against what they then did. Transcripts: "
             + ", ".join(f"`{t}`" for t in m["transcripts"]) + "."]
    lines += ["", table(["project", "sessions", "scored", "graph at the end (nodes / live / superseded / edges)"],
                        [[c["project"], c["sessions"], c["scored"], _graph_cell(data["graph"].get(c["root"]))]
                         for c in data["corpus"]])]
    return "\n".join(lines + ["", hit_rate(data["graph"])])


def hit_rate(graphs: dict[str, Any]) -> str:
    """Payoff per item over the replayed sessions: of the items injected, how many the session
    then used (consolidate/knowledge/payoff.py; docs/curation.md)."""
    totals = {k: sum(int((g.get("payoff") or {}).get(k, 0)) for g in graphs.values() if g)
              for k in ("sessions", "injected", "used", "words")}
    if not totals["injected"]:
        return "Payoff: no item was injected in the replayed sessions."
    return (f"Payoff: {totals['injected']} item(s) injected ({totals['words']:,} words) in {totals['sessions']} "
            f"session(s), {totals['used']} then used by the session: a hit rate of "
            f"{totals['used'] * 100 / totals['injected']:.1f}%.")


def _graph_cell(g: dict[str, Any] | None) -> str:
    return f"{g['nodes']} / {g['live']} / {g['superseded']} / {g['edges']}" if g else "–"


def _comparison(data: dict[str, Any], images: dict[str, str]) -> str:
    comp = data["comparison"]
    rows = []
    for name, s in comp.items():
        rows.append([LABELS.get(name, name), ratio(s["recall_all_revisited"]), ratio(s["recall_pre_revisited"]),
                     ratio(s["recall_pre_known"]), ratio(s["precision_all"]), num(s["mrr"]["value"]),
                     s["tokens_pre_per_session"], s["tokens_per_session"]["first read"],
                     s["injected_all_per_session"]])
    head = ["", "recall (all)", "recall (start+prompts)", "recall of graph-known (start+prompts)",
            "precision (all)", "MRR@10", "tokens / session (start+prompts)", "tokens / session (first reads)",
            "items shown / session"]
    e = comp["engram"]
    if not e["sessions"]:
        return ("## 1. Does memory help? engram against the baselines\n\nNo project has two or more sessions, so no "
                "session could use an earlier one's memory: nothing to score here. Latency, consolidation cost and "
                "the supersession check below do not depend on it.")
    kinds = [[LABELS.get(n, n)] + [ratio(s[f"recall_all_revisited_{k}"]) for k in ("file", "test", "error")]
             for n, s in comp.items()]
    t = e["targets"]
    return "\n".join([
        "## 1. Does memory help? engram against the baselines", "",
        f"The scored sessions touched {sum(t.values())} targets ({t['file']} files, {t['test']} test commands, "
        f"{t['error']} failing checks); {sum(e['revisited'].values())} of them had been touched by an earlier "
        f"session, and {sum(e['known'].values())} were known to the graph when the session started. "
        f"MRR over {e['mrr']['questions']} question(s) made from the later sessions' prompts.", "",
        table(head, rows), "", CHANNEL_NOTE, "",
        "No memory shows nothing, so its recall is 0 by construction; the run checks it.", "",
        "Recall (all channels) by kind of target:", "",
        table(["", "files read or written", "tests run", "errors hit"], kinds)]
        + (["", f"![engram against the baselines]({images['baselines']})"] if "baselines" in images else []))


def _knowledge(k: dict[str, Any] | None) -> str:
    """Section 1b: the labelled items each source delivered at the start of later sessions."""
    from engram.evaluation.knowledge import KINDS, SOURCES, WORD_BUDGET

    title = "## 1b. Knowledge: did each later session start with what it needed?"
    if not k:
        return (f"{title}\n\nNo labelled project among these transcripts (labels: "
                "`engram/evaluation/knowledge_labels.json`, or `--labels FILE`).")
    out = [title, "",
           "Items an earlier session had learnt and a later one needed (commands, gotchas, unfinished work, the "
           "user's instructions), labelled by reading the transcripts before the extraction was tuned; an item "
           "counts when its pattern matches the text the session started with. The baselines get the same "
           f"budget ({WORD_BUDGET} words): the previous session's prompts and final message (recency), and "
           "earlier sessions' events ranked by BM25 against the new session's first prompt. Quote the held-out "
           "half: the dev half is where extraction and rendering were tuned."]
    for name, r in k.items():
        s = r["score"]["by_source"]
        cell = lambda src, key: ratio({"value": s[src][key]["delivered"] / s[src][key]["needed"],  # noqa: E731
                                       "num": s[src][key]["delivered"], "den": s[src][key]["needed"]}) \
            if key in s[src] else "–"
        rows = [[key] + [cell(src, key) for src in SOURCES] for key in ("held-out", "dev", "all") + KINDS]
        words = r["score"]["words"]
        rows.append(["words per session (mean / max)"] + [f"{words[src]['mean']} / {words[src]['max']}"
                                                          for src in SOURCES])
        out += ["", f"### {name}", "", table(["items delivered"] + list(SOURCES), rows)]
    return "\n".join(out)


def _pct(verdicts: list[dict[str, bool]], key: str = "right") -> str:
    if not verdicts:
        return "–"
    n = sum(1 for v in verdicts if v[key])
    return f"{100 * n / len(verdicts):.0f}% ({n}/{len(verdicts)})"


def _supersession(s: dict[str, Any]) -> str:
    rows = [[m, _pct(by.get("single", [])), _pct(by.get("multi", [])),
             f"{_pct(by.get('single', []), 'current')} / {_pct(by.get('multi', []), 'current')}",
             f"{_pct(by.get('single', []), 'stale')} / {_pct(by.get('multi', []), 'stale')}"]
            for m, by in s["methods"].items()]
    rows += [["published memory systems (reference)", "7–54%", "≤ 7%", "", ""],
             ["deterministic latest-wins (published reference)", "78%", "30%", "", ""]]
    key = next((m for m in s["methods"] if m.startswith("engram: query_knowledge")), None)
    out = ["## 2. Supersession: does the current decision come back, and not the replaced one?", "",
           "A case is right when the current statement is returned and no superseded one is.", "",
           table(["method", "single-hop right", "multi-hop right", "current returned (single / multi)",
                  "superseded returned (single / multi)"], rows)]
    if key:
        per = []
        for hops in ("single", "multi"):
            for c, v in zip(s["chains"][hops], s["methods"][key][hops]):
                per.append([hops, c["template"], c["current"], "yes" if v["right"] else
                            ("current missing" if not v["current"] else "superseded returned")])
        out += ["", f"Per chain ({key}); the last statement's phrasing:", "",
                table(["hops", "phrasing", "current statement", "right"], per)]
    return "\n".join(out)


def _cost(data: dict[str, Any]) -> str:
    lat = data["latency"]
    rows = [[ev, d["n"], num(d["p50"]), num(d["p90"]), num(d["p99"])] for ev, d in lat["in_process_ms"].items()]
    out = ["## 3. Cost", "", "Hook latency in process (engram's own work per event, ms; the master replay):", "",
           table(["event", "n", "p50", "p90", "p99"], rows)]
    if lat.get("subprocess_ms"):
        sub = [[ev, d["n"], num(d["p50"]), num(d["p90"]), num(d["p99"])] for ev, d in lat["subprocess_ms"].items()]
        out += ["", "A sample as real hook subprocesses, started as `engram install` starts them (ms, interpreter start included; "
                "`bare` = `python -c pass` interleaved):", "", table(["event", "n", "p50", "p90", "p99"], sub)]
    c = data["consolidation"]
    out += ["", f"Consolidation ({data['meta']['provider']}): {c['sessions']} session(s), {c['events']} events in "
            f"{c['seconds']} s in process ({num(c['events_per_second'])} events/s); tokens "
            f"{c['input_tokens']} in / {c['output_tokens']} out. Hook faults: {lat['hook_faults']}."]
    return "\n".join(out)


def _sensitivity(axes: list[dict[str, Any]], images: dict[str, str]) -> str:
    if not axes:
        return ""
    out = ["## 4. Sensitivity analysis", "",
           "One parameter at a time, the others at their defaults (**bold** = the default). Retrieval "
           "parameters are paired (same graphs); band points rebuild the graphs from the same event streams."]
    for ax in axes:
        out += ["", f"### {ax['label']} (`{ax['key']}`)", ""]
        if ax["side"] == "windows" and "recall_all_revisited" not in ax["points"][0]["metrics"]:
            out.append("Offline the consolidator reads each range whole, so retrieval cannot move; the windows "
                       "change only what a model-backed consolidation would cost and see:")
        out += ["", _axis_table(ax)]
        if ax["key"] in images:
            out += ["", f"![{ax['label']}]({images[ax['key']]})"]
    return "\n".join(out)


def _axis_table(ax: dict[str, Any]) -> str:
    head = ["value"]
    rows = []
    for p in ax["points"]:
        m = p["metrics"]
        value = "/".join(map(str, p["value"])) if isinstance(p["value"], list) else str(p["value"])
        row = [f"**{value}**" if p["default"] else value]
        if "recall_all_revisited" in m:
            row += [ratio(m["recall_all_revisited"]), ratio(m["recall_pre_known"]), ratio(m["precision_all"]),
                    num(m["mrr"]["value"]), m["tokens_pre_per_session"]]
        if ax["side"] == "bands":
            row += [_graph_cell(m.get("graph"))]
        if "windowing" in m:
            w = m["windowing"]
            row += [w["calls_per_session"], w["tokens_per_session"], ratio({"value": w["links_kept"],
                                                                            "num": w["kept"], "den": w["links"]})]
        if ax["side"] == "windows" and "recall_all_revisited" in m:
            c = m.get("consolidation") or {}
            row += [f"{c.get('input_tokens', 0)} / {c.get('output_tokens', 0)}"]
        rows.append(row)
    m0 = ax["points"][0]["metrics"]
    if "recall_all_revisited" in m0:
        head += ["recall (all)", "recall of graph-known (start+prompts)", "precision (all)", "MRR@10",
                 "tokens / session (start+prompts)"]
    if ax["side"] == "bands":
        head += ["graph, all projects (nodes / live / superseded / edges)"]
    if "windowing" in m0:
        head += ["Pass 1 calls / session", "est. tokens / session", "causal links kept"]
    if ax["side"] == "windows" and "recall_all_revisited" in m0:
        head += ["tokens measured (in / out)"]
    return table(head, rows)


def _per_session(data: dict[str, Any]) -> str:
    rows = []
    for r in data["per_session"].get("engram", []):
        a = r["all"]
        rows.append([r["session"][:8], r["events"], sum(r["targets"].values()), sum(r["revisited"].values()),
                     sum(r["known"].values()), f"{r['pre']['injected']} / {a['injected']}", a["hits"],
                     sum(a["covered_revisited"].values()), "/".join(str(v) for v in r["tokens"].values())])
    if not rows:
        return ""
    return "\n".join(["## 5. Per session (engram, defaults)", "", table(
        ["session", "events", "targets", "revisited", "graph-known", "shown (start+prompts / all)", "hits",
         "covered (revisited)", "tokens start/prompts/reads"], rows)])


def _definitions() -> str:
    return "\n".join([
        "## Definitions", "",
        "* **Targets** of a session: files it read, wrote or failed on; test commands it ran; checks "
        "(tests, builds, commands) that failed. Commands are compared by their first 4 words without "
        "`cd`, pipes and redirections.",
        "* An item shown (a node, or a file for the recency baseline) is **about** its linked files, and "
        "an error node also about its failing check. **Precision**: shown items about something the "
        "session touched afterwards (a first-read note counts its own file). **Recall**: targets some "
        "item was about at or before their first touch.",
        "* **MRR@10**: each prompt of a scored session asked of the graph as it stood before the session "
        "(`query_knowledge`); relevant = what that turn then touched and memory could have known.",
        "* Every variant replays each session on a copy of the same graph (paired); the graph is built by "
        "consolidating each session after it, as the Stop-hook worker would.",
    ])
