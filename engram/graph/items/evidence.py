"""What a knowledge item needs of the project's files, and whether it still has it.

An item is served as current only while its evidence holds (docs/curation.md, "Evidence
that expires"). At consolidation the worker records, per item, the needs that held then
(`needs` filtered by `holds`): a command's Makefile target, package.json script or the
file it runs; a file role's file and the hash of the head its role was read from; a
leftover file's path; the files a failing check was about. At retrieval the hook checks
each recorded need again (`broken`) with stats and small bounded reads (engram/fsio.py,
inside the project, no symlinks followed out of it), at most MAX_READS files per
retrieval: a need that cannot be checked within that counts as holding. A need is
recorded only when it held at consolidation, so nothing is expired for what engram could
never see (a `make` run from a subfolder whose Makefile the root lacks).

Standard library only (the hook imports it); no `re`, no `shlex`.
"""

from __future__ import annotations

import os

from engram import jsonio
from engram.hashing import sha256_hex

MAX_READS = 48  # files read per retrieval at most (each bounded below)
MAX_BYTES = 256 * 1024  # a Makefile or package.json larger than this is not parsed (the need holds)
HEAD_BYTES = 4000  # the head a file's role is read from (capture/file_role.HEAD_CHARS)
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_SCRIPT_RUNNERS = {"npm": ("run", "run-script"), "pnpm": ("run",), "yarn": ("run",), "bun": ("run",)}
_NPM_LIFECYCLE = ("test", "start", "stop", "restart")
_YARN_BUILTINS = {"add", "install", "remove", "upgrade", "init", "info", "why", "config", "cache", "global", "link",
                  "unlink", "login", "logout", "publish", "version", "workspaces", "workspace", "dlx", "exec", "create",
                  "list", "outdated", "pack", "audit", "bin", "import", "licenses", "owner", "tag", "team", "set", "up",
                  "node", "patch", "plugin", "rebuild", "search", "constraints", "explain", "npm", "dedupe", "i"}
_PATH_EXT = (".py", ".sh", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".bash", ".zsh", ".ps1", ".go")
_SEPARATORS = ("&&", "||", ";", "|")


class Reader:
    """Bounded, cached reads of the project's files for one retrieval or consolidation.

    With `log`, each file's `fsio.fingerprint` goes there by absolute path, taken before its
    first access: what a retrieval's screen depended on, for the SessionStart context cache
    (retrieve/start/cache.py) to check again."""

    def __init__(self, root: str, max_reads: int = MAX_READS, log: dict[str, list[int] | None] | None = None):
        self.root = os.path.realpath(root)
        self.left = max_reads
        self.cache: dict[tuple[str, int], bytes | None | bool] = {}
        self.log = log

    def _note(self, path: str) -> None:
        if self.log is not None and path not in self.log:
            from engram.fsio import fingerprint

            self.log[path] = fingerprint(path)

    def path(self, rel: str) -> str | None:
        """The absolute path of a project-relative one; None when it would leave the project."""
        if not rel or os.path.isabs(rel) or ".." in rel.replace("\\", "/").split("/"):
            return None
        return os.path.join(self.root, rel)

    def exists(self, rel: str) -> bool | None:
        """Whether the file exists (None: out of budget or out of bounds: unknown)."""
        path = self.path(rel)
        if path is None:
            return None
        key = (rel, -1)
        if key not in self.cache:
            self._note(path)
            self.cache[key] = os.path.lexists(path)
        return bool(self.cache[key])

    def read(self, rel: str, limit: int) -> bytes | None | bool:
        """Up to `limit` bytes; None when it is missing or not a regular file; False when the
        budget is spent or the path leaves the project (unknown)."""
        from engram.fsio import read_regular

        path = self.path(rel)
        if path is None:
            return False
        key = (rel, limit)
        if key not in self.cache:
            if self.left <= 0:
                return False
            self.left -= 1
            self._note(path)
            self.cache[key] = read_regular(path, limit + 1, within=self.root)
        return self.cache[key]


# -- what an item needs --------------------------------------------------------------------


def _words(segment: str) -> list[str]:
    return [w.strip("'\"") for w in segment.split()]


def _segments(command: str) -> list[list[str]]:
    text = str(command or "")
    for sep in _SEPARATORS:
        text = text.replace(sep, "\n")
    return [w for w in (_words(s) for s in text.split("\n")) if w]


def _looks_like_path(word: str) -> bool:
    if word.startswith("-") or "=" in word or any(ch in word for ch in "*?$~`<>(){}"):
        return False
    return word.startswith("./") or ("/" in word and "://" not in word) or word.endswith(_PATH_EXT)


def command_needs(command: str) -> list[list[str]]:
    """[["make", makefile dir, target] | ["script", package.json dir, name] | ["file", path]]
    of one command line: what must still be there for it to run as it did."""
    out: list[list[str]] = []
    for words in _segments(command):
        while words and "=" in words[0] and not words[0].startswith("-"):
            words = words[1:]  # VAR=value assignments
        if not words:
            continue
        prog, rest = words[0], words[1:]
        if prog == "make":
            out += _make_needs(rest)
        elif prog in _SCRIPT_RUNNERS:
            out += _script_needs(prog, rest)
        elif _looks_like_path(prog):
            out.append(["file", os.path.normpath(prog)])
        out += [["file", os.path.normpath(w.split("::", 1)[0])] for w in rest
                if prog != "make" and _looks_like_path(w.split("::", 1)[0])]
    return [n for i, n in enumerate(out) if n not in out[:i]]


def _make_needs(args: list[str]) -> list[list[str]]:
    folder, targets, skip = ".", [], False
    for i, w in enumerate(args):
        if skip:
            skip = False
            continue
        if w == "-C" and i + 1 < len(args):
            folder, skip = os.path.normpath(args[i + 1]), True
        elif w in ("-f", "--file", "-j", "-l", "-o", "-W", "-I"):
            return []  # another makefile, or options whose value follows: not read here
        elif not w.startswith("-") and "=" not in w:
            targets.append(w)
    return [["make", folder, t] for t in targets] or [["make", folder, ""]]


def _script_needs(prog: str, args: list[str]) -> list[list[str]]:
    words = [w for w in args if not w.startswith("-")]
    if not words:
        return []
    if words[0] in _SCRIPT_RUNNERS[prog] and len(words) > 1:
        return [["script", ".", words[1]]]
    if prog == "npm" and words[0] in _NPM_LIFECYCLE:
        return [["script", ".", words[0]]]
    if prog in ("yarn", "pnpm") and words[0] not in _YARN_BUILTINS and words[0] not in _SCRIPT_RUNNERS[prog]:
        return [["script", ".", words[0]]]
    return []


def item_commands(node: dict) -> list[str]:
    """The command lines an item stands for: a command's own, a gotcha's way round, a
    failing check's command."""
    data = node.get("data") if isinstance(node.get("data"), dict) else {}
    kind = data.get("kind")
    if kind == "command":
        return [str(node.get("name") or "")]
    if kind == "command_run":
        return [str(data.get("command") or "")]
    if kind == "gotcha" and data.get("worked"):
        return [str(data["worked"])]
    key = str(data.get("key") or "")
    if kind == "unfinished" and key.startswith("check:"):
        return [key[len("check:"):]]
    return []


def needs(node: dict, reader: Reader) -> list[list[str]]:
    """Every need of an item that holds now (what the worker records as its evidence)."""
    data = node.get("data") if isinstance(node.get("data"), dict) else {}
    out: list[list[str]] = []
    for command in item_commands(node):
        out += command_needs(command)
    if data.get("kind") == "file" and node.get("affected_files"):
        files = node["affected_files"]
        path = files[0] if isinstance(files, list) and files else ""
        head = reader.read(path, HEAD_BYTES) if isinstance(path, str) and path else None
        if isinstance(head, bytes):
            out.append(["head", path, sha256_hex(head[:HEAD_BYTES])])
    key = str(data.get("key") or "")
    if data.get("kind") == "unfinished" and key.startswith("leftover:"):
        out.append(["file", key[len("leftover:"):]])
    return [n for n in out if holds(n, reader, data) is not False]


# -- whether it still holds ----------------------------------------------------------------


def holds(need: list[str], reader: Reader, data: dict | None = None) -> bool | None:
    """True / False, or None when it cannot be told cheaply (then it is not held against the item)."""
    kind = need[0] if need else ""
    if kind == "file":
        return reader.exists(need[1])
    if kind == "make":
        return _has_target(reader, need[1], need[2])
    if kind == "script":
        return _has_script(reader, need[1], need[2])
    if kind == "head":
        return _same_role(reader, need[1], need[2], (data or {}).get("role"))
    if kind == "same":
        return _same_content(reader, need[1], need[2])
    return None


def same_needs(paths: list[str], reader: Reader) -> list[list[str]]:
    """[["same", path, content hash]] of the files a failing check was about (the session's
    writes): while one of them is as it was, the failure is as it was."""
    out = []
    for path in paths:
        raw = reader.read(path, MAX_BYTES)
        if isinstance(raw, bytes) and len(raw) <= MAX_BYTES:
            out.append(["same", path, sha256_hex(raw)])
    return out


def _same_content(reader: Reader, path: str, digest: str) -> bool | None:
    raw = reader.read(path, MAX_BYTES)
    if raw is False or (raw is not None and len(raw) > MAX_BYTES):
        return None
    return raw is not None and sha256_hex(raw) == digest


def _has_target(reader: Reader, folder: str, target: str) -> bool | None:
    for name in MAKEFILES:
        rel = os.path.normpath(os.path.join(folder, name))
        raw = reader.read(rel, MAX_BYTES)
        if raw is False:
            return None
        if raw is None:
            continue
        if len(raw) > MAX_BYTES:
            return None
        return True if not target else _target_in(raw.decode("utf-8", "replace"), target)
    return False  # no makefile at all


def _target_in(text: str, target: str) -> bool | None:
    """Whether the makefile defines `target`; None when it could come from elsewhere (an
    include, a pattern rule, a variable in a target line)."""
    unsure = False
    for line in text.replace("\\\n", " ").split("\n"):
        if not line or line[0] in "\t#":
            continue
        stripped = line.strip()
        if stripped.startswith(("include ", "-include ", "sinclude ")):
            unsure = True
            continue
        head, colon, tail = line.partition(":")
        if not colon or tail.startswith("=") or "=" in head:
            continue
        names = head.split()
        if target in names:
            return True
        if any("%" in n or "$" in n for n in names):
            unsure = True
    return None if unsure else False


def _has_script(reader: Reader, folder: str, script: str) -> bool | None:
    raw = reader.read(os.path.normpath(os.path.join(folder, "package.json")), MAX_BYTES)
    if raw is False or (raw is not None and len(raw) > MAX_BYTES):
        return None
    if raw is None:
        return False
    try:
        doc = jsonio.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return None
    scripts = doc.get("scripts") if isinstance(doc, dict) else None
    return isinstance(scripts, dict) and script in scripts


def _same_role(reader: Reader, path: str, digest: str, role: object) -> bool | None:
    """The file's head is as it was, or says the same role; False when it is gone or its
    role changed (the file was rewritten)."""
    head = reader.read(path, HEAD_BYTES)
    if head is False:
        return None
    if head is None:
        return False
    if sha256_hex(head[:HEAD_BYTES]) == digest:
        return True
    if not isinstance(role, str) or not role:
        return None
    from engram.capture.file_role import role as role_of

    return " ".join(role_of(path, head[:HEAD_BYTES].decode("utf-8", "replace")).split()) == " ".join(role.split())


def _valid(needs_: object) -> list[list[str]]:
    return [n for n in (needs_ if isinstance(needs_, list) else [])
            if isinstance(n, list) and len(n) >= 2 and all(isinstance(x, str) for x in n)]


def broken(needs_: object, reader: Reader, data: dict | None = None) -> list[str] | None:
    """The first recorded need that no longer holds, or None (the "same" needs say only
    that a failure may be stale: `changed`)."""
    for need in _valid(needs_):
        if need[0] != "same" and holds(need, reader, data) is False:
            return need
    return None


def changed(needs_: object, reader: Reader) -> list[str]:
    """The files a failing check was about, when every one of them changed since (else [])."""
    same = [n for n in _valid(needs_) if n[0] == "same"]
    if not same or any(holds(n, reader) is not False for n in same):
        return []
    return [n[1] for n in same]


def said(need: list[str]) -> str:
    """A need in words, for `engram memory show` and the page."""
    kind = need[0]
    if kind == "make":
        where = "" if need[1] in (".", "") else f" in {need[1]}"
        return f"make target `{need[2]}`{where}" if need[2] else f"a Makefile{where}"
    if kind == "script":
        return f"package.json script `{need[2]}`"
    if kind == "head":
        return f"`{need[1]}` as it was (head {need[2][:12]})"
    if kind == "same":
        return f"`{need[1]}` unchanged since the failure ({need[2][:12]})"
    return f"`{need[1]}` exists"
