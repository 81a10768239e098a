"""What a file is for, in one line, read off its head: the knowledge a file node carries.

Taken from the content a read or a write already holds (nothing is opened here), first
match wins:

1. a Markdown heading (`# Title`);
2. the module docstring, or the first comment block, of a source file (a triple-quoted
   string, `/** … */`, `// …`, `# …`), skipping shebangs, licence lines and lint pragmas;
3. the package clause (`package retry`);
4. the top-level definitions: "defines RetryClient, backoff(), …".

A head that addresses the agent ("Ignore previous instructions and ...", engram/redact/injection.py)
says nothing about the file: the next rule is asked instead. Bounded work (the first
HEAD_CHARS characters) and standard library only: the PostToolUse hook runs it for reads and
whole-file writes. An empty string when nothing says it.
"""

from __future__ import annotations

from engram.redact.injection import addresses_agent
from engram.text import clip_words

HEAD_CHARS = 4000
MAX_ROLE = 160
_SKIP = ("copyright", "license", "licence", "spdx", "eslint", "prettier", "noqa", "type:", "pylint",
         "@ts-", "-*-", "vim:", "!/", "fmt:", "pragma", "generated", "do not edit", "@flow",
         "mark:", "created by")  # Swift's `// MARK: - Section` and Xcode's "Created by … on …" header
_DEFS = (("class ", "("), ("def ", "("), ("async def ", "("), ("function ", "("), ("export function ", "("),
         ("export async function ", "("), ("export class ", " "), ("export default function ", "("),
         ("export const ", " "), ("func ", "("), ("fn ", "("), ("pub fn ", "("), ("struct ", " "),
         ("pub struct ", " "), ("interface ", " "), ("export interface ", " "), ("type ", " "),
         ("export type ", " "))


def _clean(line: str) -> str:
    return " ".join(line.strip().strip("/*#-!\"'` ").split())


def _useful(text: str) -> bool:
    low = text.lower()
    return len(text) > 3 and any(c.isalpha() for c in text) and not any(s in low for s in _SKIP)


def _heading(lines: list[str]) -> str:
    for ln in lines:
        if ln.startswith("# ") and _useful(ln[2:]):
            return ln[2:].strip()
    return ""


def _comment(lines: list[str]) -> str:
    """The first useful line of the leading docstring or comment block."""
    for ln in lines:
        s = ln.strip()
        if not s or s.startswith("#!"):
            continue
        opener = s.startswith(('"""', "'''", "/*", "//", "#", "--", ";;")) or s in ("*",) or s.startswith("* ")
        if not opener:
            return ""  # code starts: no leading comment
        text = _clean(s.replace('"""', "").replace("'''", ""))
        # the raw line too: "-*- coding -*-" loses its marks when cleaned; one word is a name (Xcode's
        # header opens with the file's and the project's), not what the file is for
        if _useful(text) and _useful(s) and len(text.split()) > 1:
            return text
    return ""


def _package(lines: list[str]) -> str:
    for ln in lines:
        if ln.startswith("package ") and len(ln.split()) >= 2:
            return "package " + ln.split()[1].rstrip(";")
    return ""


def _definitions(lines: list[str]) -> str:
    names: list[str] = []
    for ln in lines:
        for prefix, stop in _DEFS:
            if ln.startswith(prefix):
                name = ln[len(prefix):].split(stop, 1)[0].split(":", 1)[0].split("<", 1)[0].split("=", 1)[0].strip()
                if name.isidentifier() and name not in names:
                    names.append(name + ("()" if stop == "(" and prefix.strip() not in ("class", "export class") else ""))
                break
        if len(names) >= 6:
            break
    return "defines " + ", ".join(names) if names else ""


def signature(line: str) -> str:
    """A top-level definition's line as written, without its body's opening ("func
    shellCompletionTarget() (shellName, rcFile string, err error)"), or "" for any other line."""
    if not any(line.startswith(prefix) for prefix, _ in _DEFS):
        return ""
    return " ".join(line.rstrip().rstrip("{:").split())


def role(path: str, content: str, head: bool = True) -> str:
    """One line saying what the file at `path` is for, or "". Not at its `head` (a read from the
    middle), only its definitions say it: a first comment there is any comment ("If both
    exist, compare contents"), a first heading any section's."""
    if not isinstance(content, str) or not content.strip():
        return ""
    lines = content[:HEAD_CHARS].split("\n")
    ext = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    finds = ((_heading,) if ext in ("md", "markdown", "rst", "txt") else (_comment, _package, _definitions)) \
        if head else (_definitions,)
    for find in finds:
        found = find(lines)
        if found and not addresses_agent(found):
            return clip_words(found, MAX_ROLE)
    return ""
