"""Entity resolution's figures, and the calibration of its bands per embedding model.

    .venv/bin/python bench/entity_resolution_calibration.py [--provider local|voyage|openai]

Two labelled sets (same / child / different): tests/consolidate/data/entity_pairs.tsv, real
names split into a development half and a held-out half before any tuning (the headline
figures are the held-out half's; docs/labelled-sets.md), and the older in-sample
tests/consolidate/data/concept_pairs.tsv, reported for comparison. Each proposal is
resolved against its existing name the way the consolidator does (the name rules of
engram/consolidate/names.py first, then the cosine similarity of the embeddings), and
precision and recall of each band (merge <-> same, child <-> child, new <-> different) are
printed for the bands in engram/consolidate/entity_resolution.py, for the spec's
(docs/spec.md) fixed 0.95 / 0.80, and for the best bands a grid search finds on the
development half only. Remote embedders need their key (VOYAGE_API_KEY / OPENAI_API_KEY);
without one only the local embedder is measured.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engram.consolidate import entity_resolution as er  # noqa: E402
from engram.graph.vectors import normalise  # noqa: E402
from engram.providers.offline import LocalEmbedder  # noqa: E402
from engram.providers.openai import OpenAIEmbedder  # noqa: E402
from engram.providers.voyage import VoyageEmbedder  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "consolidate" / "data"
PAIRS = DATA / "concept_pairs.tsv"
REAL = DATA / "entity_pairs.tsv"
LABEL_OF = {"merge": "same", "child": "child", "new": "different"}


def load_pairs(path: Path = PAIRS) -> list[tuple[str, str, str]]:
    """The in-sample pairs: proposed, existing, label."""
    out = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            a, b, label = line.split("\t")
            out.append((a, b, label.strip()))
    return out


def load_real(split: str, path: Path = REAL) -> list[tuple[str, str, str]]:
    """One half ("dev" or "holdout") of the real-name pairs."""
    rows = [line.split("\t") for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]
    return [(a, b, label) for half, _group, a, b, label, _source in rows if half == split]


def similarities(embedder, pairs) -> list[float | str]:
    """The name rules' verdict (merge / child / new) when they decide, else the embeddings' cosine."""
    texts = sorted({t for a, b, _ in pairs for t in (a, b)})
    vecs = dict(zip(texts, embedder.embed(texts)))
    out: list[float | str] = []
    for a, b, _ in pairs:
        rel = er.name_relation(a, b)
        if rel:
            out.append(rel)
        else:
            va, vb = normalise(vecs[a]), normalise(vecs[b])
            out.append(sum(x * y for x, y in zip(va, vb)))
    return out


def action(sim: float | str, bands: tuple[float, float]) -> str:
    return sim if isinstance(sim, str) else er.band(sim, bands)


def scores(pairs, sims, bands) -> dict[str, tuple[float, float, int]]:
    """{band: (precision, recall, support)}."""
    out = {}
    for act, label in LABEL_OF.items():
        predicted = [p[2] for p, s in zip(pairs, sims) if action(s, bands) == act]
        tp = sum(1 for lab in predicted if lab == label)
        support = sum(1 for p in pairs if p[2] == label)
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


def make(provider: str):
    if provider == "local":
        return LocalEmbedder()
    if provider == "voyage" and os.environ.get("VOYAGE_API_KEY"):
        return VoyageEmbedder()
    if provider == "openai" and os.environ.get("OPENAI_API_KEY"):
        return OpenAIEmbedder()
    return None


def measure(emb) -> None:
    """Both halves and the in-sample set, under the configured, the spec's and dev's best bands."""
    sets = {"dev": load_real("dev"), "holdout": load_real("holdout"), "in-sample": load_pairs()}
    sims = {name: similarities(emb, pairs) for name, pairs in sets.items()}
    best = best_bands(sets["dev"], sims["dev"])
    print(f"\n{emb.name} ({emb.model}); best bands on dev: merge > {best[0]:.2f}, child > {best[1]:.2f}")
    for name, pairs in sets.items():
        counts = {lab: sum(1 for p in pairs if p[2] == lab) for lab in ("same", "child", "different")}
        print(f"\n  {name}: {len(pairs)} pairs {counts}")
        for label, bands in (("configured", er.bands_for(emb.model)), ("spec", er.SPEC_BANDS), ("best on dev", best)):
            print(table(label, pairs, sims[name], bands))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--provider", action="append", choices=("local", "voyage", "openai"))
    args = ap.parse_args()
    print(f"real-name pairs: {REAL.relative_to(DATA.parents[2])} (headline: holdout); "
          f"in-sample: {PAIRS.relative_to(DATA.parents[2])}")
    for provider in args.provider or ["local", "voyage", "openai"]:
        emb = make(provider)
        if emb is None:
            print(f"\n{provider}: not measured (no API key in the environment; no network here)")
            continue
        measure(emb)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
