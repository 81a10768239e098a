"""SpecStory v2 shell, read, search and task-list blocks -> the Codex calls a live Codex session
would have made (its hooks see shell commands, so reads and searches become commands):

* shell tools -> Bash with the command and its output; the exit code only where the export
  prints it (Claude Code's "Exit code N" on a failure, Codex's "Process exited with code N",
  Gemini's "Exit Code: N", Copilot's "Command exited with code N"), otherwise unknown: Cursor
  shows the terminal text only, older Copilot exports not even that, and Claude Code and
  Copilot print nothing on a success;
* file reads -> `cat <path>`, exit 0 when the export shows the file's content (the read
  returned it), unknown when it shows none (Cursor, Copilot);
* searches and listings -> `rg PATTERN [PATH]`, `rg --files -g GLOB`, `ls PATH`, with what they
  found; their status is unknown (no search tool's result says how `rg` would have exited);
* task lists -> update_plan, `[{step, status}]` read off the checkboxes.
"""

from __future__ import annotations

import re
import shlex

from engram.history import markdown
from engram.history.codex_payloads import CodexPayloads, exec_result
from engram.history.specstory_blocks import Block, command, inputs

# -- shell tools ---------------------------------------------------------------------------

CODEX_OUTPUT = re.compile(r"^```[^\n]*\n(?=Chunk ID: |Wall time: )", re.M)
GEMINI_OUTPUT = re.compile(r"^Result:[ \t]*$", re.M)


# What Claude Code answers in a call's place when the command did not run to an end: a denial
# (the user's, a permission rule's or a hook's), an interruption, a timeout, a background start,
# the client's own refusal. None prints "Exit code N": its status is unknown.
CLAUDE_NOT_RUN = re.compile(r"^(?:The user doesn't want to|Permission to use |\[Request interrupted|Command timed out|"
                            r"Command running in background|<tool_use_error>|Error: |Hook \S+ (?:error|blocked))|"
                            r"\b(?:denied|blocked)\b", re.I)


def claude_bash(b: Block, out: CodexPayloads) -> None:
    """Claude Code puts "Exit code N" first in a failed call's result, which the export shows:
    a result without it ran to an end with status 0 ("(Bash completed with no output)" too), as
    a transcript's result without `is_error` did, unless it says the command did not run
    (CLAUDE_NOT_RUN): unknown."""
    cmd, rest = command(b)
    text = markdown.outer(rest) or ""
    first, _, tail = text.partition("\n")
    m = re.fullmatch(r"Exit code (-?\d+)", first.strip())
    code = int(m.group(1)) if m else None if CLAUDE_NOT_RUN.search(first.strip()) else 0
    if cmd.strip():
        out.shell(cmd, tail if m else text, code)


def codex_exec(b: Block, out: CodexPayloads) -> None:
    """Codex's own output text; a command still running when the call returned is unknown."""
    cmd, rest = command(b, CODEX_OUTPUT)
    res = exec_result(markdown.outer(rest) or "")
    if cmd.strip():
        out.shell(cmd, res.output, res.code, res.wall)


def gemini_shell(b: Block, out: CodexPayloads) -> None:
    """Gemini's result lists "Output:", "Error:" and "Exit Code: N" (none for a background or
    cancelled command)."""
    cmd, rest = command(b, GEMINI_OUTPUT)
    text = markdown.outer(rest.split("Result:", 1)[-1]) or ""
    code = re.search(r"^Exit Code: (-?\d+)[ \t]*$", text, re.M)
    found = re.search(r"^Output: ?(.*?)(?=^Error: |^Exit Code: |^Signal: |\Z)", text, re.S | re.M)
    output = found.group(1).strip("\n") if found else text
    output = "" if output.strip() == "(empty)" else output
    error = re.search(r"^Error: (.*)$", text, re.M)
    if error and error.group(1).strip() != "(none)":
        output += "\n" + error.group(1)
    if cmd.strip():
        out.shell(cmd, output, int(code.group(1)) if code else None)


def cursor_terminal(b: Block, out: CodexPayloads) -> None:
    cmd, rest = command(b)
    if cmd.strip():
        out.shell(cmd, markdown.outer(rest) or "")


def copilot_terminal(b: Block, out: CodexPayloads) -> None:
    """Newer exports add a "**Result:**" fence: the terminal's text, ending "Command exited with
    code N" on a failure and reading "Command produced no output" when empty; nothing marks a
    success, so a result without that line is unknown."""
    cmd = inputs(b.body).get("command", "")
    text = markdown.outer(b.body.partition("**Result:**")[2]) or ""
    head, _, last = text.rstrip().rpartition("\n")
    m = re.fullmatch(r"Command exited with code (-?\d+)", last.strip())
    text = head if m else "" if text.strip() == "Command produced no output" else text
    if cmd.strip():
        out.shell(cmd, text, int(m.group(1)) if m else None)


# -- reads, searches, listings -------------------------------------------------------------


def _named(b: Block, prefix: str, key: str) -> str:
    """The file or folder a block names: Copilot's input `key`, the summary's backticks, the
    summary after `prefix` (Cursor), or a backticked span before the first fence (Claude Code)."""
    if "**Input:**" in b.body:
        return inputs(b.body).get(key, "")
    found = markdown.spans(b.summary)
    if not found and prefix in b.summary:
        found = [b.summary.split(prefix, 1)[1].split(" •")[0]]
    found = found or markdown.spans(markdown.before_fence(b.body))
    return found[0].strip() if found else ""


def read(b: Block, out: CodexPayloads) -> None:
    path = _named(b, "Read file:", "filePath")
    content = markdown.outer(b.body) or ""
    if path:
        out.shell(f"cat {shlex.quote(path)}", content, 0 if content.strip() else None)


def listing(b: Block, out: CodexPayloads) -> None:
    path = _named(b, "Listed directory ", "path")
    if path:
        out.shell(f"ls {shlex.quote(path)}", markdown.outer(b.body) or b.body.strip())


def search(out: CodexPayloads, pattern: str, path: str, found: str, include: str = "") -> None:
    """`rg -n PATTERN [-g INCLUDE] [PATH]` with what the search found (status unknown)."""
    if pattern:
        words = ["rg", "-n", pattern] + (["-g", include] if include else []) + ([path] if path else [])
        out.shell(shlex.join(words), found)


def file_glob(out: CodexPayloads, pattern: str, found: str) -> None:
    """`rg --files -g GLOB` with the files found (status unknown)."""
    if pattern:
        out.shell(shlex.join(["rg", "--files", "-g", pattern]), found)


def claude_grep(b: Block, out: CodexPayloads) -> None:
    head = markdown.before_fence(b.body)
    pattern, path = re.search(r"pattern `([^`]*)`", head), re.search(r"path `([^`]*)`", head)
    search(out, pattern.group(1) if pattern else "", path.group(1) if path else "", markdown.outer(b.body) or "")


def claude_glob(b: Block, out: CodexPayloads) -> None:
    pattern = re.search(r"pattern `([^`]*)`", markdown.before_fence(b.body))
    file_glob(out, pattern.group(1) if pattern else "", markdown.outer(b.body) or "")


def gemini_search(b: Block, out: CodexPayloads) -> None:
    ticked = markdown.spans(b.summary)
    search(out, ticked[0] if ticked else "", "", b.body.strip())


def cursor_grep(b: Block, out: CodexPayloads) -> None:
    m = re.match(r'Grep for "(.*)" in "([^"]*)"', b.summary)
    if m:
        search(out, m.group(1), m.group(2), b.body.strip())


def cursor_glob(b: Block, out: CodexPayloads) -> None:
    m = re.match(r'Searched codebase "([^"]*)"', b.summary)
    file_glob(out, m.group(1) if m else "", b.body.strip())


def copilot_grep(b: Block, out: CodexPayloads) -> None:
    args = inputs(b.body)
    search(out, args.get("query", ""), "", "", args.get("includePattern", ""))


def copilot_glob(b: Block, out: CodexPayloads) -> None:
    file_glob(out, inputs(b.body).get("query", ""), "")


# -- task lists ------------------------------------------------------------------------------

_BOX = {" ": "pending", "x": "completed", "X": "completed", "✓": "completed", "-": "in_progress",
        "⚡": "in_progress", "~": "in_progress"}
_COPILOT = {"not-started": "pending", "in-progress": "in_progress", "completed": "completed"}


def todos(b: Block, out: CodexPayloads) -> None:
    """A checkbox list ("- [x] step"; Claude Code marks the current step ⚡, Cursor "-")."""
    plan = [{"step": step.strip(), "status": _BOX.get(box, "pending")}
            for box, step in re.findall(r"^- \[(.)\] (.+)$", b.body, re.M)]
    if plan:
        out.tool("update_plan", {"plan": plan}, "")


def copilot_todos(b: Block, out: CodexPayloads) -> None:
    """Copilot's list printed as Go maps: "[map[description:... id:1 status:in-progress title:...] ...]"."""
    found = re.findall(r"status:([\w-]+) title:(.*?)\](?= map\[|\]$)", inputs(b.body).get("todoList", ""))
    plan = [{"step": title.strip(), "status": _COPILOT.get(status, "pending")} for status, title in found]
    if plan:
        out.tool("update_plan", {"plan": plan}, "")
