"""A scripted coding-agent model behind the three APIs the real harness CLIs call.

Claude Code speaks Anthropic's Messages API, Codex OpenAI's Responses API and Gemini CLI
Google's generateContent; all three stream server-sent events. This server binds
127.0.0.1 on a random port and answers each in its own wire format from one script of
abstract steps, so one scenario drives all three clients:

    {"read": path}                     read a file
    {"shell": command}                 run a shell command ("background": true: Claude Code's run_in_background)
    {"task_output": true}              Claude Code: read the task the last backgrounded command started
    {"edit": path, "old": s, "new": s} replace text in a file
    {"write": path, "content": s}      create a file
    {"mcp": tool, "args": {...}}       call an MCP tool whose name ends with `tool`
    {"say": text}                      the turn's final answer (ends the script's turn)

A request is answered statelessly: the step is the number of tool calls already in the
conversation it carries, counted from the last user prompt that started a turn, so a
retried request gets the same answer. Each step is turned into the tool the client offers
(its `tools` list decides the name and the argument shape), so a client that renames a
tool still gets a call it can run. Requests that offer no tools (titles, summaries, quota
probes) get a short text. Every request body is kept in `requests` for assertions (the
context engram injected reaches the model inside them).
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = dict[str, Any]


# -- the tool each client offers for a step ----------------------------------------------


def _names(tools: list[dict[str, Any]]) -> list[str]:
    """Every tool name offered; a tool inside a namespace (Codex's MCP servers) as `namespace.name`."""
    out = []
    for t in tools:
        if isinstance(t, dict):
            out.append(t.get("name") or (t.get("function") or {}).get("name") or "")
            for decl in t.get("functionDeclarations") or []:  # Gemini groups them
                out.append(decl.get("name", ""))
            if t.get("type") == "namespace":
                out.extend(f"{t.get('name')}.{inner.get('name')}" for inner in t.get("tools") or [])
    return [n for n in out if n]


def _pick(names: list[str], *wanted: str) -> str | None:
    for w in wanted:
        if w in names:
            return w
    return None


def _claude_call(step: Step, names: list[str], body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    if "read" in step:
        return "Read", {"file_path": step["read"]}
    if "shell" in step:
        return "Bash", {"command": step["shell"], "description": "run it",
                        **({"run_in_background": True} if step.get("background") else {})}
    if "task_output" in step:
        found = re.findall(r"with ID: (\w+)", json.dumps(body.get("messages") or []))
        return ("TaskOutput", {"task_id": found[-1], "block": True, "timeout": 30000}) if found else None
    if "edit" in step:
        return "Edit", {"file_path": step["edit"], "old_string": step["old"], "new_string": step["new"]}
    if "write" in step:
        return "Write", {"file_path": step["write"], "content": step["content"]}
    if "mcp" in step:
        name = next((n for n in names if n.endswith(step["mcp"])), None)
        return (name, step.get("args", {})) if name else None
    return None


def _patch(step: Step) -> str:
    if "write" in step:
        body = "".join("+" + line + "\n" for line in step["content"].splitlines())
        return f"*** Begin Patch\n*** Add File: {step['write']}\n{body}*** End Patch\n"
    old = "".join("-" + line + "\n" for line in step["old"].splitlines())
    new = "".join("+" + line + "\n" for line in step["new"].splitlines())
    return f"*** Begin Patch\n*** Update File: {step['edit']}\n@@\n{old}{new}*** End Patch\n"


def _codex_call(step: Step, names: list[str]) -> tuple[str, str, dict[str, Any] | str] | None:
    """(item type, tool name, arguments) of a Responses API tool call."""
    shell = _pick(names, "exec_command", "shell", "shell_command", "local_shell")
    if "read" in step:
        step = {"shell": f"cat {step['read']}"}
    if "shell" in step and shell:
        if shell == "exec_command":
            return "function_call", shell, {"cmd": step["shell"]}
        if shell == "shell_command":
            return "function_call", shell, {"command": step["shell"]}
        return "function_call", shell, {"command": ["bash", "-lc", step["shell"]]}
    if ("edit" in step or "write" in step) and "apply_patch" in names:
        return "custom_tool_call", "apply_patch", _patch(step)
    if "mcp" in step:
        name = next((n for n in names if n.endswith(step["mcp"])), None)
        return ("function_call", name, step.get("args", {})) if name else None
    return None


def _gemini_call(step: Step, names: list[str]) -> tuple[str, dict[str, Any]] | None:
    if "read" in step:
        return "read_file", {"file_path": step["read"]}
    if "shell" in step:
        return "run_shell_command", {"command": step["shell"], "description": "run it"}
    if "edit" in step:
        return "replace", {"file_path": step["edit"], "old_string": step["old"], "new_string": step["new"],
                           "instruction": "apply the change"}
    if "write" in step:
        return "write_file", {"file_path": step["write"], "content": step["content"]}
    if "mcp" in step:
        name = next((n for n in names if n.endswith(step["mcp"])), None)
        return (name, step.get("args", {})) if name else None
    return None


# -- where a conversation is ----------------------------------------------------------------


def _claude_progress(body: dict[str, Any]) -> tuple[int, str]:
    """(tool calls since the turn's prompt, that prompt's text)."""
    calls, prompt = 0, ""
    for msg in body.get("messages") or []:
        content = msg.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
        if msg.get("role") == "user" and not any(b.get("type") == "tool_result" for b in blocks):
            calls, prompt = 0, " ".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        elif msg.get("role") == "assistant":
            calls += sum(1 for b in blocks if b.get("type") == "tool_use")
    return calls, prompt


def _codex_progress(body: dict[str, Any]) -> tuple[int, str]:
    calls, prompt = 0, ""
    for item in body.get("input") or []:
        kind = item.get("type")
        if kind == "message" and item.get("role") == "user":
            text = " ".join(c.get("text", "") for c in item.get("content") or [] if isinstance(c, dict))
            if not text.lstrip().startswith("<"):  # Codex's own context blocks (<environment_context> ...)
                calls, prompt = 0, text
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            calls += 1
    return calls, prompt


def _gemini_progress(body: dict[str, Any]) -> tuple[int, str]:
    calls, prompt = 0, ""
    for c in body.get("contents") or []:
        parts = c.get("parts") or []
        if c.get("role") == "user" and any("text" in p for p in parts) and not any("functionResponse" in p for p in parts):
            calls, prompt = 0, " ".join(p.get("text", "") for p in parts if "text" in p)
        elif c.get("role") == "model":
            calls += sum(1 for p in parts if "functionCall" in p)
    return calls, prompt


# -- the server -----------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.owner.record(self.command, self.path, None)
        self._json(200, {"data": [], "models": []})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        owner = self.server.owner
        owner.record(self.command, self.path, body)
        path = self.path.split("?", 1)[0]
        if path.endswith("/messages"):
            self._anthropic(body)
        elif path.endswith("/count_tokens") or path.endswith(":countTokens"):
            self._json(200, {"input_tokens": 10, "totalTokens": 10})
        elif path.endswith("/responses"):
            self._openai(body)
        elif ":streamGenerateContent" in path or ":generateContent" in path:
            self._gemini(body, stream=":streamGenerateContent" in path)
        else:
            self._json(200, {})

    # -- writing -------------------------------------------------------------------------

    def _json(self, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, events: list[tuple[str | None, Any]]) -> None:
        chunks = []
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            chunks.append(f"{head}data: {json.dumps(data)}\n\n")
        payload = "".join(chunks).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    # -- Anthropic Messages ----------------------------------------------------------------

    def _anthropic(self, body: dict[str, Any]) -> None:
        tools = body.get("tools") or []
        call = None
        text = "OK."
        if tools:
            step = self.server.owner.step(*_claude_progress(body))
            call = _claude_call(step, _names(tools), body) if step else None
            text = (step or {}).get("say", "Done.")
        model = body.get("model", "claude")
        if call:
            block: dict[str, Any] = {"type": "tool_use", "id": self.server.owner.new_id("toolu_"), "name": call[0],
                                     "input": call[1]}
            stop = "tool_use"
        else:
            block, stop = {"type": "text", "text": text}, "end_turn"
        usage = {"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        message = {"id": self.server.owner.new_id("msg_"), "type": "message", "role": "assistant", "model": model,
                   "stop_reason": stop, "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            self._json(200, dict(message, content=[block]))
            return
        start = dict(block, input={}) if block["type"] == "tool_use" else dict(block, text="")
        delta = ({"type": "input_json_delta", "partial_json": json.dumps(block["input"])} if block["type"] == "tool_use"
                 else {"type": "text_delta", "text": block["text"]})
        self._sse([
            ("message_start", {"type": "message_start", "message": dict(message, content=[], stop_reason=None)}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 20}}),
            ("message_stop", {"type": "message_stop"}),
        ])

    # -- OpenAI Responses -------------------------------------------------------------------

    def _openai(self, body: dict[str, Any]) -> None:
        owner = self.server.owner
        tools = body.get("tools") or []
        step = owner.step(*_codex_progress(body)) if tools else None
        call = _codex_call(step, _names(tools)) if step else None
        rid = owner.new_id("resp_")
        if call:
            kind, name, args = call
            item: dict[str, Any] = {"type": kind, "id": owner.new_id("fc_"), "call_id": owner.new_id("call_"),
                                    "name": name, "status": "completed"}
            item.update({"arguments": json.dumps(args)} if kind == "function_call" else {"input": args})
            if "." in name:  # a namespaced tool: its namespace and its own name
                item["namespace"], item["name"] = name.split(".", 1)
        else:
            text = (step or {}).get("say", "Done.")
            item = {"type": "message", "id": owner.new_id("msg_"), "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}
        usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 120}
        response = {"id": rid, "object": "response", "status": "completed", "model": body.get("model", "gpt"),
                    "output": [item], "usage": usage}
        events = [("response.created", {"type": "response.created", "response": dict(response, status="in_progress",
                                                                                       output=[])}),
                  ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                                  "item": item}),
                  ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                                 "item": item}),
                  ("response.completed", {"type": "response.completed", "response": response})]
        for i, (name, data) in enumerate(events):
            data["sequence_number"] = i
        self._sse(events)

    # -- Gemini generateContent ---------------------------------------------------------------

    def _gemini(self, body: dict[str, Any], stream: bool) -> None:
        tools = body.get("tools") or []
        step = self.server.owner.step(*_gemini_progress(body)) if _names(tools) else None
        call = _gemini_call(step, _names(tools)) if step else None
        if call:
            part: dict[str, Any] = {"functionCall": {"name": call[0], "args": call[1]}}
        else:
            text = (step or {}).get("say", "Done.") if step else self.server.owner.side_text(body)
            part = {"text": text}
        chunk = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                 "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120},
                 "modelVersion": "gemini-2.5-flash"}
        if stream:
            self._sse([(None, chunk)])
        else:
            self._json(200, chunk)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: "AgentAPI"


class AgentAPI:
    """The scripted model: `turns` maps a prompt's keyword to its steps (first match wins;
    the key "" matches every prompt)."""

    def __init__(self, turns: dict[str, list[Step]] | None = None) -> None:
        self.turns = turns or {}
        self.requests: list[dict[str, Any]] = []
        self._ids = 0
        self._lock = threading.Lock()
        self._srv = _Server(("127.0.0.1", 0), _Handler)
        self._srv.owner = self
        self.url = f"http://127.0.0.1:{self._srv.server_address[1]}"

    def record(self, method: str, path: str, body: Any) -> None:
        with self._lock:
            self.requests.append({"method": method, "path": path, "body": body})

    def new_id(self, prefix: str) -> str:
        with self._lock:
            self._ids += 1
            return f"{prefix}{self._ids:06d}"

    def step(self, done: int, prompt: str) -> Step | None:
        """The step after `done` tool calls of the turn that `prompt` started."""
        steps = next((s for key, s in self.turns.items() if key and key in prompt), self.turns.get("", []))
        if done < len(steps):
            return steps[done]
        return {"say": "Done."} if not steps or "say" not in steps[-1] else steps[-1]

    def side_text(self, body: dict[str, Any]) -> str:
        """A request that offers no tools: a next-speaker check wants JSON, the rest text."""
        if (body.get("generationConfig") or {}).get("responseMimeType") == "application/json":
            return json.dumps({"reasoning": "done", "next_speaker": "user"})
        return "OK."

    def bodies(self) -> list[str]:
        return [json.dumps(r["body"]) for r in self.requests if r["body"] is not None]

    def __enter__(self) -> "AgentAPI":
        threading.Thread(target=self._srv.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._srv.shutdown()
        self._srv.server_close()
