"""The offline consolidator, part 1: the structured episode, read off the events alone.

The default when no model key is configured. Deterministic (same events, same output)
and honest: everything it writes is read off the events, never guessed.

- goal: the first prompt of the range (or, for a continuation turn, the latest earlier one);
- outcome: the last test or build verdict (a pass after failures is still success; a fail
  after an earlier pass is partial); without any verdict, success unless a command kept failing;
- errors: fail -> writes -> pass sequences of one test/build/command, with the files changed
  in between as the resolution (root causes are not inferred: that needs reading code);
- decisions: saved decision events, decision-shaped prompt sentences ("let's use X", "never
  Y", "X instead of Y", "always Z"), and agent sentences that name an unchosen alternative
  (the only implicit decisions it records);
- discoveries: what the agent said after a build or a web search (`learned`), and regions
  revised three or more times;
- concepts: the files written (with what each is for, when its head said it), the MCP
  servers used, third-party libraries newly imported in diffs, and whatever a decision
  requires; commands, gotchas, unfinished work and instructions come from
  consolidate/knowledge.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from engram.capture import commandline
from engram.consolidate.knowledge import replies, user_words
from engram.consolidate.knowledge.commands import code_failure, harness_refused
from engram.language import decision_text
from engram.text import clip_words, squash

MAX_FILES = 15
MAX_TOOLS = 5
MAX_LIBS = 5
MAX_ERRORS = 20
ERROR_FILES = 20  # schema.episode's bound on an error's files (a refactor can touch 50)
VERDICT_TYPES = ("test_run", "build")
# Node.js core modules: importing them is not using a third-party library.
NODE_BUILTINS = frozenset("""assert async_hooks buffer child_process cluster console crypto dgram dns events fs http
http2 https inspector module net os path perf_hooks process querystring readline repl stream string_decoder
timers tls tty url util v8 vm worker_threads zlib __future__""".split())


def _first_sentence(text: str, n: int = 200) -> str:
    """The first sentence that says something ("Alright regarding..." does not), cut at a word."""
    s = decision_text.sentences(text)
    return clip_words(next((x for x in s if user_words.substantive(x)), s[0] if s else text), n)


def _ok_writes(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The writes that did not fail (one whose result the transcript does not show counts: the
    session worked on that file)."""
    return [e for e in events if e.get("type") == "file_write" and e.get("ok", True) is not False and e.get("path")]


def files_modified(events: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(e["path"] for e in _ok_writes(events)))


# -- episode ------------------------------------------------------------------------


def goal(events: list[dict[str, Any]], prior: list[dict[str, Any]]) -> str:
    """The first substantive request (cleaned: links named, no "continue" / "yes"), cut at a
    word; else what a prompt asks without its mentions and filler ("continue with the
    @agent-x" says nothing); else the files changed."""
    prompts = [e for e in events if e.get("type") == "user_prompt"]
    earlier = [e for e in reversed(prior) if e.get("type") == "user_prompt"]
    for e in prompts + earlier:
        if user_words.headline(e.get("prompt")):
            return clip_words(user_words.headline(e["prompt"]), 200)
        if user_words.substantive(e.get("prompt")):
            return _first_sentence(user_words.clean_prompt(e["prompt"]))
    for e in prompts + earlier:
        if user_words.bare(e.get("prompt")):
            return _first_sentence(user_words.bare(e["prompt"]))
    files = files_modified(events)
    return "Continue work on " + ", ".join(files[:3]) if files else "Continue the session"


def file_roles(events: list[dict[str, Any]]) -> dict[str, str]:
    """{path: what the file is for}, the latest `role` its reads and writes carried."""
    return {e["path"]: str(e["role"]) for e in events
            if e.get("type") in ("file_read", "file_write") and e.get("path") and e.get("role")}


def outcome(events: list[dict[str, Any]], errors: list[dict[str, Any]]) -> str:
    verdicts = [e for e in events if e.get("type") in VERDICT_TYPES and _known(e)]
    if verdicts:
        last_ok = _passed(verdicts[-1])
        if last_ok:
            return "success"
        return "partial" if any(_passed(v) for v in verdicts) else "failure"
    return "partial" if any(not e["resolution"] for e in errors) else "success"


def _known(ev: dict[str, Any]) -> bool:
    """A verdict was observed: a test run's pass / fail, another command's exit code."""
    if ev.get("type") == "test_run" and ev.get("outcome") is not None:
        return ev["outcome"] in ("pass", "fail")
    return ev.get("exit_code") is not None


def outcome_known(events: list[dict[str, Any]]) -> bool:
    """Whether the range holds a verdict (a test or build run with a known exit status): without
    one, any outcome is a guess and is not shown as a fact."""
    return any(e.get("type") in VERDICT_TYPES and _known(e) for e in events)


def _passed(ev: dict[str, Any]) -> bool:
    if ev.get("type") == "test_run":
        return ev.get("outcome") == "pass"
    return ev.get("exit_code") == 0


def approach(events: list[dict[str, Any]]) -> str:
    count = lambda t: sum(1 for e in events if e.get("type") == t)  # noqa: E731
    parts = []
    reads = {e.get("path") for e in events if e.get("type") == "file_read"}
    if reads:
        parts.append(f"read {len(reads)} file(s)")
    files = files_modified(events)
    if files:
        parts.append(f"edited {len(files)} file(s) ({', '.join(files[:4])}{', …' if len(files) > 4 else ''})")
    tests = [e for e in events if e.get("type") == "test_run"]
    if tests:
        fails = sum(1 for t in tests if not _passed(t))
        parts.append(f"ran tests {len(tests)} time(s), {fails} failing, last {tests[-1].get('outcome')}")
    for t, word in (("build", "build(s)"), ("command", "command(s)"), ("search", "search(es)"),
                    ("research", "web lookup(s)"), ("tool_call", "other tool call(s)")):
        if count(t):
            parts.append(f"{count(t)} {word}")
    return ("The agent " + "; ".join(parts) + ".") if parts else "Discussion only; no tools were used."


# -- errors: fail -> fix -> pass ----------------------------------------------------------


def _verdict_key(ev: dict[str, Any]) -> str | None:
    t = ev.get("type")
    cmd = " ".join(str(ev.get("command") or "").split())
    if t == "test_run":
        return "test:" + (ev.get("framework") or cmd.split(" ")[0] if cmd else "tests")
    if t in ("build", "command"):
        return f"{t}:{cmd[:200]}"
    return None


def _failure_text(ev: dict[str, Any]) -> str:
    """The failure's signature: the failing test ids, else the first error line."""
    cmd = " && ".join(commandline.normalise(str(ev.get("command") or ""))) or clip_words(ev.get("command"), 80)
    names = ev.get("failing_tests") or []
    if ev.get("type") == "test_run" and (ev.get("failed") or names):  # else which check failed is not known
        what = f"{ev.get('failed') or len(names)} failing test(s)"
        return clip_words(f"`{clip_words(cmd, 80)}`: {what}" + (f" ({', '.join(names[:3])})" if names else ""), 300)
    summary = commandline.error_signature(ev.get("error_summary") or ev.get("output") or "", 200)
    return clip_words(f"`{clip_words(cmd, 80)}` failed (exit {ev.get('exit_code')})" + (f": {summary}" if summary else ""), 300)


def errors(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Failing test/build/command runs, each with the writes until the same check passed."""
    open_: dict[str, dict[str, Any]] = {}
    last_pass: dict[str, int] = {}
    writes_since: list[tuple[int, str]] = []
    out: list[dict[str, Any]] = []
    for ev in events:
        if ev.get("type") == "file_write" and ev.get("ok", True) and ev.get("path"):
            writes_since.append((ev["seq"], ev["path"]))
            for err in open_.values():
                err["writes"].append((ev["seq"], ev["path"]))
            continue
        key = _verdict_key(ev)
        if key is None or not _known(ev) or harness_refused(ev):
            continue  # a run whose exit status nobody reported is neither a failure nor a pass
        if _passed(ev):
            for other, err in open_.items():  # a command between may have changed the files (`lint:fix`)
                if other != key:
                    err["ran"].append(ev)
        if not _passed(ev):
            if commandline.cannot_run(ev.get("error_summary") or ev.get("output")) and not ev.get("failed"):
                continue  # the command could not run: a gotcha (consolidate/knowledge), not the code's error
            if key not in open_:
                cause = [p for s, p in writes_since if s > last_pass[key]] if key in last_pass else []
                open_[key] = {"fail": ev, "writes": [], "cause": cause, "repeats": 0, "ran": []}
            else:
                open_[key]["repeats"] += 1
        else:
            last_pass[key] = ev["seq"]
            if key in open_:
                out.append(_error_record(open_.pop(key), ev))
    # A build or command that broke as a command (not on the code) is a gotcha
    # (consolidate/knowledge/commands.py), not an error.
    out += [_error_record(e, None) for k, e in open_.items() if k.startswith("test:") or code_failure(e["fail"])]
    return sorted(out, key=lambda e: e["evidence"][0])[:MAX_ERRORS]


def _said(ev: dict[str, Any]) -> str:
    """A command as the memory says it: its meaningful parts (no redirections, no filter pipes)."""
    return clip_words(" && ".join(commandline.normalise(str(ev.get("command") or ""))) or ev.get("command"), 60)


def _error_record(err: dict[str, Any], passed: dict[str, Any] | None) -> dict[str, Any]:
    fail = err["fail"]
    files = list(dict.fromkeys(p for _, p in err["writes"]))
    evidence = [fail["seq"]] + [s for s, _ in err["writes"]][:8] + ([passed["seq"]] if passed else [])
    resolution = ""
    if passed:
        cmd = _said(passed)
        between = err["ran"][-1] if err["ran"] else None
        resolution = (f"Fixed by changing {', '.join(files[:5])}; `{cmd}` then passed" if files
                      else f"`{cmd}` passed after `{_said(between)}`" if between
                      else f"`{cmd}` passed on a re-run without a file change (flaky, or the environment)")
        evidence += [between["seq"]] if between and not files else []
    cause = list(dict.fromkeys(err["cause"]))
    root = clip_words(f"Regression: the check passed before changes to {', '.join(cause[:3])}", 400) if cause else ""
    return {"text": _failure_text(fail), "root_cause": root, "resolution": resolution,
            "files": (files or cause)[:ERROR_FILES], "evidence": evidence, "cause_files": cause}


# -- decisions and discoveries ------------------------------------------------------


def _turn_files(events: list[dict[str, Any]], turn: Any) -> list[str]:
    return list(dict.fromkeys(e["path"] for e in _ok_writes(events) if e.get("turn") == turn))[:5]


def decisions(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for ev in events:
        t = ev.get("type")
        if t == "decision" and ev.get("content"):
            parsed = decision_text.parse(f"{ev['content']}. {ev.get('rationale') or ''}")
            out.append({"text": clip_words(ev["content"], 300), "kind": "explicit",
                        "rationale": clip_words(ev.get("rationale") or parsed["rationale"], 400), "alternatives": [],
                        "files": list(ev.get("files") or [])[:20], "evidence": [ev["seq"]],
                        "requires": parsed["requires"], "forbids": parsed["forbids"]})
        elif t == "user_prompt":
            for d in decision_text.decision_sentences(str(ev.get("prompt") or "")):
                out.append({"text": d["text"], "kind": "explicit", "rationale": clip_words(d["rationale"], 400),
                            "alternatives": d["forbids"][:5], "files": _turn_files(events, ev.get("turn")),
                            "evidence": [ev["seq"]], "requires": d["requires"], "forbids": d["forbids"]})
        elif t == "turn_complete" and ev.get("tool_calls"):
            for c in decision_text.alternative_choices(str(ev.get("agent_summary") or "")):
                out.append({"text": clip_words(f"Use {c['chosen']} rather than {c['alternative']}", 300),
                            "kind": "implicit", "rationale": clip_words(c["text"], 400),
                            "alternatives": [c["alternative"]], "files": _turn_files(events, ev.get("turn")),
                            "evidence": [ev["seq"]], "requires": [c["chosen"]], "forbids": [c["alternative"]]})
    return _dedupe(out)


def _dedupe(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    out = []
    for d in items:
        k = " ".join(d["text"].lower().split())
        if k not in seen:
            seen.add(k)
            out.append(d)
    return out[:20]


def _lookup(src: dict[str, Any]) -> str:
    """What a `learned` reply followed, as a next session can read it: the query, the link
    named ("PR #389", a host), or the command without its redirections and filter pipes."""
    if src.get("query") or src.get("url"):
        return clip_words(user_words.clean_prompt(src.get("query") or src.get("url")), 80)
    command = " && ".join(commandline.normalise(str(src.get("command") or "")))
    return clip_words(command, 80) if command else str(src.get("type") or "a lookup")


def discoveries(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the agent said after a lookup, and regions revised again and again.

    The reply after a build is the turn's closing report (what was done, PRs pushed): the
    build's verdict is already a command or an open check (consolidate/knowledge), so that
    reply stays in the episode (`activity`) and is not a graph finding; the reply after a
    web search, a fetch or an Explore agent is what the lookup taught. Links are named, as
    in titles (user_words.clean_prompt), and text is cut at a word.
    """
    by_seq = {e.get("seq"): e for e in events}
    learned: dict[str, dict[str, Any]] = {}  # one turn's reply follows each of its lookups
    out = []
    for ev in events:
        if ev.get("type") == "learned" and replies.says_something(squash(str(ev.get("text") or ""))):
            src = by_seq.get(ev.get("ref"), {})
            seqs = [s for s in (ev.get("ref"), ev["seq"]) if s in by_seq]
            if ev["text"] in learned:
                learned[ev["text"]]["evidence"] = (learned[ev["text"]]["evidence"] + seqs)[:50]
                continue
            text = user_words.clean_prompt(f"After {_lookup(src)}: {ev['text']}")
            learned[ev["text"]] = {"text": clip_words(text, 400), "evidence": seqs, "confidence": 0.5,
                                   **({"activity": True} if src.get("type") == "build" else {})}
            out.append(learned[ev["text"]])
        elif ev.get("type") == "repeated_revision":
            out.append({"text": clip_words(f"Lines {ev.get('range')} of {ev.get('path')} were revised "
                                            f"{ev.get('count')} times in this episode", 400),
                        "evidence": [ev["seq"]] + ([ev["ref"]] if ev.get("ref") in by_seq else []),
                        "confidence": 0.6, "activity": True})
    return out[:20]


# -- concepts -------------------------------------------------------------------------

# An import an added line makes: JavaScript's `import … from "m"` first (its `import React` and
# `import type { X }` name no module), then Python's, then `require("m")`; a path alias
# (`@/components`, `~/lib`) is the project's own.
_IMPORT = re.compile(r"^\+\s*(?:import\s.*\bfrom\s+['\"]((?![@~#]/)[^'\"./][^'\"]*)['\"]"
                     r"|from\s+([A-Za-z_][\w.]*)\s+import\b|import\s+([A-Za-z_][\w.]*)(?!.*\bfrom\s+['\"])"
                     r"|.*\brequire\(\s*['\"]((?![@~#]/)[^'\"./][^'\"]*)['\"]\s*\))", re.M)


def _local_modules(events: list[dict[str, Any]]) -> set[str]:
    """Module names the project itself defines, as far as its events show (`calc` for calc.py,
    `pkg` for pkg/x.py): importing them is not using a third-party library."""
    names: set[str] = set()
    for ev in events:
        path = ev.get("path")
        if isinstance(path, str) and path and not path.startswith("/"):
            parts = path.split("/")
            names.update(parts[:-1])
            names.add(parts[-1].rsplit(".", 1)[0])
    return names


def _in_project(root: str, name: str) -> bool:
    """A module or package of that name sits in the project (`calc.py`, `calc/`, `src/calc`), or
    in one of its packages two levels down (`libs/shared/src/shared`, `services/api/api`)."""
    if not root or not name.isidentifier():
        return False
    if any(os.path.exists(os.path.join(root, *base, name + ext))
           for base in ((), ("src",)) for ext in ("", ".py", ".js", ".ts")):
        return True
    import glob

    below = (("*",), ("*", "*"), ("*", "*", "src"))
    return any(glob.glob(os.path.join(glob.escape(root), *pattern, name)) for pattern in below)


def libraries(events: list[dict[str, Any]], root: str = "", prior: list[dict[str, Any]] = ()) -> dict[str, list[str]]:
    """{third-party library: files whose diff added an import of it}; `root`, the project
    directory, and `prior`, the session before the range, tell a local module imported from a
    file written elsewhere."""
    out: dict[str, list[str]] = {}
    local = _local_modules([*prior, *events])
    for ev in _ok_writes(events):
        for m in _IMPORT.finditer(str(ev.get("diff") or "")):
            name = next(g for g in m.groups() if g)
            top = name.split(".")[0] if not name.startswith("@") else "/".join(name.split("/")[:2])
            if (top in sys.stdlib_module_names or top in NODE_BUILTINS or top.startswith("node:") or top in local
                    or _in_project(root, top)):
                continue
            out.setdefault(top, [])
            if ev["path"] not in out[top]:
                out[top].append(ev["path"])
    return dict(list(out.items())[:MAX_LIBS])


def tools(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """{MCP server concept name: {"description", "evidence"}} (test and build commands are
    `command` knowledge: consolidate/knowledge/commands.py)."""
    out: dict[str, dict[str, Any]] = {}
    for ev in events:
        if ev.get("type") == "tool_call" and str(ev.get("tool") or "").startswith("mcp__"):
            parts = ev["tool"].split("__")
            server = f"{parts[1]} MCP server" if len(parts) > 2 else ev["tool"]
            rec = out.setdefault(server, {"description": "", "evidence": [], "tools": []})
            rec["evidence"].append(ev["seq"])
            if parts[-1] not in rec["tools"]:
                rec["tools"].append(parts[-1])
            rec["description"] = clip_words(f"MCP server whose tools the agent called: {', '.join(rec['tools'])}",
                                            600)
    return dict(list(out.items())[:MAX_TOOLS])
