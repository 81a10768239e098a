"""Secrets never reach disk: keys, tokens and passwords are masked before anything is written.

Families (measured by bench/redaction_quality.py on bench/redaction_corpus.py): private key
material with or without its armour lines (a body may start after other text on its line),
provider tokens by their prefixes (Discord's by its shape, its id decoded), passwords in
URLs, query strings, webhook URLs and Authorization headers, credentials in command lines
(`-pPW`, `-u user:pw`, `sshpass -p`; after a diff's marker, `$(`, a backtick, `;`, `|`, `&&`),
credential files (`.pgpass`, crypt hashes, .netrc), key files by name (every base64 line of
a `.pem`, `.key` or `id_rsa`, `scrubber`), `key = value` assignments in every common syntax
whose key names a secret (an environment name even when its last word is `_SUFFIX`), and the
spoken form ("the password is X") when the value looks like one.

Bounded work whatever the input (docs/architecture.md, "Process model"): every pattern is
linear. Each variable run is possessive (`{m,n}+`, no backtracking) and starts only where
a run of its characters starts (a negative lookbehind), so a long run of key-like text is
scanned once, not once per position; armour lines and spoken forms are found by plain
substring search and examined in a bounded window. Callers clip a field before redacting
it (`clip_then_redact`). The text is first scanned for literal anchors, and `re` is
imported only when one is present: most tool calls pay nothing.
"""

from __future__ import annotations

from engram.text import MASK

TYPE_CHECKING = False  # `typing` costs the hook ~20 ms; annotations only
if TYPE_CHECKING:
    from typing import Callable

MARGIN = 256  # clip_then_redact: a secret cut by the clip is still seen whole

# Anchors: lower-case ones are looked for in text.lower(), the others in the text as is.
_TOKEN_ANCHORS = ("AKIA", "ASIA", "sk-", "k_live_", "k_test_", "whsec_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
                  "github_pat_", "glpat-", "gldt-", "glrt-", "glptt-", "xox", "xapp-", "AIza", "ya29.", "GOCSPX-",
                  "eyJ", "npm_", "pypi-AgE", "hf_", "_v1_", "shpat_", "shpss_", "shpca_", "shppa_", "dapi", "gsk_",
                  "r8_", "hvs.", "hvb.", "dp.", "PMAK-", "lin_api_", "ntn_", "SG.", "key-", "AGE-SECRET-KEY-", ":AA")
_KEYWORDS = ("passw", "pwd", "passphrase", "secret", "token", "apikey", "api_key", "api-key", "api key",
             "access_key", "accesskey", "access-key", "access key", "private_key", "privatekey", "private-key",
             "private key", "credential", "auth", "_pass", "-pass", ".pass", "pass=", "pass:", 'pass"', "pass'",
             "pw ", "pw:", "pw=", "key=", "key:", 'key"', "key'", "key ", "sessionid", "sid=", "cookie",
             "signature", "sig=", "hmac", "salt")
_COMMAND_ANCHORS = ("mysql", "mariadb", "sshpass", "redis-cli", " login ", "htpasswd", "lftp", "pass:", "-u ",
                    "--user", "--pass", "--token", "--secret", "--api-key", "sqlcmd", "bcp", "osql", "isql")
_OTHER_ANCHORS = ("://", "bearer", "basic ", "authorization", "hooks.slack.com", "/api/webhooks/",
                  "webhook.office.com", "$1$", "$2", "$5$", "$6$", "$y$", "$apr1$", "$argon2")


def _split_case(anchors: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return tuple(a for a in anchors if a == a.lower()), tuple(a for a in anchors if a != a.lower())


_LOW_ANCHORS, _CASED_ANCHORS = _split_case(_TOKEN_ANCHORS + _KEYWORDS + _COMMAND_ANCHORS + _OTHER_ANCHORS)


def redact(text: str) -> str:
    """Return text with every recognised secret replaced by [REDACTED]."""
    if not text:
        return text
    text = _pgpass_lines(_key_lines(text))
    low = text.lower()
    if not (any(a in low for a in _LOW_ANCHORS) or any(a in text for a in _CASED_ANCHORS) or _dotted_token(text)):
        return text
    from engram.redact import rules

    return rules.apply(text, low)


def clip_then_redact(text: str, limit: int) -> tuple[str, int]:
    """(redacted text of at most `limit` characters: head and tail around a `[...]` line,
    the original length or 0 when nothing was cut). The text is cut before it is redacted
    (bounded work), with MARGIN characters to spare around each cut, so a secret that
    straddles a cut is seen whole and masked. The spare is dropped from the redacted text's
    far end: a secret masked earlier shortens the text, so cutting at `half` would keep part
    of the spare, where the window's own cut may have split a token too short to match."""
    if len(text) <= limit:
        return redact(text), 0
    half = limit // 2
    head = redact(text[: half + MARGIN])[:-MARGIN][:half]
    tail = redact(text[-(limit - half + MARGIN):])[MARGIN:][-(limit - half):]
    return head + "\n[...]\n" + tail, len(text)


def _dotted_token(text: str) -> bool:
    """Whether the text may hold a Discord bot token (`M...{23-28}.xxxxxx.{27-40}`), by plain
    string search: a dot with another 7 characters on and an M, N or O 23-28 characters before."""
    i = text.find(".", 23)
    while i >= 0:
        if text[i + 7 : i + 8] == ".":
            first = text[max(0, i - 28) : i - 22]
            if "M" in first or "N" in first or "O" in first:
                return True
        i = text.find(".", i + 1)
    return False


# -- key material: armour lines and bare base64 bodies (plain string work, no `re`) ------------

_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")
# the first characters of DER private keys (PKCS#1, PKCS#8, EC) and of OpenSSH's format
_KEY_STARTS = ("MIIE", "MIIC", "MIIJ", "MIIG", "MIIB", "MHcCAQEE", "MC4CAQAw", "b3BlbnNzaC1rZXktdjE")
_KEY_MARKS = ("AgEAAo", "IBADAN", "CAQEE", "CAQAw", "rZXktdjE")


def _body_line(line: str) -> bool:
    """A line of base64 as key bodies are written (40-100 characters, mixed case and digits);
    a diff marker in front is allowed."""
    s = line.strip()
    if s[:1] in "+- " and len(s) > 1 and s[1] not in "+-":
        s = s[1:].strip()
    if not 40 <= len(s) <= 100 or not set(s) <= _B64:
        return False
    return any(c.isdigit() for c in s) and any(c.isupper() for c in s) and any(c.islower() for c in s)


def _armour(line: str) -> str:
    """"begin" / "end" for a private key's armour line, "other" for any other armour line, ""."""
    if "-----BEGIN " in line or "-----END " in line:
        if "PRIVATE KEY" in line:
            return "begin" if "-----BEGIN " in line else "end"
        return "other"
    return ""


def _key_lines(text: str) -> str:
    """Mask private key material line by line: armoured blocks, bodies without armour (a
    run of 2+ base64 lines, one that starts like a DER private key or OpenSSH's format,
    also after other text on its line, or a field that is one full body line), PuTTY key lines."""
    if "-----" not in text and "\n" not in text and len(text) < 40:
        return text
    lines = text.split("\n")
    out, i, changed = [], 0, False
    other = False  # inside an armoured block that is not a private key (a certificate)
    starts = any(s in text for s in _KEY_STARTS)
    while i < len(lines):
        kind = _armour(lines[i])
        if kind == "other":
            other = "-----BEGIN " in lines[i]
            out.append(lines[i])
            i += 1
            continue
        j, run = _body_run(lines, i + (1 if kind == "begin" else 0), kind == "begin")
        ends = j < len(lines) and _armour(lines[j]) == "end"
        if kind or ends or (not other and (run >= 2 or (run == 1 and (_key_start(lines[i]) or _whole_line(lines))))):
            last = j + (1 if ends else 0)
            if out and kind != "begin":  # the body's first line may follow other text: "Done. MIIE..."
                out[-1] = _mask_last_word(out[-1])
            out.append(_masked_block(lines[i:last]))
            i, changed = last, True
            continue
        at = _key_word(lines[i]) if starts and not other else -1
        if at >= 0:
            line, last = _mask_key_word(lines, i, at)
            out.append(line)
            i, changed = last, True
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out) if changed else text


def _whole_line(lines: list[str]) -> bool:
    """A field that is nothing but one full line of a key body: 64 characters (PEM's width)
    or 70 (OpenSSH's)."""
    return len(lines) == 1 and len(lines[0].strip()) in (64, 70)


def _key_word(line: str) -> int:
    """Where a private key's body starts inside a line ("note: b3BlbnNzaC1rZXktdjE..."): a
    word of 40+ base64 characters that starts like one (`_key_start`); -1 when none does."""
    for start in _KEY_STARTS:
        at = line.find(start)
        while at >= 0:
            if (at == 0 or line[at - 1] not in _B64) and _key_start(line[at : at + 24]) and \
                    _b64_end(line, at) - at >= 40:
                return at
            at = line.find(start, at + 1)
    return -1


def _b64_end(line: str, at: int) -> int:
    """The end of the run of base64 at `at`, across JSON's `\\n` escapes (a key in one string)."""
    end = at
    while end < len(line) and (line[end] in _B64 or line[end] == "\\"):
        end += 1
    return end


def _mask_key_word(lines: list[str], i: int, at: int) -> tuple[str, int]:
    """(line i with the key body from `at` masked, the index after the body): a body that
    ends its line goes on over the next lines of base64 and an END line."""
    end = _b64_end(lines[i], at)
    j = i + 1
    if not lines[i][end:].strip():
        j, _ = _body_run(lines, i + 1, False)
        if j == i + 1 and j < len(lines) and _tail_line(lines[j]):
            j += 1
        if j < len(lines) and _armour(lines[j]) == "end":
            j += 1
    return lines[i][:at] + PEM_MASK + lines[i][end:], j


def _body_run(lines: list[str], j: int, armoured: bool) -> tuple[int, int]:
    """(index after the run of key-body lines starting at j, its length). After a BEGIN line
    blank lines and headers belong to it too; after a full body line, a short last line."""
    n = 0
    while j < len(lines):
        line = lines[j]
        if _body_line(line) or ((n or armoured) and _tail_line(line)) or (armoured and _header_line(line)):
            j, n = j + 1, n + 1
        else:
            break
    return j, n


def _tail_line(line: str) -> bool:
    """The short last line of a base64 body ("...Tg6==")."""
    s = line.strip().lstrip("+")
    return 4 <= len(s) <= 100 and set(s) <= _B64 and (s.endswith("=") or (
        any(c.isdigit() for c in s) and any(c.isupper() for c in s) and any(c.islower() for c in s)))


def _header_line(line: str) -> bool:
    """Inside an armoured block: a blank line or a header (`Proc-Type: 4,ENCRYPTED`)."""
    s = line.strip().lstrip("+")
    return not s or (":" in s and len(s) < 80 and "-----" not in s)


def _mask_last_word(line: str) -> str:
    head, _, word = line.rstrip().rpartition(" ")
    return (head + " " if head else "") + MASK if head and _body_line(word) else line


def _key_start(line: str) -> bool:
    s = line.strip().lstrip("+-").strip()
    return s.startswith(_KEY_STARTS) and any(m in s[:24] for m in _KEY_MARKS)


PEM_MASK = "-----BEGIN PRIVATE KEY-----" + MASK + "-----END PRIVATE KEY-----"


def _masked_block(block: list[str]) -> str:
    """One masked line for a key block, keeping the text before its armour line."""
    first = block[0]
    if len(block) == 1 and "-----BEGIN " in first:  # all in one line (a JSON string's "\\n" escapes)
        return _mask_inline_pem(first)
    at = first.find("-----BEGIN ")
    return (first[:at] if at > 0 else "") + PEM_MASK


def _mask_inline_pem(line: str) -> str:
    """A PEM block written inside one line (JSON's "\\n" escapes): mask from BEGIN to END."""
    out, pos = [], 0
    while True:
        start = line.find("-----BEGIN ", pos)
        if start < 0:
            break
        end = line.find("-----END ", start)
        close = line.find("-----", end + 9) if end >= 0 else -1
        stop = close + 5 if close >= 0 else len(line)
        out.append(line[pos:start] + PEM_MASK)
        pos = stop
    out.append(line[pos:])
    return "".join(out)


def _pgpass_lines(text: str) -> str:
    """`.pgpass` lines (`host:port:database:user:password`): the last field is a password."""
    if text.count(":") < 4:
        return text
    lines = text.split("\n")
    changed = False
    for n, line in enumerate(lines):
        if line.count(":") < 4:
            continue
        words = line.split(" ")
        for k, word in enumerate(words):
            fields = word.split(":")
            if len(fields) == 5 and all(fields) and (fields[1].isdigit() or fields[1] == "*") and fields[4] != MASK:
                words[k] = word[: word.rfind(":") + 1] + MASK
                changed = True
        lines[n] = " ".join(words)
    return "\n".join(lines) if changed else text


# -- .env files ---------------------------------------------------------------------------------


def redact_env_file(text: str) -> str:
    """For files named .env*: every value is a secret, whatever its key (`K=V`, `export K=V`, `K: V`)."""
    out = []
    for line in redact(text).split("\n"):
        out.append(_env_line(line))
    return "\n".join(out)


def _env_line(line: str) -> str:
    marker = line[:1] if line[:1] in "+- " else ""
    body = line[len(marker):]
    stripped = body.lstrip()
    if not stripped or stripped.startswith("#"):
        return line
    lead = body[: len(body) - len(stripped)]
    if stripped.startswith("export "):
        lead, stripped = lead + "export ", stripped[7:].lstrip()
    for sep in ("=", ": "):
        key, found, value = stripped.partition(sep)
        if found and key.strip() and " " not in key.strip() and value.strip() and value.strip() != MASK:
            return marker + lead + key + sep + MASK
    return line


def is_env_file(path: str) -> bool:
    base = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base.startswith(".env") or base.endswith(".env")


# -- key files (.pem, id_rsa, ...) ------------------------------------------------------------

_KEY_SUFFIXES = (".pem", ".key", ".p8", ".ppk", ".der", ".pkcs8")
_KEY_NAMES = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk")


def is_key_file(path: str) -> bool:
    """A file that holds key material by its name: `.pem`, `.key`, `id_rsa`, ..."""
    base = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base.endswith(_KEY_SUFFIXES) or base in _KEY_NAMES


def redact_key_file(text: str) -> str:
    """For key files: every line of base64 is key material, even a fragment of a body line
    without its armour (an edit may show only the middle of the file); armour lines, headers
    and a diff's own lines stay."""
    out = []
    for line in redact(text).split("\n"):
        marker = line[:1] if line[:1] in "+- " else ""
        body = line[len(marker):].strip()
        out.append(marker + MASK if len(body) >= 8 and set(body) <= _B64 and body != MASK else line)
    return "\n".join(out)


def scrubber(path: str) -> Callable[[str], str]:
    """The redaction a file's text needs, by its name: `.env` files, key files, any other."""
    return redact_env_file if is_env_file(path) else redact_key_file if is_key_file(path) else redact
