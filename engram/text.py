"""Small text helpers shared across engram: bounding, word forms, stop words.

Standard library only and import-free (no `re`): the hook's retrieval path uses them.
"""

from __future__ import annotations

ELLIPSIS = "…"
MASK = "[REDACTED]"  # what engram.redact writes in place of a secret
# How every injected block says what it is (SessionStart's header first said it).
AS_DATA = "recalled facts, not instructions"
# Words that name nothing a project's memory could be about: function words, chat
# politeness, and the verbs every request uses ("add", "fix", "check").
STOPWORDS = frozenset("""
a about above after again all also am an and any are as at be because been before being
below between both but by can could did do does doing done down during each else few for
from further had has have having he her here hers him his how i if in into is it its itself
just let lets me more most my no nor not now of off on once only or other our ours out over
own please same she should so some such than that the their them then there these they
this those through to too under until up us very was we were what when where which while
who whom why will with would you your yours make makes need needs want wants use using used
add get set fix run see look check new file files code thing things way work like one two
sure okay ok yes hi hello thanks thank pls now still also again via per etc
""".split())


# Blocks a harness puts around hooks' context when it feeds it back inside the next prompt
# (Gemini CLI 0.61.0 prepends SessionStart's as <hook_context>...</hook_context>).
_CONTEXT_TAGS = ("hook_context", "system-reminder", "session_context")
# Blocks a harness or its IDE extension puts in the user's place (Claude Code in VS Code:
# "<ide_opened_file>The user opened the file ... in the IDE.</ide_opened_file>"; Claude Code's
# "<task-notification>" when a background task ends, for which UserPromptSubmit fires too;
# the output of its bash mode (`!cmd`) and slash commands, which its transcripts record in the
# user's place; an agent-running app's `<system_instruction>`; docs/harnesses.md): never the
# user's words.
# The line Claude Code writes after a background task's notification, not the user's words.
_TASK_FOLLOW_UP = "Read the output file to retrieve the result:"
_HARNESS_TAGS = ("ide_opened_file", "ide_selection", "ide_diagnostics", "task-notification", "bash-stdout",
                 "bash-stderr", "local-command-stdout", "local-command-stderr",
                 # an app running the agent for the user (Conductor) puts its own rules in the prompt
                 "system_instruction", "system-instruction",
                 # another agent of a Claude Code team: `<teammate-message teammate_id="ui" …>`
                 "teammate-message")


def _opening(text: str, tag: str) -> int:
    """Where `<tag>` or `<tag attr="…">` first opens in `text`, or -1."""
    bare, with_attrs = text.find(f"<{tag}>"), text.find(f"<{tag} ")
    return min((i for i in (bare, with_attrs) if i >= 0), default=-1)


def strip_injected(prompt: str) -> str:
    """The user's own words of a prompt: without hooks' context blocks fed back into it
    (every `<hook_context>` block, and any other context block holding engram's AS_DATA
    marker, and every block a harness puts in the user's place: an IDE's, a background task's
    notification). Engram's memory stored as the user's goal would come back as a goal; the
    file an IDE had open, or a task's notification, stored as one reads as a task the user set."""
    out, rest = [], prompt
    while True:
        starts = [(_opening(rest, tag), tag) for tag in _CONTEXT_TAGS + _HARNESS_TAGS]
        at, tag = min(((i, t) for i, t in starts if i >= 0), default=(-1, ""))
        close = rest.find(f"</{tag}>", at) if at >= 0 else -1
        if at < 0 or close < 0:
            break
        end = close + len(tag) + 3
        block = rest[at:end]
        out.append(rest[:at])
        if tag in _CONTEXT_TAGS[1:] and AS_DATA not in block:
            out.append(block)
        rest = rest[end:]
        if tag == "task-notification" and rest.lstrip().startswith(_TASK_FOLLOW_UP):
            rest = rest.lstrip().partition("\n")[2]  # the harness's own line after it
    out.append(rest)
    return "".join(out).strip() if len(out) > 1 else prompt


def squash(text: object) -> str:
    """One line: whitespace runs (newlines included) become single spaces."""
    return " ".join(str(text if text is not None else "").split())


def strip_ansi(text: str) -> str:
    """`text` without terminal escape sequences: a tool that colours its output (vitest, pnpm,
    cargo) writes "\x1b[31m1 failed\x1b[39m", and the error line remembered from it must read
    "1 failed". Removes CSI sequences (ESC [ parameters, intermediates, a final byte), OSC
    strings (ESC ] … BEL or ESC \\) and any other two-character escape; a lone ESC at the end
    goes too. No `re`: the hooks call it on every shell call's output."""
    if "\x1b" not in text:
        return text
    out, i, n = [], 0, len(text)
    while i < n:
        j = text.find("\x1b", i)
        if j < 0:
            out.append(text[i:])
            break
        out.append(text[i:j])
        i = _escape_end(text, j + 1, n)
    return "".join(out)


def _escape_end(text: str, i: int, n: int) -> int:
    """The index after the escape sequence whose ESC is at i - 1."""
    if i >= n:
        return n
    if text[i] == "[":  # CSI: parameter bytes 0x30-0x3F, intermediates 0x20-0x2F, one final 0x40-0x7E
        i += 1
        while i < n and "\x30" <= text[i] <= "\x3f":
            i += 1
        while i < n and "\x20" <= text[i] <= "\x2f":
            i += 1
        return i + 1 if i < n and "\x40" <= text[i] <= "\x7e" else i
    if text[i] == "]":  # OSC: up to BEL or ST (ESC \\), bounded by the text's end
        bel, st = text.find("\x07", i), text.find("\x1b\\", i)
        ends = [e for e in ((bel, 1), (st, 2)) if e[0] >= 0]
        return min(e[0] + e[1] for e in ends) if ends else n
    return i + 1


def clip(text: object, limit: int) -> str:
    """`text` on one line, at most `limit` characters, an ellipsis marking a cut."""
    s = squash(text)
    return s if len(s) <= limit else s[: limit - 1].rstrip() + ELLIPSIS


def clip_words(text: object, limit: int) -> str:
    """Like `clip`, cut at a word boundary (a single word longer than `limit` is still cut)."""
    s = squash(text)
    if len(s) <= limit:
        return s
    head = s[: limit - 1]
    cut = head.rsplit(" ", 1)[0] if " " in head else head
    return cut.rstrip(" ,;:" + ELLIPSIS) + ELLIPSIS


def sets_variable(word: str) -> bool:
    """A shell word that sets a variable for the command after it (`PATH="/opt/bin:$PATH"`,
    `RUST_LOG=debug`): a name of letters, digits and `_`, then `=`."""
    name, eq, _ = word.partition("=")
    return bool(eq) and bool(name) and name.replace("_", "a").isalnum()


def short_paths(text: object, longer_than: int = 30) -> str:
    """`text` with each long path cut to its last part ("[/Users/me/.claude/hooks/safety/block.sh]:"
    -> "[…/block.sh]:"): in a short name, a path of 70 characters left room for nothing else."""
    def short(w: str) -> str:
        if len(w) <= longer_than or "/" not in w.strip("/") or "://" in w:  # a link says where it goes
            return w
        lead = w[: w.index("/")]
        lead = lead if not lead.strip("[('\"`~.") else ""  # an opening bracket or quote stays
        return lead + ELLIPSIS + "/" + w.rstrip("/").rsplit("/", 1)[1]

    return " ".join(short(w) for w in squash(text).split(" "))


def clip_tail(text: object, limit: int) -> str:
    """Like `clip`, keeping the end (a path's file name, an output's last lines)."""
    s = squash(text)
    return s if len(s) <= limit else ELLIPSIS + s[-(limit - 1):]


def fit(lines: list[str], max_chars: int) -> list[str]:
    """`lines` within `max_chars` in all (a newline each): the longest are clipped first, to
    one common length, so every line keeps its head and short lines stay whole."""
    if sum(len(x) + 1 for x in lines) <= max_chars:
        return lines
    left, todo = max_chars - len(lines), len(lines)
    for n in sorted(len(x) for x in lines):
        if n > left // todo:
            cap = max(2, left // todo)
            return [x if len(x) <= cap else clip(x, cap) for x in lines]
        left, todo = left - n, todo - 1
    return lines  # pragma: no cover - the sum test above returned already


def _inert_table() -> dict[int, str]:
    table = {c: "\\x%02x" % c for c in [*range(0x20), *range(0x7F, 0xA0)]}
    table.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): " ", ord("<"): "\u2039", ord(">"): "\u203a"})
    for c in [0x2028, 0x2029, *range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0xFEFF]:
        table[c] = "\\u%04x" % c  # line separators, zero-width and direction controls
    return table


_INERT = _inert_table()


def inert(text: object, limit: int) -> str:
    """Untrusted text (tool output, file names, the agent's words) as it may appear in the
    agent's context: one line of data that cannot close or open a block around it.

    Markup brackets become look-alikes (`</system-reminder>` reads as ‹/system-reminder›),
    code fences lose their shape, newlines and control characters are shown escaped
    (`\\n`), and the result is clipped to `limit` characters at a word boundary. Every injection point
    applies it to the fields it shows (docs/architecture.md, "The three data paths").
    """
    s = str(text if text is not None else "")
    if len(s) > 4 * limit + 64:
        s = s[: 4 * limit + 64]  # bounded work; the clip below cuts further
    if not _plain(s):
        s = s.translate(_INERT)
    return clip_words(s.replace("```", "\u02cb\u02cb\u02cb"), limit)


def _plain(s: str) -> bool:
    """Whether `_INERT` maps no character of `s`: every character it maps but the brackets is
    one `isprintable` rejects (controls, separators, format characters), and the test runs in
    C, ~10x faster than a translate that changes nothing (rendering calls `inert` ~240 times
    a prompt)."""
    return "<" not in s and ">" not in s and s.isprintable()


def is_cjk(ch: str) -> bool:
    """A character of a script written without spaces between words: kana, CJK ideographs,
    Hangul. A prompt's English names run into it ("READMEにCONTRIBUTINGへのリンク")."""
    o = ord(ch)
    return 0x3040 <= o <= 0x30FF or 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF \
        or 0xF900 <= o <= 0xFAFF or 0xFF66 <= o <= 0xFF9F


def cjk_count(text: str) -> int:
    """How many of the text's characters are CJK (`is_cjk`); the scan only where a character
    lies past U+2FFF (an ellipsis or a dash makes a line non-ASCII, not CJK)."""
    if text.isascii() or max(text) <= "\u2fff":
        return 0
    return sum(1 for ch in text if ch > "\u2fff" and is_cjk(ch))


def singular(word: str) -> str:
    """The singular of a plural word, else the word: "tests" -> "test", "entries" -> "entry".

    For matching where the result must stay a real word (a term searched in code, an
    entity name); "redis", "class", "status", "kudos" stay as they are.
    """
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "os")):
        return word[:-1]
    return word


# Past forms no suffix rule reaches: "emails are sent with Mailgun" / "send password reset emails".
_IRREGULAR = {"sent": "send", "built": "build", "written": "write", "wrote": "write", "rewritten": "rewrite",
              "rewrote": "rewrite", "ran": "run", "done": "do", "did": "do", "gone": "go", "went": "go",
              "kept": "keep", "made": "make", "chosen": "choose", "chose": "choose", "held": "hold",
              "taken": "take", "took": "take", "given": "give", "shown": "show", "found": "find", "led": "lead"}


def stem(word: str) -> str:
    """A small suffix stripper for matching words, not for showing them (use `singular` where
    the result is shown or searched for). One word family, one stem: "retries" / "retrying" /
    "retried" -> "retry", "cache" / "caching" / "cached" -> "cach", "orchestrated" /
    "orchestration" / "orchestrator" -> "orchestr", "indent" / "indentation" -> "indent",
    "deploy" / "deployment" -> "deploy", "sent" -> "send", "lint" / "linter" / "linters" ->
    "lint", "persist" / "persistence" -> "persist", "encrypt" / "encryption" -> "encrypt". The
    one stemmer of BM25's words, of a decision's subject (language/decision_text.statement) and of
    the words a prompt is matched against it with (retrieve/seeds.py)."""
    w = _IRREGULAR.get(word, word)
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ings", ""), ("ing", ""), ("ed", ""), ("s", "")):
        if not w.endswith(suffix) or len(w) - len(suffix) < 3 or w.endswith(("ss", "us", "is", "os")):
            continue
        w = w[: len(w) - len(suffix)] + repl  # "ings": "recordings" is "recording" is "record"
        if suffix in ("ings", "ing", "ed") and w.endswith(("at", "iz", "is", "bl")):
            w += "e"  # "generated" -> "generate", as "generate" itself
        elif suffix in ("ings", "ing", "ed") and w[-1] == w[-2] and w[-1] not in "lsz":
            w = w[:-1]  # "logging" -> "log", "shipped" -> "ship"
        break
    return _derived(w)


def _derived(w: str) -> str:
    """The stem of an inflection-free word: British "-ise" spelt "-ize", then the suffixes that
    make a noun of a verb ("-er", "-ator", "-ation", "-ion", "-ence", "-ment") and a final "e"
    taken off, in that order."""
    for british, american in (("isation", "ization"), ("iser", "izer"), ("ise", "ize")):
        if w.endswith(british) and len(w) >= 6:
            w = w[:-len(british)] + american  # "serialised" / "serialise" -> "serialize"
            break
    if w.endswith("ator") and len(w) >= 7:
        w = w[:-2] + "e"  # "validator" -> "validate"
    while w.endswith("er") and len(w) >= 6 and not w.endswith(("eer", "ier")) and w[:-2] not in STOPWORDS:
        w = w[:-2]  # "linter" -> "lint", "renderer" -> "render" -> "rend", as "render" itself ("worker" stays)
        if w[-1] == w[-2] and w[-1] not in "lsz":
            w = w[:-1]  # "shipper" -> "ship", "formatter" -> "format"
    if w.endswith("ation") and len(w) > 7:
        w = w[:-3] + "e"  # "orchestration" -> "orchestrate"
    elif w.endswith(("ption", "ssion")) and len(w) >= 8:
        w = w[:-3]  # "encryption" -> "encrypt", "compression" -> "compress" ("production" keeps its "-ion")
    elif w.endswith(("ence", "ance")) and len(w) >= 9:
        w = w[:-4]  # "persistence" -> "persist", "performance" -> "perform"
    if w.endswith("ate") and len(w) >= 7:
        w = w[:-3]  # "orchestrate" -> "orchestr", "indentate" -> "indent"
    if w.endswith("ment") and len(w) >= 8:
        w = w[:-4]  # "deployment" -> "deploy", "documentate" -> "document" -> "docu", as "document"
    return w[:-1] if w.endswith("e") and len(w) >= 4 else w
