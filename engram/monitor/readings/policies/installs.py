"""Packages installed without a version, against "pin versions in `apt-get install`" / "pin `apk add`
packages to exact versions" (hadolint DL3008, DL3013, DL3016, DL3018, DL3028).

The decision names the package manager or the hadolint code; the change adds an install command
(in a Dockerfile, a script, a CI step) naming a package without its version (`apk add curl` where
the rule wants `curl=8.5.0-r0`). Each manager spells a pin its own way, which is the table below.
A package the removed lines already installed unpinned is not new; a comment on the line above the
command counts as the explanation some rules ask for when pinning is impossible.
"""

from __future__ import annotations

import re

from engram.monitor.code_lines import Line

Hit = tuple[str, Line, str]

# manager -> (its install command, how a pinned package is written)
MANAGERS = {
    "apk": (re.compile(r"\bapk\s+(?:--\S+\s+)*add\b"), re.compile(r"^[\w.+\-]+[=~<>]")),
    "apt": (re.compile(r"\bapt(?:-get)?\s+(?:-\S+\s+)*install\b"), re.compile(r"^[\w.+\-:]+=")),
    "pip": (re.compile(r"\bpip3?\s+install\b"), re.compile(r"^[\w.\-\[\],]+==")),
    "npm": (re.compile(r"\bnpm\s+(?:install|i)\s+(?:-\S+\s+)*(?=.*(?:-g\b|--global\b))"), re.compile(r"^@?[\w.\-/]+@\d")),
    "gem": (re.compile(r"\bgem\s+install\b"), re.compile(r"^[\w.\-]+:\d")),
}
# Which managers a decision's words name: "apk add", "apt-get", "DL3018".
_NAMED = {"apk": re.compile(r"\bapk\b|\bDL3018\b", re.I), "apt": re.compile(r"\bapt(?:-get)?\b|\bDL3008\b", re.I),
          "pip": re.compile(r"\bpip\b|\bDL3013\b", re.I), "npm": re.compile(r"\bnpm\b|\bDL3016\b", re.I),
          "gem": re.compile(r"\bgem\b|\bDL3028\b", re.I)}
# A lint directive (`# hadolint ignore=DL3018`) above the command silences the rule; it explains nothing.
_DIRECTIVE = re.compile(r"\b(?:hadolint|shellcheck|noqa|nolint|eslint|pylint|checkov|trivy)\b", re.I)
CUE = re.compile(r"\bDL30(?:08|13|16|18|28)\b|\bpin\w*\b[^.;]{0,40}(?:\bapk\b|\bapt(?:-get)?\b|\bpip install\b|"
                 r"\b(?:system|os|apt|alpine)\s+packages\b)|(?:\bapk\s+add\b|\bapt(?:-get)?\s+install\b)[^.;]{0,40}"
                 r"\b(?:pin\w*|versions?)\b", re.I)


def _packages(command: str, after: int) -> list[str]:
    """The package arguments of an install command, up to the next shell operator."""
    rest = command[after:]
    stop = re.search(r"&&|\|\||;|\|", rest)
    args = (rest[:stop.start()] if stop else rest).replace("\\", " ").split()
    return [a for a in args if not a.startswith(("-", "$", "'", '"')) and a not in ("add", "install", "i")
            and re.match(r"^@?[\w]", a)]


def _unpinned(ln: Line, managers: list[str]) -> list[str]:
    out = []
    for name in managers:
        command, pinned = MANAGERS[name]
        for m in command.finditer(ln.code):
            out += [p for p in _packages(ln.code, m.end()) if not pinned.match(p)]
    return out


def _explained(lines: list[Line], i: int) -> bool:
    """Whether a comment line (not a lint directive) stands right above line i."""
    above = lines[i - 1] if i > 0 else None
    return (above is not None and above.side != "-" and above.comment and not above.code.strip()
            and not _DIRECTIVE.search(above.text))


def unpinned_installs(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """Install commands the change adds that name a package without its version."""
    managers = [name for name, rx in _NAMED.items() if rx.search(decision)]
    if lang != "hash" or not managers:
        return []
    before = {p for ln in lines if ln.side == "-" and not ln.prose for p in _unpinned(ln, managers)}
    out = []
    for i, ln in enumerate(lines):
        if ln.side != "+" or ln.prose:
            continue
        new = [p for p in _unpinned(ln, managers) if p not in before]
        if new and not _explained(lines, i):
            out.append(("direct", ln, f"installs {', '.join(new)} without a pinned version"))
    return out


CUES = {"unpinned_installs": CUE}
DETECTORS = {"unpinned_installs": unpinned_installs}
PATH_DETECTORS: frozenset[str] = frozenset()
