"""Which repository a `gh pr|issue` command acts on: the project's, or another one.

An agent also opens pull requests and files issues in other repositories (`gh pr create --repo
o/shared`, `cd ~/shared && gh pr create`): such an item is not the project's, its number is not
this repository's, and the branch checked out here is not its branch (unfinished.py names it
"PR o/shared#2"). A worktree of the project is the project, wherever it lies: inside it (under
`.git`) or beside it, where the tool prints its PRs under the project folder's name.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from engram.capture import commandline as cl
from engram.consolidate.knowledge.commands import shell_events

PR_URL = re.compile(r"https?://[^/\s]+/([^/\s]+/[^/\s]+)/pull/(\d+)")
ISSUE_URL = re.compile(r"https?://[^/\s]+/([^/\s]+/[^/\s]+)/issues/(\d+)")


def closed_keys(kind: str, number: str, there: str, opened: dict[str, Any]) -> list[str]:
    """The keys a `gh pr|issue` act on `number` closes: this repository's, the named one's, or,
    from another folder (`there` "?"), the other repository's item with that number when one is
    open, else this repository's (the folder may be a worktree of it)."""
    if there != "?":
        return [f"{kind}:{there}#{number}" if there else f"{kind}:{number}"]
    return [k for k in opened if k.endswith("#" + number)] or [f"{kind}:{number}"]


def reference(url: re.Match, there: str, own: set[str]) -> str:
    """How an item the tool printed at `url` (PR_URL or ISSUE_URL) is named: its number for this
    repository's, `owner/name#N` for another's (`there`, unless the URL's repository is one of
    `own`: a worktree of this repository)."""
    slug, number = url.group(1), url.group(2)
    return f"{slug}#{number}" if there and slug.lower() not in own else number


def own_repositories(events: list[dict[str, Any]], root: str) -> set[str]:
    """The repositories (`owner/name`, lower case) this project is: those of the pull requests and
    issues the session opened where it works, naming no other, and any whose name is the project
    folder's (a worktree elsewhere opens PRs of the same repository). A `--repo` naming one of
    them is this repository."""
    name = posixpath.basename(root.rstrip("/")).lower()
    own = set()
    for ev in shell_events(events):
        for part, folder in cl.normalise_in(ev["command"]):
            if part.startswith(("gh pr create", "gh issue create")):
                here = not elsewhere(part, folder, set(), root)
                own.update(slug.lower() for slug, _ in PR_URL.findall(str(ev.get("output") or ""))
                           + ISSUE_URL.findall(str(ev.get("output") or ""))
                           if here or slug.lower().rsplit("/", 1)[-1] == name)
    return own


def elsewhere(part: str, folder: str, own: set[str], root: str) -> str:
    """Whether a `gh` command acts on another repository than the session's: the repository its
    `--repo` / `-R` names (unless one of `own`), "?" when its command line first moved to a folder
    outside the project at `root` (`cd ~/other && gh pr create`; a folder of the project, such
    as a worktree under its `.git`, is not outside), else "". Such a pull request is not the
    project's: its number is not this repository's, nor is the branch checked out here its branch."""
    words = cl.split_words(part)
    named = next((w.split("=", 1)[1] for w in words if w.startswith("--repo=")), "")
    for flag in ("--repo", "-R"):
        if flag in words[:-1]:
            named = words[words.index(flag) + 1]
    if named:
        return "" if named.lower() in own else named
    return "?" if _outside(folder, root) else ""


def _outside(folder: str, root: str) -> bool:
    """Whether `cd folder` from `root` leaves it (a home path is inside when its end of the path
    is the end of root's: "~/dev/app/web" under "/home/me/dev/app")."""
    if not folder or not folder.startswith(("/", "~")) and ".." not in folder:
        return False
    mine = [c for c in root.split("/") if c]
    if folder.startswith("~"):
        tail = [c for c in folder[1:].split("/") if c]
        return not any(tail[: len(mine) - k] == mine[k:] for k in range(len(mine)))
    path = posixpath.normpath(posixpath.join(root or "/", folder))
    return not root or not (path == root.rstrip("/") or path.startswith(root.rstrip("/") + "/"))
