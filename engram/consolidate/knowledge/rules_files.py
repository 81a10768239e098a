"""Where a project keeps its standing rules for the agent, and the rules files an agent said it made.

A file of those names written or read holds instructions a next session must follow
(offline.py makes it a file node marked `rules`). Some exports name no file a write touched
(SpecStory's legacy Cursor export): there the agent's turn-final reply is the only record
("I've created a new global rule file at `.cursor/rules/json-parsing.mdc` that establishes
using jq instead of grep for JSON data"), so a rules file a reply names is recorded with
the reply's sentence, as the agent's words. The files of the tools around the agent
(`tool_file`: transcript exports, checkpoints, dependencies) and of the system's scratch
folders are no project file at all.
"""

from __future__ import annotations

import re
from typing import Any

from engram.fsio import scratch
from engram.text import clip_words, squash, strip_injected

RULE_FILES = ("CLAUDE.md", "AGENTS.md", "GEMINI.md", ".cursorrules", ".windsurfrules", "copilot-instructions.md")
RULE_DIRS = (".cursor/rules/", ".claude/rules/", ".windsurf/rules/", ".github/instructions/")
# Files of the tools around the agent (transcript exports, checkpoints, dependencies): no part
# of the project a next session needs to know.
TOOL_DIRS = (".specstory/", ".entire/", "node_modules/", ".git/", ".venv/", "__pycache__/")
_TOKEN = re.compile(r"[\s`*'\"()\[\],;]+")  # what separates a path from the words around it
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*])")
_CHANGED = re.compile(r"\b(?:creat|add|wr[io]t|updat|sav|record|document)\w*", re.I)
MAX_SAID = 4


def tool_file(path: str) -> bool:
    return scratch(path) or any(d in "/" + path.replace("\\", "/") for d in ("/" + x for x in TOOL_DIRS))


def rules_file(path: str) -> bool:
    p = path.replace("\\", "/")
    return p.rsplit("/", 1)[-1] in RULE_FILES or any(d in "/" + p for d in ("/" + x for x in RULE_DIRS))


def said_made(events: list[dict[str, Any]]) -> dict[str, tuple[int, str]]:
    """{rules file path: (seq, the reply's sentence)} for rules files a turn-final reply says it
    created, added to or updated; the newest sentence for each."""
    out: dict[str, tuple[int, str]] = {}
    for e in events:
        if e.get("type") != "turn_complete" or not isinstance(e.get("agent_summary"), str):
            continue
        for sentence in _SENTENCE.split(squash(strip_injected(e["agent_summary"]))):
            if not _CHANGED.search(sentence):
                continue
            for word in _TOKEN.split(sentence):
                path = word.rstrip(".:").removeprefix("./")
                if "." in path.rsplit("/", 1)[-1] and rules_file(path) and not tool_file(path):
                    out[path] = (int(e["seq"]), clip_words(sentence.replace("`", "").replace("*", ""), 200))
    return dict(list(out.items())[-MAX_SAID:])
