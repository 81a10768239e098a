"""The pieces of a SpecStory Markdown export the converters read: fences, backticked spans, times.

Exports nest without escaping: a command's output may hold a README's own ``` fences. So a
block's single output is read from its first fence to its last closing line (`outer`), and only
fences whose lines cannot start with ``` (diffs: every line has a sign) are paired one by one.
"""

from __future__ import annotations

import re

_TIME = re.compile(r"(\d{4}-\d\d-\d\d)[ T_](\d\d)[:-](\d\d)(?:[:-](\d\d)(\.\d+)?)?")
_SPAN = re.compile(r"`([^`\n]+)`")


def iso(text: str) -> str | None:
    """The first time in `text` as ISO-8601 UTC ("2025-12-04_22-30-17Z", "2025-10-16 18:24Z",
    "2025-12-05T01:08:26.184Z" all read); None when there is none."""
    m = _TIME.search(text or "")
    if not m:
        return None
    day, hour, minute, second, frac = m.groups()
    return f"{day}T{hour}:{minute}:{second or '00'}{frac or ''}Z"


def fences(text: str) -> list[tuple[str, str]]:
    """(info string, content) of each fence: an opening ``` line closed by the next bare ``` line."""
    out: list[tuple[str, str]] = []
    info, lines = None, []
    for line in text.split("\n"):
        if info is None and line.startswith("```"):
            info, lines = line[3:].strip(), []
        elif info is not None and line.rstrip() == "```":
            out.append((info, "\n".join(lines)))
            info = None
        elif info is not None:
            lines.append(line)
    return out


def first_fence(text: str) -> tuple[str, str] | None:
    """(content of the first fence, the text after it), or None when there is no fence."""
    m = re.search(r"^```[^\n]*\n", text, re.M)
    if not m:
        return None
    end = re.search(r"^```[ \t]*$", text[m.end():], re.M)
    if not end:
        return text[m.end():], ""
    return text[m.end():m.end() + end.start()].rstrip("\n"), text[m.end() + end.end():]


def outer(text: str) -> str | None:
    """What lies between the first fence's opening line and the last bare ``` line after it."""
    m = re.search(r"^```[^\n]*\n", text, re.M)
    if not m:
        return None
    closes = list(re.finditer(r"^```[ \t]*$", text[m.end():], re.M))
    body = text[m.end():m.end() + closes[-1].start()] if closes else text[m.end():]
    return body.rstrip("\n")


def before_fence(text: str) -> str:
    """The text before the first fence."""
    m = re.search(r"^```", text, re.M)
    return text[:m.start()] if m else text


def spans(text: str) -> list[str]:
    """The `backticked` spans of a text (each within one line)."""
    return _SPAN.findall(text or "")


# What a Copilot export leaves of a tool call in the agent's text: an empty fence.
_EMPTY_FENCE = re.compile(r"^```[ \t]*\n(?:[ \t]*\n)*```[ \t]*$", re.M)
# A reasoning summary's title, as OpenAI models write them in Copilot exports: a bold line alone
# that opens with a gerund ("**Planning code updates**", "**Preparing to run tests**").
_REASONING = re.compile(r"^\*\*[A-Z][a-z]+ing\b[^*:\n]*\*\*[ \t]*$")  # "**Going forward:**" opens an answer's part
# A paragraph of reasoning about the user, in the third person: a reply speaks to them ("The user
# is frustrated - the headers lost their rounded corners…", Copilot exports of Claude models).
_ABOUT_USER = re.compile(r"^The user(?:'s request| (?:is|was|has|had|wants|wanted|asks|asked|says|said|mentioned|"
                         r"reports|reported|seems|needs|just|clearly|now|would|likely|probably))\b")
# Where the agent's answer takes over from its reasoning: a heading, a list, a table, a fence.
_ANSWER = re.compile(r"^(?:#{1,6} |[-*+] |\d+[.)] |\||```)")


def agent_words(text: str) -> str:
    """An export's agent text without the empty fences its tool calls left and without the
    reasoning it shows as the agent's words: a gerund-titled bold line and the paragraphs after
    it, up to a heading, a list, a table or a fence (the answer) or the next such title, and a
    paragraph about the user in the third person."""
    kept, reasoning = [], False
    for para in re.split(r"\n[ \t]*\n", _EMPTY_FENCE.sub("", text)):
        first = para.strip().split("\n", 1)[0]
        if _REASONING.match(first):
            reasoning = True
        elif reasoning and _ANSWER.match(first):
            reasoning = False
        if not reasoning and not _ABOUT_USER.match(first):
            kept.append(para)
    return "\n\n".join(kept).strip()
