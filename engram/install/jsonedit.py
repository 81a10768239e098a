"""Edit one top-level member of a settings file as text, leaving every other byte alone.

Harness settings files hold much more than hooks (MCP servers, permissions, themes) and,
for Gemini CLI, comments. Re-serialising the whole document would reformat all of it
and drop the comments, so the installer parses the document to decide *what* to change
and then splices only the text of the `hooks` member: its value is replaced in place, or
a new member is appended after the last one, indented like its siblings. Comments are
blanked (same length, newlines kept) before scanning, so offsets stay valid.
"""

from __future__ import annotations

import json
import re

WS = " \t\r\n"


# a string (to its closing quote, or the end of an unterminated one), a // comment, a /* comment
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|//[^\n]*|/\*.*?(?:\*/|\Z)', re.S)
_DECODER = json.JSONDecoder()


def _blank(match: re.Match) -> str:
    token = match.group()
    return token if token[0] == '"' else re.sub(r"[^\n]", " ", token)


def blank_comments(text: str) -> str:
    """`text` with // and /* */ comments outside strings replaced by spaces (same offsets).
    One regular-expression pass whose alternatives are told apart by their first character:
    linear, and at C speed (a character loop in Python took 6 s on an 8 MB file)."""
    return _TOKENS.sub(_blank, text)


def loads(text: str, allow_comments: bool = False):
    """Parse a settings document; raises ValueError ("line L column C: ...") when malformed,
    nesting too deep for the parser included (RecursionError, never a traceback)."""
    try:
        return json.loads(blank_comments(text) if allow_comments else text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise ValueError("nested too deeply to read") from None


def _skip(s: str, i: int) -> int:
    while i < len(s) and s[i] in WS:
        i += 1
    return i


def _value_end(s: str, i: int) -> int:
    """Index just past the JSON value starting at s[i] (s is valid, comment-free JSON text)."""
    return _DECODER.raw_decode(s, i)[1]


def _members_at(s: str, open_at: int) -> tuple[list[tuple[str, int, int, int]], int]:
    """([(key, key_start, value_start, value_end)], close_brace) of the object at s[open_at]."""
    i, out = open_at + 1, []
    while True:
        i = _skip(s, i)
        if s[i] == "}":
            return out, i
        kend = _value_end(s, i)
        key = json.loads(s[i:kend])
        vstart = _skip(s, _skip(s, kend) + 1)
        vend = _value_end(s, vstart)
        out.append((key, i, vstart, vend))
        i = _skip(s, vend)
        if s[i] == ",":
            i += 1


def _elements_at(s: str, open_at: int) -> tuple[list[tuple[int, int]], int]:
    """([(start, end)], close_bracket) of the array at s[open_at]."""
    i, out = open_at + 1, []
    while True:
        i = _skip(s, i)
        if s[i] == "]":
            return out, i
        end = _value_end(s, i)
        out.append((i, end))
        i = _skip(s, end)
        if s[i] == ",":
            i += 1


def _open_at(s: str, path: tuple[str, ...]) -> int:
    """Offset of the `{`/`[` of the value at `path` (object keys from the top); KeyError if absent."""
    at = _skip(s, 0)
    for key in path:
        found, _ = _members_at(s, at)
        at = next(v for k, _, v, _ in found if k == key) if any(k == key for k, *_ in found) else -1
        if at < 0:
            raise KeyError(key)
    return at


def members(text: str) -> tuple[list[tuple[str, int, int, int]], int, int]:
    """([(key, key_start, value_start, value_end)], open_brace, close_brace) of the top object."""
    s = blank_comments(text)
    open_at = _skip(s, 0)
    found, close_at = _members_at(s, open_at)
    return found, open_at, close_at


def indent_unit(text: str) -> str | None:
    """The indentation of the top-level members ("  ", "    ", "\\t"), None for one-line JSON."""
    for line in text.split("\n")[1:]:
        stripped = line.lstrip(" \t")
        if stripped.startswith('"') and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return None if "\n" not in text.strip() else "  "


def dumps(value, unit: str | None, level_indent: str = "") -> str:
    """`value` as JSON text indented by `unit`, every line after the first prefixed by `level_indent`."""
    if unit is None:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return json.dumps(value, ensure_ascii=False, indent=unit).replace("\n", "\n" + level_indent)


def new_document(key: str, value, unit: str = "  ") -> str:
    return json.dumps({key: value}, ensure_ascii=False, indent=unit) + "\n"


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    prefix = text[start:pos]
    return prefix if prefix.strip(" \t") == "" else ""


def _insert(text: str, open_at: int, close_at: int, last: tuple[int, int] | None, item: str, value,
            unit: str | None) -> str:
    """Insert `item` (a serialised member head, or "") + `value` after `last` or into an empty container."""
    if last is not None:
        ind = _line_indent(text, last[0])
        if unit is None or not ind and text[last[0] - 1:last[0]] != "\n":
            return text[:last[1]] + ", " + item + dumps(value, None) + text[last[1]:]
        return text[:last[1]] + ",\n" + ind + item + dumps(value, unit, ind) + text[last[1]:]
    if unit is None:
        return text[: open_at + 1] + item + dumps(value, None) + text[close_at:]
    line = text[text.rfind("\n", 0, open_at) + 1:]
    close_ind = line[: len(line) - len(line.lstrip(" \t"))]
    body = "\n" + close_ind + unit + item + dumps(value, unit, close_ind + unit) + "\n" + close_ind
    return text[: open_at + 1] + body + text[close_at:]


def set_member(text: str, key: str, value, path: tuple[str, ...] = ()) -> str:
    """`text` with member `key` of the object at `path` set to `value` (in place, or appended)."""
    if not text.strip():
        return new_document(key, value)
    s = blank_comments(text)
    open_at = _open_at(s, path)
    found, close_at = _members_at(s, open_at)
    unit = indent_unit(text)
    for k, kstart, vstart, vend in found:
        if k == key:
            return text[:vstart] + dumps(value, unit, _line_indent(text, kstart)) + text[vend:]
    last = (found[-1][1], found[-1][3]) if found else None
    return _insert(text, open_at, close_at, last, json.dumps(key) + ": ", value, unit)


def append_element(text: str, path: tuple[str, ...], value) -> str:
    """`text` with `value` appended to the array at `path`."""
    s = blank_comments(text)
    open_at = _open_at(s, path)
    found, close_at = _elements_at(s, open_at)
    return _insert(text, open_at, close_at, found[-1] if found else None, "", value, indent_unit(text))


def remove_member(text: str, key: str, path: tuple[str, ...] = ()) -> str:
    """`text` without member `key` of the object at `path` (the exact inverse of appending it)."""
    s = blank_comments(text)
    open_at = _open_at(s, path)
    found, close_at = _members_at(s, open_at)
    idx = next((i for i, m in enumerate(found) if m[0] == key), None)
    if idx is None:
        return text
    if idx > 0:
        comma = s.find(",", found[idx - 1][3])
        return text[:comma] + text[found[idx][3]:]
    if len(found) > 1:
        return text[: found[0][1]] + text[found[1][1]:]
    return text[: open_at + 1] + text[close_at:]


def remove_element(text: str, path: tuple[str, ...], index: int) -> str:
    """`text` without element `index` of the array at `path` (with its separating comma)."""
    s = blank_comments(text)
    found, _ = _elements_at(s, _open_at(s, path))
    start, end = found[index]
    if index > 0:
        return text[: s.find(",", found[index - 1][1])] + text[end:]
    if len(found) > 1:
        return text[:start] + text[found[1][0]:]
    return text[:start] + text[end:]
