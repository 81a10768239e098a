"""Project commands that work, and gotchas, from a session's shell events.

* A project command (commandline.purpose: test / build / lint / format / setup / run) that
  ran: exit 0 and, behind a filter pipe, no error in its output; a test command also counts
  when its runner reported results (failing tests are the code's state, not the command's).
  Recorded once per canonical form, with its last run and a narrower example.
* A newer working variant replaces the older one: when a command fails as a command (it
  did not run) and another of the same purpose then works, the failed one is retired.
* A gotcha: a command that failed (exit code, hook block) and the variant of the same
  command line that worked next, within WINDOW shell events ("A fails with E; B worked"):
  the same program and purpose (any program of the purpose when A could not run at all: a
  missing tool, script or target), or the same words but the options, with no risky step
  added (a dropped stash, a deleted branch, a hard reset, a forced push, `--no-verify`);
  consecutive failures with one error are one gotcha. A failure without a working variant
  is a gotcha when the same error came back (the quirk repeats). Test failures and compile
  errors are not gotchas: they are the code's problems (offline_episode.errors).
* A tool that refused an option ("cat: illegal option -- A") is the failing command wherever
  it stands in the pipeline, and its way round is a later form of that tool's segment.
* Kept out of commits: paths unstaged right after a bulk `git add` (logs, build output), and
  paths `git status` showed untracked before a commit that went through without them (the
  agent staged others by name): a tool's settings folder, a local baseline file.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from engram.capture import shellcmd, testparse
from engram.capture import commandline as cl
from engram.text import clip_words

WINDOW = 8
MAX_COMMANDS = 12
MAX_GOTCHAS = 8
# How vitest, jest and mocha mark a failing test ("FAIL  test/a.test.ts > …", "× creates a record").
_FAILING = ("FAIL ", "\u00d7 ", "\u2717 ", "\u2715 ")
_CODE_ERRORS = ("error TS", "SyntaxError", "TypeError", "AssertionError", "error[E", ": error:", "undefined reference",
                "Failed to compile", "Type error:", ": error CS",  # webpack / Next.js, the C# compiler
                "COMPILATION ERROR", "Compilation failed", "Unresolved reference")  # Maven, Gradle, Kotlin
# What a checker prints about the code it checked: a count of findings, or a finding's place.
_LINT_FINDINGS = re.compile(r"\bFound \d+ errors?\b|\b\d+ (?:problems?|issues?|errors?) \(|^\S+:\d+:\d+: |--> \S+:\d+:\d+",
                            re.M)
_UNSTAGE = (("git", "restore", "--staged"), ("git", "reset", "HEAD"), ("git", "reset"), ("git", "rm", "--cached"))
_NOT_A_RUN = {"--help", "-h", "--version", "-V", "help", "version", "--dry-run"}
# make's dry runs print what they would do and do nothing: no evidence the target works
_DRY_MAKE = {"-n", "--just-print", "--recon"}
_RISKY = {("git", "stash"): {"drop", "clear"}, ("git", "branch"): {"-D"}, ("git", "reset"): {"--hard"},
          ("git", "clean"): {"-f", "-fd", "-df", "-fdx", "-xdf", "--force"}, ("git", "push"): {"--force", "-f"}}
_KEEP_OUT_HINTS = ("log", "tmp", "temp", "cache", "dist", "build", "coverage", "backup", ".env", "node_modules")


# The harness's rules of play, not facts about the project (Claude Code's wording): a call it
# refused or cancelled ("Sibling tool call errored": another call of the batch failed) never ran.
_PLAY = re.compile(r"has not been read yet|Sibling tool call errored|doesn't want to proceed|tool use was rejected|"
                   r"has been modified since|was interrupted|InputValidationError|exceeds maximum allowed tokens|"
                   r"without reading it first", re.I)


def harness_refused(ev: dict[str, Any]) -> bool:
    """The harness refused or cancelled the call (see _PLAY): neither a success nor a failure."""
    return ev.get("ok") is False and bool(_PLAY.search(str(ev.get("error") or ev.get("output") or "")[:2000]))


def shell_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every shell command of the events (reads and searches through the shell included) that
    the harness let run."""
    return [e for e in events if isinstance(e.get("command"), str) and e.get("command") and not harness_refused(e)]


# What a failed run prints that a filter pipe lets through: a line that opens with its verdict in
# capitals ("ERROR: failed to build: …", docker's), make's "make: *** [docker-build] Error 1".
_PIPED_FAILURE = re.compile(r"^\W{0,3}(?:ERROR|FATAL)\b|^\S*make(?:\[\d+\])?: \*\*\* .*Error \d+", re.M)


def _output_failed(ev: dict[str, Any]) -> bool:
    """A zero exit behind a filter pipe can hide a failure: look at what it printed. So can a
    line the shell refused a part of (zsh's unmatched glob skips that command and runs the
    next: `rm -f /tmp/x*; git status` exits with git's 0)."""
    out = str(ev.get("output") or "")
    if cl.shell_syntax(str(ev.get("error_summary") or "") + "\n" + out):
        return True
    return "|" in str(ev.get("command")) and (any(m in out for m in ("ERR!", "error:", "Error:", " error ", "FAIL"))
                                              or bool(_PIPED_FAILURE.search(out[-4000:]))
                                              or bool(cl.blamed(str(ev["command"]), _signature(ev))))


def ran(ev: dict[str, Any]) -> bool:
    """The command ran as a command (its own failure is not the code's)."""
    if ev.get("type") == "test_run" and ev.get("recognized") and (ev.get("passed") or ev.get("failed")):
        return True
    return ev.get("exit_code") == 0 and not _output_failed(ev)


def failed(ev: dict[str, Any]) -> bool:
    """The command failed: a known non-zero exit (or a tool error), or, with no exit status
    recorded, an output showing the command line refused (a shell's parse error, a missing
    program). An unknown status without such output is neither success nor failure."""
    code = ev.get("exit_code")
    if ev.get("ok") is False or (isinstance(code, int) and not isinstance(code, bool) and code != 0):
        return True
    if _output_failed(ev) and (cl.blamed(str(ev["command"]), _signature(ev)) or cl.shell_syntax(_signature(ev))):
        return True  # a pipeline's status is its last command's: an earlier one failed or refused its options
    return code is None and cl.refused(ev.get("error_summary") or ev.get("output") or "")


def quiet(ev: dict[str, Any]) -> bool:
    """Ran with no exit status recorded and no error shown: not known to work, not known to fail."""
    return ev.get("exit_code") is None and not failed(ev) and not cl.refused(ev.get("output") or "")


def code_failure(ev: dict[str, Any]) -> bool:
    """The failure is the code's: failing tests (also a test run chained after a build, which
    the hook classified as a build, or one whose summary a filter pipe cut: a runner's failing
    test lines), or a compile error."""
    if ev.get("type") == "test_run" and ev.get("recognized") and ev.get("failed"):
        return True
    if _output_failed(ev) and cl.blamed(str(ev["command"]), _signature(ev)):
        return False  # "xcodebuild: error: …" behind a filter pipe: the tool's own failure
    text = str(ev.get("error_summary") or ev.get("output") or "")
    if any(m in text for m in _CODE_ERRORS) or any(ln.lstrip().startswith(_FAILING) for ln in text.split("\n")):
        return True
    if _LINT_FINDINGS.search(text + "\n" + str(ev.get("output") or "")) and any(
            cl.purpose(p) in ("lint", "format", "build", "test") for p in cl.normalise(ev["command"])):
        return True  # a checker or a compiler reporting what it found in the code ("Found 17 errors
        # (13 fixed, 4 remaining).", Go's "./main.go:12:5: undefined: foo")
    return ev.get("type") != "test_run" and bool(testparse.parse(str(ev.get("output") or ""))["failed"])


def within(folder: str, root: str) -> str:
    """`folder` as a path inside the project at `root` ("" for the root itself, or for a
    folder that is not inside it or not known: a home, a variable, a parent)."""
    folder = posixpath.normpath(folder.replace("\\", "/")) if folder else ""
    if root and (folder + "/").startswith(root.rstrip("/") + "/"):
        folder = folder[len(root.rstrip("/")):].lstrip("/")
    bad = folder.startswith(("/", "~", "$", "..", "-")) or folder in (".", "") or ":" in folder
    return "" if bad else folder.removeprefix("./")


def project_commands(events: list[dict[str, Any]], root: str = "") -> dict[str, dict[str, Any]]:
    """{canonical command: {"purpose", "runs", "last_seq", "last_ts", "example", "folder", "evidence"}};
    `folder`: where in the project at `root` it last ran, when the line moved there (`cd`) or,
    in Claude Code, whose Bash tool keeps its folder from call to call, an earlier line did."""
    out: dict[str, dict[str, Any]] = {}
    here = ""
    for ev in shell_events(events):
        steps = [(part, posixpath.join(here, folder) if folder else here)
                 for part, folder in cl.normalise_in(ev["command"])]
        if ev.get("tool") == "Bash" and ran(ev) and cl.moved_to(ev["command"]):
            here = posixpath.join(here, cl.moved_to(ev["command"]))
        if not ran(ev):
            continue
        for part, folder in steps:
            what = cl.purpose(part)
            if not what or _not_a_run(part):
                continue
            canon = cl.canonical(part)
            rec = out.setdefault(canon, {"purpose": what, "runs": 0, "example": "", "evidence": []})
            rec.update(runs=rec["runs"] + 1, last_seq=ev["seq"], last_ts=str(ev.get("ts") or "")[:10],
                       folder=within(folder, root))
            rec["evidence"] = (rec["evidence"] + [ev["seq"]])[-10:]
            if part != canon and len(part) <= 160:
                rec["example"] = part
    ranked = sorted(out.items(), key=lambda kv: (-kv[1]["runs"], -kv[1]["last_seq"]))[:MAX_COMMANDS]
    return dict(ranked)


def commands_run(events: list[dict[str, Any]], working: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """{canonical command: {"purpose", "runs", "evidence"}}: project commands run with no exit
    status recorded (an export that shows none) and no known failure: run, not known to work."""
    out: dict[str, dict[str, Any]] = {}
    failing: set[str] = set()
    for ev in shell_events(events):
        parts = [p for p in cl.normalise(ev["command"]) if cl.purpose(p) and not _not_a_run(p)]
        if failed(ev):
            failing |= {cl.canonical(p) for p in parts}
        elif ev.get("exit_code") is None:
            for part in parts:
                rec = out.setdefault(cl.canonical(part), {"purpose": cl.purpose(part), "runs": 0, "evidence": []})
                rec["runs"] += 1
                rec["evidence"] = (rec["evidence"] + [ev["seq"]])[-10:]
    kept = {c: r for c, r in out.items() if c not in working and c not in failing}
    return dict(sorted(kept.items(), key=lambda kv: -kv[1]["runs"])[:MAX_COMMANDS])


def retired_commands(events: list[dict[str, Any]], working: dict[str, dict[str, Any]]) -> dict[str, str]:
    """{canonical command that stopped working: the working command of its purpose that followed}."""
    out: dict[str, str] = {}
    shell = shell_events(events)
    for i, ev in enumerate(shell):
        if not failed(ev) or ran(ev) or code_failure(ev):
            continue
        for part in cl.normalise(ev["command"]):
            what, canon = cl.purpose(part), cl.canonical(part)
            if not what or canon in working and working[canon]["last_seq"] > ev["seq"]:
                continue
            later = [c for c, r in working.items() if r["purpose"] == what and r["last_seq"] > ev["seq"] and c != canon
                     and (what != "run" or cl.family(c) == cl.family(canon))]  # "run" is any task: the same one by family
            if later:
                out[canon] = later[0]
    return out


def _signature(ev: dict[str, Any]) -> str:
    return cl.error_signature(ev.get("error_summary") or ev.get("output") or ev.get("error") or "")


def _not_a_run(part: str) -> bool:
    """Not a run of the command: a help or version screen, a dry run (`--dry-run`, `make -n`),
    or a part sent to the background (`go run main.go &`, commandline.parts), whose zero exit
    status is that of its launch."""
    words = part.split()
    return bool(_NOT_A_RUN & set(words)) or part.endswith(" &") or (
        words[:1] in (["make"], ["gmake"]) and bool(_DRY_MAKE & set(words)))


def _program(part: str) -> str:
    words = shellcmd.stripped(cl.split_words(part))
    return words[0] if words else ""


def _positional(part: str) -> list[str]:
    return [w for w in cl.split_words(part) if not w.startswith("-") and w != "…"]


def _same_command(failed: str, ok: str, could_not_run: bool = False) -> bool:
    """`ok` runs what `failed` tried: for a project command, a command of the same purpose
    ("npm run test:offline" for "npm test"); for any other, the same program and subcommand
    (its family: "git push -u origin x" for "git push", "gh pr create --base main" for "gh pr
    create --fill"), whatever its arguments, options or environment. A project command that
    could not run at all (no such tool, script or target) is done by the project's command
    of that purpose, whatever its program ("make test" -> "pytest"); any other whose program was
    not found, by the same arguments through another launcher (`_launched`)."""
    what = cl.purpose(failed)
    if what and what != "run" and could_not_run:  # "run" is any task: another one is not a way round
        return cl.purpose(ok) == what
    if could_not_run and _launched(failed, ok):
        return True
    if not _program(failed) or _program(failed) != _program(ok):
        return False
    if what and what != "run":
        return cl.purpose(ok) == what
    return cl.family(failed) == cl.family(ok) and not _retargeted(failed, ok)


def _launched(failed: str, ok: str) -> bool:
    """`ok` runs what `failed`, whose program was not found, asked of it through another
    launcher ("bun run src/cli.ts git pr --path ." after "minsky git pr --path .", "npx jest
    --watch" after "jest --watch"): the same arguments at its end."""
    a, b = shellcmd.stripped(cl.split_words(failed)), shellcmd.stripped(cl.split_words(ok))
    return len(a) >= 2 and len(b) > len(a) - 1 and b[len(b) - len(a) + 1:] == a[1:] and b[0] != a[0]


def _retargeted(failed: str, ok: str) -> bool:
    """The same options on another object ("capture prepare-cli" after "capture prepare-core"
    found nothing), or the same action in another repository (`gh pr create` here after `gh pr
    create --repo o/other` failed there): another action, not a way round the failure."""
    a, b = cl.split_words(failed), cl.split_words(ok)
    if _repository(a) != _repository(b) or _apart(_place(a), _place(b)):
        return True
    opts = [w for w in a if w.startswith("-")] == [w for w in b if w.startswith("-")]
    pa, pb = _operands(a), _operands(b)
    return opts and len(pa) == len(pb) and pa != pb


def _repository(words: list[str]) -> str:
    """The repository a command line names with `--repo` / `-R` ("" for the one it runs in)."""
    for prev, w in zip(words, words[1:]):
        if prev in cl.REPO_OPTIONS:
            return w
    return next((w.split("=", 1)[1] for w in words if w.split("=", 1)[0] in cl.REPO_OPTIONS and "=" in w), "")


def _place(words: list[str]) -> str:
    """The folder a command line names absolutely with a place option (`git -C /x/app`), or ""."""
    for prev, w in zip(words, words[1:]):
        if prev in cl.PLACE_OPTIONS and w.startswith(("/", "~")):
            return w.rstrip("/")
    return ""


def _apart(a: str, b: str) -> bool:
    """Two absolute folders neither of which holds the other: two checkouts, not one."""
    return bool(a and b) and not (a == b or a.startswith(b + "/") or b.startswith(a + "/"))


def _operands(words: list[str]) -> list[str]:
    """The words that are neither options nor an option's value (the word after `-n`)."""
    return [w for i, w in enumerate(words) if not w.startswith("-")
            and not (i and words[i - 1].startswith("-") and "=" not in words[i - 1])]


def _risky(part: str) -> bool:
    """A step that throws work away or skips the project's checks: not a way round to advertise."""
    words = cl.split_words(part)
    return "--no-verify" in words or any(w in _RISKY.get(tuple(words[:2]), ()) for w in words[2:])


def _variant(fail: list[str], ok: list[str], could_not_run: bool = False) -> bool:
    """`ok` is another form of the command line that failed: one of its parts runs a failed
    part's command (`_same_command`), something differs, and no step it adds is risky
    ("git add -A && git stash drop" is not a way round a failed "git stash pop")."""
    canon = {(cl.canonical(p), cl.option_values(p)) for p in fail}
    related = any(_same_command(f, o, could_not_run) for f in fail for o in ok if not _not_a_run(o))
    return related and any((cl.canonical(p), cl.option_values(p)) not in canon for p in ok) and not any(
        _risky(p) for p in ok if p not in fail)


def _rerun(fail: list[str], ok: list[str], fail_line: str, ok_line: str) -> bool:
    """`ok` starts with the failed command itself, unchanged, in the same folder: what it adds
    comes after (`ruff check . && pytest`), so what made it pass was elsewhere (a change to the
    code), not the line; a preparatory step would come first."""
    return ok[:len(fail)] == fail and cl.moved_to(ok_line) == cl.moved_to(fail_line)


def _line(command: str) -> str:
    """A whole command line on one line, as typed (a syntax error is in what normalise drops)."""
    return " ".join(command.split())


def _rewritten(fail: list[str], ok: list[str]) -> bool:
    """`ok` runs every part of a line the shell refused to parse (`a && b` in a shell without
    `&&`, a quoting error): the way round is in the line's syntax, not in another command."""
    return bool(fail) and {cl.canonical(p) for p in fail} <= {cl.canonical(p) for p in ok if not _not_a_run(p)}


def _same_program(segment: str, segs: list[str]) -> list[str]:
    """The segments that run the program of `segment` (a refused filter's later forms)."""
    return [s for s in segs if _program(s) == _program(segment)]


def gotchas(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """[{"command", "error", "worked", "times", "evidence"}], one per failing command and error."""
    shell = shell_events(events)
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for i, ev in enumerate(shell):
        if not failed(ev) or ran(ev) or code_failure(ev):
            continue
        sig = _signature(ev)
        named = cl.blamed(ev["command"], sig)
        fail = [named] if named else cl.normalise(ev["command"])
        if not fail or not sig:
            continue
        env = cl.refused(ev.get("error_summary") or ev.get("output") or "") and not cl.cannot_run(sig)
        key = ("" if env else cl.family(fail[0])[0] if cl.family(fail[0]) else "", cl.error_key(sig) if env else sig)
        rec = found.setdefault(key, {"command": " && ".join(fail), "error": sig, "worked": "", "times": 0,
                                     "evidence": [], "shell": env, "observed": True})
        rec["times"] += 1
        rec["evidence"] = (rec["evidence"] + [ev["seq"]])[-10:]
        for nxt in shell[i + 1: i + 1 + WINDOW]:
            parts = _same_program(named, cl.segments(nxt["command"])) if named else cl.normalise(nxt["command"])
            syntax = not named and cl.shell_syntax(sig)  # the shell refused the line: its way round is it rewritten
            # a missing filter (`… | head`): normalise drops it, so only the whole line says what failed
            hidden = cl.missing_program(ev["command"], sig) not in {"", *(_program(p) for p in fail)} \
                or bool(cl.filter_failed(ev["command"], sig))  # a filter normalise dropped broke the line
            fixed = (_rewritten(fail, parts) and nxt["command"] != ev["command"] if syntax or hidden
                     else _variant(fail, parts, cl.cannot_run(ev.get("error_summary") or ev.get("output")))
                     and not _rerun(fail, parts, ev["command"], nxt["command"]))
            if (ran(nxt) or quiet(nxt)) and fixed:
                # the pair said is this failure and its way round (one shell error's gotcha
                # meets many commands: the first one's line beside another's fix reads as a wrong fix)
                rec["command"], rec["worked"] = ((_line(ev["command"]), _line(nxt["command"])) if syntax or hidden
                                                 else (" && ".join(fail), " && ".join(parts)))
                rec["evidence"] = (rec["evidence"] + [nxt["seq"]])[-10:]
                rec["observed"] = ran(nxt)  # else it ran with no error shown, its status not recorded
                break
            if failed(nxt) and _signature(nxt) == sig:
                break  # the same failure again: its own turn decides what worked
    keep = [r for r in found.values() if r["worked"] or r["times"] > 1]
    return keep[:MAX_GOTCHAS]


def kept_out_of_commits(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """[{"path", "command", "evidence"}]: paths unstaged right after a bulk `git add`."""
    out: list[dict[str, Any]] = []
    bulk = False
    for ev in shell_events(events):
        for part in cl.normalise(ev["command"]):
            words = cl.split_words(part)
            if words[:2] == ["git", "add"] and any(w in (".", "-A", "--all", "-u") for w in words[2:]):
                bulk = ran(ev)
            elif bulk and ran(ev) and any(tuple(words[: len(u)]) == u for u in _UNSTAGE):
                for path in [w for w in words[2:] if not w.startswith("-") and w != "HEAD"][:5]:
                    if any(h in path.lower() for h in _KEEP_OUT_HINTS):
                        out.append({"path": path, "command": clip_words(part, 120), "evidence": [ev["seq"]]})
            elif words[:2] == ["git", "commit"]:
                bulk = False
    return list({o["path"]: o for o in out}.values())[:5]


def _untracked(output: str) -> list[str]:
    """The untracked paths a `git status` printed: its "Untracked files:" section or `?? path` lines."""
    out: list[str] = []
    section = False
    for line in str(output or "").split("\n"):
        text = line.strip()
        if line.startswith("?? "):
            out.append(text[3:].strip('"'))
        elif line.startswith("Untracked files:"):
            section = True
        elif section and text and not text.startswith("(use "):
            if not line.startswith(("\t", "  ")):
                section = False
            else:
                out.append(text)
        elif section and not text and out:
            section = False
    return out


def _covers(arg: str, path: str) -> bool:
    return arg in (".", "-A", "--all", ":/") or path == arg or path.startswith(arg.rstrip("/") + "/")


def left_untracked(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """[{"path", "command", "evidence"}]: paths `git status` showed untracked before a commit
    that went through without them (not staged by name or in bulk before it, nor after it in
    the session); paths sharing a top folder are one entry, the folder."""
    seen: dict[str, int] = {}
    added: set[str] = set()
    kept: dict[str, dict[str, Any]] = {}
    for ev in shell_events(events):
        for part in cl.normalise(ev["command"]):
            words = cl.split_words(part)
            if words[:2] == ["git", "status"] and ran(ev):
                seen.update({p: ev["seq"] for p in _untracked(ev.get("output") or "") if p not in seen})
            elif words[:2] == ["git", "add"]:
                cut = "command" in (ev.get("truncated") or {})  # which paths it named is not all known
                args = ["."] if cut else [w for w in words[2:] if not w.startswith("-") or w in ("-A", "--all")]
                added |= {p for p in seen if any(_covers(a, p) for a in args)}
                for p in [p for p in kept if any(_covers(a, p) for a in args)]:
                    del kept[p]
            elif words[:2] == ["git", "commit"] and ran(ev):
                for p, at in seen.items():
                    if p not in added and p not in kept:
                        kept[p] = {"path": p, "command": clip_words(part, 120), "evidence": [at, ev["seq"]]}
    tops: dict[str, list[dict[str, Any]]] = {}
    for k in kept.values():
        tops.setdefault(k["path"].split("/", 1)[0] if "/" in k["path"] else k["path"], []).append(k)
    out = [dict(group[0], path=top + "/") if len(group) > 1 else group[0] for top, group in tops.items()]
    return out[:5]
