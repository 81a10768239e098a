"""Errors that reach a CLI user as one line (the CLI maps them to `Error: ...`)."""


class EngramError(Exception):
    """A fault the user can fix; the message names what is wrong and what to do."""


class ConfigError(EngramError):
    """config.json is unreadable or holds a value of the wrong type."""


class UnsafeIdentifier(EngramError):
    """A session id (or other harness-supplied name) that cannot become a file name."""


class LLMError(EngramError):
    """A model call failed for good; `kind` is timeout|rate_limit|server|connection|client|malformed,
    or budget|auth|unavailable: the model cannot be used now, so the work goes offline
    (engram/providers/fallback.py)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
