"""Fake `claude`, `codex` and `gemini` executables for the harness-CLI providers' tests.

`install(bin_dir)` writes three executables into a directory a test puts first on PATH;
each runs `python fake_cli.py <which> ARGS...`. They follow each CLI's documented
headless output (docs/harness-cli-providers.md) and reject an invocation that lacks the
flags engram must pass (exit 2), so a test fails if the provider calls its CLI wrongly.

Behaviour comes from the environment the provider passes down:

* FAKE_CLI_MODE: ok (default) | error (an error result) | malformed (not the JSON format) |
  hang (never answers) | logged_out (the CLI's own not-logged-in failure);
* FAKE_CLI_DELAY: seconds to take before answering (concurrent workers overlap their calls);
* FAKE_CLI_REPORT: a JSON number (`-1000000`, `1e400`, 31 digits) reported as every token
  count of the CLI's usage, whatever the call processed (the log keeps the real `tokens`);
* FAKE_CLI_LOG: a JSONL file, one record per call: argv, cwd, pid, ENGRAM_DISABLE, the task
  (pass1 / pass2 / discussion / contradiction), the system prompt, and the usage it reported
  normalised (`tokens` = everything it said it processed);
* FAKE_CLI_HOOKS=1: first fire engram's hooks as the harness would with engram installed
  (SessionStart, a PostToolUse of a Write, Stop, as real subprocesses), so a test can see
  that ENGRAM_DISABLE=1 keeps them from recording anything.

Answers come from the scripted model server's `auto_reply` (valid by engram's schemas; a
check is answered NO_CONTRADICTION); usage is characters / 4, like the server's.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
WHICH = ("claude", "codex", "gemini")


def install(bin_dir: Path) -> Path:
    """The three executables in `bin_dir` (created); returns it."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name in WHICH:
        exe = bin_dir / name
        exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).resolve()}" {name} "$@"\n')
        exe.chmod(0o755)
    return bin_dir


# -- answering ------------------------------------------------------------------------------


def _answer(system: str, user: str) -> tuple[str, str]:
    """(task, answer text) for one prompt."""
    sys.path.insert(0, str(TESTS))
    from testing.servers.llm_server import auto_reply

    m = re.search(r"engram-task: (\w+)", system)
    task = m.group(1) if m else "other"
    return task, auto_reply(task, user)


def _fire_hooks() -> None:
    """What the harness does with engram installed: run its hooks, here as Claude Code would."""
    sid, cwd = f"fakecli-{os.getpid()}", os.getcwd()
    calls = [("SessionStart", {"source": "startup"}),
             ("PostToolUse", {"tool_name": "Write", "tool_input": {"file_path": os.path.join(cwd, "x.py"),
                                                                   "content": "x = 1\n"},
                              "tool_response": {"type": "create", "filePath": os.path.join(cwd, "x.py")}}),
             ("Stop", {"last_assistant_message": "done"})]
    for event, extra in calls:
        payload = {"session_id": sid, "cwd": cwd, "hook_event_name": event, "transcript_path": "", **extra}
        subprocess.run([sys.executable, "-m", "engram.hook", event, "--harness", "claude-code"],
                       input=json.dumps(payload).encode(), capture_output=True, timeout=60)


def _usage(system: str, user: str, text: str) -> dict:
    inp, out = (len(system) + len(user)) // 4, max(1, len(text) // 4)
    return {"input": inp, "output": out, "cached": inp // 4}


def _reported(usage: dict) -> dict:
    """The usage object as the CLI prints it: FAKE_CLI_REPORT in every count when it is set."""
    fake = os.environ.get("FAKE_CLI_REPORT")
    return {k: json.loads(fake) for k in usage} if fake else usage


# -- the three CLIs -------------------------------------------------------------------------


def _flag(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv and argv.index(name) + 1 < len(argv) else None


def claude(argv: list[str], mode: str) -> tuple[int, str, dict]:
    if os.environ.get("CLAUDECODE"):  # recent Claude Code's nesting guard
        return 2, ("Error: Claude Code cannot be launched inside another Claude Code session.\n"
                   "To bypass this check, unset the CLAUDECODE environment variable."), {}
    if "-p" not in argv or _flag(argv, "--output-format") != "json" or _flag(argv, "--tools") != "" \
            or _flag(argv, "--system-prompt") is None:
        return 2, "usage: claude -p --output-format json --system-prompt S --tools ''", {}
    system, user = _flag(argv, "--system-prompt") or "", sys.stdin.read()
    task, text = _answer(system, user)
    u = _usage(system, user, text)
    usage = {"input_tokens": u["input"] - u["cached"], "cache_read_input_tokens": u["cached"],
             "cache_creation_input_tokens": 0, "output_tokens": u["output"]}
    cost = round((usage["input_tokens"] * 3 + u["cached"] * 0.3 + u["output"] * 15) / 1e6, 6)
    result = {"type": "result", "subtype": "success", "is_error": False, "duration_ms": 12, "num_turns": 1,
              "result": text, "session_id": "fake", "total_cost_usd": cost, "usage": _reported(usage)}
    if mode == "logged_out":
        result.update(is_error=True, result="Invalid API key · Please run /login", total_cost_usd=0,
                      usage={"input_tokens": 0, "output_tokens": 0})
        return 1, json.dumps(result), {"task": task, "tokens": 0, "cost": 0}
    if mode == "error":
        result.update(is_error=True, result="API Error: 500 Internal server error")
    tokens = u["input"] + u["output"]
    return (1 if mode == "error" else 0), json.dumps(result), {"task": task, "tokens": tokens, "cost": cost,
                                                                "system": system}


def codex(argv: list[str], mode: str) -> tuple[int, str, dict]:
    if argv[:1] != ["exec"] or "--json" not in argv or argv[-1] != "-" or "--skip-git-repo-check" not in argv:
        return 2, "usage: codex exec --json --skip-git-repo-check ... -", {}
    prompt = sys.stdin.read()
    head, _, user = prompt.partition("</instructions>")
    system = head.replace("<instructions>", "", 1)
    task, text = _answer(system, user)
    if mode == "logged_out":
        return 1, "", {"task": task, "tokens": 0, "stderr": "Error: Not logged in. Run `codex login`."}
    u = _usage(system, user, text)
    lines = [{"type": "thread.started", "thread_id": "fake"}, {"type": "turn.started"},
             {"type": "item.completed", "item": {"id": "item_0", "type": "reasoning", "text": "thinking"}}]
    if mode == "error":
        lines.append({"type": "turn.failed", "error": {"message": "stream error: unexpected status 500"}})
        return 1, "\n".join(json.dumps(x) for x in lines), {"task": task, "tokens": 0}
    lines += [{"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": text}},
              {"type": "turn.completed", "usage": _reported({"input_tokens": u["input"],
                                                             "cached_input_tokens": u["cached"],
                                                             "output_tokens": u["output"]})}]
    return 0, "\n".join(json.dumps(x) for x in lines), {"task": task, "tokens": u["input"] + u["output"],
                                                         "system": system}


def gemini(argv: list[str], mode: str) -> tuple[int, str, dict]:
    if _flag(argv, "--output-format") != "json" or not os.environ.get("GEMINI_SYSTEM_MD"):
        return 42, "usage: gemini --output-format json (GEMINI_SYSTEM_MD set)", {}
    system, user = Path(os.environ["GEMINI_SYSTEM_MD"]).read_text(), sys.stdin.read()
    task, text = _answer(system, user)
    if mode == "logged_out":
        err = {"type": "FatalAuthenticationError", "message": "Please set an Auth method", "code": 41}
        return 41, json.dumps({"error": err}, indent=2), {"task": task, "tokens": 0}
    u = _usage(system, user, text)
    model = _flag(argv, "-m") or "gemini-2.5-pro"
    tokens = {"input": u["input"] - u["cached"], "prompt": u["input"], "candidates": u["output"], "cached": u["cached"],
              "thoughts": 7, "tool": 0, "total": u["input"] + u["output"] + 7}
    stats = {"models": {model: {"api": {"totalRequests": 1, "totalErrors": 0, "totalLatencyMs": 5},
                                "tokens": _reported(tokens)}},
             "tools": {"totalCalls": 0}, "files": {"totalLinesAdded": 0, "totalLinesRemoved": 0}}
    if mode == "error":
        err = {"type": "ApiError", "message": "[API Error: 500 Internal error]", "code": 1}
        return 1, json.dumps({"session_id": "fake", "error": err, "stats": stats}, indent=2), \
            {"task": task, "tokens": u["input"] + u["output"] + 7}
    body = {"session_id": "fake", "response": text, "stats": stats}
    return 0, json.dumps(body, indent=2), {"task": task, "tokens": u["input"] + u["output"] + 7, "system": system}


def main() -> int:
    which, argv = sys.argv[1], sys.argv[2:]
    mode = os.environ.get("FAKE_CLI_MODE", "ok")
    if os.environ.get("FAKE_CLI_HOOKS"):
        _fire_hooks()
    record = {"cli": which, "argv": argv, "cwd": os.getcwd(), "pid": os.getpid(), "mode": mode,
              "engram_disable": os.environ.get("ENGRAM_DISABLE"), "cwd_files": sorted(os.listdir("."))}
    if mode == "hang":
        _log({**record, "task": "hang"})
        time.sleep(3600)
        return 0
    time.sleep(float(os.environ.get("FAKE_CLI_DELAY") or 0))
    code, out, info = {"claude": claude, "codex": codex, "gemini": gemini}[which](argv, mode)
    if mode == "malformed" and code == 0:
        out, info = "Here is the answer you asked for, in prose.", {**info, "tokens": 0}  # no usage reported
    _log({**record, **info, "exit": code})
    if code == 2 or code == 42:
        sys.stderr.write(out + "\n")
        return code
    if info.get("stderr"):
        sys.stderr.write(info["stderr"] + "\n")
    sys.stdout.write(out + "\n")
    return code


def _log(record: dict) -> None:
    path = os.environ.get("FAKE_CLI_LOG")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
