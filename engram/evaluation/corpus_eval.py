"""The knowledge score on the labelled corpus: public multi-session projects, split by project.

Each project's record (`engram/evaluation/corpus/<name>.json`) names its public repository,
the commit, path and git blob of every session's transcript, the split (`dev`: engram was
tuned looking at it; `held-out`: never looked at before its first run after tuning), and
the items each later session needed, labelled blind (docs/evaluation.md, "The labelled
corpus"). The transcripts are third-party data and are not in the repository: `--corpus DIR`
points at a folder holding `<project>/<file>` copies, each checked against its blob id
before use. Every project is replayed through the real hooks oldest session first and
consolidated between sessions (engram.evaluation.knowledge), and each later session's
SessionStart text is scored against its labels, with the recency and BM25 baselines at the
same word budget.
"""

from __future__ import annotations

import json
import os
import re
from importlib import resources
from typing import Any, Callable

from engram.evaluation import knowledge
from engram.history import corpus

Say = Callable[[str], None]
SPLITS = ("dev", "held-out")


def records() -> dict[str, dict[str, Any]]:
    """{project name: its record}, every project of the shipped corpus."""
    out = {}
    for entry in sorted(resources.files("engram.evaluation").joinpath("corpus").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            rec = json.loads(entry.read_text("utf-8"))
            out[rec["project"]] = rec
    return out


def blob_id(data: bytes) -> str:
    """Git's object id of a blob: sha1 of "blob <size>\\0" + the bytes."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def check_files(rec: dict[str, Any], corpus_dir: str) -> list[str]:
    """The record's transcript paths under `corpus_dir`; EngramError naming the first missing or altered one."""
    from engram.errors import EngramError

    paths = []
    for s in rec["sessions"]:
        path = os.path.join(corpus_dir, rec["project"], s["file"])
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            raise EngramError(f"{path}: missing; copy it from {rec['repository']} (git show "
                              f"{s['commit']}:{s['path']}), see docs/evaluation.md") from None
        if blob_id(data) != s["blob"]:
            raise EngramError(f"{path}: not the labelled transcript (blob {blob_id(data)[:12]}, "
                              f"expected {s['blob'][:12]})")
        paths.append(path)
    return paths


def recorded_root(project: corpus.Project) -> str | None:
    """The working directory the transcripts themselves record most often (Claude Code and
    Codex JSONL do; SpecStory exports do not: then the one their paths show, `inferred_root`):
    the sessions replay there, so the absolute paths their tools used are the project's own
    files, as they were live."""
    from collections import Counter

    seen: Counter = Counter()
    for session in project.sessions:
        for r in session.records:
            cwd = r.get("cwd") or (r.get("payload") or {}).get("cwd") if isinstance(r, dict) else None
            if isinstance(cwd, str) and (cwd.startswith("/") or _DRIVE.match(cwd)):
                seen[cwd] += 1
    return seen.most_common(1)[0][0] if seen else inferred_root(project)


# A Windows session (a drive letter's path: "D:\\oh-my-posh") replays on this machine at the POSIX
# form of its root ("/d/oh-my-posh"), every path under that root in its payloads rewritten the
# same way, so its files are the project's own as they were live (the hooks on Windows read them
# with the platform's own path rules).
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


def posix_root(root: str) -> str:
    """"/d/oh-my-posh" for "D:\\oh-my-posh"; any other root as it is."""
    if not _DRIVE.match(root):
        return root
    return "/" + root[0].lower() + "/" + "/".join(p for p in re.split(r"[\\/]+", root[3:]) if p)


def _rewritten(value: Any, under: re.Pattern, to: str) -> Any:
    """`value` with each path under a Windows root (`under`) in POSIX form under `to`."""
    if isinstance(value, str):
        return under.sub(lambda m: to + m.group(1).replace("\\", "/"), value)
    if isinstance(value, dict):
        return {k: _rewritten(v, under, to) for k, v in value.items()}
    if isinstance(value, list):
        return [_rewritten(v, under, to) for v in value]
    return value


def _at_posix_root(project: corpus.Project, root: str) -> corpus.Project:
    """The project's sessions with their Windows paths under `root` in POSIX form."""
    to = posix_root(root)
    parts = [re.escape(p) for p in re.split(r"[\\/]+", root) if p]
    under = re.compile("(?i)" + r"(?:\\\\|[\\/])".join(parts) + r"((?:(?:\\\\|[\\/])[^\s\"'`<>|*?]*)?)(?![\w.-])")
    for session in project.sessions:
        session.converted = [(event, _rewritten(p, under, to)) for event, p in session.payloads()]
        session.cwd = to
    return corpus.Project(to, project.sessions)


# The folders a project's files sit in just below its root (a path's first such part names the
# root above it): where a transcript records no working directory, its tools' absolute paths
# still show the checkout they worked in.
TOP_FOLDERS = {"src", "lib", "app", "apps", "packages", "docs", "doc", "test", "tests", "spec", "config", "assets",
               "priv", "public", "scripts", "frontend", "backend", "cmd", "internal", "pkg", "include", ".github",
               ".claude", ".cursor"}


def inferred_root(project: corpus.Project) -> str | None:
    """The checkout most absolute file paths in the tools' input sit in (the folder above their
    first TOP_FOLDERS part), when it holds at least 40% of 10 or more such paths; else None.
    SpecStory exports of Codex and Copilot sessions record no working directory, and replayed
    at a placeholder their files would look like another project's (absolute, outside it)."""
    import json
    from collections import Counter

    file_path = re.compile(r"(?<![\w.~/])/(?:[\w.@+-]+/){2,}[\w@+-]+\.\w+")
    # a Windows path as json.dumps writes it: "d:\\\\dialfa new\\\\backend\\\\Program.cs"
    windows_path = re.compile(r"(?<![\w.])[A-Za-z]:(?:\\\\[\w.@+ -]+){2,}\\\\[\w@+ -]+\.\w+")
    seen: Counter = Counter()
    folders: Counter = Counter()  # every folder a path lies in, two levels below the top at least
    total = 0
    for session in project.sessions:
        for _, payload in session.payloads():
            text = json.dumps(payload.get("tool_input") or "")
            found = [(p, "/") for p in file_path.findall(text)]
            found += [(p.replace("\\\\", "\\"), "\\") for p in windows_path.findall(text)]
            for path, sep in found:
                parts = path.split(sep)
                total += 1
                top = next((i for i in range(3, len(parts) - 1) if parts[i] in TOP_FOLDERS), None)
                if top is not None:
                    seen[sep.join(parts[:top])] += 1
                folders.update(sep.join(parts[:i]) for i in range(3, len(parts)))
    root, n = seen.most_common(1)[0] if seen else (None, 0)
    if total >= 10 and n >= 0.4 * total:
        return root
    # a workspace of several checkouts (a mod, its editor, decompiled code side by side): the
    # deepest folder that holds most of the paths
    held = [f for f, k in folders.items() if k >= 0.75 * total]
    return max(held, key=len) if total >= 10 and held else None


def load_project(rec: dict[str, Any], corpus_dir: str) -> corpus.Project:
    """The project's sessions, one per file (history.corpus.load_project), oldest first, at the
    root its transcripts record (else a placeholder root)."""
    check_files(rec, corpus_dir)
    folder = os.path.join(corpus_dir, rec["project"])
    project = corpus.load_project(folder, f"/corpus/{rec['project']}")
    root = recorded_root(project)
    if root and _DRIVE.match(root):
        return _at_posix_root(corpus.load_project(folder, root), root)
    return corpus.load_project(folder, root) if root else project


def labels_of(rec: dict[str, Any]) -> dict[str, Any]:
    """{session id as the loader names it: its labels}; the labels are keyed by file stem."""
    ids = {os.path.splitext(s["file"])[0]: corpus.session_name(s["file"]) for s in rec["sessions"]}
    return {ids[stem]: {"split": lab["split"], "needs": lab["needs"]} for stem, lab in rec["labels"].items()}


def evaluate(corpus_dir: str, base: str, *, projects: list[str] | None = None, split: str | None = None,
             provider: str = "offline", settings: dict[str, Any] | None = None,
             budget: int = knowledge.WORD_BUDGET, say: Say = lambda _: None) -> dict[str, Any]:
    """{project: {"split", "score", "texts", "consolidation"}} for the chosen projects (default: all
    of `split`, or all), consolidated by `provider` (a model provider costs tokens: the run's
    figures then measure the model path, which the offline rules cannot reach; docs/evaluation.md);
    `settings` go into each replay home's config (`dailyTokenBudget`)."""
    recs = records()
    chosen = [n for n in (projects or recs) if n in recs and (split is None or recs[n]["split"] == split)]
    out: dict[str, Any] = {}
    for name in chosen:
        rec = recs[name]
        project = load_project(rec, corpus_dir)
        replayed = knowledge.replay_project(project, base, settings or {}, provider, say)
        texts = knowledge.texts_for(replayed, budget)
        out[name] = {"split": rec["split"], "score": knowledge.score(labels_of(rec), texts), "texts": texts,
                     "consolidation": consolidation(replayed, provider)}
        say(f"corpus: {name} ({rec['split']}): engram {knowledge.share(out[name]['score'], 'engram')}, "
            f"recency {knowledge.share(out[name]['score'], 'recency')}, "
            f"bm25 {knowledge.share(out[name]['score'], 'bm25')}")
    return out


def consolidation(replayed: dict[str, dict[str, Any]], provider: str) -> dict[str, Any]:
    """What consolidating a project's sessions took: the provider, its tokens, and the sessions
    it failed (each then keeps only its events: a model run with failures scores less than it would)."""
    from collections import Counter

    runs = [r["consolidation"] for r in replayed.values()]
    by = Counter(r["by"] for r in runs if r["status"] in ("consolidated", "recovered"))
    return {"provider": provider, "by": dict(by), **{k: sum(r[k] for r in runs) for k in knowledge.TOKENS},
            "failed": [f"{sid}: {r['error']}" for sid, r in ((s, v["consolidation"]) for s, v in replayed.items())
                       if r["status"] == "failed"]}


def totals(results: dict[str, Any]) -> dict[str, Any]:
    """Delivered / needed per split, source and kind over the projects, and words per session."""
    from collections import defaultdict

    tally: dict[str, Any] = defaultdict(lambda: [0, 0])
    words: dict[str, list[float]] = defaultdict(list)
    for res in results.values():
        for row in res["score"]["items"]:
            for src in knowledge.SOURCES:
                for key in (f"{res['split']}:{src}:all", f"{res['split']}:{src}:{row['kind']}"):
                    tally[key][0] += row[src]
                    tally[key][1] += 1
        for src in knowledge.SOURCES:
            w = res["score"]["words"][src]
            if w["sessions"]:
                words[f"{res['split']}:{src}"] += [w["mean"]] * w["sessions"]
    return {"items": {k: {"delivered": v[0], "needed": v[1]} for k, v in sorted(tally.items())},
            "words": {k: round(sum(v) / len(v), 1) for k, v in sorted(words.items())}}


def table(tot: dict[str, Any], split: str) -> list[str]:
    """A markdown table: delivered / needed per kind for engram and the two baselines."""
    from engram.evaluation.knowledge import KINDS, SOURCES

    def cell(src: str, kind: str) -> str:
        v = tot["items"].get(f"{split}:{src}:{kind}")
        return f"{v['delivered']}/{v['needed']}" if v else "-"

    rows = [f"| {kind} | " + " | ".join(cell(src, kind) for src in SOURCES) + " |"
            for kind in ("all", *KINDS) if f"{split}:engram:{kind}" in tot["items"]]
    words = " | ".join(str(tot["words"].get(f"{split}:{src}", "-")) for src in SOURCES)
    return [f"| {split} | " + " | ".join(SOURCES) + " |", "|---|" + "---|" * len(SOURCES), *rows,
            f"| words per session | {words} |"]


def cost(results: dict[str, Any]) -> list[str]:
    """The line saying what consolidated the sessions (a model run whose budget or answers ran
    out goes on offline: its figures are then partly the offline rules'), what it cost, and what failed."""
    from collections import Counter

    runs = [r["consolidation"] for r in results.values()]
    by = sum((Counter(r["by"]) for r in runs), Counter())
    tokens = {k: sum(r[k] for r in runs) for k in knowledge.TOKENS}
    failed = [f for r in runs for f in r["failed"]]
    made = ", ".join(f"{name} {n}" for name, n in sorted(by.items())) or "none"
    line = (f"Sessions consolidated by: {made}; {tokens['input_tokens']} input / "
            f"{tokens['output_tokens']} output tokens; {len(failed)} session(s) failed.")
    return [line, *(f"- failed: {f}" for f in failed[:20])]


def write_report(results: dict[str, Any], out: str) -> list[str]:
    """corpus.json (every item, every text) and corpus.md (the tables) in `out`; their paths."""
    os.makedirs(out, exist_ok=True)
    tot = totals(results)
    lines = ["# The labelled corpus: what each later session started with", "", *cost(results), ""]
    for split in SPLITS:
        if any(r["split"] == split for r in results.values()):
            names = ", ".join(n for n, r in results.items() if r["split"] == split)
            lines += [f"{split}: {names}", "", *table(tot, split), ""]
    paths = [os.path.join(out, "corpus.md"), os.path.join(out, "corpus.json")]
    with open(paths[0], "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    with open(paths[1], "w", encoding="utf-8") as f:
        json.dump({"totals": tot, "projects": results}, f, indent=1)
    return paths
