"""Codex CLI rollout JSONL -> the hook payloads its live session sent (history/codex_payloads.py).

A rollout (docs/harness-contracts.md §2.6) is one `{"timestamp", "type", "payload"}` record a
line: `session_meta` (id, cwd), `event_msg` task_started (the turn id) / user_message (the prompt
as typed) / agent_message / task_complete (the turn's end, its last message), and
`response_item` function_call / custom_tool_call paired with their outputs by call_id. Shell,
apply_patch and MCP calls become PostToolUse as Codex's hooks send them (§2.2), and update_plan,
which the Codex adapter reads as the agent's task list (§2.7); web searches, image views and tool
searches are not hooked and are left out, as is compaction (the Claude Code converter leaves it
out too).

A shell command still running when its call returned ("Process running with session ID N") is
finished by the write_stdin polls of that exec session: it is sent when the rollout shows it exit,
with that exit code and all its output, or at the end of its turn, unknown, if it never does.
"""

from __future__ import annotations

import json

from engram.harnesses.codex import command_text
from engram.history.codex_payloads import CodexPayloads, exec_result

SHELL_CALLS = {"exec_command", "shell", "local_shell", "container.exec", "unified_exec", "shell_command"}
PATCH_CALLS = {"apply_patch"}


def _text(value) -> str:
    """An output as text (a string; anything else as its JSON)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _arguments(call: dict) -> dict:
    """A function call's arguments (a JSON string in the rollout)."""
    raw = call.get("arguments")
    try:
        args = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {}
    return args if isinstance(args, dict) else {}


def _tool_name(call: dict) -> str:
    """MCP tools carry their server as `namespace` ("mcp__codex_apps__github" + "_fetch_pr")."""
    name, space = str(call.get("name") or ""), call.get("namespace")
    if isinstance(space, str) and space:
        return space + name if name.startswith("_") else f"{space}__{name}"
    return name


class _Rollout:
    """One rollout's walk: calls waiting for their output, commands waiting for their exit."""

    def __init__(self, out: CodexPayloads) -> None:
        self.out = out
        self.calls: dict[str, dict] = {}
        self.running: dict[str, dict] = {}  # exec session id -> {command, output, call_id}
        self.turn = ""

    def event(self, body: dict) -> None:
        """An event_msg: turns, prompts, the agent's messages."""
        kind = body.get("type")
        if kind == "task_started":
            self.turn = str(body.get("turn_id") or "")
        elif kind == "user_message" and str(body.get("message") or "").strip():
            self.close_turn()
            self.out.prompt(str(body["message"]), self.turn or None)
        elif kind == "agent_message":
            self.out.reply(str(body.get("message") or ""))
        elif kind == "task_complete":
            self.close_turn(body.get("last_agent_message"))

    def item(self, body: dict) -> None:
        """A response_item: a call, kept until its output comes."""
        kind = body.get("type")
        if kind in ("function_call", "custom_tool_call"):
            self.calls[str(body.get("call_id"))] = body
        elif kind in ("function_call_output", "custom_tool_call_output"):
            call = self.calls.pop(str(body.get("call_id")), None)
            if call is not None:
                self.result(call, _text(body.get("output")))

    def result(self, call: dict, output: str) -> None:
        """A call with its output: the PostToolUse a Codex hook would have had, if any."""
        name, call_id = _tool_name(call), str(call.get("call_id") or "")
        if name in SHELL_CALLS:
            args = _arguments(call)
            self.shell(args.get("cmd") or args.get("command") or "", output, call_id)
        elif name == "write_stdin":
            self.poll(str(_arguments(call).get("session_id")), output)
        elif name in PATCH_CALLS:
            patch = call.get("input") if isinstance(call.get("input"), str) else _arguments(call).get("input")
            self.out.patch(str(patch or ""), output, call_id=call_id)  # its output is headed "Exit code: N"
        elif name == "update_plan":
            self.out.tool(name, _arguments(call), output, call_id)
        elif name.startswith("mcp__"):  # the shape a live Codex hook gets an MCP result in
            result = {"content": [{"type": "text", "text": exec_result(output).output}]}
            self.out.tool(name, _arguments(call), result, call_id)

    def shell(self, command: object, output: str, call_id: str) -> None:
        command = command_text(command)  # older rollouts: argv (["bash", "-lc", cmd])
        res = exec_result(output)
        if res.running:
            self.running[res.running] = {"command": command, "output": res.output, "call_id": call_id}
        else:
            self.out.shell(command, res.output, res.code, res.wall, call_id)

    def poll(self, exec_id: str, output: str) -> None:
        """A write_stdin poll of a running command: more output, and maybe its exit."""
        cmd = self.running.get(exec_id)
        if cmd is None:
            return
        res = exec_result(output)
        cmd["output"] += res.output
        if not res.running:  # exited, or the process is gone ("write_stdin failed: Unknown process id")
            del self.running[exec_id]
            self.out.shell(cmd["command"], cmd["output"], res.code, res.wall, cmd["call_id"])

    def close_turn(self, message: object = None) -> None:
        """The turn's end: commands still running are sent, unknown, then its Stop."""
        for cmd in self.running.values():
            self.out.shell(cmd["command"], cmd["output"], None, None, cmd["call_id"])
        self.running.clear()
        self.out.stop(message if isinstance(message, str) else None)


def payloads(records: list[dict], session_id: str | None = None) -> list[tuple[str, dict]]:
    """(event, payload) in the order the live session sent them; `session_id` overrides the rollout's."""
    meta = next((r["payload"] for r in records if r.get("type") == "session_meta"
                 and isinstance(r.get("payload"), dict)), {})
    out = CodexPayloads(session_id or str(meta.get("id") or ""), str(meta.get("cwd") or ""))
    walk = _Rollout(out)
    out.at(next((r["timestamp"] for r in records if isinstance(r.get("timestamp"), str)), None))
    out.start()
    for rec in records:
        body = rec.get("payload")
        if not isinstance(body, dict):
            continue
        out.at(rec.get("timestamp") if isinstance(rec.get("timestamp"), str) else None)
        if rec.get("type") == "event_msg":
            walk.event(body)
        elif rec.get("type") == "response_item":
            walk.item(body)
    walk.close_turn()
    return out.end()
