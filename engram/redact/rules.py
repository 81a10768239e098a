"""The pattern rules of engram.redact, imported only when the text holds one of their anchors.

Every pattern is linear in the length of the text (docs/architecture.md, "Process model"):
each variable-length run is possessive (`{m,n}+`: matched once, never given back) and
bounded, and a run that could start anywhere inside a longer run is guarded by a negative
lookbehind, so only the run's first position is tried. Rules that need judgement (is this
key about a secret? does this word look like one?) match a generic shape and decide in a
callback, instead of a pattern that searches for the keyword inside the key by
backtracking (the shape that took 20 s on a 4 KB line of `btn-auth-login-token-`).
"""

from __future__ import annotations

import re

from engram.text import MASK

# -- provider tokens, by prefix ------------------------------------------------------------------

_TOKENS = re.compile("(?<![A-Za-z0-9_])(?:" + "|".join((
    r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])",
    r"sk-(?:ant-(?:api|admin)\d\d-|proj-|svcacct-|admin-|live-|test-)?[A-Za-z0-9_\-]{16,512}+",
    r"[rsp]k_(?:live|test)_[A-Za-z0-9]{16,256}+",
    r"whsec_[A-Za-z0-9+/=]{16,256}+",
    r"gh[pousr]_[A-Za-z0-9]{20,255}+",
    r"github_pat_[A-Za-z0-9_]{20,255}+",
    r"gl(?:pat|dt|rt|ptt)-[A-Za-z0-9_\-]{16,128}+",
    r"xox[abposre]-[A-Za-z0-9\-]{10,256}+",
    r"xapp-\d-[A-Za-z0-9\-]{10,256}+",
    r"AIza[0-9A-Za-z_\-]{30,64}+",
    r"ya29\.[0-9A-Za-z_\-]{20,2048}+",
    r"GOCSPX-[0-9A-Za-z_\-]{20,64}+",
    r"eyJ[A-Za-z0-9_\-]{8,4096}+\.eyJ[A-Za-z0-9_\-]{8,8192}+\.[A-Za-z0-9_\-]{8,2048}+",
    r"npm_[A-Za-z0-9]{30,64}+",
    r"pypi-AgE[A-Za-z0-9_\-]{30,1024}+",
    r"hf_[A-Za-z0-9]{30,64}+",
    r"do[opr]_v1_[a-f0-9]{64}",
    r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
    r"dapi[a-f0-9]{32}",
    r"gsk_[A-Za-z0-9]{40,64}+",
    r"r8_[A-Za-z0-9]{30,64}+",
    r"hv[sb]\.[A-Za-z0-9_\-]{20,256}+",
    r"dp\.(?:st|pt|ct|sa|scim|audit)\.[A-Za-z0-9_\-]{30,128}+",
    r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
    r"lin_api_[A-Za-z0-9]{30,64}+",
    r"ntn_[A-Za-z0-9]{30,64}+",
    r"SG\.[A-Za-z0-9_\-]{16,32}+\.[A-Za-z0-9_\-]{16,64}+",
    r"key-[a-f0-9]{32}(?![a-f0-9])",
    r"AGE-SECRET-KEY-1[A-Z0-9]{40,80}+",
    r"\d{8,10}:AA[A-Za-z0-9_\-]{30,40}+",  # a Telegram bot
)) + ")")
# a Discord bot token: the bot's id in base64 (M, N or O first: an ASCII digit), a timestamp,
# an HMAC; `_discord` keeps the shape's look-alikes (dotted names) by decoding the id
_DISCORD = re.compile(r"(?<![\w\-.])([MNO][A-Za-z0-9]{22,27}+)\.[\w\-]{6}\.[\w\-]{27,40}+(?![\w\-])")

# -- URLs ----------------------------------------------------------------------------------------

# Matched right after "://" (found by str.find): neither part may hold "/", so a scan stops
# at the next "://" and each one is scanned once.
_USERINFO = re.compile(r"([^/\s:@\"'<>]{0,128}+):([^@\s/\"'<>]{1,256}+)@")
_QUERY = re.compile(r"(?i)([?&;](?:access_token|refresh_token|id_token|token|api_key|apikey|api-key|key|sig|signature|"
                    r"password|passwd|pwd|secret|client_secret|auth|x-amz-signature|x-amz-credential|"
                    r"x-amz-security-token|x-goog-signature|x-goog-credential)=)([^&\s#\"'<>]{6,2048}+)")
_WEBHOOKS = re.compile(r"(hooks\.slack\.com/(?:services|workflows|triggers)/(?:[A-Za-z0-9]{1,32}+/){1,3})"
                       r"([A-Za-z0-9]{16,64}+)"
                       r"|(discord(?:app)?\.com/api/webhooks/\d{5,30}+/)([A-Za-z0-9_\-]{20,128}+)"
                       r"|(webhook\.office\.com/webhookb2/[^\s/]{1,200}+/IncomingWebhook/)([A-Za-z0-9]{16,64}+)")

# -- headers -------------------------------------------------------------------------------------

_SCHEME = re.compile(r"(?i)(?<![A-Za-z0-9])(bearer|basic)([ \t]{1,8}+)([A-Za-z0-9._~+/=\-]{12,4096}+)")
_AUTHZ = re.compile(r"(?i)(authorization[\"']?[ \t]{0,4}+[:=][ \t]{0,4}+[\"']?"
                    r"(?:(?:bearer|basic|token|digest|apikey|sso-key)[ \t]{1,4}+)?)([^\s\"',;]{8,4096}+)")

# -- files: crypt hashes (/etc/shadow, .htpasswd) ------------------------------------------------

_CRYPT = re.compile(r"(\$(?:1|2[abxy]|5|6|y|gy|7|apr1|argon2(?:id|i|d)\$[^$\s]{0,64}+)\$[^$\s:]{0,64}+\$)"
                    r"([./A-Za-z0-9+=]{16,512}+)")

# -- key = value ----------------------------------------------------------------------------------

# a key and its operator; the value is matched (bounded) only after a key that names a secret
_KEY_OP = re.compile(
    r"(?<![\w.\-$@/\\])"
    r"((?:/|-{0,2}+)[A-Za-z_][\w.\-]{0,79}+)"  # the key (possessive: scanned once), a flag's `-` or Windows' `/` first
    r"(\\?[\"']?[ \t]{0,8}+(?::=|=>|=|:)(?![:=/])[ \t]{0,8}+)"  # a closing quote, the operator
)
_VALUE = re.compile(r"(\\?\")([^\"\\\n]{1,512}+)\\?\"|(\\?')([^'\\\n]{1,512}+)\\?'|([^\s\"'`,;()\[\]{}<>\\]{1,512}+)"
                    r"|(`)([^`\n]{1,512}+)`")  # a value in a Markdown code span: `Password: `s3cr3t``
_K8S_ENV = re.compile(r"(name:[ \t]{0,8}+[\"']?)([\w.\-]{1,80}+)([\"']?[ \t]{0,8}+\r?\n[ \t]{0,40}+value:[ \t]{0,8}+)"
                      r"(?:\"([^\"\n]{1,512}+)\"|'([^'\n]{1,512}+)'|([^\s\"'#]{1,512}+))")
_XML = re.compile(r"<([A-Za-z_][\w.\-:]{0,63}+)>([^<\n]{1,512}+)</")

# a keyword in a key or a sentence; "key", "pw", "pin" only as whole words
_SPOKEN = re.compile(r"(?i)passw|pwd|passphrase|secret|token|api[ _\-]?key|access[ _\-]?key|private[ _\-]?key|"
                     r"credential|auth(?!or|ori|ent|enti)|(?<![a-z])(?:key|pw|sid)(?![a-z])")


def apply(text: str, low: str) -> str:
    """Every rule whose anchor occurs in `low` (text.lower()), in order."""
    text = _TOKENS.sub(MASK, text)
    if "." in text:
        text = _DISCORD.sub(_discord, text)
    if "://" in text:
        text = _userinfo(text)
        text = _WEBHOOKS.sub(_webhook, text)
    if "=" in text:
        text = _QUERY.sub(lambda m: m.group(1) + MASK, text)
    if "bearer" in low or "basic" in low:
        text = _SCHEME.sub(lambda m: m.group(0) if _plain_word(m.group(3)) else m.group(1) + m.group(2) + MASK, text)
    if "authorization" in low:
        text = _AUTHZ.sub(_authorization, text)
    if "$" in text:
        text = _CRYPT.sub(lambda m: m.group(1) + MASK, text)
    text = _command_lines(text, low)
    text = _assignments(text)
    if "</" in text:
        text = _XML.sub(_xml_element, text)
    if "value:" in text:
        text = _K8S_ENV.sub(_env_entry, text)
    return _spoken(text)


def _discord(m: re.Match[str]) -> str:
    """A token whose first part is the base64 of a 17-20 digit id; anything else is left."""
    import binascii

    part = m.group(1)
    try:
        bot = binascii.a2b_base64(part + "=" * (-len(part) % 4))
    except binascii.Error:
        return m.group(0)
    return MASK if 17 <= len(bot) <= 20 and bot.isdigit() else m.group(0)


def _userinfo(text: str) -> str:
    out, pos = [], 0
    at = text.find("://")
    while at >= 0:
        m = _USERINFO.match(text, at + 3)
        if m and m.group(2) != MASK:
            out.append(text[pos : m.start(2)] + MASK)
            pos = m.end(2)
        at = text.find("://", at + 3)
    out.append(text[pos:])
    return "".join(out)


def _webhook(m: re.Match[str]) -> str:
    for g in (1, 3, 5):
        if m.group(g):
            return m.group(g) + MASK
    return m.group(0)


# -- judging a key and a value ---------------------------------------------------------------------

_PASSWORD_WORDS = {"pass", "pw", "pwd", "passwd", "password", "passphrase", "passcode"}
_STRONG_WORDS = {"secret", "secrets", "token", "tokens", "credential", "credentials", "creds", "auth", "apikey",
                 "apikeys", "accesskey", "privatekey", "secretkey", "authkey"}
_STRONG_ENDS = ("secret", "token", "apikey", "accesskey", "privatekey", "secretkey", "authkey")
_WEAK_WORDS = {"key", "keys", "sig", "signature", "sessionid", "sid", "cookie", "salt", "hmac"}
# a key about a secret, not the secret: its length, its name, where it is, what checks it
_ABOUT = {"length", "len", "expiry", "expires", "expire", "expiration", "ttl", "timeout", "type", "types", "name",
          "names", "field", "fields", "header", "headers", "hdr", "count", "counts", "min", "max", "size", "url", "uri",
          "endpoint", "path", "file", "filename", "dir", "env", "var", "prompt", "label", "policy", "required",
          "enabled", "reset", "hint", "mode", "format", "algorithm", "alg", "regex", "pattern", "validator",
          "strength", "limit", "budget", "usage", "counter", "index", "idx", "lifetime", "age", "days", "seconds",
          "version", "scope", "scopes", "provider", "method", "kind", "class", "store", "backend", "manager", "mgr",
          "handler", "service", "config", "settings", "option", "options", "flag", "level", "location", "source",
          "prefix", "suffix", "chars", "characters", "hash", "hasher", "digest", "rounds", "iterations", "cost",
          "ref", "refs", "state", "status", "refresh", "rotation", "request", "response", "error", "errors",
          "exception", "test", "tests", "spec", "check", "valid", "invalid", "verify", "validation", "generator",
          "parser", "stream", "streaming", "id", "ids", "info", "data" + "base", "table", "column", "query"}
_ABOUT_FIRST = {"max", "min", "num", "total", "count", "n", "is", "has", "use", "enable", "disable", "show", "allow",
                "require", "validate", "check", "get", "set", "no", "with", "without", "skip", "on", "if", "test",
                "verify", "parse", "invalid", "expired", "missing", "hash", "hashed"}
_NOT_SECRETS = {"none", "null", "nil", "true", "false", "yes", "no", "on", "off", "undefined", "required", "optional",
                "string", "str", "int", "bool", "bytes", "self", "this", "bearer", "basic", "token", "password",
                "secret", "redacted", "empty", "default", "example", "sample", "dummy", "placeholder", "changeit",
                "include", "omit", "same-origin", "hidden", "masked", "unset", "disabled", "enabled"}
_REFERENCES = ("$", "%", "{{", "<", "os.", "process.", "env.", "getenv", "secrets.", "config.", "settings.", "self.",
               "this.", "vault:", "ref+", "***", "...", "xxx", "file:", "env:", "fd:", "stdin")
_PLACEHOLDERS = ("your-", "your_", "<your", "-here", "_here", "changeme", "replace-me", "replace_me",
                 "placeholder", "xxxx", "dummy", "redacted")
_CODE = frozenset("()[]{}<>=")


def _segments(key: str) -> list[str]:
    """`AccountKey` -> [account, key]; `client-key-data` -> [client, key, data]."""
    out, cur = [], ""
    for i, ch in enumerate(key):
        if not ch.isalnum():
            out.append(cur)
            cur = ""
            continue
        if ch.isupper() and cur and (cur[-1].islower() or (i + 1 < len(key) and key[i + 1].islower())):
            out.append(cur)
            cur = ""
        cur += ch
    out.append(cur)
    return [s.lower() for s in out if s]


def _word_kind(seg: str) -> str:
    if seg in _PASSWORD_WORDS or seg.endswith(("password", "passwd", "pwd", "passphrase")) or \
            seg.startswith(("password", "passwd")):
        return "password"
    if seg in _STRONG_WORDS or seg.endswith(_STRONG_ENDS) or seg.startswith("secret"):
        return "strong"
    if seg in _WEAK_WORDS or seg.endswith(("key", "signature")):
        return "weak"
    return ""


_KINDS: dict[str, str] = {}


def key_kind(key: str) -> str:
    """"password", "strong", "weak" or "" for what a key (or a keyword in a sentence) names:
    decided per word of the key (`DB_PASS`, `authToken`, `X-API-Key` -> api + key)."""
    kind = _KINDS.get(key)
    if kind is None:
        if len(_KINDS) > 4096:
            _KINDS.clear()
        kind = _KINDS[key] = _key_kind(key)
    return kind


def _key_kind(key: str) -> str:
    segs = _segments(key)
    if not segs or segs[0] in _ABOUT_FIRST:
        return ""
    if segs[-1] in _ABOUT:
        # An environment variable's last word can name a part of the secret (`API_KEY_SUFFIX`,
        # `GITHUB_TOKEN_PREFIX`, `SECRET_KEY_HASH`): still a secret, its value judged as a key's.
        env = key.isupper() and "_" in key and segs[-1] not in _ENV_ABOUT
        return "weak" if env and _segments_kind(segs[:-1]) else ""
    return _segments_kind(segs)


# what an environment variable's last word names when it is not the secret at all
_ENV_ABOUT = {"id", "ids", "name", "names", "file", "filename", "path", "dir", "url", "uri", "endpoint", "version",
              "env", "var", "header", "headers", "field", "type", "provider", "scope", "scopes"}


def _segments_kind(segs: list[str]) -> str:
    kinds = {_word_kind(s) for s in segs} | {_word_kind(a + b) for a, b in zip(segs, segs[1:])}
    for kind in ("password", "strong", "weak"):
        if kind in kinds:
            return kind
    return ""


def _literal(value: str) -> bool:
    """A value that could be a secret, not a reference to one (`$VAR`, `os.environ[...]`, `None`,
    `your-api-key-here`, `'%s:%s' % ...`)."""
    v = value.strip()
    low = v.lower()
    if len(v) < 4 or MASK in v or low in _NOT_SECRETS or low.startswith(_REFERENCES):
        return False
    if any(p in low for p in _PLACEHOLDERS) or "%s" in v or "{0}" in v or "{}" in v:
        return False
    return not set(v) <= set("*xX.-_ ")


def _identifier(v: str, *, plain: bool = False) -> bool:
    """`self.token`, `total_tokens` (and with `plain`, `user`): a name in code, not a literal."""
    parts = v.split(".")
    names = all(p and (p[0].isalpha() or p[0] == "_") and p.replace("_", "").isalpha() for p in parts)
    return names and (plain or "." in v or "_" in v)


def _has_digit(v: str) -> bool:
    return any(c.isalpha() for c in v) and any(c.isdigit() for c in v)


def _entropic(v: str) -> bool:
    """Random-looking: 16+ characters with letters and digits, not a path or a sentence."""
    return len(v) >= 16 and _has_digit(v) and v.count("/") < 3 and " " not in v


def _keyish(v: str) -> bool:
    """A short key next to a field named `key` (`{"key": "Hq7Wx2Lm9Rt4"}`, `key=Wm4Tz8Rq2Lp`
    in a build error): 9+ characters with 2+ letters and 2+ digits, no space, dot, slash or
    colon (a version, a file name, a path, a time), not a hex number (`_DD_SIGNATURE = 0x08074b50`)."""
    return len(v) >= 9 and sum(c.isdigit() for c in v) >= 2 and sum(c.isalpha() for c in v) >= 2 and \
        not set(v) & _NOT_KEYISH and not v.lower().startswith("0x")


_NOT_KEYISH = frozenset(" ./:\\\t")
# a single word after "the password is" that is prose, not the password
_PLAIN_ENDS = ("ed", "ing", "ly", "ble", "ive", "ent", "ant", "ous", "ful", "less", "ion", "ions", "ity", "ness",
               "ary", "ory", "ic", "al", "ate", "ise", "ize")
_PLAIN_WORDS = {"whatever", "anything", "something", "everything", "nothing", "another", "because", "through",
                "without", "between", "already", "always", "usually", "probably", "perhaps", "somewhere",
                "elsewhere", "plaintext", "cleartext", "correct", "incorrect", "unknown", "insecure", "mandatory",
                "visible", "sensitive", "different", "expires", "matches", "contains", "exactly", "longer",
                "shorter", "stronger", "weaker"}


def _odd_word(v: str) -> bool:
    """A lone word said to be a password ("the password is swordfishmarlin"): 7+ letters that
    do not read as an English adjective, participle or adverb ("the password is incorrect")."""
    low = v.lower()
    return len(v) >= 7 and v.isalpha() and low not in _PLAIN_WORDS and not low.endswith(_PLAIN_ENDS)


def looks_secret(value: str, kind: str, quoted: bool, spoken: bool = False, stated: bool = False) -> bool:
    """Whether a value next to a key (`key = value`) or a keyword in a sentence (`spoken`)
    of `kind` is worth masking. A sentence needs more (a mix of letters with digits or, for
    a password, symbols), since "the token expired" must stay; a password `stated` after a
    separator ("the password is X", "password: X") may be one unusual word."""
    if not kind or not _literal(value):
        return False
    v = value.strip()
    if not quoted and (_CODE & set(v.rstrip("=")) or "://" in v or _identifier(v)):
        return False
    if kind == "weak":
        return _entropic(v) or (not spoken and _keyish(v))
    if not spoken:
        return quoted or kind == "password" or not v.isdigit()
    if "/" in v or (quoted and _identifier(v.replace(" ", "_"), plain=True)):
        return False
    if kind == "password":
        return len(v) >= 6 and any(c.isalpha() for c in v) and (quoted or not v.isalpha() or (stated and _odd_word(v)))
    return len(v) >= 8 and _has_digit(v)


def _assignments(text: str) -> str:
    """`key = value` in any syntax: the value masked when the key names a secret and the
    value looks like one. A key without a kind consumes nothing, so `use this: token=...`
    is still seen."""
    out, pos = [], 0
    for m in _KEY_OP.finditer(text):
        if m.start() < pos:
            continue
        kind = key_kind(m.group(1).lstrip("-"))
        v = _VALUE.match(text, m.end()) if kind else None
        if v and _mask_value(text, m, v, kind):
            g = next(g for g in (2, 4, 7, 5) if v.group(g) is not None)
            out.append(text[pos : v.start(g)] + MASK)
            pos = v.end(g)
    out.append(text[pos:])
    return "".join(out)


def _mask_value(text: str, key: re.Match[str], v: re.Match[str], kind: str) -> bool:
    """An unquoted value after `=` that is a bare name is code (`token = tok`); after `:`
    with more words on its line it is prose (`pwd: expected bytes`), judged as a sentence."""
    quoted = v.group(5) is None
    value = next(v.group(g) for g in (2, 4, 7, 5) if v.group(g) is not None)
    if v.group(7) is not None and " " in value:
        return False  # a code span of words is a command or a phrase (`All tests pass: `npm test``)
    op = key.group(2).strip(" \t\\\"'")
    end = v.end()
    spoken = False
    if quoted:
        if text[end:].lstrip(" \t").startswith(("%", ".format(")):
            return False  # a format string: `"%s:%s" % (user, password)`
    else:
        if text[end : end + 1] in ("(", "[") or (op == "=" and _identifier(value, plain=True)):
            return False
        eol = text.find("\n", end)
        rest = text[end : eol if eol >= 0 else len(text)].strip()
        spoken = op == ":" and bool(rest) and not rest.startswith(("#", "//", ",", "}", ";"))
    name = key.group(1).lstrip("-").lower()
    stated = spoken and ("passw" in name or "passphrase" in name)  # `password: X`, not `First pass: X`
    return name not in value.lower() and looks_secret(value, kind, quoted, spoken, stated)


def _xml_element(m: re.Match[str]) -> str:
    kind = key_kind(m.group(1).rsplit(":", 1)[-1])
    if kind and looks_secret(m.group(2), kind, True):
        return "<" + m.group(1) + ">" + MASK + "</"
    return m.group(0)


def _env_entry(m: re.Match[str]) -> str:
    """A Kubernetes / compose env entry: `- name: DB_PASS` then `value: "..."`."""
    g = 4 if m.group(4) is not None else 5 if m.group(5) is not None else 6
    if looks_secret(m.group(g), key_kind(m.group(2)), g != 6):
        return m.string[m.start() : m.start(g)] + MASK + m.string[m.end(g) : m.end()]
    return m.group(0)


def _plain_word(v: str) -> bool:
    """`Basic functionality`, `Basic Multilingual`: a word after "basic" / "bearer", not a credential."""
    v = v.rstrip(".,;:!?")
    return v.isalpha() and (v[1:].islower() or v.isupper())


def _authorization(m: re.Match[str]) -> str:
    v = m.group(2)
    if v == MASK or not _literal(v) or _CODE & set(v.rstrip("=")) or _identifier(v):
        return m.group(0)
    return m.group(1) + MASK


# -- spoken: "the password is X", "signing key 4b9d..." ---------------------------------------------

WINDOW = 120  # characters after the keyword looked at
WORDS = 8
_SEPARATORS = {"is", "was", "are", "be", ":", "->", "=>", "-", "\u2014", "\u2013", "/", "="}


def _spoken(text: str) -> str:
    out, pos, word_end = [], 0, 0
    for m in _SPOKEN.finditer(text):
        if m.start() < max(pos, word_end):
            continue  # inside a masked span, or another keyword of the word just judged
        start, end = m.start(), m.end()
        while start > 0 and start > m.start() - 64 and not text[start - 1].isspace():
            start -= 1
        while end < len(text) and end < m.end() + 64 and not text[end].isspace():
            end += 1
        word_end = end
        raw = text[start:end].strip("\"'`,;()[]{}<>")
        if raw.endswith((".", "!", "?")) or "=" in raw or any(c in raw[:-1] for c in ":") and "://" not in raw:
            continue  # a sentence's end, or `KEY=value` / `key:value` in one word (the assignment rule's)
        kind = key_kind(raw.strip(":")) if raw.strip(":").lower() != m.group(0).lower() else key_kind(m.group(0))
        said = "passw" in raw.lower() or "passphrase" in raw.lower()  # not "pass:", "pwd"
        span = _candidate(text, end, kind, said) if kind else None
        if span:
            out.append(text[pos : span[0]] + MASK)
            pos = span[1]
    out.append(text[pos:])
    return "".join(out)


def _next_word(text: str, i: int, limit: int) -> tuple[int, int, bool]:
    """(start, end, quoted) of the word at i: a quoted string counts as one word."""
    if text[i] in "\"'":
        close = text.find(text[i], i + 1, min(len(text), i + 82))
        if close > i:
            return i, close + 1, True
    j = i
    while j < limit and not text[j].isspace():
        j += 1
    return i, j, False


def _candidate(text: str, pos: int, kind: str, said: bool = False) -> tuple[int, int] | None:
    """The span of the secret-looking word right after the keyword, or right after a
    separator ("is", ":", "->") among the next few words of the same sentence; None.
    The next line is looked at only when the keyword ends its line. `said`: the keyword is
    "password" or "passphrase" itself, whose value after "is" or ":" may be one odd word."""
    eol = text.find("\n", pos)
    if eol >= 0 and not text[pos:eol].strip():
        eol = text.find("\n", eol + 1)
    limit = min(len(text), pos + WINDOW, eol if eol >= 0 else len(text))
    after_sep, stated, i = True, False, pos
    for n in range(WORDS):
        while i < limit and text[i].isspace():
            i += 1
        if i >= limit:
            return None
        a, b, quoted = _next_word(text, i, limit)
        word = text[a:b]
        if (n == 0 and word == "=") or MASK in word:
            return None  # `token = ...`: code, the assignment rule's; or its value is masked already
        core = word[1:-1] if quoted else word.strip("\"'`,;:.()[]{}<>!?")
        if after_sep and core and looks_secret(core, kind, quoted, spoken=True, stated=stated):
            at = a + 1 if quoted else a + word.find(core)
            return at, at + len(core)
        if word[:1] == "(" and word[-1:] == ")" and len(word) < 24:
            i = b
            continue  # "(hex)", "(copy now)": an aside
        if word.endswith((".", "!", "?")) and not quoted:
            return None  # the sentence ended
        low = word.lower().strip("(),")
        after_sep = low in _SEPARATORS or (n == 0 and low == "to") or (
            word.endswith((":", "=", "):")) and not word.endswith(("==", "!=", "<=", ">=")))
        stated = said and after_sep and (low in ("is", "was", ":", "=") or low.endswith((":", "=")))
        i = b
    return None


# -- command lines -------------------------------------------------------------------------------

_MYSQL = ("mysql", "mysqldump", "mysqladmin", "mariadb", "mariadb-dump", "mysqlimport", "mysqlcheck", "mysqlshow",
          "sshpass")
_FLAG_VALUE = {"--password", "--pass", "--passwd", "--pwd", "--token", "--api-key", "--apikey", "--secret",
               "--client-secret", "--auth-token", "--access-token", "--passphrase"}
_SHORT_P = ("sshpass", "docker", "podman", "nerdctl", "helm", "oras", "skopeo", "buildah", "mongo", "mongosh",
            "mongodump", "mongorestore", "mongoexport", "mongoimport")
# SQL Server's clients take the password as `-P PW` (capital; `-p` is another option there)
_CAPITAL_P = ("sqlcmd", "bcp", "osql", "isql")
_COMMAND_WORDS = ("mysql", "mariadb", "sshpass", "redis-cli", "login", "htpasswd", "lftp", "pass:", "-u", "--user",
                  "--pass", "--token", "--secret", "--api-key", "--auth", "--client-secret", "--access-token", "mongo",
                  *_CAPITAL_P)


def _command_lines(text: str, low: str) -> str:
    if not any(w in low for w in _COMMAND_WORDS):
        return text
    lines = text.split("\n")
    changed = False
    for n, line in enumerate(lines):
        if any(w in line.lower() for w in _COMMAND_WORDS):
            new = _command_line(line)
            if new != line:
                lines[n], changed = new, True
    return "\n".join(lines) if changed else text


def _words(line: str) -> list[tuple[int, int]]:
    spans, i = [], 0
    while i < len(line):
        while i < len(line) and line[i].isspace():
            i += 1
        j = i
        while j < len(line) and not line[j].isspace():
            j += 1
        if j > i:
            spans.append((i, j))
        i = j
    return spans


def _tool(word: str, first: bool) -> str:
    """The program a word names: `/usr/bin/mysql`, and the line's first word after a diff's
    marker (`+mysql`), or a word after `$(`, a backtick, `;`, `|`, `&`, `(` or a quote."""
    if first and word[:1] in "+-":
        word = word[1:]
    cut = max(word.rfind(c) for c in "(`;|&\"'")
    return word[cut + 1 :].rsplit("/", 1)[-1]


def _value_span(line: str, span: tuple[int, int]) -> tuple[int, int] | None:
    """A password's span without its quotes or a shell's closing `)`, backtick, `;`, `|`, `&`;
    None for a variable (`-p$DB_PASS`, `-p"$PW"`): a reference, not the password."""
    a, b = span
    while b > a and line[b - 1] in ")`;|&":
        b -= 1
    a, b = _unquoted(line, (a, b))
    return None if line[a : a + 1] == "$" else (a, b)


def _command_line(line: str) -> str:
    """Mask the passwords of one command line: `-pPW` (mysql), `-p PW` (sshpass, docker
    login), `-P PW` (sqlcmd, bcp), `-a PW` (redis-cli), `--password PW`, `-u user:pw`, `pass:PW`, `htpasswd -b`.
    The command may follow a diff's marker, `$(`, a backtick, `;`, `|`, `&&` or `sh -c "`."""
    spans = _words(line)
    words = [line[a:b] for a, b in spans]
    tools = {_tool(w, k == 0) for k, w in enumerate(words)}
    masks: list[tuple[int, int] | None] = []
    for k, w in enumerate(words):
        nxt = spans[k + 1] if k + 1 < len(spans) else None
        if w in _FLAG_VALUE or (w == "-p" and tools & set(_SHORT_P)) or (w == "-a" and "redis-cli" in tools) or (
                w == "-P" and tools & set(_CAPITAL_P)):
            if nxt and not words[k + 1].startswith("-"):
                masks.append(_value_span(line, nxt))
        elif w.startswith("-p") and len(w) > 2 and not w.startswith("--") and tools & set(_MYSQL) and w[2:3] != "o":
            masks.append(_value_span(line, (spans[k][0] + 2, spans[k][1])))
        elif w in ("-u", "--user", "-U") and nxt and tools & {"curl", "wget", "lftp", "http", "xh"}:
            masks += _after_colon(line, nxt, ":,")
        elif w.startswith(("--user=", "-u")) and len(w) > 3 and tools & {"curl", "wget"}:
            masks += _after_colon(line, spans[k], ":")
        elif w.startswith(("pass:", "'pass:", '"pass:')) and k and words[k - 1].startswith("-pass"):
            masks.append((spans[k][0] + w.find("pass:") + 5, spans[k][1]))
    if "htpasswd" in tools and "-b" in words and len(words) >= 2:
        masks.append(_unquoted(line, spans[-1]))
    for a, b in sorted({m for m in masks if m}, reverse=True):
        if b > a and line[a:b] != MASK:
            line = line[:a] + MASK + line[b:]
    return line


def _unquoted(line: str, span: tuple[int, int]) -> tuple[int, int]:
    a, b = span
    if b - a >= 2 and line[a] in "\"'" and line[b - 1] == line[a]:
        return a + 1, b - 1
    return a, b


def _after_colon(line: str, span: tuple[int, int], seps: str) -> list[tuple[int, int]]:
    a, b = _unquoted(line, span)
    word = line[a:b]
    at = min((word.find(s) for s in seps if s in word), default=-1)
    return [(a + at + 1, b)] if at >= 0 and b > a + at + 1 else []
