"""Entity resolution's figures, and the calibration of its bands per embedding model.

    .venv/bin/python bench/entity_resolution_calibration.py [--provider local|voyage|openai]
        [--split dev|holdout|all] [--misses] [--adjudicate]

Labelled sets (same / child / different), each split by entity family before any tuning
(docs/labelled-sets.md has the method and the figures):

* round 1, tests/consolidate/data/entity_pairs.tsv: halves `dev` and `holdout`;
* round 2, tests/consolidate/data/entity_pairs_r2.tsv: halves `dev2` and `holdout2`, written
  after the audit by a method independent of the alias table; each pair records whether
  both names were in language/aliases.txt when it was written, and the figures are also given
  for the pairs that were and the pairs that were not. `holdout2` was read after its run
  (round 2's headline), so it is development material now;
* round 3, tests/consolidate/data/entity_pairs_r3.tsv: `holdout3`, held out whole, written
  by the same method before the round-3 changes with no name of a round-1 or round-2 pair;
* round 4, tests/consolidate/data/entity_pairs_r4.tsv: `holdout4`, held out whole, written
  blind to the resolver (names as they occur in the fixtures and in the wild) with no name of
  an earlier round; `in_table` is "unknown" throughout; read after its run, tuned on in round 5;
* round 5, tests/consolidate/data/entity_pairs_r5.tsv: `holdout5`, held out whole, written
  blind to the resolver from public projects' own files (manifests, compose images, Actions
  `uses:` lines, Terraform providers against the names their docs use), no name of an earlier
  round: the headline;
* the older in-sample tests/consolidate/data/concept_pairs.tsv, reported for comparison.

Each pair goes through the real `Resolver` on a real SQLite file holding only the existing
name: the name rules of engram/language/names.py first, then the embeddings' cosine
similarity under the bands. Precision and recall of each outcome (merge <-> same, child <->
child, new <-> different) are printed for the configured bands (engram/consolidate/
entity_resolution.py), for the spec's 0.95 / 0.80, and for the best bands a grid search finds
on dev, dev2 and holdout2 only. `--split dev` prints only the halves tuning may look at
(every round but round 5, and the in-sample pairs); `--split holdout` only the held-out one
(holdout5); `--misses` lists each printed half's wrong pairs. Remote embedders need their
key (ENGRAM_VOYAGE_API_KEY or VOYAGE_API_KEY / ENGRAM_OPENAI_API_KEY or OPENAI_API_KEY: running
this script names the embedder); without one only the local embedder is measured.
`--adjudicate` puts the ambiguous band to the adjudicator the consolidation worker would use (the
configured model consolidator's, engram.providers.registry.consolidation), as the worker does; with
no model configured (no key given to engram nor llmProvider named, or ENGRAM_OFFLINE) it says so
and measures the bands alone.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engram.consolidate import entity_resolution as er  # noqa: E402
from engram.graph import store  # noqa: E402
from engram.language import aliases
from engram.graph.connect import connect  # noqa: E402
from engram.providers.base import env_api_key  # noqa: E402
from engram.providers.offline import LocalEmbedder  # noqa: E402
from engram.providers.openai import OpenAIEmbedder  # noqa: E402
from engram.providers.voyage import VoyageEmbedder  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "consolidate" / "data"
PAIRS = DATA / "concept_pairs.tsv"
REAL = DATA / "entity_pairs.tsv"
ROUND2 = DATA / "entity_pairs_r2.tsv"
ROUND3 = DATA / "entity_pairs_r3.tsv"
ROUND4 = DATA / "entity_pairs_r4.tsv"
ROUND5 = DATA / "entity_pairs_r5.tsv"
BLIND = {"holdout4": ROUND4, "holdout5": ROUND5}  # written blind to the table: in_table is "unknown"
LABEL_OF = {"merge": "same", "child": "child", "new": "different"}
DEVELOPMENT = ["dev", "dev2", "holdout2"]  # what tuning may see (holdout2 was read after round 2's run)
READ = ["holdout", "holdout3", "holdout4"]  # held-out halves read after their runs, tuned on since
HALVES = {"dev": [*DEVELOPMENT, *READ, "in-sample"], "holdout": ["holdout5"]}
HALVES["all"] = ["holdout5", "holdout4", "holdout3", "holdout", "dev", "dev2", "holdout2", "in-sample"]


class Pair(NamedTuple):
    proposed: str
    existing: str
    label: str
    in_table: bool | None = None  # rounds 2 and 3: both names in aliases.txt when the pair was written (round 4: None)


def _rows(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


def load_pairs(path: Path = PAIRS) -> list[Pair]:
    """The in-sample pairs: proposed, existing, label."""
    return [Pair(a, b, label.strip()) for a, b, label in _rows(path)]


def load_real(split: str) -> list[Pair]:
    """One half of the real-name pairs: "dev" / "holdout" (round 1), "dev2" / "holdout2" (round 2),
    "holdout3" (round 3), "holdout4" (round 4), "holdout5" (round 5)."""
    if split in ("dev", "holdout"):
        return [Pair(a, b, label) for half, _g, a, b, label, _src in _rows(REAL) if half == split]
    if split in BLIND:
        return [Pair(a, b, label) for half, _g, a, b, label, _t, _why, _src in _rows(BLIND[split]) if half == split]
    return [Pair(a, b, label, in_table == "yes")
            for half, _g, a, b, label, in_table, _why, _src in _rows(ROUND3 if split == "holdout3" else ROUND2)
            if half == split]


def load(name: str) -> list[Pair]:
    return load_pairs() if name == "in-sample" else load_real(name)


_SEEN: dict[tuple[str, bool, str, str], float | str] = {}  # (model, judged, proposed, existing): halves run twice


def similarities(embedder, pairs: list[Pair], judge=None) -> list[float | str]:
    """Per pair, what the Resolver decided by name (merge / child / new) or by the adjudicator
    (`judge`, on the ambiguous band), or the cosine similarity the bands decide on when the names
    left it to the embeddings."""
    key = lambda p: (embedder.model, judge is not None, p.proposed, p.existing)  # noqa: E731
    with tempfile.TemporaryDirectory() as tmp:
        for i, p in enumerate(pairs):
            if key(p) not in _SEEN:
                _SEEN[key(p)] = _resolve(embedder, p, os.path.join(tmp, f"{i}.db"), judge)
    return [_SEEN[key(p)] for p in pairs]


def _resolve(embedder, p: Pair, path: str, judge=None) -> float | str:
    conn = connect(path)
    try:
        # one source episode: the strength a node the consolidator wrote has (a node of
        # strength 0 is not live, and the keyword index finds live nodes only)
        nid = store.create_node(conn, name=p.existing, type="concept", description="", source_episodes=["ep_bench"])
        res = er.Resolver(conn, embedder, table=aliases.table(), adjudicator=judge).resolve(p.proposed, "concept")
    finally:
        conn.close()
    if res.action != "new" and res.node_id != nid:
        raise AssertionError(f"{p.proposed!r} resolved to a node that is not {p.existing!r}")
    return res.similarity if res.how == "embedding" else res.action


def action(sim: float | str, bands: tuple[float, float]) -> str:
    return sim if isinstance(sim, str) else er.band(sim, bands)


def scores(pairs: list[Pair], sims, bands) -> dict[str, tuple[float, float, int]]:
    """{outcome: (precision, recall, support)}."""
    out = {}
    for act, label in LABEL_OF.items():
        predicted = [p.label for p, s in zip(pairs, sims) if action(s, bands) == act]
        tp = sum(1 for lab in predicted if lab == label)
        support = sum(1 for p in pairs if p.label == label)
        out[act] = (tp / len(predicted) if predicted else 0.0, tp / support if support else 0.0, support)
    return out


def macro_f1(sc) -> float:
    f = [2 * p * r / (p + r) if p + r else 0.0 for p, r, _ in sc.values()]
    return sum(f) / len(f)


def best_bands(pairs, sims) -> tuple[float, float]:
    grid = [i / 100 for i in range(30, 100)]
    return max(((m, c) for m in grid for c in grid if c < m), key=lambda b: (macro_f1(scores(pairs, sims, b)), b))


def table(name: str, pairs, sims, bands) -> str:
    sc = scores(pairs, sims, bands)
    rows = [f"  {name}: merge > {bands[0]:.2f}, child > {bands[1]:.2f}  (macro F1 {macro_f1(sc):.2f})",
            "    band   label      precision  recall  support"]
    for act, (p, r, n) in sc.items():
        rows.append(f"    {act:<6} {LABEL_OF[act]:<10} {p:>9.2f}  {r:>6.2f}  {n:>7}")
    return "\n".join(rows)


def by_table(pairs: list[Pair], sims, bands) -> str:
    """Rounds 2 and 3: the figures for the pairs whose names the table knew when written, and the rest."""
    t = aliases.table()
    now = sum(1 for p in pairs if aliases.key(p.proposed) in t.canon and aliases.key(p.existing) in t.canon)
    parts = []
    for known in (True, False):
        idx = [i for i, p in enumerate(pairs) if p.in_table is known]
        sub, ss = [pairs[i] for i in idx], [sims[i] for i in idx]
        if not sub:
            parts.append(f"{'in the table' if known else 'not in it'} 0")
            continue
        parts.append(f"{'in the table' if known else 'not in it'} {len(sub)}: macro F1 "
                     f"{macro_f1(scores(sub, ss, bands)):.2f}")
    return (f"  configured bands, both names in aliases.txt when written: {'; '.join(parts)}"
            f" (both in it now: {now})")


def misses(pairs: list[Pair], sims, bands) -> str:
    rows = [f"    {p.proposed!r} / {p.existing!r}: {p.label}, got {LABEL_OF[action(s, bands)]}"
            + (f" (cosine {s:.2f})" if isinstance(s, float) else "")
            for p, s in zip(pairs, sims) if LABEL_OF[action(s, bands)] != p.label]
    return "\n".join([f"  misses ({len(rows)}):"] + rows)


def make(provider: str):
    if provider == "local":
        return LocalEmbedder()
    if provider == "voyage" and env_api_key("VOYAGE_API_KEY"):
        return VoyageEmbedder()
    if provider == "openai" and env_api_key("OPENAI_API_KEY"):
        return OpenAIEmbedder()
    return None


def measure(emb, split: str, show_misses: bool, judge=None) -> None:
    """The halves of `split` under the configured, the spec's and the development halves' best bands."""
    dev = [p for name in DEVELOPMENT for p in load(name)]
    best = best_bands(dev, similarities(emb, dev, judge))
    print(f"\n{emb.name} ({emb.model}); best bands on {' + '.join(DEVELOPMENT)}: "
          f"merge > {best[0]:.2f}, child > {best[1]:.2f}")
    for name in HALVES[split]:
        pairs = load(name)
        sims = similarities(emb, pairs, judge)
        counts = {lab: sum(1 for p in pairs if p.label == lab) for lab in ("same", "child", "different")}
        print(f"\n  {name}: {len(pairs)} pairs {counts}")
        for label, bands in (("configured", er.bands_for(emb.model)), ("spec", er.SPEC_BANDS), ("best on dev", best)):
            print(table(label, pairs, sims, bands))
        if name[-1] in "23":
            print(by_table(pairs, sims, er.bands_for(emb.model)))
        if show_misses:
            print(misses(pairs, sims, er.bands_for(emb.model)))


def adjudicator():
    """The worker's adjudicator for this checkout (its requests go to this checkout's ledger and
    budget), or None, said in one line, when no model consolidator is configured."""
    from engram import config
    from engram.providers import registry

    here = config.Project.from_cwd(str(DATA.parents[2])).ensure()
    judge = registry.consolidation(config.load_config()[0], project=here).adjudicator
    print(f"adjudicator: {judge.model} on the ambiguous band" if judge else
          "adjudicator: not run (no model consolidator: no key given to engram, ENGRAM_ANTHROPIC_API_KEY / "
          "ENGRAM_OPENAI_API_KEY, nor llmProvider in config.json; or ENGRAM_OFFLINE is set)")
    return judge


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--provider", action="append", choices=("local", "voyage", "openai"))
    ap.add_argument("--split", choices=tuple(HALVES), default="all",
                    help="dev: only the halves tuning may see; holdout: only the held-out ones")
    ap.add_argument("--misses", action="store_true", help="list each printed half's wrong pairs")
    ap.add_argument("--adjudicate", action="store_true",
                    help="put the ambiguous band to the configured model's adjudicator, as the worker does")
    args = ap.parse_args()
    judge = adjudicator() if args.adjudicate else None
    rel = [p.relative_to(DATA.parents[2]) for p in (REAL, ROUND2, ROUND3, ROUND4, ROUND5, PAIRS)]
    print(f"pairs: {rel[0]} (round 1), {rel[1]} (round 2), {rel[2]} (round 3), {rel[3]} (round 4), {rel[4]} "
          f"(round 5; headline: holdout5); in-sample: {rel[5]}; split {args.split}")
    for provider in args.provider or ["local", "voyage", "openai"]:
        emb = make(provider)
        if emb is None:
            print(f"\n{provider}: not measured (no API key in the environment; no network here)")
            continue
        measure(emb, args.split, args.misses, judge)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
