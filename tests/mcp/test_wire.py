"""Issue 29, item 6: `python -P -m engram mcp` fed oversized and malformed JSON-RPC, as raw
lines on its stdin (engram/mcp/wire.py).

Before the fix a 10 MB question got no answer in 12 s, and a batch, an id without a method
and deeply nested params got no reply at all. Now each gets JSON-RPC's error within 5 s
(the oversized one within 1 s), a notification gets none, and the server keeps serving.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

import pytest

from engram.mcp import wire

PROTOCOL = "2025-06-18"


class Wire:
    """One `engram mcp` process spoken to line by line, every read with a deadline."""

    def __init__(self, root: str):
        env = {k: os.environ[k] for k in ("ENGRAM_HOME", "HOME", "ENGRAM_OFFLINE", "PATH") if k in os.environ}
        self.proc = subprocess.Popen([sys.executable, "-P", "-m", "engram", "mcp"], cwd=root, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buffer = b""

    def send(self, raw: bytes | dict | list) -> None:
        self.proc.stdin.write(raw if isinstance(raw, bytes) else json.dumps(raw).encode())
        self.proc.stdin.write(b"\n")
        self.proc.stdin.flush()

    def reply(self, within: float = 5.0):
        """The next line the server writes, or None when none comes within `within` seconds."""
        deadline = time.monotonic() + within
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()
        self.proc.stdin.close()


@pytest.fixture
def server(facts, root):
    w = Wire(root)
    w.send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    assert w.reply(60)["id"] == 0
    w.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    yield w
    w.close()


def _ask(i, question: str, **extra) -> dict:
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "query_knowledge", "arguments": {"question": question, **extra}}}


def _still_serving(w: Wire, i: int) -> None:
    w.send(_ask(i, "retry client timeouts"))
    answer = w.reply(30)
    assert answer["id"] == i and "retry client" in answer["result"]["content"][0]["text"]


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


MALFORMED = [
    ("batch", json.dumps([{"jsonrpc": "2.0", "id": 7, "method": "tools/list"},
                          {"jsonrpc": "2.0", "method": "notifications/progress"}, 5]).encode(),
     [(7, -32600), (None, -32600)]),
    ("empty batch", b"[]", (None, -32600)),
    ("id without a method", b'{"jsonrpc": "2.0", "id": 8}', (8, -32600)),
    ("params nested 100,000 deep", b'{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"a": '
     + _nested(100_000).encode() + b"}}", (9, -32602)),
    ("params nested 40 deep", json.dumps(_ask(10, "x", scope=json.loads(_nested(40)))).encode(), (10, -32602)),
    ("params not an object", b'{"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": [1, 2]}',
     (11, -32602)),
    ("not JSON", b'{"jsonrpc": "2.0", "id": 12, "method": ', (None, -32700)),
    ("NaN", b'{"jsonrpc": "2.0", "id": 13, "method": "ping", "params": {"x": NaN}}', (None, -32700)),
    ("a number", b"42", (None, -32600)),
    ("a float id", b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', (None, -32600)),
    ("jsonrpc 1.0", b'{"jsonrpc": "1.0", "id": 14, "method": "ping"}', (14, -32600)),
    ("method not a string", b'{"jsonrpc": "2.0", "id": 15, "method": 5}', (15, -32600)),
    ("a lone surrogate", b'{"jsonrpc": "2.0", "id": 16, "method": "ping", "params": {"x": "\\ud800"}}',
     (16, -32600)),
]


def test_each_malformed_request_gets_its_error_within_5_s_and_the_server_keeps_serving(server):
    for i, (name, raw, want) in enumerate(MALFORMED):
        start = time.monotonic()
        server.send(raw)
        got = server.reply(5.0)
        assert got is not None and time.monotonic() - start < 5.0, f"{name}: no reply within 5 s"
        replies = got if isinstance(got, list) else [got]
        assert isinstance(got, list) == isinstance(want, list), name
        assert [(r["id"], r["error"]["code"]) for r in replies] == (want if isinstance(want, list) else [want]), name
        assert all(r["jsonrpc"] == "2.0" and r["error"]["message"] for r in replies), name
        _still_serving(server, 100 + i)


@pytest.mark.parametrize("id_last", [False, True], ids=["id first", "id last"])
def test_a_10_mb_question_is_refused_within_1_s_with_its_id(server, id_last):
    request = _ask("big", "retry " * 1_750_000)
    if id_last:  # how a client that builds {method, params} first and adds jsonrpc and id orders it
        request = {"method": request["method"], "params": request["params"], "jsonrpc": "2.0", "id": "big"}
    raw = json.dumps(request).encode()
    assert len(raw) > 10_000_000
    start = time.monotonic()
    server.send(raw)
    got = server.reply(5.0)
    took = time.monotonic() - start
    assert got == wire.error(-32600, f"Invalid Request: larger than {wire.MAX_REQUEST_BYTES:,} bytes", "big")
    assert took < 1.0, took
    _still_serving(server, 101)


def test_at_the_cap_a_question_is_answered_within_1_s(server):
    request = _ask(20, "")
    room = wire.MAX_REQUEST_BYTES - len(json.dumps(request)) - 1
    request["params"]["arguments"]["question"] = ("retry client timeouts " * room)[:room]
    start = time.monotonic()
    server.send(request)
    got = server.reply(5.0)
    assert time.monotonic() - start < 1.0
    assert got["id"] == 20 and "ask in at most" in got["result"]["content"][0]["text"]


def test_a_malformed_notification_gets_no_reply(server):
    server.send(b'{"jsonrpc": "2.0", "method": "notifications/progress", "params": [1]}')
    server.send(b'{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"a": ' + _nested(50).encode()
                + b"}}")
    server.send({"jsonrpc": "2.0", "id": 30, "method": "ping"})
    assert server.reply(5.0) == {"jsonrpc": "2.0", "id": 30, "result": {}}  # the ping's, nothing before it


def test_an_unknown_method_and_missing_tool_arguments_are_the_sdks_errors(server):
    server.send({"jsonrpc": "2.0", "id": 40, "method": "no/such"})
    assert server.reply(5.0)["error"]["code"] == -32601
    server.send({"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {}})
    assert server.reply(5.0)["error"]["code"] == -32602


def test_requests_sent_before_the_input_ends_are_all_answered(facts, root):
    """`engram mcp < requests.jsonl`: the SDK ended the session at EOF and dropped the
    answers still being made (modelcontextprotocol/python-sdk#2678); each now comes out."""
    env = {k: os.environ[k] for k in ("ENGRAM_HOME", "HOME", "ENGRAM_OFFLINE", "PATH") if k in os.environ}
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             _ask(1, "retry client timeouts"), _ask(2, "what runs the tests")]
    done = subprocess.run([sys.executable, "-P", "-m", "engram", "mcp"], cwd=root, env=env, timeout=90,
                          input="".join(json.dumps(x) + "\n" for x in lines).encode(), capture_output=True)
    replies = {r["id"]: r for r in map(json.loads, done.stdout.splitlines())}  # answered in any order
    assert sorted(replies) == [0, 1, 2] and "retry client" in replies[1]["result"]["content"][0]["text"]
