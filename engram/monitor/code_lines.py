"""The lines a diff adds and removes, with comments and string literals told apart from code.

The offline contradiction checker must not warn about a decision's forbidden library
when the diff only mentions it in a comment, a docstring or a log message: that is the
commonest false alarm, and a wrong warning costs the agent's trust. So every changed
line is scanned with a small per-language lexer: `code` is the line with comments
removed and string literals blanked to `""`, `strings` holds the literals' contents.

Exceptions, because there a string *is* the code: module specifiers of imports
(`import x from 'axios'`, `require("pg")`, Go import blocks), the scheme of a URL
(`"redis://..."` keeps `redis://`), and configuration formats (YAML, JSON, TOML,
Dockerfile, shell), where only comments are removed. Documentation files are all prose.

State that spans lines (Python triple quotes, `/* */`, Go import blocks) is tracked per
hunk, separately for the old side (context + removed) and the new side (context + added).
Worker-side only: this module may use `re`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

# language family by extension / file name
_EXT = {
    "py": "python", "pyi": "python",
    "js": "js", "jsx": "js", "mjs": "js", "cjs": "js", "ts": "js", "tsx": "js",
    "go": "go", "rs": "rust",
    "java": "clike", "kt": "clike", "kts": "clike", "c": "clike", "h": "clike", "cc": "clike",
    "cpp": "clike", "hpp": "clike", "cs": "clike", "swift": "clike", "scala": "clike", "php": "clike",
    "sql": "sql",
    "yaml": "hash", "yml": "hash", "toml": "hash", "ini": "hash", "cfg": "hash", "conf": "hash",
    "sh": "hash", "bash": "hash", "zsh": "hash", "rb": "hash", "env": "hash", "txt": "hash",
    "json": "json", "jsonc": "json",
    "md": "doc", "rst": "doc", "adoc": "doc", "markdown": "doc",
}  # fmt: skip
_NAMES = {"dockerfile": "hash", "makefile": "hash", "requirements.txt": "hash", "go.mod": "hash",
          "gemfile": "hash", "procfile": "hash", "readme": "doc", "changelog": "doc", "license": "doc"}
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_URL_SCHEME = re.compile(r"\b([a-z][a-z0-9+.\-]{1,20})://", re.I)
_PLAIN_SCHEMES = {"http", "https", "file", "ftp", "ws", "wss", "mailto"}


@dataclass
class Line:
    """One added (+) or removed (-) line of a diff."""

    side: str  # "+" or "-"
    number: int  # line number in the new file (+) or the old file (-)
    text: str  # as written, without the diff prefix
    code: str  # comments removed, string literals blanked (see module doc)
    strings: list[str] = field(default_factory=list)
    prose: bool = False  # entirely comment / docstring / documentation
    imports: bool = False  # an import line (its string literals are module names)
    comment: bool = False  # holds a comment (a whole-line one, or one after code)
    docstring: bool = False  # prose inside a Python triple-quoted string


def language(path: str) -> str:
    """python | js | go | rust | clike | sql | hash | json | doc | other."""
    name = os.path.basename(path or "").lower()
    if name in _NAMES:
        return _NAMES[name]
    if name.startswith("dockerfile") or name.endswith(".dockerfile"):
        return "hash"
    if name.startswith("requirements") and name.endswith(".txt"):
        return "hash"
    ext = name.rsplit(".", 1)[-1] if "." in name else ""
    if ext == "txt":
        return "doc"
    return _EXT.get(ext, "other")


def is_config(lang: str) -> bool:
    """Formats whose strings are content, not messages."""
    return lang in ("hash", "json", "other")


class _Side:
    """Lexer state carried from line to line on one side of a hunk."""

    def __init__(self) -> None:
        self.block: str | None = None  # open '"""', "'''", '/*' or '`'
        self.go_imports = False


def parse(diff: str, path: str, context: bool = False) -> list[Line]:
    """Every added and removed line of a unified diff, lexed for `path`'s language; with
    `context`, the unchanged lines too (side " "), in diff order."""
    lang = language(path)
    out: list[Line] = []
    old_no = new_no = 0
    old = new = _Side()
    in_hunk = False
    for raw in (diff or "").split("\n"):
        m = _HUNK.match(raw)
        if m:
            old_no, new_no = int(m.group(1)), int(m.group(2))
            old, new = _Side(), _Side()
            in_hunk = True
            continue
        if not in_hunk or raw.startswith("\\"):
            continue
        tag, text = raw[:1], raw[1:]
        if tag == "+":
            out.append(_lex(tag, max(new_no, 1), text, lang, new))
            new_no += 1
        elif tag == "-":
            out.append(_lex(tag, max(old_no, 1), text, lang, old))
            old_no += 1
        elif tag == " " or raw == "":
            _lex(" ", 0, text, lang, old)
            kept = _lex(" ", max(new_no, 1), text, lang, new)
            if context:
                out.append(kept)
            old_no += 1
            new_no += 1
    return out


def _lex(tag: str, number: int, text: str, lang: str, side: _Side) -> Line:
    if lang == "doc":
        return Line(tag, number, text, "", [text], prose=True)
    if lang == "json":
        return Line(tag, number, text, text, [])
    if lang in ("hash", "other"):
        code = _hash_comment(text)
        return Line(tag, number, text, code, [], comment=code.strip() != text.strip())
    in_docstring = lang == "python" and side.block in ('"""', "'''")
    code, strings, prose, comment = _scan(text, lang, side)
    imports = _keeps_strings(text, code, lang, side)
    if imports:
        code = _unblank(code, strings)
    elif lang in ("python", "rust"):
        imports = code.lstrip().startswith(("import ", "from ", "use ", "extern crate "))
    code += "".join(f" {m.group(1)}:// " for s in strings for m in _URL_SCHEME.finditer(s)
                    if m.group(1).lower() not in _PLAIN_SCHEMES)
    docstring = prose and (in_docstring or lang == "python" and text.lstrip().startswith(('"""', "'''")))
    return Line(tag, number, text, code, strings, prose, imports, comment or docstring, docstring)


def _unblank(code: str, strings: list[str]) -> str:
    """Put the string contents back where `_scan` blanked them (each literal became one `""`)."""
    parts = code.split('""')
    if len(parts) != len(strings) + 1:
        return code + " " + " ".join(strings)
    return "".join(p + (f" {s} " if k < len(strings) else "") for k, (p, s) in
                   enumerate(zip(parts, strings + [""])))


def _hash_comment(text: str) -> str:
    """Drop a `#` comment that starts the line or follows whitespace (YAML, TOML, shell)."""
    s = text.lstrip()
    if s.startswith("#"):
        return ""
    i = text.find(" #")
    return text[:i] if i >= 0 else text


def _keeps_strings(text: str, code: str, lang: str, side: _Side) -> bool:
    """Is this an import line, whose string literals name modules?"""
    s = code.strip()
    if lang == "js":
        return s.startswith(("import ", "export ")) and " from " in f" {s} " or "require(" in s or s.startswith("import(")
    if lang == "go":
        if s.startswith("import ("):
            side.go_imports = True
            return False
        if side.go_imports:
            if s.startswith(")"):
                side.go_imports = False
                return False
            return True
        return s.startswith("import ")
    return False


def _scan(text: str, lang: str, side: _Side) -> tuple[str, list[str], bool, bool]:
    """(code with strings blanked and comments removed, string contents, whole line is prose,
    the line holds a comment)."""
    code: list[str] = []
    strings: list[str] = []
    buf: list[str] = []
    i, n = 0, len(text)
    started_in_block = side.block is not None
    comment = side.block == "/*"
    had_code = False
    line_comment = "#" if lang == "python" else "--" if lang == "sql" else "//"
    while i < n:
        if side.block:
            end = side.block if side.block != "/*" else "*/"
            j = text.find(end, i)
            if j < 0:
                buf.append(text[i:])
                break
            if side.block != "/*":
                strings.append("".join(buf) + text[i:j])
                code.append('""')
            buf = []
            side.block = None
            i = j + len(end)
            continue
        c = text[i]
        if text.startswith(line_comment, i):
            comment = True
            break
        if text.startswith("/*", i) and lang != "python":
            side.block = "/*"
            comment = True
            i += 2
            continue
        if lang == "python" and text.startswith(('"""', "'''"), i):
            side.block = text[i : i + 3]
            i += 3
            continue
        if c == "`" and lang in ("js", "go"):
            side.block = "`"
            i += 1
            continue
        if c in "\"'" and not (c == "'" and lang == "rust" and not _rust_char(text, i)):
            j = _string_end(text, i, c)
            strings.append(text[i + 1 : j])
            code.append('""')
            i = j + 1
            had_code = True
            continue
        code.append(c)
        had_code = had_code or not c.isspace()
        i += 1
    prose = (started_in_block or side.block is not None) and not had_code
    if not had_code and not "".join(code).strip() and text.strip() and not strings:
        prose = True
    return "".join(code), strings, prose, comment


def _string_end(text: str, i: int, quote: str) -> int:
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == quote:
            return j
        j += 1
    return len(text)


def _rust_char(text: str, i: int) -> bool:
    """A Rust char literal ('a', '\\n'), not a lifetime ('a)."""
    return text[i + 1 : i + 2] == "\\" or text[i + 2 : i + 3] == "'"


_DEF = re.compile(r"(?:(?<!\s)\s+)?(?:export\s+)?(?:async\s+)?(?:def|function|func|fn)\b")


def enclosing_def(ln: Line, lines: list[Line], reach: int = 12) -> str:
    """The code of the function head a line sits under, when the hunk shows it within `reach`
    lines (`return hashlib.md5(raw)` under `def hash_password(raw)`), else ""."""
    new_side = [x for x in lines if x.side != "-"]
    i = next((k for k, x in enumerate(new_side) if x is ln), len(new_side))
    return next((x.code for x in reversed(new_side[max(0, i - reach):i]) if _DEF.match(x.code)), "")


_TEST_DIRS = ("tests", "test", "__tests__", "spec", "specs", "testdata", "fixtures", "__mocks__", "e2e")


def is_test_path(path: str) -> bool:
    """Tests, fixtures and mocks: code that may legitimately use what production code must not."""
    parts = path.lower().replace("\\", "/").split("/")
    name = parts[-1]
    return (any(p in _TEST_DIRS for p in parts[:-1]) or name.startswith("test_") or name == "conftest.py"
            or name.endswith(("_test.py", "_test.go", "_spec.rb", "_test.rs"))
            or any(f".{k}." in name for k in ("test", "spec")))


def created(lines: list[Line]) -> bool:
    """Whether the lines are a whole new file: every one added, from line 1 (blank context aside)."""
    added = [ln for ln in lines if ln.side == "+"]
    return bool(added) and added[0].number == 1 and all(ln.side == "+" or not ln.text.strip() for ln in lines)
