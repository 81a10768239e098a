"""The agent's replies kept for recall: one passage per turn's final message.

A turn's last message (`turn_complete.agent_summary`, at most 800 characters as captured) is
where the agent says what it found and did ("The `OrderItem` schema has no `product_name`
field; the export now reads it from the product"). The offline rules turn commands, files and
the user's words into items but cannot turn this prose into facts, so it is kept as it was
said and found by the words of a later session's first prompt (retrieve/replies.py), shown
as the agent's words, not as facts. A message of fewer than MIN_WORDS words ("Done.") says
nothing a later session could find.
"""

from __future__ import annotations

import re
from typing import Any

from engram.text import squash, strip_injected

MIN_WORDS = 8
# A short reply that only announces the next step ("Perfect! Now let me run the seed script:"),
# the last words of a turn cut before its result: nothing found, nothing done.
_INTENT = re.compile(r"^(?:\W*(?:perfect|great|excellent|good|ok(?:ay)?|alright|now|first|next)\b[!,.]*\s*)*"
                     r"(?:let me(?! know)|let's|let us|i'll|i will|i'm going to)\b", re.I)
INTENT_WORDS = 20
# A short sentence that only acknowledges ("Excellent research complete.", "Now I have a
# complete picture.", "Entendido, aguardando suas instruções.", "No response requested."):
# a reply of these and next steps found nothing, whatever its length.
ACK_WORDS = 6
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def says_something(text: str) -> bool:
    """A reply holds MIN_WORDS words outside its acknowledgements and announced next steps."""
    words = len(text.split())
    if words < MIN_WORDS or (words <= INTENT_WORDS and _INTENT.match(text)):
        return False
    kept = [s for s in _SENTENCE.split(text)
            if len(s.split()) > ACK_WORDS and not (len(s.split()) <= INTENT_WORDS and _INTENT.match(s))]
    return sum(len(s.split()) for s in kept) >= MIN_WORDS


def passages(events: list[dict[str, Any]]) -> list[tuple[int, str, str]]:
    """[(seq, ts, text)] of the range's turn-final replies worth keeping."""
    out = []
    for e in events:
        if e.get("type") != "turn_complete" or not isinstance(e.get("agent_summary"), str):
            continue
        text = squash(strip_injected(e["agent_summary"]))
        if says_something(text):
            out.append((int(e["seq"]), str(e.get("ts") or ""), text))
    return out
