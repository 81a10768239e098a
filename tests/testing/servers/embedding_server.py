"""A local embeddings server speaking both Voyage's and OpenAI's `/v1/embeddings` format.

It binds 127.0.0.1 on a random port in a daemon thread. Vectors are deterministic
functions of the text (so a test can compare them), the dimension follows the model
(voyage-3-lite 512, text-embedding-3-small 1536, else 8). A test can script failures
(`fail_next(429, times=2)`), and it counts requests and texts, which is how the cache
tests prove that a text is never requested twice.

    with EmbeddingServer(api_key="k") as srv:
        VoyageEmbedder(base_url=srv.url, api_key="k")    # POST {url}/v1/embeddings
        OpenAIEmbedder(base_url=srv.url + "/v1", api_key="k")
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIMS = {"voyage-3-lite": 512, "text-embedding-3-small": 1536}


def fake_vector(text: str, dim: int) -> list[float]:
    """Deterministic unit-ish vector from a text's digest."""
    out: list[float] = []
    counter = 0
    while len(out) < dim:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        out.extend((b - 127.5) / 127.5 for b in digest)
        counter += 1
    vec = out[:dim]
    norm = sum(x * x for x in vec) ** 0.5
    return [x / norm for x in vec]


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"

    def log_message(self, *args):  # keep test output quiet
        pass

    def do_POST(self):
        srv = self.server.owner
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        with srv.lock:
            srv.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            failure = srv.failures.pop(0) if srv.failures else None
        if failure is not None:
            status, retry_after = failure
            return self._send(status, {"error": {"message": f"scripted {status}"}}, retry_after)
        if self.path.rstrip("/") != "/v1/embeddings":
            return self._send(404, {"error": {"message": f"no route {self.path}"}})
        if srv.api_key and self.headers.get("authorization") != f"Bearer {srv.api_key}":
            return self._send(401, {"error": {"message": "invalid api key"}})
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else texts
        model = body.get("model", "")
        dim = int(body.get("dimensions") or DIMS.get(model, 8))
        with srv.lock:
            srv.texts.extend(texts)
        data = []
        for i, text in enumerate(texts):
            vec = fake_vector(text, dim)
            if body.get("encoding_format") == "base64":  # what the openai SDK asks for
                vec = base64.b64encode(struct.pack(f"<{dim}f", *vec)).decode()
            data.append({"object": "embedding", "embedding": vec, "index": i})
        usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
        self._send(200, {"object": "list", "data": data, "model": model, "usage": usage})

    def _send(self, status, payload, retry_after=None):
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        if retry_after is not None:
            self.send_header("retry-after", str(retry_after))
        self.end_headers()
        self.wfile.write(raw)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: "EmbeddingServer"


class EmbeddingServer:
    def __init__(self, api_key: str | None = "test-key"):
        self.api_key = api_key
        self.requests: list[dict] = []
        self.texts: list[str] = []
        self.failures: list[tuple[int, float | None]] = []
        self.lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    def fail_next(self, status: int, times: int = 1, retry_after: float | None = None) -> None:
        with self.lock:
            self.failures.extend([(status, retry_after)] * times)

    def start(self) -> "EmbeddingServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> "EmbeddingServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
