"""Limits on the size of code a decision states: "keep functions under 20 lines", "function
<= 50 LOC, parameters <= 5", "~500 lines per file".

A constant cannot break these: the function the change writes does. So each function whose
signature the change adds (or whose body it grows past the limit) is measured on the new side of
the diff: its length in lines from the signature to its end (indentation in Python, braces
elsewhere) and the parameters its signature declares. A function the diff shows only in part is
not measured (its end is not in view), so an edit inside a long function says nothing. A file's
length is at least the number of the last line the diff shows on the new side.
"""

from __future__ import annotations

import re

from engram.monitor.code_lines import Line
from engram.monitor.decision_rules import Limit
from engram.monitor.readings import code_scope

Hit = tuple[str, Line, str]

_DEF = {
    "python": re.compile(r"^(\s*)(?:async\s+)?def\s+(\w+)\s*\("),
    "js": re.compile(r"^(\s*)(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\s*\*?\s*(\w+)\s*(?:<[^>]*>)?\s*\(|"
                     r"(?:const|let|var)\s+(\w+)\s*(?::[^=]+)?=\s*(?:async\s+)?\()"),
    "go": re.compile(r"^(\s*)func\s+(?:\([^)]*\)\s*)?(\w+)\s*(?:\[[^\]]*\])?\s*\("),
    "rust": re.compile(r"^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s+(\w+)\s*(?:<[^>]*>)?\s*\("),
    "clike": re.compile(r"^(\s*)(?:(?:public|private|protected|internal|static|final|override|suspend|async|virtual)\s+)*"
                        r"(?:fun\s+(\w+)|(?!(?:return|new|throw|await|yield|else|case|if|while|for|switch|catch|in|is|as|"
                        r"not)\b)[\w<>\[\],?]+\s+(?!(?:if|while|for|switch|catch|return)\b)(\w+))\s*\((?!.*;\s*$)"),
}
_FUNCTION_WORDS = {"function", "method", "func", "fn", "procedure", "routine"}
_PARAM_WORDS = {"parameter", "param", "argument", "arg"}
_RECEIVERS = {"self", "cls", "this"}


_FILE_WORDS = {"file", "module"}


def applies(limit: Limit) -> bool:
    """Whether a limit is one of the sizes measured here."""
    return (limit.measure == "lines" and bool(limit.words & (_FUNCTION_WORDS | _FILE_WORDS))) or limit.measure == "parameters"


def file_over(limit: Limit, lines: list[Line], path: str = "") -> list[Hit]:
    """A change that grows a file past a length limit: the new side's last numbered line shows the file
    is at least that long, and the change adds more lines than it removes. Generated files are their
    generator's business."""
    if code_scope.generated(path, lines):
        return []
    new_side = [ln for ln in lines if ln.side != "-" and ln.number]
    added = [ln for ln in new_side if ln.side == "+"]
    if not added or len(added) <= sum(ln.side == "-" for ln in lines):
        return []
    length = max(ln.number for ln in new_side)
    if not _breaks(limit, length):
        return []
    return [("direct", added[-1], f"grows the file to at least {length} lines, beyond the decision's limit ({limit.text})")]


def over(limit: Limit, lines: list[Line], lang: str, path: str = "") -> list[Hit]:
    """Functions (or the file) the change writes that break a size limit."""
    if limit.measure == "lines" and limit.words & _FILE_WORDS and not limit.words & _FUNCTION_WORDS:
        return file_over(limit, lines, path)
    rx = _DEF.get(lang)
    if rx is None:
        return []
    new_side = [ln for ln in lines if ln.side != "-"]
    out = []
    for i, ln in enumerate(new_side):
        m = rx.match(ln.code)
        if m is None or ln.prose:
            continue
        name = next((g for g in m.groups()[1:] if g), "")
        if limit.measure == "parameters" and ln.side == "+":
            n = _parameters(new_side, i, m.end())
            if n is not None and _breaks(limit, n):
                out.append(("direct", ln, f"declares {name} with {n} parameters, beyond the decision's limit ({limit.text})"))
        elif limit.measure == "lines":
            body = _body(new_side, i, lang, len(m.group(1)))
            if body and _breaks(limit, len(body)) and (ln.side == "+" or any(x.side == "+" for x in body)):
                if ln.side == "+" or sum(x.side != "+" for x in body) <= limit.value:
                    out.append(("direct", ln, f"makes {name} {len(body)} lines long, beyond the decision's limit "
                                              f"({limit.text})"))
    return out


def _breaks(limit: Limit, value: float) -> bool:
    return value > limit.value if limit.op == "<=" else value >= limit.value if limit.op == "<" else False


def _parameters(new_side: list[Line], i: int, start: int) -> int | None:
    """The parameters of the signature opened at `start` of line i (it may span lines), receivers not counted."""
    text, depth = "", 1
    for ln in new_side[i:i + 12]:
        for ch in ln.code[start:] if ln is new_side[i] else ln.code:
            depth += (ch in "([{") - (ch in ")]}")
            if depth == 0:
                params = [p.strip() for p in _top_level(text).split(",") if p.strip()]
                return sum(1 for p in params if _param_name(p) not in _RECEIVERS)
            text += ch
        text += " "
    return None


def _param_name(param: str) -> str:
    """`x: int = 3`, `mut x: T`, `&self`, `int x`, `...rest`: the parameter's name."""
    words = re.split(r"[:=]", param)[0].split()
    return words[-1].lstrip("*&.") if words else ""


def _top_level(text: str) -> str:
    """The text with nested brackets' contents removed (a default `= {}`, a generic `Map<K, V>`)."""
    while (shorter := re.sub(r"\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}|<[^<>]*>", "", text)) != text:
        text = shorter
    return text


def _body(new_side: list[Line], i: int, lang: str, indent: int) -> list[Line]:
    """The lines of the function whose signature is line i, through its end; [] when the end is not in
    view (in a new file, whose every line is in the diff, the file's end ends it)."""
    whole = all(ln.side == "+" or not ln.text.strip() for ln in new_side)
    if lang == "python":
        for j in range(i + 1, len(new_side)):
            text = new_side[j].text
            if text.strip() and len(text) - len(text.lstrip()) <= indent and not text.lstrip().startswith((")", "]")):
                return _trimmed(new_side[i:j])
        return _trimmed(new_side[i:]) if whole else []
    depth, opened = 0, False
    for j in range(i, len(new_side)):
        code = new_side[j].code
        depth += code.count("{") - code.count("}")
        opened = opened or "{" in code
        if opened and depth <= 0:
            return new_side[i:j + 1]
    return []


def _trimmed(body: list[Line]) -> list[Line]:
    """Without the blank lines that end it."""
    while body and not body[-1].text.strip():
        body = body[:-1]
    return body
