"""What CI security standards require of every GitHub Actions workflow and job, left out: "explicit
permissions declarations" (a workflow with no `permissions:`, or one the change takes away) and
"timeouts on all jobs" (a job with no `timeout-minutes:`).

Both are the documented hardening of GitHub's own guide and of linters such as zizmor and
actionlint's rules; the decision names the setting, the change leaves it out. Only workflow files
are read, and only what the change writes: a job it adds, a workflow it creates, a declaration it
removes.
"""

from __future__ import annotations

import re

from engram.monitor.code_lines import Line, created

Hit = tuple[str, Line, str]

_PERMISSIONS_CUE = re.compile(r"\b(?:explicit|minimal|minimum|least[- ]privilege|scoped|read-only|restricted)\s+"
                              r"(?:\w+\s+)?permissions\b|\bpermissions\s+(?:declarations?|blocks?|must be (?:declared|set|explicit))\b|"
                              r"\bdeclare\s+(?:\w+\s+){0,2}permissions\b|\bexcessive-permissions\b", re.I)
_TIMEOUT_CUE = re.compile(r"\btimeouts?\b[^.;]{0,40}\b(?:all|every|each)\s+jobs?\b|\b(?:all|every|each)\s+jobs?\b[^.;]{0,40}"
                          r"\btimeouts?\b|\btimeout-minutes\b", re.I)
_JOB = re.compile(r"^(\s+)([\w\-]+):\s*$")
_INDENT = re.compile(r"^(\s*)\S")


def is_workflow(path: str) -> bool:
    p = "/" + path.replace("\\", "/").removeprefix("./")
    return "/.github/workflows/" in p and p.endswith((".yml", ".yaml"))


def _indent(text: str) -> int | None:
    m = _INDENT.match(text)
    return len(m.group(1)) if m and not text.lstrip().startswith("#") else None


def _new_jobs(lines: list[Line]) -> list[tuple[Line, list[Line]]]:
    """Jobs the change adds: an added key whose block (the deeper lines after it) runs on a runner."""
    after = [ln for ln in lines if ln.side != "-"]
    out = []
    for i, ln in enumerate(after):
        m = _JOB.match(ln.text)
        if ln.side != "+" or not m:
            continue
        block = []
        for nxt in after[i + 1:]:
            depth = _indent(nxt.text)
            if depth is not None and depth <= len(m.group(1)):
                break
            block.append(nxt)
        if any(re.match(rf"^{m.group(1)}\s+runs-on\s*:", x.text) for x in block):
            out.append((ln, block))
    return out


def job_timeouts(lines: list[Line], lang: str, decision: str, path: str = "") -> list[Hit]:
    """A job the change adds without `timeout-minutes` (it may then run for six hours)."""
    if not is_workflow(path):
        return []
    return [("direct", ln, f"adds the job {ln.text.strip().rstrip(':')} without timeout-minutes")
            for ln, block in _new_jobs(lines) if not any(re.match(r"^\s*timeout-minutes\s*:", x.text) for x in block)]


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


CUES = {"job_timeouts": _TIMEOUT_CUE, "workflow_permissions": _PERMISSIONS_CUE}
DETECTORS = {"job_timeouts": job_timeouts, "workflow_permissions": workflow_permissions}
PATH_DETECTORS = frozenset(DETECTORS)
