"""What every model provider shares: timeouts, retries, usage records, errors.

`ChatClient.complete(system, user, model, max_tokens) -> Reply` is a chat model's one
job; the base class owns what every client needs the same way: a per-request timeout
(`probeTimeoutMs`), retries with exponential backoff on 429 / 5xx / connection errors
(never on a timeout: a stalled API would otherwise eat the whole worker), a usage record
per call, and the meter: every call is admitted by the day's token budget first and
written to the ledger after (engram/providers/budget.py), so no model path escapes either.
The SDKs' own retries are switched off so that ours are the only ones and the request
counts in tests are exact. `BaseEmbedder` does the same for embedding
requests, and batches them. SDKs are imported inside the call that uses them
(docs/architecture.md: only workers pay for them).
"""

from __future__ import annotations

import math
import os
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from engram.errors import EngramError, LLMError
from engram.graph.ledger import COUNTS, MAX_CALL_TOKENS

TRUE = ("1", "true", "yes", "on")
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


def offline_forced() -> bool:
    """ENGRAM_OFFLINE=1: no model or embedding API is used, whatever the configuration says."""
    return os.environ.get("ENGRAM_OFFLINE", "").lower() in TRUE


def env_api_key(env: str) -> str:
    """The key a provider calls with: engram's own variable (ENGRAM_ + `env`) first, else
    `env`. The registry builds a provider on the generic `env` only when the user chose that
    provider (providers/consent.py); building one is never consent by itself."""
    return os.environ.get("ENGRAM_" + env) or os.environ.get(env, "")


class EmbeddingError(EngramError):
    """An embedding request failed for good (after retries, or on a non-retryable status)."""


class _Retryable(Exception):
    def __init__(self, kind: str, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.kind = kind
        self.retry_after = retry_after


UNRELIABLE = -1  # a token count that was reported but cannot be true (negative, NaN)


def tokens(value: Any) -> int:
    """One token count of a provider's report, checked where it enters engram. What a CLI or
    an API says it spent decides whether the next call may spend, so: anything but a number
    (absent, text, a boolean) is 0, not reported; a negative or NaN number is UNRELIABLE (the
    meter charges the call's estimate instead, so a report can never lower the day's sum);
    a huge one (10**30, 1e400 read as infinity) is capped at MAX_CALL_TOKENS."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    if not value >= 0:  # negative, NaN
        return UNRELIABLE
    return MAX_CALL_TOKENS if value >= MAX_CALL_TOKENS else int(value)


def tokens_sum(*counts: int) -> int:
    """Checked counts added up (several turns or models of one call): UNRELIABLE when one is."""
    return UNRELIABLE if min(counts, default=0) < 0 else min(sum(counts), MAX_CALL_TOKENS)


def tokens_less(total: int, part: int) -> int:
    """`total` without `part` (input that includes its cached share): UNRELIABLE when either is."""
    return UNRELIABLE if min(total, part) < 0 else max(0, total - part)


def cost(value: Any) -> float | None:
    """A reported cost in USD: a finite number of 0 or more, else None (not reported)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        usd = float(value)
    except OverflowError:  # an integer past a float's range
        return None
    return usd if math.isfinite(usd) and usd >= 0 else None


@dataclass
class Reply:
    """An answer and what it cost, normalised: `input_tokens` excludes cached input.

    The counts and the cost are checked on construction (`tokens`, `cost`), whoever built
    it: each count ends a whole number from 0 to MAX_CALL_TOKENS, and `doubtful` says that
    one was reported out of range (negative, NaN, capped), for the meter to charge at least
    the call's estimate."""

    text: str
    input_tokens: int
    output_tokens: int
    model: str
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None  # when the provider reports one (Claude Code does)
    doubtful: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        for name in COUNTS:
            count = tokens(getattr(self, name))
            self.doubtful = self.doubtful or count in (UNRELIABLE, MAX_CALL_TOKENS)
            setattr(self, name, max(count, 0))
        self.cost_usd = cost(self.cost_usd)


def estimate_tokens(chars: int, max_output: int) -> int:
    """A call's size before it is made (`chars` of prompt / 4 in, the output cap out): what
    the budget holds in reserve while the call is in flight, or for a session before it."""
    return chars // 4 + max_output


# -- chat --------------------------------------------------------------------------------


class ChatClient:
    """Timeout, retries and usage accounting around one `_request`."""

    name = "base"
    meter: Any = None  # engram.providers.budget.Meter: the day's budget and the ledger

    def __init__(self, *, api_key: str, base_url: str | None, timeout: float,
                 retries: int = 3, backoff: float | None = None):
        self.api_key = api_key
        self.base_url = base_url or None
        self.timeout = timeout
        self.retries = retries
        env_backoff = os.environ.get("ENGRAM_LLM_BACKOFF")
        self.backoff = backoff if backoff is not None else float(env_backoff or 1.0)
        self._client: Any = None
        self._client_lock = threading.Lock()

    def complete(self, system: str, user: str, *, model: str, max_tokens: int,
                 usage: Any = None, step: str = "", thinking: int = 0) -> Reply:
        """One completion; raises LLMError when it fails for good (the failure is recorded in
        `usage` too: anything with an `add(record)` method). `thinking` is a budget of
        reasoning tokens for the models that take one (Anthropic's extended thinking).
        Raises LLMError("budget") without calling anything when the day's budget is spent."""
        meter = self.meter
        estimate = estimate_tokens(len(system) + len(user), max_tokens + thinking)
        ticket = meter.admit(self.name, estimate) if meter else None
        reply = spent = None
        error = "error"  # anything but an LLMError (an SDK's own exception) is recorded as this
        try:
            reply = spent = self._attempts(system, user, model, max_tokens, usage, step, thinking)
            return reply
        except LLMError as exc:
            spent = getattr(exc, "spent", None)  # what a failed call still cost (a CLI's error result)
            error = exc.kind
            raise
        finally:
            if ticket is not None:
                meter.settle(ticket, model, step, spent, ok=reply is not None, error=error)

    def _attempts(self, system: str, user: str, model: str, max_tokens: int, usage: Any, step: str,
                  thinking: int) -> Reply:
        start = time.monotonic()
        for attempt in range(self.retries + 1):
            try:
                reply = self._request(system, user, model, max_tokens, thinking)
            except _Retryable as exc:
                if attempt < self.retries:
                    time.sleep(self._delay(attempt, exc.retry_after))
                    continue
                self._record(usage, step, model, attempt + 1, start, None)
                raise LLMError(exc.kind, f"{self.name}: {exc} (gave up after {attempt + 1} attempts)") from None
            except LLMError:
                self._record(usage, step, model, attempt + 1, start, None)
                raise
            self._record(usage, step, model, attempt + 1, start, reply)
            return reply
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _record(usage: Any, step: str, model: str, attempts: int, start: float,
                reply: Reply | None) -> None:
        if usage is None:
            return
        rec: dict[str, Any] = {"step": step, "model": reply.model if reply else model, "attempts": attempts,
                               "ok": reply is not None, "ms": int((time.monotonic() - start) * 1000)}
        if reply is not None:
            rec.update(input_tokens=reply.input_tokens, output_tokens=reply.output_tokens,
                       cache_read_tokens=reply.cache_read_tokens, cache_write_tokens=reply.cache_write_tokens)
            if reply.cost_usd is not None:
                rec["cost_usd"] = reply.cost_usd
        usage.add(rec)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        delay = self.backoff * (2**attempt) * (0.75 + 0.5 * random.random())
        if retry_after is not None:
            delay = max(delay, min(retry_after, 30.0 * self.backoff))
        return delay

    def client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                self._client = self._make_client()
            return self._client

    def _make_client(self) -> Any:
        raise NotImplementedError

    def _request(self, system: str, user: str, model: str, max_tokens: int, thinking: int) -> Reply:
        raise NotImplementedError


def retry_after(headers: Any) -> float | None:
    """The Retry-After header as seconds, when there is a usable one."""
    try:
        return float(headers.get("retry-after"))
    except (AttributeError, TypeError, ValueError):
        return None


def classify_error(sdk: Any, exc: Exception, where: str) -> Exception:
    """An SDK exception as _Retryable (429/5xx/connection) or LLMError (the rest)."""
    if isinstance(exc, sdk.APITimeoutError):
        return LLMError("timeout", f"no answer from {where} within the timeout (probeTimeoutMs)")
    if isinstance(exc, sdk.APIConnectionError):
        return _Retryable("connection", f"cannot reach {where}: {exc}")
    if isinstance(exc, sdk.APIStatusError):
        code = exc.status_code
        if code == 429:
            return _Retryable("rate_limit", f"HTTP 429 from {where}", retry_after(getattr(getattr(exc, "response", None), "headers", None)))
        if code >= 500:
            return _Retryable("server", f"HTTP {code} from {where}", retry_after(getattr(getattr(exc, "response", None), "headers", None)))
        return LLMError("client", f"HTTP {code} from {where}: {str(exc)[:200]}")
    return LLMError("client", f"{type(exc).__name__}: {exc}")


# -- embeddings ----------------------------------------------------------------------------


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


def vectors_from(payload: Any, embedder: BaseEmbedder) -> list[list[float]]:
    try:
        data = sorted(payload["data"], key=lambda d: d["index"])
        vectors = [list(map(float, d["embedding"])) for d in data]
    except (KeyError, TypeError, ValueError) as exc:
        raise EmbeddingError(f"{embedder.name}: malformed response ({exc!r})") from None
    if vectors and not embedder.dim:
        embedder.dim = len(vectors[0])
    return vectors
