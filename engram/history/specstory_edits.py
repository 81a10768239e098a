"""SpecStory v2 edit blocks -> apply_patch, the only way a Codex session writes a file.

The patch holds the change where the export gives it: Codex's own patch sections, Cursor's
diffs, Copilot's old and new strings, a whole-file write's content (an Add File, even when the
write replaced a file). Where the export shows only the result (Claude Code's Edit, Gemini's
replace, a Codex patch whose output alone was kept), the patch is an Update File naming the file
with no lines: a write of unknown content, never an invented change. A block naming no file
(Cursor's delete_file, a failed Claude Code edit) is left out.

Its status is the tool's own result where the export shows it: exit 0 for Gemini's
"Successfully ..." and Claude Code's "has been updated" / "File created successfully", 1 for
any other Gemini result; Codex's output goes through as Codex sent it (the adapter reads an
error in it). Cursor and Copilot show no result: the status is unknown.
"""

from __future__ import annotations

import re

from engram.history import markdown
from engram.history.codex_payloads import CodexPayloads
from engram.history.specstory_blocks import Block, inputs


def patch_text(files: list[tuple[str, str, list[str]]]) -> str:
    """An apply_patch text of (op "add" | "update" | "delete", path, lines) sections; an add's
    lines are the file's, an update's are `@@`-separated ` `/`-`/`+` lines."""
    out = ["*** Begin Patch"]
    for op, path, lines in files:
        out.append(f"*** {op.capitalize()} File: {path}")
        out += ["+" + x for x in lines] if op == "add" else lines if op == "update" else []
    return "\n".join(out + ["*** End Patch"])


def codex_patch(b: Block, out: CodexPayloads) -> None:
    """`**Update: `path`**` (Add, Delete) then a diff fence; or only the output's file list."""
    files: list[tuple[str, str, list[str]]] = []
    for m in re.finditer(r"^\*\*(Add|Update|Delete): `([^`]+)`\*\*[ \t]*$", b.body, re.M):
        diff = markdown.fences(b.body[m.end():])
        lines = diff[0][1].split("\n") if diff and m.group(1) != "Delete" else []
        if m.group(1) == "Add":
            lines = [x[1:] if x.startswith("+") else x for x in lines]
        files.append((m.group(1).lower(), m.group(2), lines))
    _, shown, tail = b.body.partition("Output:")
    output = (markdown.outer(tail) or "") if shown else ""
    if not files:  # "Success. Updated the following files:\nM path" (A, D)
        files = [("delete" if op == "D" else "update", path, [])
                 for op, path in re.findall(r"^([AMD]) (.+)$", output, re.M)]
    if files:
        out.patch(patch_text(files), output)


def _cursor_lines(diff: str) -> list[str]:
    """Cursor's diff lines ("+ x", "- x", "  x" under "@@ -a,b +c,d @@") as patch lines."""
    out = []
    for line in diff.split("\n"):
        if line.startswith("@@"):
            out.append("@@")
        elif line[:1] in ("+", "-", " "):
            out.append(line[0] + (line[2:] if line[1:2] == " " else line[1:]))
        else:
            out.append(" " + line)
    return out


def cursor_edit(b: Block, out: CodexPayloads) -> None:
    m = re.match(r"Edit file: (.+)", b.summary)
    if m:
        lines = [x for info, diff in markdown.fences(b.body) if info == "diff" for x in _cursor_lines(diff)]
        out.patch(patch_text([("update", m.group(1).strip(), lines)]), "")


def copilot_replace(b: Block, out: CodexPayloads) -> None:
    args = inputs(b.body)
    old, new = args.get("oldString", "").split("\n"), args.get("newString", "").split("\n")
    lines = ["@@"] + ["-" + x for x in old] + ["+" + x for x in new]
    if args.get("filePath"):
        out.patch(patch_text([("update", args["filePath"], lines)]), "")


def copilot_create(b: Block, out: CodexPayloads) -> None:
    args = inputs(b.body)
    if args.get("filePath"):
        out.patch(patch_text([("add", args["filePath"], args.get("content", "").split("\n"))]), "")


def claude_edit(b: Block, out: CodexPayloads) -> None:
    """Edit shows the edited snippet, Write the content; the path is in the result."""
    shown = markdown.fences(b.body)
    result = shown[-1][1] if shown else ""
    m = re.search(r"^The file (.+?) has been (?:updated|created)|^File created successfully at: (.*\S)", result, re.M)
    if not m:
        return
    path = m.group(1) or m.group(2)
    content = shown[0][1].split("\n") if b.name == "Write" and len(shown) > 1 else None
    files = [("add", path, content)] if content is not None else [("update", path, [])]
    out.patch(patch_text(files), result, 0)


def gemini_edit(b: Block, out: CodexPayloads) -> None:
    """"Path: `p`", then (write_file) the content, then "Result: ..."; replace's fence is not a diff."""
    path = re.search(r"^Path: `([^`]+)`", b.body, re.M)
    result = re.search(r"^Result: (.*)", b.body, re.M | re.S)
    if not path:
        return
    text = result.group(1).strip() if result else ""
    code = None if not result else 0 if text.startswith("Successfully") else 1
    content = markdown.outer(b.body[path.end():result.start() if result else len(b.body)])
    add = b.name == "write_file" and content is not None
    files = [("add", path.group(1), content.split("\n"))] if add else [("update", path.group(1), [])]
    out.patch(patch_text(files), text, code)
