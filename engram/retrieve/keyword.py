"""Okapi BM25 over node text: keyword seeds for `engram query`, and the evaluation baseline.

A node's document is its name, summary, description and linked file paths. `search`
asks the persisted FTS5 index (engram/graph/fulltext.py), kept current by triggers, so a
question costs milliseconds at 50,000 nodes; the words of the question are cut the way
the index cuts node text (separators, stop words dropped) and FTS5 stems them.

`BM25` is the in-memory index the evaluation's keyword baseline builds per question over
the same text, tokenised the way entry points are (casefolded words, identifiers split
on separators, stop words dropped), with the textbook BM25 (k1 = 1.2, b = 0.75) and the
non-negative IDF log(1 + (N - df + 0.5) / (df + 0.5)).
"""

from __future__ import annotations

from engram.graph import fulltext, readonly
from engram.retrieve.entry_points import split_ident, words_of
from engram.text import STOPWORDS, stem

K1 = 1.2
B = 0.75


def tokenize(text: str) -> list[str]:
    out = []
    for w in words_of(text or ""):
        parts = split_ident(w)
        for t in parts + ([w] if len(parts) > 1 else []):
            if len(t) > 1 and t not in STOPWORDS:
                out.append(stem(t))
    return out


def words(text: str) -> list[str]:
    """The question's words as the index cut node text: parts of identifiers and paths,
    no stop words, unstemmed (FTS5 stems them)."""
    out = []
    for w in words_of(text or ""):
        out += [t for t in split_ident(w) if len(t) > 1 and t not in STOPWORDS]
    return list(dict.fromkeys(out))


def search(conn, question: str, limit: int, rows: int | None = None) -> list[tuple[str, float]]:
    """[(live node id, BM25 score > 0)] best first from the persisted index (ranking at most
    `rows` matches, when given)."""
    return fulltext.search(conn, words(question), limit, rows)


def live_docs(conn) -> dict[str, str]:
    """{node id: searchable text} for every live node (a full scan: CLI and eval only)."""
    return {nid: " ".join(str(x or "") for x in fields).replace('"', " ")
            for nid, *fields in readonly.live_texts(conn)}


class BM25:
    """An in-memory BM25 index over {id: text}."""

    def __init__(self, docs: dict[str, str]):
        self.tf: dict[str, dict[str, int]] = {}
        self.len: dict[str, int] = {}
        df: dict[str, int] = {}
        for did, text in docs.items():
            counts: dict[str, int] = {}
            toks = tokenize(text)
            for t in toks:
                counts[t] = counts.get(t, 0) + 1
            self.tf[did] = counts
            self.len[did] = len(toks)
            for t in counts:
                df[t] = df.get(t, 0) + 1
        import math  # an extension module: ~0.5 ms a prompt's hook, which never builds this index, does not pay

        n = len(docs)
        self.avg = (sum(self.len.values()) / n) if n else 0.0
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def rank(self, query: str, limit: int = 20) -> list[tuple[str, float]]:
        """[(id, score > 0)] best first; ties broken by id."""
        terms = set(tokenize(query))
        scores: dict[str, float] = {}
        for did, counts in self.tf.items():
            s = 0.0
            norm = K1 * (1 - B + B * self.len[did] / self.avg) if self.avg else K1
            for t in terms:
                f = counts.get(t)
                if f:
                    s += self.idf[t] * f * (K1 + 1) / (f + norm)
            if s > 0:
                scores[did] = s
        return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
