"""What a session left open, read off its events (all of them, not only the last range).

Each item has a `key`; a later item with the same key replaces the earlier one in the
graph, and a `retire` key closes it without a successor:

* `check:<command>`: the last run of a test or build command failed (retired when a later
  run passes);
* `todos`: the open items of the agent's last task list (a newer list replaces it);
* `pr:<n>` (alias `pr-branch:<branch>`): a pull request opened with `gh pr create`
  (retired by `gh pr merge|close n`, a merge_pull_request MCP call, the deletion of its
  remote branch, which closes it on GitHub, or `gh pr view|list` printing it merged or closed;
  an issue likewise by `gh issue close n` or `gh issue view|list` printing it closed);
* `leftover:<path>`: a file an `rm` failed to delete (retired when a later rm or mv succeeds);
* `unpushed:<branch>`: a branch the session committed on (`git commit` printed "[branch sha]
  message") with no push of it seen after (retired when a later push of it succeeds);
* `last-request`: the session's last user request when no reply to it was recorded (the
  session ended, or was cut, before the agent answered); an answered one retires it.
"""

from __future__ import annotations

import re
from typing import Any

from engram.capture import commandline as cl
from engram.consolidate.knowledge.commands import code_failure, ran, shell_events
from engram.consolidate.knowledge.commands import failed as failed_run
from engram.consolidate.knowledge.repositories import (ISSUE_URL, PR_URL, closed_keys, elsewhere, own_repositories,
                                                       reference)
from engram.consolidate.knowledge.user_words import clean_prompt, substantive
from engram.language import decision_text
from engram.text import clip_words

MAX_TODOS = 8
_PR_ACT = re.compile(r"^gh pr (merge|close)\s+(?:\S+\s+)*?#?(\d+)\b")
_VERDICTS = ("test_run", "build", "command")  # a command: only its test, build and lint parts


def _verdict_ok(ev: dict[str, Any]) -> bool:
    return ev.get("outcome") == "pass" if ev.get("type") == "test_run" else ev.get("exit_code") == 0


def _verdict_known(ev: dict[str, Any]) -> bool:
    """A run whose exit status nobody reported says neither pass nor fail."""
    return ev.get("outcome") in ("pass", "fail") if ev.get("type") == "test_run" else ev.get("exit_code") is not None


def checks(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """([failing checks at the end], [keys of checks whose last run passed])."""
    last: dict[str, dict[str, Any]] = {}
    for ev in events:
        if ev.get("type") not in _VERDICTS or not ev.get("command"):
            continue
        parts = [p for p in cl.normalise(ev["command"]) if cl.purpose(p) in ("test", "build", "lint")]
        if not _verdict_known(ev):  # a later run nobody saw end: how the check ended is not known
            for part in parts:
                last.pop(cl.canonical(part), None)
            continue
        if len(parts) > 1 and not _verdict_ok(ev):
            continue  # which part of a failed chain failed is not known
        for part in parts:
            last[cl.canonical(part)] = ev
    failing, passing = [], []
    for canon, ev in last.items():
        if _verdict_ok(ev) and ran(ev):
            passing.append("check:" + canon)
        elif not _verdict_ok(ev) and (ran(ev) or code_failure(ev)):  # else the command itself broke
            failing.append({"key": "check:" + canon, "command": canon, "what": _failure(ev), "evidence": [ev["seq"]]})
    return failing, passing


def _failure(ev: dict[str, Any]) -> str:
    if ev.get("type") == "test_run":
        names = [str(n) for n in ev.get("failing_tests") or []][:3]
        count = ev.get("failed") or len(names)
        if count or names:
            return f"{count} failing test(s)" + (f": {'; '.join(names)}" if names else "")
    said = cl.error_signature(ev.get("error_summary") or ev.get("output") or "", 160)  # a run that failed before its tests
    return said or ("tests failing" if ev.get("type") == "test_run" else "build failing")


def todos(events: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, bool]:
    """(the open items of the last task list or None, whether the session had a task list)."""
    lists = [e for e in events if e.get("type") == "todos" and isinstance(e.get("items"), list)]
    if not lists:
        return None, False
    items = [i for i in lists[-1]["items"] if isinstance(i, dict) and i.get("status") in ("pending", "in_progress")]
    if not items:
        return None, True
    shown = [clip_words(i.get("text"), 120) + (" (in progress)" if i["status"] == "in_progress" else "")
             for i in items[:MAX_TODOS]]
    more = f"; and {len(items) - MAX_TODOS} more" if len(items) > MAX_TODOS else ""
    return {"key": "todos", "items": shown, "text": "; ".join(shown) + more, "evidence": [lists[-1]["seq"]]}, True


def _branch_after(branch: str, part: str) -> str:
    w = cl.split_words(part)
    if w[:2] in (["git", "checkout"], ["git", "switch"]):
        names = [x for x in w[2:] if not x.startswith("-")]
        return names[0] if len(names) == 1 else branch
    if w[:3] == ["git", "push", "-u"] and len(w) >= 5:
        return w[4]
    return branch


def _deleted_branch(part: str) -> str:
    """The remote branch a `git push <remote> --delete B` / `git push <remote> :B` deletes."""
    w = cl.split_words(part)
    if w[:2] != ["git", "push"]:
        return ""
    if "--delete" in w or "-d" in w:
        names = [x for x in w[2:] if not x.startswith("-")]
        return names[-1] if len(names) >= 2 else ""
    return next((x[1:] for x in w[2:] if x.startswith(":") and len(x) > 1), "")


_STATE = re.compile(r'"state"\s*:\s*"(\w+)"|^state:\s*(\w+)', re.M | re.I)
_LISTED = re.compile(r"^#?(\d+)\t.*\t(MERGED|CLOSED)\t", re.M)
_VIEWED = re.compile(r"^gh (?:pr|issue) view\s+(?:-\S+\s+\S+\s+)*#?(\d+)\b")


def _ended_in_output(kind: str, part: str, ev: dict[str, Any]) -> list[str]:
    """The numbers of the pull requests (`kind` "pr") or issues that `gh pr|issue view N` or
    `gh pr|issue list` printed as merged or closed: a state the tool reported, so an item
    "not seen closed since" is not said of one a session saw closed."""
    if not part.startswith(f"gh {kind} "):
        return []
    out = str(ev.get("output") or "")
    viewed = _VIEWED.match(part)
    if viewed:
        state = _STATE.search(out)
        return [viewed.group(1)] if state and (state.group(1) or state.group(2)).upper() in ("MERGED", "CLOSED") else []
    return [n for n, _ in _LISTED.findall(out)] if part.startswith(f"gh {kind} list") else []


def pull_requests(events: list[dict[str, Any]], root: str = "") -> tuple[list[dict[str, Any]], list[str]]:
    """([pull requests still open], [keys closed: merged, closed, or their branch deleted]); `root`:
    the folder the session works in, "" when not known."""
    opened: dict[str, dict[str, Any]] = {}
    closed: list[str] = []
    branch = ""

    def close(key: str) -> None:
        closed.append(key)
        for k, pr in list(opened.items()):
            if key in (pr["key"], pr["alias"]):
                del opened[k]

    own = own_repositories(events, root)
    for ev in events:
        if ev.get("type") == "tool_call" and "merge_pull_request" in str(ev.get("tool")):
            m = re.search(r'"(?:pull_?[nN]umber|number)"\s*:\s*(\d+)', str(ev.get("input") or ""))
            if m:
                close("pr:" + m.group(1))
        if ev.get("type") not in ("command", "build", "test_run") or not ev.get("command"):
            continue
        for part, folder in cl.normalise_in(ev["command"]):
            branch = _branch_after(branch, part)
            act, gone, there = _PR_ACT.match(part), _deleted_branch(part), elsewhere(part, folder, own, root)
            ended = _ended_in_output("pr", part, ev) if ran(ev) else []
            for number in ended + ([act.group(2)] if act and ran(ev) else []):
                for key in closed_keys("pr", number, there, opened):
                    close(key)
            if gone and ran(ev):
                close("pr-branch:" + gone)
            elif part.startswith("gh pr create") and ran(ev):
                m = PR_URL.search(str(ev.get("output") or ""))
                title = re.search(r"(?:-t|--title)\s+(\"[^\"]*\"|'[^']*')", ev["command"])
                if m:
                    ref = reference(m, there, own)
                    mine = branch if "#" not in ref else ""  # another repository's PR is on none of ours
                    opened["pr:" + ref] = {
                        "key": "pr:" + ref, "alias": "pr-branch:" + mine if mine else "",
                        "number": ref, "branch": mine, "evidence": [ev["seq"]],
                        "title": title.group(1).strip("\"'") if title else ""}
    return list(opened.values()), closed


# An rm that failed because there was nothing to remove (zsh's unmatched glob, a missing path)
# left nothing behind.
_NOTHING_THERE = re.compile(r"no matches found|no such file|does not exist|did not match any files", re.I)
# What says the removal itself was refused: the tool's own error, a hook's or the system's refusal.
_REFUSED_RM = re.compile(r"^(?:rm|unlink|git)\b|blocked|denied|not permitted|dangerous", re.I)


def _rm_refused(ev: dict[str, Any], parts: list[str]) -> bool:
    """The line's rm failed (not another part of it), with files left behind."""
    said = cl.error_signature(ev.get("output") or "")
    if _NOTHING_THERE.search(said):
        return False
    return len(parts) == 1 or bool(_REFUSED_RM.search(said))


def leftovers(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """([files an rm failed to delete and nothing removed since], [keys of files removed])."""
    failed: dict[str, dict[str, Any]] = {}
    removed: list[str] = []
    for ev in shell_events(events):
        parts = cl.normalise(ev["command"])
        for part in parts:
            words = cl.split_words(part)
            if not words or words[0] not in ("rm", "unlink", "mv") and words[:2] != ["git", "rm"]:
                continue
            paths = [w for w in words[1:] if not w.startswith("-") and w != "rm"]
            paths = paths[:1] if words[0] == "mv" else paths
            for p in paths:
                if ran(ev):
                    removed.append("leftover:" + p)
                    failed = {k: v for k, v in failed.items() if not (k == p or k.startswith(p.rstrip("/") + "/"))}
                elif words[0] != "mv" and failed_run(ev) and _rm_refused(ev, parts):
                    failed[p] = {"key": "leftover:" + p, "path": p, "command": clip_words(part, 100),
                                 "error": cl.error_signature(ev.get("output") or ""), "evidence": [ev["seq"]]}
    return list(failed.values())[:5], removed


_ISSUE_CLOSE = re.compile(r"^gh issue close\s+(?:\S+\s+)*?#?(\d+)\b")
_TITLE = re.compile(r"(?:-t|--title)[ =](\"[^\"]*\"|'[^']*'|\S+)")


def issues(events: list[dict[str, Any]], root: str = "") -> tuple[list[dict[str, Any]], list[str]]:
    """([issues the session filed with `gh issue create` and did not close], [keys closed]),
    numbers from the tool's own output, titles from the command line."""
    opened: dict[str, dict[str, Any]] = {}
    closed: list[str] = []
    own = own_repositories(events, root)
    for ev in shell_events(events):
        if not ran(ev):
            continue
        for part, folder in cl.normalise_in(ev["command"]):
            close, there = _ISSUE_CLOSE.match(part), elsewhere(part, folder, own, root)
            for number in ([close.group(1)] if close else []) + _ended_in_output("issue", part, ev):
                for key in closed_keys("issue", number, there, opened):
                    closed.append(key)
                    opened.pop(key, None)
            if part.startswith("gh issue create"):
                m = ISSUE_URL.search(str(ev.get("output") or ""))
                title = _TITLE.search(ev["command"])
                if m:
                    ref = reference(m, there, own)
                    opened["issue:" + ref] = {"key": "issue:" + ref, "number": ref,
                                              "title": title.group(1).strip("\"'") if title else "",
                                              "evidence": [ev["seq"]]}
    return list(opened.values()), closed


def uncommitted(events: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, bool]:
    """(the project's files written after the session's last commit, when it committed at all,
    else None; whether a commit succeeded in it). A session that never ran `git commit` says
    nothing: its work may be committed by the user, outside the agent; a file outside the
    project (a PR body in /tmp) is no work left uncommitted."""
    commits = [e["seq"] for e in shell_events(events) if ran(e)
               and any(cl.family(p)[:2] == ("git", "commit") for p in cl.normalise(e["command"]))]
    if not commits:
        return None, False
    after = list(dict.fromkeys(e["path"] for e in events if e.get("type") == "file_write" and e.get("ok") is not False
                               and _in_project(str(e.get("path") or "")) and e["seq"] > commits[-1]))
    if not after:
        return None, True
    return {"key": "uncommitted", "files": after[:8], "more": max(0, len(after) - 8),
            "evidence": [commits[-1]]}, True


_COMMITTED = re.compile(r"^\[([^\]\s]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$", re.M)
_PUSHED = re.compile(r"\S\s+->\s+(?:refs/heads/)?(\S+)")  # "   1a2..9a2  fix/x -> fix/x", "* [new branch]  x -> x"


def unpushed(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """([branches with a commit no push of them followed], [keys of branches pushed]): what
    `git commit` printed ("[fix/x 9a25469] fix: the banner") and what a `git push` that ran
    printed ("   1a2b3c4..9a25469  fix/x -> fix/x") or named (`git push -u origin fix/x`), or a
    `gh pr create` opened from (its `--head`); one that names no branch and printed none
    pushes the branch last committed on."""
    last: dict[str, dict[str, Any]] = {}
    pushed: list[str] = []
    current = ""
    for ev in shell_events(events):
        if not ran(ev):
            continue
        out = str(ev.get("output") or "")
        for part in cl.normalise(ev["command"]):
            fam = cl.family(part)[:2]
            if fam == ("git", "commit"):
                for branch, sha, message in _COMMITTED.findall(out)[:1]:
                    current = branch
                    last[branch] = {"key": "unpushed:" + branch, "branch": branch, "sha": sha[:7],
                                    "message": clip_words(message, 80), "evidence": [ev["seq"]]}
            else:
                for branch in _pushed(part, out, current):
                    last.pop(branch, None)
                    pushed.append("unpushed:" + branch)
    return list(last.values())[:3], pushed


def _pushed(part: str, out: str, current: str) -> list[str]:
    """The branches a part put on the remote: a `git push` (not a deletion) by what it printed,
    else by the branch it names, else the current one; a `gh pr create` by its `--head`, else
    the current one (a PR is opened from a branch the remote has)."""
    words = cl.split_words(part)
    if cl.family(part) == ("gh", "pr", "create"):
        named = [b for a, b in zip(words, words[1:]) if a in ("--head", "-H")]
    elif cl.family(part)[:2] == ("git", "push") and not {"--delete", "-d"} & set(words):
        named = _PUSHED.findall(out) or [w for w in words[3:] if not w.startswith("-")][-1:]
    else:
        return []
    branches = [b.split(":")[-1].removeprefix("refs/heads/") for b in named or [current]]
    return [b for b in (current if b == "HEAD" else b for b in branches) if b]


def _in_project(path: str) -> bool:
    """A written path the project's git could commit: capture keeps a path inside the project
    relative, so an absolute one (`/tmp/pr-body.md`, a plan under the home folder, `C:/…`) or
    one above it is another folder's."""
    return bool(path) and not path.startswith(("/", "~", "..")) and path[1:3] != ":/"


# How a tool's error line reads (not a plan's prose about errors): "ERROR: …", "error[E0432]",
# "fatal: …", "TypeError", "Npgsql.PostgresException (…)", "Traceback".
_LOG_ERROR = re.compile(r"\b(?:error|fatal)\s*[:\[]|\b[A-Z]\w*(?:Error|Exception)\b|\bTraceback\b", re.I)


def pasted(request: str, prompt: str) -> str:
    """A request that pastes a log, said by its own first words and the log's first error line
    ("I'm getting this error. why? … ERROR: duplicate key value violates unique constraint
    …"): cut at 160 characters, it would keep the log's timestamps and lose the error."""
    head, _, log = prompt.partition("\n")
    error = cl.first_error(log, 96) if len(request) > 160 else ""
    if not _LOG_ERROR.search(error) or error[:40] in request[:160]:
        return request
    lead = "a pasted log:" if head.lstrip().startswith("```") else clip_words(clean_prompt(head), 60)
    return f"{lead} … {error}"  # within the 160 a request is shown in


_WORD = re.compile(r"[^\W\d_]{2,}")


def _says(reply: str) -> bool:
    """A reply that says something: a word ("Done." does; "```", a bare code fence, does not)."""
    return _WORD.search(reply, 0, 400) is not None


def last_session(events: list[dict[str, Any]], said: set[str] = frozenset()) -> dict[str, Any] | None:
    """What the session was asked (its distinct substantive requests, latest last; without the
    sentences `said` already holds as instructions) and how its last reply ended: where the
    next session picks up."""
    def request(prompt: str) -> str:
        kept = said | {d["text"] for d in decision_text.decision_sentences(prompt)}  # shown as decisions
        return pasted(" ".join(x for x in decision_text.sentences(clean_prompt(prompt)) if x.strip() not in kept),
                      prompt)

    requests = (request(str(e.get("prompt") or "")) for e in events if e.get("type") == "user_prompt")
    asked = list(dict.fromkeys(clip_words(r, 160) for r in requests if substantive(r)))
    replies = [e for e in events if e.get("type") == "turn_complete" and _says(str(e.get("agent_summary") or ""))]
    if not asked and not replies:
        return None
    last = replies[-1] if replies else None
    seqs = [e["seq"] for e in events if e.get("type") == "user_prompt"][-3:] + ([last["seq"]] if last else [])
    day = str((last or events[-1]).get("ts") or "")[:10]
    return {"key": "last-session", "asked": asked[-4:], "ended": clip_words(clean_prompt(last["agent_summary"]), 360) if last else "",
            "ts": day, "evidence": seqs}


def last_request(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The session's last user request, with whether the agent's reply was recorded."""
    prompts = [e for e in events if e.get("type") == "user_prompt" and clean_prompt(e.get("prompt"))]
    if not prompts:
        return None
    p = prompts[-1]
    turns = [e for e in events if e.get("type") == "turn_complete" and e["seq"] > p["seq"]]
    done = any(str(t.get("agent_summary") or "").strip() or t.get("tool_calls") for t in turns)
    said = pasted(clean_prompt(p["prompt"]), str(p["prompt"]))  # a pasted log by its first error line
    return {"key": "last-request", "text": clip_words(said, 300), "replied": done,
            "ts": str(p.get("ts") or "")[:10], "evidence": [p["seq"]]}
