"""Secrets never reach disk: redact keys, tokens and passwords before anything is written.

Every pattern has a literal anchor (`sk-`, `AKIA`, `://`, `password`, ...). The text is
scanned for those anchors with plain substring search first, and `re` is imported and
the patterns compiled only when one is present: most tool calls then pay nothing.
"""

from __future__ import annotations

MASK = "[REDACTED]"

# (anchors that must occur in text.lower(), pattern, replacement)
_RULES = (
    (
        ("-----begin",),
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",
        "-----BEGIN PRIVATE KEY-----" + MASK + "-----END PRIVATE KEY-----",
    ),
    (("akia", "asia"), r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", MASK),
    (("sk-",), r"\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_\-]{16,}", MASK),
    (("rk_live", "sk_live", "sk_test", "pk_live"), r"\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}", MASK),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})", MASK),
    (("glpat-",), r"\bglpat-[A-Za-z0-9_\-]{16,}", MASK),
    (("xox",), r"\bxox[abposr]-[A-Za-z0-9-]{10,}", MASK),
    (("aiza",), r"\bAIza[0-9A-Za-z_\-]{30,}", MASK),
    (("eyj",), r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", MASK),
    (("npm_",), r"\bnpm_[A-Za-z0-9]{30,}", MASK),
    (("://",), r"(\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]+:)([^@\s/]+)(@)", r"\1" + MASK + r"\3"),
    (("bearer", "basic "), r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=\-]{12,}", r"\1\2" + MASK),
    (
        ("passw", "pwd", "secret", "token", "api_key", "apikey", "api-key", "access_key",
         "accesskey", "private_key", "credential", "auth",
         # SMTP_PASS=, db.pass: (not bare "pass": every "3 passed" would pay for `re`)
         "_pass", "-pass", ".pass", "pass=", "pass:", 'pass"', "pass'"),
        r"""(?i)(\b[A-Za-z0-9_.\-]*(?:passw(?:or)?d|passwd|pwd|(?<![A-Za-z0-9])pass(?![a-z])|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|credentials?|auth)[A-Za-z0-9_\-]*\\?["']?\s*(?::|=|:=|=>)\s*)(\\?["']?)((?!\[REDACTED\])[^\s"'`,;()\[\]{}\\]{4,}+)(?!\()(\2)""",
        None,  # handled by _assignment
    ),
)

_NOT_SECRETS = {"none", "null", "true", "false", "undefined", "required", "optional", "string", "self", "bearer", "basic"}
_compiled: list | None = None


def _rules():
    global _compiled
    if _compiled is None:
        import re

        _compiled = [(anchors, re.compile(p), r) for anchors, p, r in _RULES]
    return _compiled


def _assignment(m) -> str:
    value = m.group(3)
    if value.lower() in _NOT_SECRETS or value.startswith(("$", "os.", "process.", "env.", "getenv")):
        return m.group(0)
    return m.group(1) + m.group(2) + MASK + m.group(4)


def redact(text: str) -> str:
    """Return text with every recognised secret replaced by [REDACTED]."""
    if not text:
        return text
    low = text.lower()
    hit = False
    for anchors, _p, _r in _RULES:
        if any(a in low for a in anchors):
            hit = True
            break
    if not hit:
        return text
    for anchors, rx, repl in _rules():
        if any(a in low for a in anchors):
            text = rx.sub(repl if repl is not None else _assignment, text)
    return text


def redact_env_file(text: str) -> str:
    """For files named .env*: every value is a secret, whatever its key."""
    out = []
    for line in redact(text).split("\n"):
        head, sep, value = line.partition("=")
        if sep and value.strip() and not head.lstrip("+- ").startswith("#") and " " not in head.strip():
            # keep a diff marker (+/-/space) and the key, hide the value
            out.append(head + sep + MASK)
        else:
            out.append(line)
    return "\n".join(out)


def is_env_file(path: str) -> bool:
    base = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base.startswith(".env") or base.endswith(".env")
