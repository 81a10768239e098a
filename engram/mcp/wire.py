"""The MCP server's stdio wire: JSON-RPC 2.0 checked and bounded before the SDK sees a line.

The SDK's own stdio transport reads a line of any length whole and hands a line it cannot
validate to its session as an exception, which answers nothing: a 10 MB question kept the
server busy for seconds, and a batch, a request without a method or params nested
thousands deep got no reply at all, so the client waited forever. Here each line is read
with a cap and checked first; one that fails is answered at once with JSON-RPC's error (its
id when one can be told), and only a well-formed message goes on to the SDK, through the
explicit streams `mcp.server.stdio.stdio_server` takes (one writer for both, so replies
never interleave):

* a line over MAX_REQUEST_BYTES: -32600, read to its end without being kept; the id is
  looked for where clients put it (the head, or the last member);
* not JSON, or nested past what the parser takes: -32700 (-32602 when the request's id
  and method come before the nesting);
* a batch (an array): MCP has none since its 2025-06-18 revision, so -32600 for each
  request in it, as an array (JSON-RPC's batch reply); an empty one: one -32600;
* not an object, `jsonrpc` not "2.0", an id neither a string nor an integer, a method not
  a string, an id without a method (nor a result or error: a reply to the server's own
  request): -32600;
* params neither absent nor an object, or nested deeper than MAX_DEPTH: -32602.

A notification (no id) is never answered (JSON-RPC): one that fails is dropped with a line
on stderr. At the end of the input, the requests already read are answered before the end
is passed on (bounded by DRAIN_SECONDS), since the SDK drops what it has not yet sent. stdout carries the wire only: fd 0 and 1 are pointed at /dev/null and stderr
while the server runs, as the SDK's transport does, so nothing a tool or a child prints
reaches the client.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from typing import Any, BinaryIO, Callable

MAX_REQUEST_BYTES = 1 << 20  # one JSON-RPC line: a question or a decision is a few KB
MAX_DEPTH = 32  # params nesting: MCP's deepest (initialize's capabilities) is under 10
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
DRAIN_SECONDS = 30.0  # at the input's end, how long the answers still being made are waited for
_HEAD, _TAIL = 1 << 16, 1 << 12  # where an id is looked for in a line that is not parsed
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:,]')
_LAST_ID = re.compile(r'[{,]\s*"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,200}")\s*'
                      r'(?:,\s*"[a-z]{1,10}"\s*:\s*"(?:[^"\\]|\\.){0,200}"\s*)*}\s*$')


def _reply_id(line: str) -> Any:
    """The id a line the server writes answers (a result or an error), or None."""
    try:
        msg = json.loads(line)
    except ValueError:
        return None
    return msg.get("id") if isinstance(msg, dict) and ("result" in msg or "error" in msg) else None


def error(code: int, message: str, rid: Any = None) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def _valid_id(rid: Any) -> bool:
    return (isinstance(rid, str) and len(rid) <= 1000) or (type(rid) is int and abs(rid) < 1 << 53)


def _head_id(head: str) -> tuple[Any, bool]:
    """(the id, whether a method was seen) among the top-level members of a JSON object's
    start, read without parsing what is nested (the text may be cut, or nest thousands deep)."""
    depth, rid, method, last = 0, None, False, None
    for m in _TOKEN.finditer(head):
        tok = m.group()
        if tok in "{[":
            depth += 1
        elif tok in "}]":
            depth -= 1
        elif tok == ":" and depth == 1 and last == '"id"':
            try:
                value, _ = json.JSONDecoder().raw_decode(head[m.end():].lstrip())
            except ValueError:
                value = None
            rid = value if _valid_id(value) else rid
        elif tok == ":" and depth == 1 and last == '"method"':
            method = True
        last = tok if tok.startswith('"') else None
    return rid, method


def find_id(head: str, tail: str) -> Any:
    """A request's id from the start and the end of a line that is not parsed, else None."""
    rid, _ = _head_id(head)
    if rid is None:
        m = _LAST_ID.search(tail)
        rid = json.loads(m.group(1)) if m else None
    return rid if _valid_id(rid) else None


def _depth(value: Any, limit: int) -> int:
    """How deep `value` nests, counted up to `limit` + 1 (no recursion)."""
    stack, deepest = [(value, 1)], 0
    while stack:
        v, d = stack.pop()
        if not isinstance(v, (dict, list)):
            continue
        deepest = max(deepest, d)
        if deepest > limit:
            return deepest
        stack.extend((c, d + 1) for c in (v.values() if isinstance(v, dict) else v))
    return deepest


def _request_error(msg: Any) -> dict | None:
    """The error a request, a notification or a response gets, or None when it is well formed."""
    if not isinstance(msg, dict):
        return error(INVALID_REQUEST, "Invalid Request: a message is a JSON object")
    has_id, rid = "id" in msg, msg.get("id")
    if has_id and not _valid_id(rid):
        return error(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
    if msg.get("jsonrpc") != "2.0":
        return error(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', rid)
    if "method" not in msg:
        if has_id and ("result" in msg or "error" in msg):
            return None  # a reply to a request of the server's: the SDK's to match
        return error(INVALID_REQUEST, "Invalid Request: no method", rid)
    if not isinstance(msg["method"], str):
        return error(INVALID_REQUEST, "Invalid Request: method must be a string", rid)
    params = msg.get("params")
    if params is not None and not isinstance(params, dict):
        return error(INVALID_PARAMS, "Invalid params: params must be an object", rid)
    if params is not None and _depth(params, MAX_DEPTH) > MAX_DEPTH:
        return error(INVALID_PARAMS, f"Invalid params: nested deeper than {MAX_DEPTH} levels", rid)
    return None


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def _unanswered(msg: Any) -> bool:
    """A notification or a reply: JSON-RPC answers neither, whatever is wrong with it."""
    return isinstance(msg, dict) and (("method" in msg and "id" not in msg)
                                      or ("method" not in msg and ("result" in msg or "error" in msg)))


def triage(text: str, accepts: Callable[[str], bool] | None = None) -> tuple[bool, Any]:
    """(hand the line on to the SDK?, what to reply now: an error, a batch's list, or None).
    `accepts` is the SDK's own check, the last word: a line it would drop unanswered (a lone
    surrogate in a string) is answered here."""
    try:
        msg = json.loads(text, parse_constant=_not_json)
    except RecursionError:
        rid, method = _head_id(text[:_HEAD])
        if rid is not None and method:
            return False, error(INVALID_PARAMS, "Invalid params: nested too deeply", rid)
        return False, error(PARSE_ERROR, "Parse error: nested too deeply")
    except ValueError:
        return False, error(PARSE_ERROR, "Parse error: not JSON")
    if isinstance(msg, list):
        if not msg:
            return False, error(INVALID_REQUEST, "Invalid Request: an empty batch")
        said = "Invalid Request: batches are not supported (MCP has none); send one message per line"
        replies = [error(INVALID_REQUEST, said, m.get("id") if isinstance(m, dict) and _valid_id(m.get("id"))
                         else None) for m in msg if not (isinstance(m, dict) and "id" not in m and "method" in m)]
        return False, replies or None
    problem = _request_error(msg)
    if problem is None and accepts is not None and not accepts(text):
        problem = error(INVALID_REQUEST, "Invalid Request: not a message of MCP's schema", msg.get("id"))
    if problem is None:
        return True, None
    if _unanswered(msg):
        print(f"engram mcp: dropped a notification or reply: {problem['error']['message']}", file=sys.stderr)
        return False, None
    return False, problem


class Writer:
    """The wire's output: whole lines, one writer at a time (the SDK's replies and ours), and
    the ids it has answered, for the reader to wait on at the end of the input."""

    def __init__(self, fd: int):
        self.fd = fd
        self.lock = threading.Lock()
        self.answered: set[Any] = set()
        self._said = threading.Condition()

    def write(self, text: str) -> int:
        data = text.encode("utf-8")
        with self.lock:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view):]
        rid = _reply_id(text)
        if rid is not None:
            with self._said:
                self.answered.add(rid)
                self._said.notify_all()
        return len(text)

    def wait_for(self, ids: set[Any], timeout: float) -> bool:
        """Whether every request of `ids` was answered within `timeout` seconds."""
        with self._said:
            return self._said.wait_for(lambda: ids <= self.answered, timeout)

    def flush(self) -> None:
        """Every write is whole already (the SDK calls this after each)."""

    def send(self, reply: Any) -> None:
        self.write(json.dumps(reply, separators=(",", ":")) + "\n")


class Reader:
    """The wire's input as the SDK's transport reads it (`readline`): only well-formed lines
    come out; the rest are answered through `out` on the way."""

    def __init__(self, raw: BinaryIO, out: Writer, accepts: Callable[[str], bool] | None = None):
        self.raw = raw
        self.out = out
        self.accepts = accepts
        self.asked: set[Any] = set()

    def readline(self) -> str:
        while True:
            line = self.raw.readline(MAX_REQUEST_BYTES + 1)
            if not line:
                # The SDK ends the session at the input's end and drops the answers still being
                # made (modelcontextprotocol/python-sdk#2678: `engram mcp < requests.jsonl` lost
                # its last tools/call): the end is told only once they are out, or after DRAIN_SECONDS.
                self.out.wait_for(self.asked, DRAIN_SECONDS)
                return ""
            if len(line) > MAX_REQUEST_BYTES and not line.endswith(b"\n"):
                self.out.send(self._too_large(line))
                continue
            text = line.decode("utf-8", "replace")
            if not text.strip():
                continue
            forward, reply = triage(text, self.accepts)
            if forward:
                msg = json.loads(text)
                if "method" in msg and "id" in msg:
                    self.asked.add(msg["id"])
                return text
            if reply is not None:
                self.out.send(reply)

    def _too_large(self, head: bytes) -> dict:
        """Read the rest of an over-long line without keeping it; its error."""
        tail = head[-_TAIL:]
        while not tail.endswith(b"\n"):
            chunk = self.raw.readline(_HEAD)
            if not chunk:
                break
            tail = (tail + chunk)[-_TAIL:]
        rid = find_id(head[:_HEAD].decode("utf-8", "replace"), tail.decode("utf-8", "replace"))
        return error(INVALID_REQUEST, f"Invalid Request: larger than {MAX_REQUEST_BYTES:,} bytes", rid)


def _claim_stdio() -> tuple[int, int]:
    """(the wire's input, its output), fd 0 and 1 then pointed at /dev/null and stderr."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out


def sdk_accepts() -> Callable[[str], bool]:
    """Whether the SDK's transport reads a line as a message (it drops one it cannot, unanswered)."""
    try:
        from mcp_types import jsonrpc_message_adapter

        def parse(text: str) -> Any:
            return jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ImportError:  # mcp 1.x
        from mcp.types import JSONRPCMessage

        parse = JSONRPCMessage.model_validate_json

    def accepts(text: str) -> bool:
        try:
            parse(text)
        except Exception:  # pydantic's ValidationError, whichever version
            return False
        return True

    return accepts


async def serve(server: Any) -> None:
    """Run `server` (MCPServer, or FastMCP of mcp 1.x) over stdio through the checked wire."""
    import anyio
    from mcp.server.stdio import stdio_server

    wire_in, wire_out = _claim_stdio()
    out = Writer(wire_out)
    reader = Reader(os.fdopen(wire_in, "rb", buffering=1 << 16), out, sdk_accepts())
    lowlevel = getattr(server, "_lowlevel_server", None) or server._mcp_server  # mcp 2.x, 1.x
    async with stdio_server(stdin=anyio.wrap_file(reader), stdout=anyio.wrap_file(out)) as (read, write):
        await lowlevel.run(read, write, lowlevel.create_initialization_options())
