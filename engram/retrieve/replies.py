"""Earlier replies on what a session's first prompt is about (the passages, graph/schema.sql m012).

On a session's first prompt, the earlier sessions' turn-final replies that share its words
best (FTS5's BM25 over the passages, which weighs the rarer words most; the prompt's words
cut as the node index cuts them) are shown after the graph's items: at most MAX_REPLIES,
each clipped to REPLY_WORDS words, dated, marked as the agent's words then (they were never
checked), a reply that mostly repeats one shown before it left out (sessions say the same thing
again and again while they wait), with any clause that addresses the agent withheld and the text made inert. How
this was chosen on the labelled corpus's dev half: docs/retrieval.md, "Earlier replies on a
first prompt".
"""

from __future__ import annotations

from engram.graph import readonly
from engram.graph import fulltext
from engram.redact.injection import withhold
from engram.retrieve import keyword
from engram.retrieve.tiers import tokens
from engram.text import AS_DATA, inert

MAX_REPLIES = 6
OVERLAP = 0.5
REPLY_WORDS = 100
MAX_QUERY_WORDS = 16
RANKED_ROWS = 500  # at most this many matches ranked (~2.5 ms of bm25), as the prompt's node search
HEADER = f"Earlier replies on this (the agent's words then, unchecked; {AS_DATA}):"


def recall(conn, text: str, session: str, budget: int = 10**9) -> str | None:
    """The section for a first prompt `text` within `budget` tokens, or None. A reply SessionStart
    already showed (the last session's, in its "Where we left off" item) is not repeated."""
    words = keyword.words(text)[:MAX_QUERY_WORDS]
    found = fulltext.passages(conn, words, session, 3 * MAX_REPLIES, RANKED_ROWS)
    shown = " ".join(n["description"] for n in readonly.of_kind(conn, "unfinished", 8)) if found else ""
    lines, seen = [], []
    for _, ts, said in found:
        if said[:60] in shown or _repeats(said, seen):
            continue
        line = inert(withhold(said, "an earlier reply"), 8 * REPLY_WORDS)
        lines.append(f"- ({ts[:10]}) \"{' '.join(line.split()[:REPLY_WORDS])}\"")
    kept, spent = [], tokens(HEADER) + 1
    for line in lines[:MAX_REPLIES]:
        if spent + tokens(line) + 1 > budget:
            break
        kept.append(line)
        spent += tokens(line) + 1
    return "\n".join([HEADER] + kept) if kept else None


def _repeats(said: str, seen: list[set[str]]) -> bool:
    words = set(keyword.words(said))
    if any(len(words & w) >= OVERLAP * min(len(words), len(w)) for w in seen):
        return True
    seen.append(words)
    return False
