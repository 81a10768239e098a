"""Where inside the code a decision's prohibition holds: in async functions, in names, in library code.

"Never use `time.sleep()` in async functions" is kept by `time.sleep(1)` in a plain function;
"Never include "Async" in method names" is kept by calling a framework's `ReadAsStringAsync()`.
Term matching sees the word on the line either way, so these two readings narrow its hits:

* `async_only`: a forbidden call counts unless the function it sits in is shown to be a plain
  one that no async code of the diff calls (a synchronous helper called from async code blocks
  the event loop all the same);
* `named_kind`: "in method names", "in class names": the term counts in a name the diff
  DECLARES of that kind, not where it is used, and only when more names hold it than before;
* `library_only`: "in library code": a program's entry point (`cmd/`, `main.go`, `package main`,
  `src/bin/`) is not library code;
* `generated`: code a generator writes (`*_gen.go`, "Code generated ... DO NOT EDIT") follows no
  style or size rule of its authors;
* `in_test_module`: Rust's tests sit in the file they test, under `#[cfg(test)]`: test code, which
  a decision not about tests does not govern, as it does not govern a test file.
"""

from __future__ import annotations

import re

from engram.monitor.code_lines import Line, enclosing_def

_ASYNC_ONLY = re.compile(r"\b(?:in|inside|within|from)\s+(?:an?\s+|any\s+)?async(?:hronous)?\s+(?:functions?|code|handlers?|"
                         r"contexts?|routes?|methods?|def|endpoints?|views?|tasks?|coroutines?)\b", re.I)
_NAMED = re.compile(r"\b(?:in|to)\s+(?:the\s+|any\s+)?(method|function|class|type|interface|variable|field|property|"
                    r"component|test)\s+names?\b", re.I)
_MODIFIER = r"(?:public|private|protected|internal|static|async|virtual|override|abstract|final|sealed|extern|partial|suspend|open)"
_NOT_NAMES = frozenset("if for while switch catch return using lock foreach new await typeof sizeof".split())
_DECLARED = {
    "function": [re.compile(r"\b(?:def|function|func|fn|fun|sub)\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)"),
                 re.compile(rf"^\s*(?:{_MODIFIER}\s+)+[\w<>\[\]?,.\s]*?\b([A-Za-z_]\w*)\s*(?:<[^>]*>)?\s*\("),
                 re.compile(r"^\s*(?!return\b|await\b|new\b)[\w.]+(?:<[^>]*>)?\??\s+([A-Za-z_]\w*)\s*\([^)]*\)\s*;\s*$"),
                 re.compile(r"^\s*(?:async\s+)?([A-Za-z_]\w*)\s*\([^)]*\)\s*(?::\s*[^={]+)?\{\s*$")],
    "class": [re.compile(r"\b(?:class|interface|struct|enum|record|trait|type|object)\s+([A-Za-z_]\w*)")],
    "variable": [re.compile(r"\b(?:let|const|var|val)\s+(?:mut\s+)?([A-Za-z_]\w*)"),
                 re.compile(r"^\s*([A-Za-z_]\w*)\s*(?::[^=]+)?=(?!=)")],
}
_KIND = {"method": "function", "function": "function", "test": "function", "class": "class", "type": "class",
         "interface": "class", "component": "class", "variable": "variable", "field": "variable", "property": "variable"}


_LIBRARY = re.compile(r"\b(?:in|for|from)\s+(?:the\s+)?(?:librar(?:y|ies)|lib)\b|\blibrar(?:y|ies)\s+(?:code|crates?|packages?|modules?)\b",
                      re.I)
_ENTRY_POINT = re.compile(r"(?:^|/)(?:cmd|bin|scripts?|tools|examples?|cli)/|(?:^|/)(?:main\.(?:go|rs|py|kt|java)|__main__\.py|"
                          r"manage\.py|cli\.\w+)$")


def entry_point(path: str, lines: list[Line]) -> bool:
    """A program's entry point, not library code: `cmd/`, `main.go`, `src/bin/`, `package main`."""
    return _ENTRY_POINT.search(path.replace("\\", "/")) is not None or any(
        re.match(r"^\s*package\s+main\b", x.code) for x in lines if x.side != "-")


def in_test_module(ln: Line, lines: list[Line]) -> bool:
    """Rust tests live in the file they test: a line under `#[cfg(test)]`, `mod tests` or `#[test]`."""
    before = [x for x in lines if x.side != "-"]
    before = before[:next((k for k, x in enumerate(before) if x is ln), len(before))]
    return any(re.search(r"#\[cfg\(test\)\]|^\s*mod\s+tests?\b|#\[(?:\w+::)?test\]", x.code) for x in before)


_GENERATED_PATH = re.compile(r"(?:_gen|\.gen|\.pb|_pb2|_generated|\.generated|\.g)\.\w+$|(?:^|/)(?:generated|__generated__)/")
_GENERATED_MARK = re.compile(r"\bCode generated\b.*\bDO NOT EDIT\b|@generated\b|\bauto-?generated\b|\bDO NOT EDIT\b", re.I)


def generated(path: str, lines: list[Line]) -> bool:
    """Generated code (`*_gen.go`, `# Code generated ... DO NOT EDIT`): its generator, not its author, shapes it."""
    head = [x for x in lines if x.side != "-"][:5]
    return _GENERATED_PATH.search(path.replace("\\", "/")) is not None or any(_GENERATED_MARK.search(x.text) for x in head)


def library_only(text: str) -> bool:
    """Whether the decision holds for library code only ("never print in library code")."""
    return _LIBRARY.search(text) is not None


def async_only(text: str) -> bool:
    """Whether the decision forbids its thing in async code only."""
    return _ASYNC_ONLY.search(text) is not None


def in_async(ln: Line, lines: list[Line]) -> bool:
    """The line may run on the event loop: under an async function head, under a head the hunk does
    not show (the hunk header may name an async one), or in a function the new side's async code calls."""
    head = enclosing_def(ln, lines, reach=40)
    if not head or re.search(r"\basync\b", head):
        return True
    name = re.search(r"(?:def|function|func|fn)\s+([A-Za-z_]\w*)", head)
    return name is not None and any(re.search(rf"(?<![\w.]){re.escape(name.group(1))}\s*\(", x.code)
                                    and re.search(r"\basync\b", enclosing_def(x, lines, reach=40))
                                    for x in lines if x.side != "-" and x is not ln)


def named_kind(text: str) -> str | None:
    """"in method names" -> "function", "in class names" -> "class": the names a decision rules on."""
    m = _NAMED.search(text)
    return _KIND[m.group(1).lower()] if m else None


def declared(word: str, kind: str, lines: list[Line]) -> list[Line]:
    """Added lines declaring a `kind` name that holds `word` (case-sensitive when it has capitals),
    when more added than removed declarations do."""
    flags = 0 if word != word.lower() else re.I
    def holds(ln: Line) -> bool:
        names = [m.group(1) for rx in _DECLARED[kind] for m in rx.finditer(ln.code)]
        return any(re.search(re.escape(word), n, flags) for n in names if n not in _NOT_NAMES)
    plus = [ln for ln in lines if ln.side == "+" and not ln.prose and holds(ln)]
    minus = [ln for ln in lines if ln.side == "-" and not ln.prose and holds(ln)]
    return plus if len(plus) > len(minus) else []
