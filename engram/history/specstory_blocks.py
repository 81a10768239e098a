"""A SpecStory Markdown v2 `<tool-use>` block read apart: its tool, summary, body and arguments.

The block keeps its harness's own tool name (`data-tool-name`); inside `<details>`, a
`<summary>Tool use: **Label** ...</summary>` (Cursor adds "• what it did"), then what the export
shows of the call: a command in backticks or a fence, Copilot's "**Input:**" list, the output in
a fence. The handlers (history/specstory_tools.py, specstory_edits.py) read these pieces.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from engram.history import markdown

_OPEN = re.compile(r'<tool-use\b[^>]*?\bdata-tool-name="([^"]*)"[^>]*>')
_LABEL = re.compile(r"^Tool use: \*\*[^*]*\*\*\s*(?:•\s*)?")


@dataclass
class Block:
    name: str
    summary: str  # the summary after "Tool use: **Label**" (and Cursor's "•")
    body: str  # inside <details>, after the summary


def parse(block: str, unescape: bool = False) -> Block | None:
    """A block's tool name, summary and body; `unescape`: Cursor exports escape HTML entities."""
    m = _OPEN.match(block)
    if not m:
        return None
    inner = block[m.end():block.rfind("</tool-use>")]
    inner = html.unescape(inner) if unescape else inner
    s = re.search(r"<summary>(.*?)</summary>", inner, re.S)
    body = inner[s.end():] if s else inner.split("<details>", 1)[-1]
    summary = _LABEL.sub("", s.group(1).strip()) if s else ""
    return Block(m.group(1), summary, body.rsplit("</details>", 1)[0])


def inputs(body: str) -> dict[str, str]:
    """Copilot's "**Input:**" list: "- key: `value`", or "- key:" then the value in a fence."""
    out: dict[str, str] = {}
    for m in re.finditer(r"^- (\w+):(?: `(.*)`)?[ \t]*$", body, re.M):
        if m.group(2) is not None:
            out[m.group(1)] = m.group(2)
        else:
            fence = markdown.first_fence(body[m.end():])
            out[m.group(1)] = fence[0] if fence else ""
    return out


def command(b: Block, output: re.Pattern | None = None) -> tuple[str, str]:
    """(command line, the body after it): the summary's backticks, a backticked line before the
    first fence (Claude Code), or a fence (Gemini, Cursor, a multi-line Codex command). `output`
    marks where the output starts (Gemini's "Result:", Codex's "Chunk ID:" fence): the command is
    then everything fenced before it, fences of its own (a heredoc writing Markdown) included."""
    if len(b.summary) > 1 and b.summary[0] == b.summary[-1] == "`":
        return b.summary[1:-1], b.body
    head = markdown.before_fence(b.body)
    line = re.search(r"^`(.*)`[ \t]*\Z", head.rstrip(), re.M | re.S)
    if line:
        return line.group(1), b.body[len(head):]
    start = output.search(b.body) if output else None
    if start:
        return markdown.outer(b.body[:start.start()]) or "", b.body[start.start():]
    fence = markdown.first_fence(b.body)
    return fence if fence else ("", b.body)
