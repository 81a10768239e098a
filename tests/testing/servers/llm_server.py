"""A local model server speaking Anthropic's Messages API and OpenAI's Chat Completions API.

It binds 127.0.0.1 on a random port in daemon threads, so the real `anthropic` and
`openai` SDKs can be pointed at it (ANTHROPIC_BASE_URL=srv.url, OPENAI_BASE_URL=
srv.url + "/v1"). Each request is classified by the `engram-task:` line that starts
engram's system prompts (pass1 / pass2 / discussion) and answered from a per-kind script
when one is queued, else by `auto_reply`: a deterministic answer built from the request
itself (it reads the `[seq N]` event lines and the window summaries; a check is answered
NO_CONTRADICTION), valid by engram's schema, so a whole consolidation runs without
scripting every call.

Script actions: {"status": 429|500, "retry_after": s}, {"stall": seconds | None} (None:
until the server closes; for timeout and kill -9 tests), {"text": raw answer}.
Usage is reported as characters / 4, so token figures track the real prompt sizes.
Anthropic's prompt caching is emulated as documented: a system prompt marked with
`cache_control` is written to the cache on first use and read from it afterwards
(`cache_creation_input_tokens` / `cache_read_input_tokens`), but only from the model's
minimum cacheable length (`CACHE_MIN`); shorter prefixes are billed as plain input.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

KINDS = ("pass1", "pass2", "discussion")
# Anthropic's minimum cacheable prompt length, in tokens (docs/harness-cli-providers.md, "Prompt caching").
CACHE_MIN = {"claude-opus-4-6": 4096, "claude-opus-4-5": 4096, "claude-haiku-4-5": 4096, "claude-sonnet-4-6": 2048}
CACHE_MIN_DEFAULT = 1024
_SEQ_LINE = re.compile(r"^\[seq (\d+)\] (\w+):?(.*)$", re.M)


# -- automatic answers ------------------------------------------------------------------


def _events(user: str) -> list[tuple[int, str, str]]:
    return [(int(m.group(1)), m.group(2), m.group(3)) for m in _SEQ_LINE.finditer(user)]


def causal_links(events: list[tuple[int, str, str]]) -> list[str]:
    """'test failed (seq 9) -> edited a.py (seq 11) -> tests passed (seq 13)' chains in a window."""
    out, failing, writes = [], None, []
    for seq, kind, rest in events:
        if kind == "test_run" and " FAIL" in f" {rest}":
            failing, writes = seq, []
        elif kind == "file_write" and failing is not None:
            writes.append((seq, rest.split()[0] if rest.split() else "?"))
        elif kind == "test_run" and " PASS" in f" {rest}" and failing is not None:
            chain = f"test failed (seq {failing})" + "".join(f" -> edited {p} (seq {s})" for s, p in writes)
            out.append(chain + f" -> tests passed (seq {seq})")
            failing = None
    if failing is not None:
        chain = f"test failed (seq {failing})" + "".join(f" -> edited {p} (seq {s})" for s, p in writes)
        out.append(chain + " -> not yet passing in this window")
    return out


def _pass1(user: str) -> dict[str, Any]:
    evs = _events(user)
    prompts = [rest.strip() for _, k, rest in evs if k == "user_prompt"]
    files = list(dict.fromkeys(rest.split()[0] for _, k, rest in evs if k == "file_write" and rest.split()))
    tests = [rest for _, k, rest in evs if k == "test_run"]
    outcome = "progress"
    if tests:
        outcome = "completed" if tests[-1].strip().startswith("PASS") else "debugging"
    links = causal_links(evs)
    return {"intent": (prompts[0][:200].strip() if prompts else "") or "Continue the task",
            "what_happened": ("; ".join(links) or f"{len(evs)} events")[:1100],
            "files_modified": files, "decisions": [], "outcome": outcome,
            "evidence": [s for s, _, _ in evs][:50]}


def _summaries(user: str) -> list[dict[str, Any]]:
    body = user.split("<summaries>", 1)[-1].split("</summaries>", 1)[0]
    return [json.loads(line) for line in body.strip().splitlines() if line.strip()]


def _pass2(user: str) -> dict[str, Any]:
    sums = _summaries(user)
    files = list(dict.fromkeys(f for s in sums for f in s.get("files_modified", [])))
    last = sums[-1]["outcome"] if sums else "progress"
    first_ev = [s["evidence"][0] for s in sums if s.get("evidence")]
    # a long path is named by its end, within the schema's 80 characters (as a model is told)
    nodes = [{"key": f"f{i}", "op": "create", "name": f if len(f) <= 80 else "\u2026" + f[-79:], "type": "concept",
              "description": f"Source file {f}", "files": [f]} for i, f in enumerate(files[:10])]
    nodes.append({"key": "d1", "op": "create", "name": "Use pytest for tests", "type": "decision",
                  "description": "The agent ran pytest", "explicit": False, "rationale": "it was already set up",
                  "alternatives": ["unittest"], "evidence": first_ev[:1], "files": files[:2]})
    edges = [{"from": n["key"], "to": "episode", "type": "discovered_during"} for n in nodes]
    return {"episode": {
        "goal": sums[0]["intent"] if sums else "Unknown",
        "approach": " ".join(s["what_happened"] for s in sums)[:1100],
        "outcome": {"completed": "success", "progress": "success", "debugging": "partial"}.get(last, "failure"),
        "discoveries": [{"text": s["what_happened"][:300], "evidence": s["evidence"][:1], "confidence": 0.7}
                        for s in sums if s.get("evidence")][:5],
        "decisions": [{"text": "Use pytest for tests", "kind": "implicit", "rationale": "already set up",
                       "alternatives": ["unittest"], "files": [], "evidence": first_ev[:1]}],
        "errors": []},
        "graph": {"nodes": nodes, "edges": edges}}


def _discussion(user: str) -> dict[str, Any]:
    evs = _events(user)
    words = re.findall(r"[A-Z][A-Za-z0-9]+", " ".join(rest for _, _, rest in evs))
    return {"topics": list(dict.fromkeys(words))[:3] or ["discussion"],
            "decisions": [], "constraints": []}


def _contradiction(user: str) -> dict[str, Any]:
    return {"verdict": "NO_CONTRADICTION", "severity": "none", "decision_ids": [],
            "explanation": "The change is consistent with the decisions.", "recommendation": ""}


def auto_reply(kind: str, user: str) -> str:
    build = {"pass1": _pass1, "pass2": _pass2, "discussion": _discussion, "contradiction": _contradiction}.get(kind)
    return json.dumps(build(user) if build else {"error": f"unknown task {kind}"})


# -- the server --------------------------------------------------------------------------


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def _parse(path: str, body: dict[str, Any]) -> tuple[str, str, str]:
    """(api, system, user) of a request."""
    if path.rstrip("/").endswith("/messages"):
        msgs = body.get("messages") or []
        return "anthropic", _text_of(body.get("system")), _text_of(msgs[-1].get("content") if msgs else "")
    msgs = body.get("messages") or []
    system = "".join(_text_of(m.get("content")) for m in msgs if m.get("role") in ("system", "developer"))
    user = "".join(_text_of(m.get("content")) for m in msgs if m.get("role") == "user")
    return "openai", system, user


class _Handler(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        srv = self.server.owner
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        api, system, user = _parse(self.path, body)
        m = re.match(r"engram-task: (\w+)", system)
        kind = m.group(1) if m else "other"
        with srv.lock:
            srv.calls.append({"api": api, "kind": kind, "model": body.get("model"), "system": system,
                              "user": user, "repair": "Your previous answer could not be used" in user})
            srv.counts[kind] += 1
            queue = srv.scripts.get(kind) or []
            action = queue.pop(0) if queue else {}
        if "stall" in action:
            srv.closing.wait(action["stall"])
            if srv.closing.is_set():
                return
        if "status" in action:
            return self._error(api, action["status"], action.get("retry_after"))
        text = action.get("text") if "text" in action else auto_reply(kind, user)
        usage = ((len(system) + len(user)) // 4, max(1, len(text) // 4))
        self._send(200, self._answer(api, body, system, text, usage))

    def _answer(self, api: str, body: dict[str, Any], system: str, text: str,
                usage: tuple[int, int]) -> dict[str, Any]:
        model = body.get("model") or "model"
        if api == "anthropic":
            return {"id": "msg_local", "type": "message", "role": "assistant", "model": model,
                    "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                    "stop_sequence": None, "usage": self._cached(body, model, system, usage)}
        return {"id": "chatcmpl-local", "object": "chat.completion", "created": int(time.time()), "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                          "total_tokens": sum(usage)}}

    def _cached(self, body: dict[str, Any], model: str, system: str, usage: tuple[int, int]) -> dict[str, int]:
        """Messages API usage, with the marked system prompt written to or read from the cache."""
        out = {"input_tokens": usage[0], "output_tokens": usage[1], "cache_creation_input_tokens": 0,
               "cache_read_input_tokens": 0}
        blocks = body.get("system") if isinstance(body.get("system"), list) else []
        prefix = len(system) // 4
        if not any(isinstance(b, dict) and b.get("cache_control") for b in blocks):
            return out
        if prefix < CACHE_MIN.get(model, CACHE_MIN_DEFAULT):
            return out
        srv = self.server.owner
        with srv.lock:
            hit = (model, system) in srv.cache
            srv.cache.add((model, system))
        out["input_tokens"] -= prefix
        out["cache_read_input_tokens" if hit else "cache_creation_input_tokens"] = prefix
        return out

    def _error(self, api: str, status: int, retry_after: float | None) -> None:
        kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(status, "api_error")
        body = ({"type": "error", "error": {"type": kind, "message": f"scripted {status}"}} if api == "anthropic"
                else {"error": {"message": f"scripted {status}", "type": kind, "code": None}})
        self._send(status, body, retry_after)

    def _send(self, status: int, body: dict[str, Any], retry_after: float | None = None) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            if retry_after is not None:
                self.send_header("retry-after", str(retry_after))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
            pass


class LLMServer:
    """`with LLMServer() as srv:` a scripted Messages / Chat Completions server on 127.0.0.1."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: list[dict[str, Any]] = []
        self.counts: Counter = Counter()
        self.scripts: dict[str, list[dict[str, Any]]] = {}
        self.cache: set[tuple[str, str]] = set()  # (model, system prompt) written to the prompt cache
        self.closing = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.owner = self
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def script(self, kind: str, *actions: dict[str, Any]) -> None:
        """Queue answers for the next requests of one kind (then auto replies resume)."""
        with self.lock:
            self.scripts.setdefault(kind, []).extend(actions)

    def env(self, provider: str = "anthropic", generic: bool = False) -> dict[str, str]:
        """Environment for a process (or monkeypatch) that should use this server: the key in
        engram's own variable (ENGRAM_ANTHROPIC_API_KEY: consent, engram/providers/consent.py),
        or with `generic` in the one a harness sets (ANTHROPIC_API_KEY: spends only when the
        user named the provider in config.json)."""
        prefix = "" if generic else "ENGRAM_"
        if provider == "openai":
            return {prefix + "OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": self.url + "/v1"}
        return {prefix + "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": self.url}

    def __enter__(self) -> "LLMServer":
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()
