"""Embedding providers: Voyage, OpenAI, and a local default that needs no key and no network.

Every provider has `name`, `model`, `dim` and `embed(texts) -> vectors`; the base class
batches and retries (exponential backoff on 429 / 5xx / connection errors), so a provider
only implements `_embed_batch`. `CachedEmbedder` puts a provider behind the database's
`embedding_cache` table, keyed by (provider/model, text hash), so the same text is never
requested twice, not even after a model switch and back. Vectors are stored as int8
(`quantize`): a quarter of float32's bytes for a cosine error of ~0.0004 (p99 0.002), and hits and
misses return the same (dequantized) values.

`LocalEmbedder` is signed feature hashing (word unigrams plus character 3- and 4-grams of
each word) into 384 dimensions. It is deterministic across processes and machines, cheap
(~50 µs per short text), and good at what engram asks of it: the same entity named
slightly differently scores high, unrelated concepts score near zero. It knows nothing
of synonyms ("auth" vs "login"): a remote model does that better, at a price.

SDKs are imported inside the call that uses them (ARCHITECTURE §2).
"""

from __future__ import annotations

import functools
import math
import os
import sys
import time
import zlib
from array import array
from typing import Any, Callable, Protocol, Sequence

from engram.errors import ConfigError, EngramError
from engram.hashing import sha256_hex

KNOWN_DIMS = {
    "voyage-3-lite": 512,
    "voyage-3.5-lite": 1024,
    "voyage-3": 1024,
    "voyage-3.5": 1024,
    "voyage-code-3": 1024,
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
LOCAL_MODEL = "engram-hash-v1"
LOCAL_DIM = 384


class EmbeddingError(EngramError):
    """An embedding request failed for good (after retries, or on a non-retryable status)."""


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class Embedder(Protocol):
    name: str
    model: str
    dim: int

    def embed(self, texts: list[str]) -> list[list[float]]: ...


# -- vector encoding ------------------------------------------------------------


def pack(vector: Sequence[float]) -> bytes:
    """Little-endian float32 bytes (sqlite-vec's format, and the fallback table's)."""
    a = array("f", vector)
    if sys.byteorder == "big":  # pragma: no cover
        a.byteswap()
    return a.tobytes()


def unpack(blob: bytes) -> list[float]:
    a = array("f")
    a.frombytes(blob)
    if sys.byteorder == "big":  # pragma: no cover
        a.byteswap()
    return a.tolist()


def quantize(vector: Sequence[float]) -> bytes:
    """int8 bytes, scaled per vector so the largest component is +-127.

    Cosine similarity ignores scale, so similarities move by 0.0004 (median; p99 0.002,
    max 0.005 measured on generated node texts) while storing a quarter of float32: what lets 5,000 nodes with 384-dim vectors fit the size budget.
    """
    top = max((abs(x) for x in vector), default=0.0)
    if not top:
        return bytes(len(vector))
    scale = 127.0 / top
    return array("b", [max(-127, min(127, round(x * scale))) for x in vector]).tobytes()


def dequantize(blob: bytes) -> list[float]:
    """The unit vector an int8 blob stands for."""
    return normalise(array("b", blob).tolist())


def normalise(vector: Sequence[float]) -> list[float]:
    """Unit length (cosine similarity becomes a dot product); a zero vector stays zero."""
    norm = math.sqrt(math.fsum(x * x for x in vector))
    return [x / norm for x in vector] if norm else [0.0] * len(vector)


# -- base class -------------------------------------------------------------------


class BaseEmbedder:
    """Batching and retries shared by every provider."""

    name = "base"
    model = ""
    dim = 0
    batch_size = 64
    remote = False
    fallback_reason: str | None = None  # why this one was chosen instead of the configured one

    def __init__(
        self, *, retries: int = 3, backoff: float = 0.5, timeout: float = 30.0, batch_size: int | None = None
    ):
        if batch_size:
            self.batch_size = batch_size
        self.retries = retries
        self.backoff = backoff
        self.timeout = timeout
        self.requests = 0  # batches sent (tests and `engram status` read it)

    def embed(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for i in range(0, len(texts), self.batch_size):
            batch = list(texts[i : i + self.batch_size])
            vectors = self._with_retries(lambda: self._embed_batch(batch))
            if len(vectors) != len(batch):
                raise EmbeddingError(f"{self.name}: asked for {len(batch)} embeddings, got {len(vectors)}")
            out.extend(vectors)
        return out

    def _with_retries(self, call: Callable[[], list[list[float]]]) -> list[list[float]]:
        for attempt in range(self.retries + 1):
            try:
                self.requests += 1
                return call()
            except _Retryable as exc:
                if attempt == self.retries:
                    raise EmbeddingError(f"{self.name}: {exc} (gave up after {attempt + 1} attempts)") from None
                delay = self.backoff * (2**attempt)
                if exc.retry_after is not None:
                    delay = max(delay, min(exc.retry_after, 30.0))
                time.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        raise NotImplementedError


# -- local ----------------------------------------------------------------------------

_VERSION_CHARS = frozenset("0123456789.")
# Function words carry no identity: "Use WAL mode for SQLite" ~ "SQLite WAL mode".
_STOP = frozenset(
    "a an and are as at be by for from in into is it its of on or that the this to use used"
    " uses using was we were when with".split()
)


def _tokens(text: str) -> list[str]:
    """Casefolded words; version numbers ("3.53.0", "v2.1") are dropped, so
    "SQLite 3.53.0" and "SQLite" are the same entity to the local embedder."""
    words, cur = [], []
    for ch in text.casefold():
        if ch.isalnum() or ch in "._":
            cur.append(ch)
        else:
            words.append("".join(cur))
            cur = []
    words.append("".join(cur))
    out = []
    for w in words:
        w = w.strip("._")
        if not w or w in _STOP:
            continue
        core = w[1:] if w[0] == "v" and len(w) > 1 else w
        if set(core) <= _VERSION_CHARS and any(c.isdigit() for c in core):
            continue
        out.append(w)
    return out


class LocalEmbedder(BaseEmbedder):
    """Deterministic signed feature hashing; the offline default (no download, no network)."""

    name = "local"
    model = LOCAL_MODEL
    dim = LOCAL_DIM
    batch_size = 1024

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_one(t) for t in texts]

    def embed_one(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        for word in _tokens(text):
            for index, weight in _word_features(word, self.dim):
                vec[index] += weight
        return normalise(vec)


@functools.lru_cache(maxsize=50_000)
def _word_features(word: str, dim: int) -> tuple[tuple[int, float], ...]:
    """(index, signed weight) of one word's features: the word itself (weight 1) and its
    character 3- and 4-grams (sharing weight 1 between them). Cached: words repeat."""
    padded = f"<{word}>"
    grams = [padded[i : i + n] for n in (3, 4) for i in range(len(padded) - n + 1)]
    share = 1.0 / math.sqrt(len(grams)) if grams else 0.0
    out = []
    for feature, weight in [("w:" + word, 1.0)] + [("c:" + g, share) for g in grams]:
        h = zlib.crc32(feature.encode("utf-8"))
        out.append((h % dim, -weight if h & 0x80000000 else weight))
    return tuple(out)


# -- Voyage (stdlib urllib) -------------------------------------------------------------


class VoyageEmbedder(BaseEmbedder):
    """Voyage AI's /v1/embeddings over HTTPS (Anthropic's recommended embedding vendor)."""

    name = "voyage"
    remote = True
    batch_size = 128
    key_env = "VOYAGE_API_KEY"

    def __init__(self, model: str = "voyage-3-lite", *, api_key: str | None = None,
                 base_url: str | None = None, dim: int | None = None, **kw: Any):  # fmt: skip
        super().__init__(**kw)
        self.model = model
        self.dim = dim or KNOWN_DIMS.get(model, 0)
        self.api_key = api_key or os.environ.get(self.key_env, "")
        base = base_url or os.environ.get("VOYAGE_BASE_URL") or "https://api.voyageai.com"
        self.url = base.rstrip("/") + ("/embeddings" if base.rstrip("/").endswith("/v1") else "/v1/embeddings")

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        import json
        import urllib.error
        import urllib.request

        body = json.dumps({"input": texts, "model": self.model}).encode()
        req = urllib.request.Request(
            self.url, data=body, method="POST",
            headers={"Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json"},
        )  # fmt: skip
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                payload = json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:200].decode("utf-8", "replace")
            if exc.code == 429 or exc.code >= 500:
                raise _Retryable(f"HTTP {exc.code} from {self.url}", _retry_after(exc.headers)) from None
            hint = f"; check {self.key_env}" if exc.code in (401, 403) else ""
            raise EmbeddingError(f"voyage: HTTP {exc.code} from {self.url}: {detail}{hint}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            raise _Retryable(f"cannot reach {self.url}: {getattr(exc, 'reason', exc)}") from None
        return _vectors_from(payload, self)


def _retry_after(headers: Any) -> float | None:
    try:
        return float(headers.get("retry-after"))
    except (TypeError, ValueError, AttributeError):
        return None


def _vectors_from(payload: Any, embedder: BaseEmbedder) -> list[list[float]]:
    try:
        data = sorted(payload["data"], key=lambda d: d["index"])
        vectors = [list(map(float, d["embedding"])) for d in data]
    except (KeyError, TypeError, ValueError) as exc:
        raise EmbeddingError(f"{embedder.name}: malformed response ({exc!r})") from None
    if vectors and not embedder.dim:
        embedder.dim = len(vectors[0])
    return vectors


# -- OpenAI (the openai SDK) ----------------------------------------------------------------


class OpenAIEmbedder(BaseEmbedder):
    """OpenAI embeddings through the official SDK; its own retries are off (ours apply)."""

    name = "openai"
    remote = True
    batch_size = 256
    key_env = "OPENAI_API_KEY"

    def __init__(self, model: str = "text-embedding-3-small", *, api_key: str | None = None,
                 base_url: str | None = None, dim: int | None = None, **kw: Any):  # fmt: skip
        super().__init__(**kw)
        self.model = model
        self.dim = dim or KNOWN_DIMS.get(model, 0)
        self.api_key = api_key or os.environ.get(self.key_env, "")
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self._client: Any = None

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        import openai

        if self._client is None:
            self._client = openai.OpenAI(
                api_key=self.api_key, base_url=self.base_url, max_retries=0, timeout=self.timeout
            )
        try:
            resp = self._client.embeddings.create(model=self.model, input=texts)
        except (openai.RateLimitError, openai.InternalServerError) as exc:
            raise _Retryable(f"HTTP {exc.status_code}", _retry_after(exc.response.headers)) from None
        except openai.APIConnectionError as exc:  # includes timeouts
            raise _Retryable(f"cannot reach {self.base_url or 'api.openai.com'}: {exc}") from None
        except openai.APIStatusError as exc:
            if exc.status_code >= 500:
                raise _Retryable(f"HTTP {exc.status_code}") from None
            hint = f"; check {self.key_env}" if exc.status_code in (401, 403) else ""
            raise EmbeddingError(f"openai: HTTP {exc.status_code}: {exc.message[:200]}{hint}") from None
        payload = {"data": [{"index": d.index, "embedding": d.embedding} for d in resp.data]}
        return _vectors_from(payload, self)


# -- cache ---------------------------------------------------------------------------


class CachedEmbedder:
    """A provider behind the `embedding_cache` table: each (model, text) is fetched once."""

    def __init__(self, inner: BaseEmbedder, conn: Any):
        self.inner = inner
        self.conn = conn
        self.hits = 0
        self.misses = 0

    name = property(lambda self: self.inner.name)
    model = property(lambda self: self.inner.model)
    dim = property(lambda self: self.inner.dim)
    remote = property(lambda self: self.inner.remote)
    fallback_reason = property(lambda self: self.inner.fallback_reason)

    @property
    def cache_key(self) -> str:
        return f"{self.inner.name}/{self.inner.model}"

    def embed(self, texts: list[str]) -> list[list[float]]:
        hashes = [sha256_hex(t)[:32] for t in texts]
        found = self._lookup(set(hashes))
        missing = list(dict.fromkeys(h for h in hashes if h not in found))
        self.hits += len(texts) - sum(1 for h in hashes if h not in found)
        if missing:
            first = {h: t for t, h in zip(texts, hashes)}
            vectors = self.inner.embed([first[h] for h in missing])
            self.misses += len(missing)
            new = {h: quantize(v) for h, v in zip(missing, vectors)}
            self._store(new)
            found.update((h, dequantize(b)) for h, b in new.items())
        return [found[h] for h in hashes]

    def _lookup(self, hashes: set[str]) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        items = sorted(hashes)
        for i in range(0, len(items), 500):
            chunk = items[i : i + 500]
            q = "SELECT text_hash, vector FROM embedding_cache WHERE model = ? AND text_hash IN (%s)"
            for h, blob in self.conn.execute(q % ",".join("?" * len(chunk)), [self.cache_key, *chunk]):
                out[h] = dequantize(blob)
        return out

    def _store(self, new: dict[str, bytes]) -> None:
        from engram.db.graph import transaction

        with transaction(self.conn):
            self.conn.executemany(
                "INSERT OR REPLACE INTO embedding_cache (model, text_hash, vector) VALUES (?, ?, ?)",
                [(self.cache_key, h, blob) for h, blob in new.items()],
            )


# -- choosing one ------------------------------------------------------------------------

_TRUE = ("1", "true", "yes", "on")


def get_embedder(cfg: dict[str, Any] | None = None, conn: Any = None, **kw: Any) -> Any:
    """The configured provider when its API key is set, else LocalEmbedder (with a reason).

    `ENGRAM_OFFLINE=1` forces the local embedder. With `conn`, a remote provider is
    wrapped in CachedEmbedder. Raises ConfigError for an unknown `embeddingProvider`.
    """
    cfg = cfg or {}
    provider = str(cfg.get("embeddingProvider") or "anthropic").lower()
    model = str(cfg.get("embeddingModel") or "")
    reason = None
    chosen: BaseEmbedder | None = None
    if os.environ.get("ENGRAM_OFFLINE", "").lower() in _TRUE:
        reason = "ENGRAM_OFFLINE is set"
    elif provider in ("anthropic", "voyage"):
        if os.environ.get(VoyageEmbedder.key_env):
            chosen = VoyageEmbedder(model if model.startswith("voyage") else "voyage-3-lite", **kw)
        else:
            reason = f"embeddingProvider {provider!r} needs {VoyageEmbedder.key_env}"
    elif provider == "openai":
        if os.environ.get(OpenAIEmbedder.key_env):
            chosen = OpenAIEmbedder(model if model.startswith("text-embedding") else "text-embedding-3-small", **kw)
        else:
            reason = f"embeddingProvider 'openai' needs {OpenAIEmbedder.key_env}"
    elif provider not in ("local", "offline"):
        raise ConfigError(
            f"config.json: embeddingProvider {provider!r} is not one of anthropic, voyage, openai, local"
        )
    if chosen is None:
        local = LocalEmbedder()
        local.fallback_reason = reason
        return local
    return CachedEmbedder(chosen, conn) if conn is not None else chosen
