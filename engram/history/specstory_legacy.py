"""An older SpecStory Cursor export's assistant turn -> Codex calls and the agent's text.

These exports render tools as text, one tool to a `---`-separated segment: a ```bash fence (the
command) followed by a plain fence (the terminal's text, prompt included), "Read file: <path>",
a `<details>` block whose summary says "Listed directory <path>" or "Grep search for "<pattern>"",
or ```diff fences (an applied edit). No exit code and no error flag is ever shown, so every
command's status is unknown; a command with no terminal fence was not run (or was cancelled) and
is left out. Reads show no content (unknown). Edits name no file, so no write can be recorded;
semantic and web searches have no Codex counterpart. Any other segment is the agent's text.
"""

from __future__ import annotations

import re
import shlex

from engram.history import markdown
from engram.history.codex_payloads import CodexPayloads
from engram.history.specstory_tools import search

_LISTED = re.compile(r"<summary>Listed (?:directory (.+?)|current directory) • ")
_GREP = re.compile(r'<summary>Grep search for "(.*)"(?: in "([^"]*)")? • ')


def agent(body: str, out: CodexPayloads) -> None:
    """One `_**Assistant**_` section, segment by segment."""
    for segment in re.split(r"^---[ \t]*$", body, flags=re.M):
        seg = segment.strip()
        if seg.startswith("```bash"):
            _terminal(seg, out)
        elif seg.startswith("Read file: "):
            for path in re.findall(r"^Read file: (.+)$", seg, re.M):
                out.shell(f"cat {shlex.quote(path.strip())}", "")
        elif seg.startswith("<details>"):
            _found(seg, out)
        elif seg and not seg.startswith("```diff") and seg != "Cancelled":
            out.reply(markdown.agent_words(seg))


def _terminal(seg: str, out: CodexPayloads) -> None:
    fence = markdown.first_fence(seg)
    output = markdown.outer(fence[1]) if fence else None
    if fence and fence[0].strip() and output is not None:
        out.shell(fence[0], output)


def _found(seg: str, out: CodexPayloads) -> None:
    """A listing or a grep: the table under the summary is what it found."""
    found = seg.split("</summary>", 1)[-1].rsplit("</details>", 1)[0].strip()
    listed, grep = _LISTED.search(seg), _GREP.search(seg)
    if listed:
        out.shell(shlex.join(["ls"] + ([listed.group(1)] if listed.group(1) else [])), found)
    elif grep:
        search(out, grep.group(1), grep.group(2) or "", found)
