"""Entry points for spreading activation: what the current context names, deterministically.

From text (a prompt, a task plan, a question) we take three kinds of term, with no
natural-language parsing and no `re` (7 ms of import on the hook's hot path):

* file paths: tokens with a "/" or a known source extension ("src/net/retry.ts",
  "retry.ts", "retry.ts:42");
* module names: dotted identifiers ("engram.retrieve.activation" -> "engram/retrieve/activation");
* names: the words and 2-3 word phrases of the text, casefolded, plus the canonical name
  the curated alias table gives a word ("postgres" -> "postgresql", engram/language/aliases.py),
  matched against node names.

`Terms` keeps them apart because they are matched differently (see `engram.retrieve.seeds`).
Everything here is standard library and pure, so it is tested without a database.
"""

from __future__ import annotations

import os

from engram.language import aliases
from engram.text import STOPWORDS, is_cjk

SOURCE_EXTS = frozenset((
    "py", "pyi", "ts", "tsx", "js", "jsx", "mjs", "cjs", "go", "rs", "java", "kt", "rb", "php",
    "c", "h", "cc", "cpp", "hpp", "cs", "swift", "m", "scala", "sh", "bash", "zsh", "sql",
    "json", "yaml", "yml", "toml", "ini", "cfg", "md", "rst", "txt", "html", "css", "scss",
    "vue", "svelte", "lua", "ex", "exs", "erl", "hs", "ml", "dart", "r", "jl", "tf", "proto",
    "gradle", "xml", "lock", "env", "dockerfile", "mk",
))  # fmt: skip
STRIP = "`'\"()[]{}<>,;!?*"
SEPARATORS = "-_./"
MAX_NAME_TERMS = 1500
MAX_NGRAM = 3


class Terms:
    """Entry-point terms of one context: exact paths, path suffixes, node-name candidates."""

    __slots__ = ("paths", "suffixes", "names")

    def __init__(self) -> None:
        self.paths: list[str] = []  # project-relative (or absolute outside the project)
        self.suffixes: list[str] = []  # "retry.ts", "core/retrieval": match the end of a path
        self.names: list[str] = []  # casefolded node-name candidates

    def add(self, other: "Terms") -> "Terms":
        for mine, theirs in ((self.paths, other.paths), (self.suffixes, other.suffixes),
                             (self.names, other.names)):  # fmt: skip
            seen = set(mine)
            mine.extend(t for t in theirs if t not in seen and not seen.add(t))  # type: ignore[func-returns-value]
        return self

    def __bool__(self) -> bool:
        return bool(self.paths or self.suffixes or self.names)

    def __repr__(self) -> str:
        return f"Terms(paths={self.paths!r}, suffixes={self.suffixes!r}, names={self.names[:12]!r})"


def _ext(token: str) -> str:
    base = token.rsplit("/", 1)[-1]
    if "." not in base.strip("."):
        return ""
    return base.rsplit(".", 1)[-1].lower()


def _is_ident(s: str) -> bool:
    return bool(s) and (s[0].isalpha() or s[0] == "_") and s.replace("_", "a").isalnum()


def _clean(token: str) -> str:
    token = token.strip(STRIP)
    # "retry.ts:42", "retry.ts:42:7": drop a trailing line/column reference.
    head, sep, tail = token.partition(":")
    if sep and tail and tail.replace(":", "").isdigit():
        token = head
    return token.rstrip(".:")


def relative(path: str, root: str, cwd: str | None = None) -> str:
    """Project-relative form of a path the user typed (as events and node_files store it)."""
    p = path.replace("\\", "/")
    if p.startswith("~"):
        return ""
    if not os.path.isabs(p):
        base = cwd or root
        p = os.path.join(base, p) if base else p
    p = os.path.normpath(p)
    r = root.rstrip("/")
    if r and (p == r or p.startswith(r + "/")):
        return os.path.relpath(p, r)
    return p


def classify_token(token: str) -> str:
    """"url" | "path" | "file" (bare file name) | "module" | "word" | "" for one raw token."""
    if "://" in token or token.startswith(("http:", "https:", "mailto:")):
        return "url"
    if "/" in token:
        return "path" if any(c.isalnum() for c in token) else ""
    ext = _ext(token)
    if ext in SOURCE_EXTS and len(token) > len(ext) + 1:
        return "file"
    if "." in token and all(_is_ident(p) for p in token.split(".")):
        return "module"
    return "word" if any(c.isalnum() for c in token) else ""


def words_of(text: str) -> list[str]:
    """Casefolded word tokens (letters, digits, "-", "_" and inner dots kept). A CJK character
    ends a word and is none: those scripts put no space between words, so a run of them is a
    sentence, and an English name inside it is a word of its own."""
    out: list[str] = []
    buf: list[str] = []
    for ch in text.casefold():
        if (ch.isalnum() and not (ch > "\u2fff" and is_cjk(ch))) or ch in "-_.+#":
            buf.append(ch)
        elif buf:
            out.append("".join(buf).strip("-_.+"))
            buf = []
    if buf:
        out.append("".join(buf).strip("-_.+"))
    return [w for w in out if w]


def split_ident(word: str) -> list[str]:
    """ "retryClient" / "retry_client" / "retry-client" -> ["retry", "client"]."""
    parts: list[str] = []
    buf = ""
    prev = ""
    for ch in word:
        if ch in SEPARATORS or ch.isspace():
            if buf:
                parts.append(buf)
            buf = ""
        elif ch.isupper() and prev and (prev.islower() or prev.isdigit()):
            parts.append(buf)
            buf = ch
        else:
            buf += ch
        prev = ch
    if buf:
        parts.append(buf)
    return [p.casefold() for p in parts if p]


def normalise(name: str) -> str:
    """The loose form of a name: camelCase and separators split, casefolded, single spaces."""
    return " ".join(split_ident(name))


def name_terms(text: str) -> list[str]:
    """Word n-grams (1..3) of the text, casefolded, stop-word unigrams dropped, capped."""
    words = words_of(text)
    out: list[str] = []
    seen: set[str] = set()

    def put(term: str) -> None:
        if term and term not in seen and len(out) < MAX_NAME_TERMS:
            seen.add(term)
            out.append(term)

    known = aliases.canon()
    for i, w in enumerate(words):
        canonical = known.get(w)
        if w not in STOPWORDS and (len(w) > 2 or canonical or w.isupper()):
            put(w)
            if canonical and canonical != w:
                put(canonical)
        for n in range(2, MAX_NGRAM + 1):
            gram = words[i : i + n]
            if len(gram) == n and gram[0] not in STOPWORDS and gram[-1] not in STOPWORDS:
                put(" ".join(gram))
    return out


def terms_from_text(text: str, root: str = "", cwd: str | None = None) -> Terms:
    """Entry-point terms named in free text (a prompt, a plan, a question)."""
    terms = Terms()
    if not isinstance(text, str) or not text:
        return terms
    paths: list[str] = []
    suffixes: list[str] = []
    for raw in text.split():
        token = _clean(raw)
        kind = classify_token(token)
        if kind == "path":
            if token.startswith("/") or token.startswith("./") or token.startswith("../"):
                rel = relative(token, root, cwd) if root else token
                if rel:
                    paths.append(rel)
            else:
                paths.append(os.path.normpath(token))
                suffixes.append(token.lstrip("./"))
        elif kind == "file":
            suffixes.append(token)
        elif kind == "module":
            suffixes.append(token.replace(".", "/"))
    terms.paths = _dedup(p for p in paths if p and p != ".")
    terms.suffixes = _dedup(s for s in suffixes if s)
    terms.names = name_terms(text)
    return terms


def terms_from_paths(paths: list[str]) -> Terms:
    """Terms for files already known to be project-relative (events, git changes)."""
    t = Terms()
    t.paths = _dedup(p for p in paths if isinstance(p, str) and p)
    return t


def _dedup(items) -> list[str]:
    seen: set[str] = set()
    return [x for x in items if not (x in seen or seen.add(x))]  # type: ignore[func-returns-value]
