"""What the user said: prompts cleaned for titles, and their instructions in their own words.

* `clean_prompt`: links shortened to what they name ("https://github.com/o/r/issues/364"
  -> "issue #364", a pull request -> "PR #N", any other link -> its host), terminal box
  characters dropped, whitespace squashed.
* `substantive`: a prompt that says what to do, not "continue" / "yes" / "ok merge".
* `instructions`: corrective or imperative sentences ("don't …", "never …", "make sure to …",
  "why are you editing …", "use X instead of Y") and the subagents the user named
  (`@agent-x`, Claude Code's mention syntax). A sentence phrased as a rule (always, never,
  don't, must) is explicit; the others keep the implicit band until repeated.
  Sentences decision_text already reads as decisions are left to it.
"""

from __future__ import annotations

import re
from typing import Any

from engram.graph import decision_text
from engram.text import clip_words

_LINK = re.compile(r"https?://(?:www\.)?github\.com/[^\s/]+/[^\s/]+/(issues|pull)/(\d+)\S*|https?://([^\s/]+)\S*")
_BOX = re.compile(r"[\u2500-\u257f\u2580-\u259f]+")
_FILLER = {"ok", "okay", "yes", "yeah", "yep", "sure", "continue", "go", "on", "ahead", "proceed", "please", "pls",
           "alright", "alrigh", "so", "then", "now", "lets", "let's", "do", "it", "that", "this", "and", "the", "with",
           "merge", "thanks", "great", "good", "fine", "next", "again", "more", "same"}
_AGENT = re.compile(r"@agent-[\w.-]+\w")
_RULE = re.compile(r"^(?:(?:ok(?:ay)?|no|so|and|but|also|please|pls)[,!.]?\s+)*"
                   r"(?:don'?t|do not|never|always|stop|avoid|must|make sure|remember to|you (?:should|must)|"
                   r"no need to|only|keep|why (?:are|did|do) you|use\b|prefer)\b", re.I)
_RULE_WORDS = re.compile(r"\b(?:always|never|don'?t|do not|must|stop)\b", re.I)
MAX_INSTRUCTIONS = 8


def _link(m: re.Match) -> str:
    if m.group(1):
        return ("issue #" if m.group(1) == "issues" else "PR #") + m.group(2)
    return m.group(3)


def clean_prompt(text: Any) -> str:
    return " ".join(_BOX.sub(" ", _LINK.sub(_link, str(text or ""))).split())


def substantive(text: Any) -> bool:
    words = [w.strip(".,!?:;'\"") for w in clean_prompt(text).lower().split()]
    content = [w for w in words if w and w not in _FILLER and not w.startswith("@")]
    return len(content) >= 3


def _agents(ev: dict[str, Any], text: str) -> list[dict[str, Any]]:
    out = []
    for name in dict.fromkeys(_AGENT.findall(text)):
        said = next((s for s in decision_text.sentences(text) if name in s), text)
        out.append({"name": name, "text": clip_words(said, 200), "explicit": False, "agent": True,
                    "evidence": [ev["seq"]]})
    return out


def instructions(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """[{"name", "text", "explicit", "agent", "evidence"}] from the user's prompts."""
    out: dict[str, dict[str, Any]] = {}
    for ev in events:
        if ev.get("type") != "user_prompt":
            continue
        text = clean_prompt(ev.get("prompt"))
        taken = {d["text"] for d in decision_text.decision_sentences(str(ev.get("prompt") or ""))}
        for item in _agents(ev, text):
            out.setdefault(item["name"].casefold(), item)
        for s in (x.strip() for x in decision_text.sentences(text)):
            if s in taken or not _RULE.match(s) or len(s.split()) < 3 or _AGENT.search(s):
                continue
            item = {"name": clip_words(s, 80), "text": clip_words(s, 300), "explicit": bool(_RULE_WORDS.search(s)),
                    "agent": False, "evidence": [ev["seq"]]}
            out.setdefault(" ".join(s.casefold().split()), item)
    return list(out.values())[:MAX_INSTRUCTIONS]
