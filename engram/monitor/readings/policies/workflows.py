"""The workflows family: what CI security standards require of every GitHub Actions workflow, left
out: "explicit permissions declarations" (a workflow with no `permissions:`, or one the change takes
away).

It is the documented hardening of GitHub's own guide and of linters such as zizmor and
actionlint's rules; the decision names the setting, the change leaves it out. Only workflow files
are read, and only what the change writes: a workflow it creates, a declaration it removes.
"""

from __future__ import annotations

import re

from engram.monitor.code_lines import Line, created
from engram.monitor.rules import Hit, Rule, on_lines

_PERMISSIONS_CUE = re.compile(r"\b(?:explicit|minimal|minimum|least[- ]privilege|scoped|read-only|restricted)\s+"
                              r"(?:\w+\s+)?permissions\b|\bpermissions\s+(?:declarations?|blocks?|must be (?:declared|set|explicit))\b|"
                              r"\bdeclare\s+(?:\w+\s+){0,2}permissions\b|\bexcessive-permissions\b", re.I)


def is_workflow(path: str) -> bool:
    p = "/" + path.replace("\\", "/").removeprefix("./")
    return "/.github/workflows/" in p and p.endswith((".yml", ".yaml"))


def workflow_permissions(lines: list[Line], lang: str, decision: str, path: str = "") -> list[Hit]:
    """A workflow the change creates with no `permissions:`, or a `permissions:` the change removes."""
    if not is_workflow(path) or not lines:
        return []
    declares = re.compile(r"^\s*permissions\s*:")
    if any(declares.match(ln.text) for ln in lines if ln.side != "-"):
        return []
    removed = [ln for ln in lines if ln.side == "-" and declares.match(ln.text)]
    if removed:
        return [("direct", removed[0], "removes the workflow's permissions declaration")]
    new = created(lines) and any(re.match(r"^jobs\s*:", ln.text) for ln in lines)
    return [("direct", lines[0], "creates a workflow without a permissions declaration")] if new else []


RULES = (Rule("detector:workflow_permissions", "a GitHub Actions workflow created, or left, without a permissions declaration",
              on_lines(workflow_permissions, path=True), _PERMISSIONS_CUE),)
