"""What every new file must carry, left out by a file the change creates: "PHP strict types
`declare(strict_types=1);` required in new files", "all new Python files must start with
`from __future__ import annotations`", "every source file must have the license header".

The decision quotes the text (or names a license / copyright / SPDX header, a fact: any of their
usual spellings counts) and says which files: new ones, of a language it may name. An edit shows
only part of a file, so only files the change creates are judged (engram.monitor.readings.
required_code does the same for kinds of file: scripts, workflows, migrations).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram.graph import decision_text
from engram.monitor.code_lines import Line, created

Hit = tuple[str, Line, str]

_LANGS = {"php": (".php",), "python": (".py",), "typescript": (".ts", ".tsx"), "javascript": (".js", ".jsx", ".mjs"),
          "go": (".go",), "golang": (".go",), "rust": (".rs",), "java": (".java",), "kotlin": (".kt",),
          "ruby": (".rb",), "c#": (".cs",), "swift": (".swift",), "shell": (".sh",), "bash": (".sh",),
          "scala": (".scala",), "dart": (".dart",)}
_SOURCE = tuple(sorted({e for exts in _LANGS.values() for e in exts} | {".c", ".h", ".cc", ".cpp", ".hpp", ".vue"}))
_LANG_WORD = r"(?:(php|python|typescript|javascript|golang|go|rust|java|kotlin|ruby|c#|swift|shell|bash|scala|dart)\s+)?"
_FILES = rf"(?:all\s+|every\s+|each\s+|any\s+)?new\s+{_LANG_WORD}(?:source\s+)?files?\b"
_QUOTE = r"`([^`\n]{3,80})`"
# "`declare(strict_types=1);` required in new files"; "new files must start with `...`"
_RULES = [
    re.compile(rf"{_QUOTE}[^.;`]{{0,40}}\b(?:is\s+|are\s+)?(?:required|mandatory)\s+(?:in|on|at the top of|for)\s+{_FILES}",
               re.I),
    re.compile(rf"{_FILES}\s+(?:must|should|shall|need to|have to)\s+(?:always\s+)?(?:start|begin|open)\s+with\s+[^`.;]{{0,30}}"
               rf"{_QUOTE}", re.I),
    re.compile(rf"{_FILES}\s+(?:must|should|shall|need to|have to)\s+(?:always\s+)?(?:include|contain|have|declare|carry)\s+"
               rf"[^`.;]{{0,30}}{_QUOTE}", re.I),
]
# "every new file must have the license header", "add the SPDX header to new files"
_HEADER_RULE = re.compile(rf"(?:{_FILES}[^.;]{{0,40}}\b(?:must|should|shall|need)\b[^.;]{{0,30}}\b(?:license|licence|copyright|"
                          rf"spdx)\s+(?:header|notice|identifier)|\b(?:add|include|put)\s+(?:a|the|an)\s+(?:\w+\s+)?(?:license|"
                          rf"licence|copyright|spdx)\s+(?:header|notice)\s+(?:to|in|on|at the top of)\s+{_FILES})", re.I)
_HEADER = re.compile(r"SPDX-License-Identifier|\bcopyright\b|\blicen[sc]ed\b|\blicen[sc]e\b", re.I)


@dataclass(frozen=True)
class NewFileRule:
    """New files (of `extensions`) carry text matching `pattern`, shown as `what`."""

    what: str
    pattern: re.Pattern[str]
    extensions: tuple[str, ...]


def _extensions(lang_word: str | None, sentence: str) -> tuple[str, ...]:
    if lang_word:
        return _LANGS[lang_word.lower()]
    named = [w for w in re.findall(r"[a-z#]+", sentence.lower()) if w in _LANGS and w != "go"]
    return _LANGS[named[0]] if len(set(named)) == 1 else _SOURCE


def rules_of(text: str) -> list[NewFileRule]:
    out = []
    for sentence in decision_text.sentences(text) or [text]:
        for rx in _RULES:
            for m in rx.finditer(sentence):
                quote, lang_word = (m.group(1), m.group(2)) if rx is _RULES[0] else (m.group(2), m.group(1))
                out.append(NewFileRule(f"`{quote}`", re.compile(re.escape(re.sub(r"\s+", " ", quote.strip()))),
                                       _extensions(lang_word, sentence)))
        for m in _HEADER_RULE.finditer(sentence):
            lang_word = next((g for g in m.groups() if g), None)
            out.append(NewFileRule("a license header", _HEADER, _extensions(lang_word, sentence)))
    return out


def left_out(lines: list[Line], lang: str, decision: str, path: str = "") -> list[Hit]:
    """A file the change creates, of the kind the decision names, without what every new one carries."""
    if not created(lines):
        return []
    text = "\n".join(re.sub(r"\s+", " ", ln.text) for ln in lines)
    return [("direct", lines[0], f"creates {path.rsplit('/', 1)[-1]} without {r.what}, which every new file must carry")
            for r in rules_of(decision) if path.lower().endswith(r.extensions) and not r.pattern.search(text)]


CUES = {"new_file_carries": re.compile("|".join(rx.pattern for rx in _RULES) + "|" + _HEADER_RULE.pattern, re.I)}
DETECTORS = {"new_file_carries": left_out}
PATH_DETECTORS = frozenset(DETECTORS)
