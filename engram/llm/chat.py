"""Chat providers for consolidation: Anthropic, OpenAI, or none (the offline consolidator).

Each provider has one job, `complete(system, user, model, max_tokens) -> Reply`, and the
base class owns what every provider needs the same way: a per-request timeout
(`probeTimeoutMs`), retries with exponential backoff on 429 / 5xx / connection errors
(never on a timeout: a stalled API would otherwise eat the whole worker), and a usage
record per call. The SDKs' own retries are switched off so that ours are the only ones
and the request counts in tests are exact.

`base_url` comes from ANTHROPIC_BASE_URL / OPENAI_BASE_URL (tests point them at a local
server on 127.0.0.1), keys from ANTHROPIC_API_KEY / OPENAI_API_KEY. No key, or
ENGRAM_OFFLINE=1, means no provider: the caller uses the offline consolidator.
SDKs are imported inside the call that uses them (ARCHITECTURE §2).
"""

from __future__ import annotations

import os
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from engram.errors import ConfigError, EngramError

PROVIDERS = ("anthropic", "openai", "offline")
KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
URL_ENV = {"anthropic": "ANTHROPIC_BASE_URL", "openai": "OPENAI_BASE_URL"}
_TRUE = ("1", "true", "yes", "on")


class LLMError(EngramError):
    """A model call failed for good; `kind` is timeout|rate_limit|server|connection|client|malformed."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class _Retryable(Exception):
    def __init__(self, kind: str, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.kind = kind
        self.retry_after = retry_after


@dataclass
class Reply:
    text: str
    input_tokens: int
    output_tokens: int
    model: str


@dataclass
class Usage:
    """Every call of one consolidation, thread-safe (Pass 1 windows run concurrently)."""

    calls: list[dict[str, Any]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, record: dict[str, Any]) -> None:
        with self._lock:
            self.calls.append(record)

    def totals(self) -> dict[str, Any]:
        with self._lock:
            calls = list(self.calls)
        return {
            "calls": calls,
            "requests": sum(c.get("attempts", 1) for c in calls),
            "input_tokens": sum(c.get("input_tokens", 0) for c in calls),
            "output_tokens": sum(c.get("output_tokens", 0) for c in calls),
        }


class ChatProvider:
    """Timeout, retries and usage accounting around one `_request`."""

    name = "base"

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
                 usage: Usage | None = None, step: str = "") -> Reply:
        """One completion; raises LLMError when it fails for good (the failure is recorded too)."""
        start = time.monotonic()
        for attempt in range(self.retries + 1):
            try:
                reply = self._request(system, user, model, max_tokens)
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
    def _record(usage: Usage | None, step: str, model: str, attempts: int, start: float,
                reply: Reply | None) -> None:
        if usage is None:
            return
        rec: dict[str, Any] = {"step": step, "model": reply.model if reply else model, "attempts": attempts,
                               "ok": reply is not None, "ms": int((time.monotonic() - start) * 1000)}
        if reply is not None:
            rec.update(input_tokens=reply.input_tokens, output_tokens=reply.output_tokens)
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

    def _request(self, system: str, user: str, model: str, max_tokens: int) -> Reply:
        raise NotImplementedError


def _retry_after(exc: Any) -> float | None:
    try:
        return float(exc.response.headers.get("retry-after"))
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
            return _Retryable("rate_limit", f"HTTP 429 from {where}", _retry_after(exc))
        if code >= 500:
            return _Retryable("server", f"HTTP {code} from {where}", _retry_after(exc))
        return LLMError("client", f"HTTP {code} from {where}: {str(exc)[:200]}")
    return LLMError("client", f"{type(exc).__name__}: {exc}")


class AnthropicChat(ChatProvider):
    name = "anthropic"

    def _make_client(self) -> Any:
        import anthropic

        return anthropic.Anthropic(api_key=self.api_key, base_url=self.base_url,
                                   timeout=self.timeout, max_retries=0)

    def _request(self, system: str, user: str, model: str, max_tokens: int) -> Reply:
        import anthropic

        try:
            msg = self.client().messages.create(
                model=model, max_tokens=max_tokens, system=system,
                messages=[{"role": "user", "content": user}])  # fmt: skip
        except anthropic.APIError as exc:
            raise classify_error(anthropic, exc, self.base_url or "api.anthropic.com") from None
        text = "".join(getattr(b, "text", "") for b in msg.content or [] if getattr(b, "type", "") == "text")
        u = msg.usage
        return Reply(text, int(getattr(u, "input_tokens", 0) or 0), int(getattr(u, "output_tokens", 0) or 0),
                     str(getattr(msg, "model", "") or model))


class OpenAIChat(ChatProvider):
    name = "openai"

    def _make_client(self) -> Any:
        import openai

        return openai.OpenAI(api_key=self.api_key, base_url=self.base_url,
                             timeout=self.timeout, max_retries=0)

    def _request(self, system: str, user: str, model: str, max_tokens: int) -> Reply:
        import openai

        try:
            resp = self.client().chat.completions.create(
                model=model, max_completion_tokens=max_tokens, temperature=0,
                response_format={"type": "json_object"},
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}])  # fmt: skip
        except openai.APIError as exc:
            raise classify_error(openai, exc, self.base_url or "api.openai.com") from None
        choice = resp.choices[0] if resp.choices else None
        text = (choice.message.content or "") if choice else ""
        u = resp.usage
        return Reply(text, int(getattr(u, "prompt_tokens", 0) or 0), int(getattr(u, "completion_tokens", 0) or 0),
                     str(getattr(resp, "model", "") or model))


_CLASSES: dict[str, Callable[..., ChatProvider]] = {"anthropic": AnthropicChat, "openai": OpenAIChat}


def choose(cfg: dict[str, Any], requested: str | None = None) -> tuple[str, str]:
    """(provider name, why): the requested or configured provider if usable, else offline.

    An explicitly requested API provider without its key is a ConfigError (the user asked
    for it); the configured one silently falls back to offline, with the reason returned.
    """
    if requested and requested not in PROVIDERS:
        raise ConfigError(f"--provider {requested!r} is not one of {', '.join(PROVIDERS)}")
    name = requested or str(cfg.get("llmProvider") or "anthropic")
    if name not in PROVIDERS:
        raise ConfigError(f"config.json: llmProvider {name!r} is not one of {', '.join(PROVIDERS)}")
    if name == "offline":
        return "offline", "requested" if requested else "llmProvider is offline"
    if not requested and os.environ.get("ENGRAM_OFFLINE", "").lower() in _TRUE:
        return "offline", "ENGRAM_OFFLINE is set"
    if not os.environ.get(KEY_ENV[name]):
        if requested:
            raise ConfigError(f"--provider {name} needs {KEY_ENV[name]} in the environment")
        return "offline", f"{KEY_ENV[name]} is not set"
    return name, "key found"


def make(name: str, cfg: dict[str, Any]) -> ChatProvider:
    """A provider instance for `name` (anthropic|openai) with the config's timeout."""
    return _CLASSES[name](api_key=os.environ.get(KEY_ENV[name], ""), base_url=os.environ.get(URL_ENV[name]),
                          timeout=float(cfg.get("probeTimeoutMs", 30000)) / 1000.0)


def models_for(name: str, cfg: dict[str, Any]) -> dict[str, str]:
    """Model per step: Sonnet for Pass 1, Opus for Pass 2, Haiku for discussion (config keys)."""
    if name == "openai":
        m = str(cfg.get("openaiModel") or "gpt-4.1-mini")
        return {"pass1": m, "pass2": m, "discussion": m}
    return {"pass1": str(cfg["consolidationModel"]), "pass2": str(cfg["episodeExtractionModel"]),
            "discussion": str(cfg["discussionModel"])}
