"""Typed events from neutral tool calls: the direct event of each call, and the derived ones.

Classification looks only at the tool's action, its parameters and its result, never at
natural language. Adapters turn a harness payload into neutral calls (`action` is read /
write / shell / web_search / web_fetch / search / agent / decision / other); `classify`
turns a call into one direct event (its fields bounded by event_stream.bounded).
Standard library only: the PostToolUse hook runs this.

Derived events (`for_read`, `for_write`): patterns over the session's recent tool calls
(docs/spec.md, "Derived event types").

Each derived event is its own JSONL line with `ref`, the seq of the direct event it
derives from. The rules, exactly as implemented:

- exploration: a successful read of a file not read before in this session.
- expanding_search: a read whose directory is more than 2 steps (up + down the tree)
  from the directory of every one of the last 5 reads.
- fix_attempt: a write while the latest test run failed (no passing run since);
  `same_region` says whether it overlaps a range written before that failure.
- progression: a write to a file not written before in this session while the latest
  test run passed.
- repeated_revision: a write whose line range overlaps the ranges of 2+ earlier writes
  to the same file (the 3rd, 4th, ... revision of one region).
"""

from __future__ import annotations

import os

from engram import jsonio
from engram.fsio import inside, read_regular
from engram.capture.event_stream import bounded
from engram.hashing import sha256_hex
from engram.redact import redact, scrubber
from engram.text import strip_ansi

RECENT_READS = 5
MAX_RANGES_PER_FILE = 30
# A read through a pipeline exits with its last command's status: a tool that refused its
# options says so only in the output's first line (consolidate/knowledge/commands.py).
_REFUSALS = (": illegal option", ": invalid option", ": unrecognized option", ": unknown option")
MAX_SCAN = 262144  # a command or output is looked at up to this many characters (bounded work)


def rel_path(path: str, root: str) -> str:
    """Project-relative path when inside the project (so knowledge carries across clones)."""
    if not isinstance(path, str) or not path:
        return ""
    p = path.replace("\\", "/")
    if not os.path.isabs(p):
        return os.path.normpath(p)
    p = os.path.normpath(p)
    if p == root or p.startswith(root.rstrip("/") + "/"):
        return os.path.relpath(p, root)
    return p


def _exit_code(call: dict) -> int | None:
    """The call's exit code; None when the harness did not say (`ok` None): unknown, not 0."""
    code = call.get("exit_code")
    if isinstance(code, int) and not isinstance(code, bool):
        return code
    if call.get("ok", True) is None:
        return None
    return 0 if call.get("ok", True) else 1


def _test_outcome(exit_code: int | None, res: dict) -> str:
    """pass / fail from the exit code and the runner's counts; with no exit code, only what
    the runner printed decides, and nothing printed is `unknown`."""
    if exit_code is None:
        if res["failed"]:
            return "fail"
        return "pass" if res["recognized"] and res["passed"] else "unknown"
    return "pass" if exit_code == 0 and not res["failed"] else "fail"


def classify(call: dict, root: str, cfg: dict) -> dict:
    """One direct event (without seq/ts/session) for a neutral tool call."""
    action = call.get("action")
    cut: dict = {}
    ok = call.get("ok", True)
    ev: dict = {"tool": str(call.get("tool") or "")[:200], "ok": None if ok is None else bool(ok)}
    if call.get("error") and action != "shell":  # a shell failure's text is its output
        ev["error"] = bounded(call["error"], 500, "error", cut)
    out_max = cfg["maxOutputChars"]
    if action == "read":
        ev["type"] = "file_read"
        ev["path"] = rel_path(call.get("path"), root)
        content = call.get("content")
        if isinstance(content, str):
            ev["hash"] = "sha256:" + sha256_hex(content)[:32]
            ev["lines"] = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
            _add_role(ev, content, head=not isinstance(call.get("offset"), int) or call["offset"] <= 1)
        for k in ("offset", "limit", "content_type"):
            if call.get(k) is not None:
                ev[k] = call[k]
    elif action == "write":
        _write_fields(ev, call, root, cfg, cut)
    elif action == "shell":
        from engram.capture import shellcmd  # a read or a write never loads the command rules

        command = str(call.get("command") or "")
        kind = shellcmd.classify(command)
        ev["command"] = bounded(command, 1000, "command", cut)
        ev["exit_code"] = _exit_code(call)
        output = strip_ansi(str(call.get("output") or ""))  # a coloured run's verdict, not its escapes
        echoed = shellcmd.echoed_status(command, output[-MAX_SCAN:]) if ev["exit_code"] == 0 and "$?" in command else None
        if echoed:  # `…; echo "EXIT: $?"` printed how the command ended: the harness saw only the echo's 0
            ev["exit_code"], ev["ok"], ev["exit_echoed"] = echoed, False, True
        printed = shellcmd.printed_verdict(kind, output) if ev["exit_code"] is None and output else None
        if printed is not None:  # no status recorded, but the build tool printed its verdict
            ev["exit_code"], ev["ok"], ev["exit_printed"] = printed, printed == 0, True
        if kind == shellcmd.TEST:
            from engram.capture import testparse

            ev["type"] = "test_run"
            res = testparse.parse(str(output), command)
            ev.update(res)
            if not res["recognized"]:
                ev["note"] = "output not recognised; verdict from exit code only"
            ev["outcome"] = _test_outcome(ev["exit_code"], res)
        elif kind == shellcmd.BUILD:
            ev["type"] = "build"
            if ev["exit_code"] not in (0, None):
                ev["error_summary"] = bounded(_error_lines(str(output)[-MAX_SCAN:]), 800, "error_summary", cut)
        elif kind == shellcmd.DECISION:
            args = shellcmd.decision_args(command[:MAX_SCAN]) or {"content": command, "rationale": "", "files": []}
            return _decision(ev, args, root, cut)
        elif kind == shellcmd.READ:
            ev["type"] = "file_read"
            targets = shellcmd.read_targets(command)
            ev["path"] = rel_path(os.path.join(call.get("cwd") or root, targets[0]), root) if targets else ""
            ev["via"] = "shell"
            head = str(output)[:400]
            if ev["exit_code"] not in (0, None) or any(m in head.split("\n", 1)[0] for m in _REFUSALS):
                ev["output"] = bounded(head, 400, "output", cut)  # why the read showed nothing
        else:
            ev["type"] = "search" if kind == shellcmd.SEARCH else "command"
            if ev["exit_code"] not in (0, None) and len(output) > out_max:
                from engram.capture.commandline import error_signature  # the verdict the cut would lose

                ev["error_summary"] = bounded(error_signature(output[:MAX_SCAN]), 800, "error_summary", cut)
        if ev["type"] in ("test_run", "build", "command", "search"):
            ev["output"] = bounded(str(output), out_max, "output", cut)
        if call.get("task_id"):
            ev["task_id"] = bounded(call["task_id"], 64, "task_id", cut)
    elif action == "task_output":
        ev["type"] = "background_result"  # how a command sent to the background ended (consolidate/background.py)
        ev["task_id"] = bounded(call.get("task_id"), 64, "task_id", cut)
        ev["status"] = bounded(call.get("status"), 40, "status", cut)
        ev["exit_code"] = call.get("exit_code") if type(call.get("exit_code")) is int else None
        ev["output"] = bounded(strip_ansi(str(call.get("output") or "")), out_max, "output", cut)
    elif action in ("web_search", "web_fetch"):
        ev["type"] = "research"
        ev["source"] = action
        if action == "web_search":
            ev["query"] = bounded(call.get("query"), 500, "query", cut)
            ev["results_count"] = call.get("results_count")
        else:
            ev["url"] = bounded(call.get("url"), 500, "url", cut)
            ev["status"] = call.get("status")
    elif action == "search":
        ev["type"] = "search"
        ev["pattern"] = bounded(call.get("pattern"), 300, "pattern", cut)
        ev["path"] = rel_path(call.get("path"), root) if call.get("path") else ""
        ev["results_count"] = call.get("results_count")
    elif action == "agent":
        ev["type"] = "research" if call.get("subagent_type") == "Explore" else "tool_call"
        ev["source"] = "agent"
        ev["query"] = bounded(call.get("description"), 300, "query", cut)
    elif action == "decision":
        return _decision(ev, call, root, cut)
    elif action == "todos":
        ev["type"] = "todos"
        ev["items"] = _todo_items(call.get("items"), cut)
    else:
        ev["type"] = "tool_call"
        ev["input"] = bounded(jsonio.dumps(call.get("input")) if call.get("input") is not None else "", 500, "input", cut)
    if cut:
        ev["truncated"] = cut
    return ev


def _add_role(ev: dict, content: str, head: bool = True) -> None:
    """What the file is for (capture/file_role.py), when its head says it (`head`: the content
    starts at the file's first line)."""
    from engram.capture import file_role

    found = file_role.role(ev["path"], content, head) if ev.get("path") else ""
    if found:
        ev["role"] = redact(found)


TODO_STATUSES = ("pending", "in_progress", "completed", "cancelled")
MAX_TODOS = 30


def _todo_items(items, cut: dict) -> list[dict]:
    """The agent's task list, bounded: [{text, status}] (unknown statuses read as pending)."""
    out = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("text"), str) and item["text"].strip():
            status = item.get("status") if item.get("status") in TODO_STATUSES else "pending"
            out.append({"text": bounded(item["text"], 300, "items", cut), "status": status})
    if len(out) > MAX_TODOS:
        cut["items"] = len(out)
    return out[:MAX_TODOS]


def _decision(ev: dict, args: dict, root: str, cut: dict) -> dict:
    ev["type"] = "decision"
    ev["content"] = bounded(args.get("content"), 1000, "content", cut)
    ev["rationale"] = bounded(args.get("rationale"), 1000, "rationale", cut)
    files = args.get("files") or []
    ev["files"] = [rel_path(os.path.join(root, f) if not os.path.isabs(f) else f, root)
                   for f in files if isinstance(f, str)][:20]
    if cut:
        ev["truncated"] = cut
    return ev


def _write_fields(ev: dict, call: dict, root: str, cfg: dict, cut: dict) -> None:
    from engram.capture import diffs  # writes only: reads and commands do not pay for it

    ev["type"] = "file_write"
    raw_path = call.get("path") or ""
    path = rel_path(raw_path, root)
    ev["path"] = path
    ev["op"] = call.get("op") or "update"
    abs_path = raw_path if os.path.isabs(raw_path) else os.path.join(call.get("cwd") or root, raw_path)
    # Only a file inside the project is ever read (an Edit of /etc/shadow or ~/.aws/credentials
    # keeps the agent's diff, never lines of the file), and never through a FIFO or a device.
    mine = abs_path if raw_path and inside(abs_path, root) else None
    hunks = call.get("hunks")
    if not hunks and call.get("edits"):
        hunks = diffs.hunks_from_edits(call["edits"], _read_text(mine, root))
    elif not hunks and isinstance(call.get("content"), str):
        hunks = diffs.hunks_from_content(call.get("old_content"), call["content"])
    hunks = hunks or []
    summary = diffs.summarize(path, hunks, cfg["maxDiffChars"])
    snip = diffs.snippet(mine if ev["ok"] else None, root, hunks, summary["ranges"]) if mine else None
    scrub = scrubber(path)
    summary["diff"] = scrub(summary["diff"])
    if summary.pop("truncated", None):
        cut["diff"] = len(summary["diff"])
    ev.update(summary)
    if snip:
        snip["text"] = scrub(snip["text"])
        ev["snippet"] = snip
    if isinstance(call.get("content"), str):  # a whole-file write
        _add_role(ev, call["content"])


def _read_text(path: str | None, root: str) -> str | None:
    from engram.capture import diffs

    data = read_regular(path, diffs.MAX_READ_BYTES, within=root) if path else None
    return None if data is None else data.decode("utf-8", "replace")


def _error_lines(output: str) -> str:
    """The lines of a build log that say what failed (bounded)."""
    keep = [ln.strip() for ln in output.split("\n")
            if "error" in ln.lower() or "failed" in ln.lower() or "cannot" in ln.lower()]
    return "\n".join(keep[:15]) if keep else output.strip()[-600:]


# -- derived events ---------------------------------------------------------------


def dir_distance(a: str, b: str) -> int:
    """Steps up from a's directory to the common ancestor, then down to b's directory."""
    pa = [p for p in a.split("/")[:-1] if p]
    pb = [p for p in b.split("/")[:-1] if p]
    common = 0
    for x, y in zip(pa, pb):
        if x != y:
            break
        common += 1
    return (len(pa) - common) + (len(pb) - common)


def _overlaps(r1, r2) -> bool:
    return r1[0] <= r2[1] and r2[0] <= r1[1]


def for_read(ev: dict, st: dict) -> list[dict]:
    path = ev.get("path")
    if not path or not ev.get("ok"):
        return []
    out = []
    if path not in st["seen"]:
        st["seen"].append(path)
        out.append({"type": "exploration", "path": path})
    recent = st["recent_reads"]
    if recent:
        dist = min(dir_distance(path, p) for p in recent)
        if dist > 2:
            out.append({"type": "expanding_search", "path": path, "distance": dist})
    recent.append(path)
    del recent[:-RECENT_READS]
    return out


def for_write(ev: dict, st: dict, seq: int) -> list[dict]:
    """Derived events of a write that will be stamped with `seq`."""
    path = ev.get("path")
    if not path or not ev.get("ok"):
        return []
    out = []
    ranges = ev.get("ranges") or []
    prior = st["write_ranges"].get(path, [])
    last_test = st.get("last_test")
    if last_test and not last_test["ok"]:
        same = any(_overlaps(r, p) for r in ranges for p in prior if p[2] < last_test["seq"])
        out.append({"type": "fix_attempt", "path": path, "after_test": last_test["seq"],
                    "same_region": same})
    elif last_test and last_test["ok"] and path not in st["written"]:
        out.append({"type": "progression", "path": path, "after_test": last_test["seq"]})
    for r in ranges:
        hits = [p for p in prior if _overlaps(r, p)]
        if len(hits) >= 2:
            lo = min([r[0]] + [p[0] for p in hits])
            hi = max([r[1]] + [p[1] for p in hits])
            out.append({"type": "repeated_revision", "path": path, "range": [lo, hi],
                        "count": len(hits) + 1})
            break
    if path not in st["written"]:
        st["written"].append(path)
    st["write_ranges"][path] = (prior + [[r[0], r[1], seq] for r in ranges])[-MAX_RANGES_PER_FILE:]
    return out
