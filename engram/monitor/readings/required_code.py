"""Code a decision requires of every thing of a kind, left out: "New scripts must be idempotent and
`set -euo pipefail`" against a new script without it, "All unsafe blocks require `// SAFETY:`
comments" against an `unsafe` block with no such comment above it (or one whose comment the change
deletes).

The sentence names its subject ("new scripts", "all unsafe blocks") and quotes what each must
carry. A subject is either a kind of file (a script, a workflow, a migration, a Dockerfile), judged
on files the change creates (an edit shows only part of a file), or a keyword of the code
(`unsafe`), judged on the lines around each use the change adds or keeps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram.graph import decision_text
from engram.monitor.code_lines import Line
from engram.monitor.readings.literals import pattern
from engram.text import singular

Hit = tuple[str, Line, str]

_RULE = re.compile(r"^\W*(?:all|new|every|each|any)\s+((?:[A-Za-z][\w\-]*\s+){0,2}?[A-Za-z][\w\-]*)\s+"
                   r"(?:must|should|shall|require|requires|need|needs|have to)\b(?P<rest>[^`]*)`([^`\n]{2,40})`", re.I)
_NEG = re.compile(r"\b(?:not|never|no|without|avoid)\b", re.I)
# Kinds of file, by the noun a decision calls them, and how a path is one of them.
_FILE_KINDS = {
    "script": lambda p: p.endswith((".sh", ".bash")) or "/scripts/" in p,
    "workflow": lambda p: "/.github/workflows/" in p and p.endswith((".yml", ".yaml")),
    "migration": lambda p: "/migrations/" in p or "/migration/" in p,
    "dockerfile": lambda p: p.rsplit("/", 1)[-1].startswith("dockerfile"),
}
# "unsafe blocks", "goto statements": a keyword and the kind of code it opens ("schema changes" is none).
_CONSTRUCTS = frozenset("block statement call function fn method class cast expression section".split())
_NEAR = 3  # lines above a use of the keyword where its comment may stand


@dataclass(frozen=True)
class Requirement:
    """Each `subject` (a kind of file, or a keyword of the code) carries `quote`."""

    subject: str
    quote: str
    file_kind: bool


def required(text: str) -> list[Requirement]:
    """What a decision requires each thing of a kind to carry, from sentences that say so."""
    out = []
    for sentence in decision_text.sentences(text) or [text]:
        for clause in re.split(r"[;:]\s+", sentence):
            m = _RULE.search(clause)
            if m is None or _NEG.search(m.group("rest")):
                continue
            words = m.group(1).lower().split()
            head = singular(words[-1])
            if head in _FILE_KINDS:
                out.append(Requirement(head, m.group(3).strip(), True))
            elif len(words) == 2 and re.fullmatch(r"[a-z_]+", words[0]) and head in _CONSTRUCTS:
                out.append(Requirement(words[0], m.group(3).strip(), False))  # "unsafe blocks": the keyword
    return out


def left_out(reqs: list[Requirement], lines: list[Line], path: str, new_file: bool) -> list[Hit]:
    """Things of the kind the change creates or keeps without what the decision requires of them."""
    p = "/" + path.replace("\\", "/").lower().removeprefix("./")
    out: list[Hit] = []
    for req in reqs:
        rx = _quote_pattern(req.quote)
        if req.file_kind:
            if new_file and lines and _FILE_KINDS[req.subject](p) and not any(rx.search(ln.text) for ln in lines):
                out.append(("direct", lines[0], f"creates a {req.subject} without `{req.quote}`, which the decision "
                                                f"requires of every one"))
            continue
        out += _uses_without(req, rx, lines)
    return out


def _quote_pattern(quote: str) -> re.Pattern[str]:
    """A comment marker quoted with its comment sign (`// SAFETY:`) is the marker in any comment."""
    bare = re.sub(r"^(?://+|#+|--|/\*+)\s*", "", quote)
    return re.compile(re.escape(bare)) if bare != quote else pattern(quote)


def _uses_without(req: Requirement, rx: re.Pattern[str], lines: list[Line]) -> list[Hit]:
    """Uses of the keyword whose nearby lines (as the file is after the change) lack the quote, when the
    change adds the use or deletes the quote."""
    after = [ln for ln in lines if ln.side != "-"]
    removed = any(ln.side == "-" and rx.search(ln.text) for ln in lines)
    keyword = re.compile(rf"(?<![\w.]){re.escape(req.subject)}(?![\w])")
    out = []
    for i, ln in enumerate(after):
        if ln.prose or not keyword.search(ln.code) or not (ln.side == "+" or removed):
            continue
        if not any(rx.search(x.text) for x in after[max(0, i - _NEAR):i + 1]):
            out.append(("direct", ln, f"uses {req.subject} without `{req.quote}`, which the decision requires"))
    return out
