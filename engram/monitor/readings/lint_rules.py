"""A catalogue of the lint rules teams state as decisions, each entry a fact: the words a decision
states the rule in, and the code shapes that break it, per language.

Teams write their linters' rules into their decisions, often as the rule's own one-line summary:
"Disallow the use of `eval()`", "Require `===` and `!==`", "no mutable default arguments",
"quote shell variables". Term matching reads a named thing (`eval`); it cannot see `x == y`
break "use strict equality", nor `def f(x=[])` break B006. Each entry here knows one rule:

* `cue`: the decision's words, robust to paraphrase ("no X", "disallow X", "avoid X", "X is
  banned", "prefer Y over X", "use Y instead of X") or the rule's id (`eqeqeq`, `B006`,
  `SC2086`); narrow on purpose, so an unrelated decision never switches the entry on;
* `shapes`: per dialect (a finer language than `code_lines.language`: TypeScript apart from
  JavaScript, a Dockerfile apart from a shell script), a pattern an ADDED line's code matches
  (comments and string contents are blanked, `code_lines`), or its text for the rules about
  comments and shell quoting;
* `confirm`: for the few rules a line alone cannot tell (a `let` never reassigned, a bare
  `return` in a function with named results), a test of the line in its file.

A decision that lets a justified use stand ("avoid `!` unless justified") is not broken by a use
with a comment on or above its line.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Callable

from engram.monitor.code_lines import Line
from engram.monitor.readings import code_scope
from engram.monitor.rules import Hit, Rule, on_lines


# Words that rule a thing out, as lint summaries and style guides write them.
_BAN = (r"(?:no|never|avoid\w*|disallow\w*|forbid\w*|bans?|banned|prohibit\w*|don'?t|do\s+not|must\s+not|mustn'?t|"
        r"should\s+not|shouldn'?t|stop|checks?\s+for(?:\s+(?:the\s+)?(?:use|usage|presence)\s+of)?)")
_RULED_OUT = r"(?:forbidden|banned|disallowed|prohibited|not\s+allowed|not\s+permitted|discouraged)"


def banned(noun: str, gap: int = 25) -> str:
    """The ways a decision rules `noun` out: "no X", "disallow the use of X", "avoid using X", "X is
    banned", "`X` found", "checks for usage of X", "prefer Y over X", "use Y instead of X"."""
    return (rf"\b{_BAN}\b[^.;:!?\n]{{0,{gap}}}?(?:{noun})|(?:{noun})[^.;\n]{{0,30}}?\b(?:is|are)\s+(?:\w+\s+)?{_RULED_OUT}|"
            rf"(?:{noun})[^.;\n]{{0,12}}?\b(?:found|detected|identified)\b|"
            rf"\b(?:over|instead\s+of|rather\s+than)\s+(?:using\s+|the\s+|an?\s+)?(?:{noun})")


@dataclass(frozen=True)
class Entry:
    """One lint rule: the decision words that state it, the code that breaks it, and why."""

    rule: str
    cue: re.Pattern[str]
    shapes: dict[str, re.Pattern[str]]
    why: str
    on: str = "code"  # "code": comments and strings blanked; "text": the line as written
    kind: str = "direct"  # "indirect": the shape does the job of the thing named by another route
    paths: re.Pattern[str] | None = None  # the files the rule is about (migrations, views), when not all
    confirm: Callable[[Line, list[Line], int, str], bool] | None = None  # the line in its file (new side) breaks it


# -- dialects ---------------------------------------------------------------------------------
_DIALECTS = {"erb": "ruby", "sql": "sql", "css": "css", "scss": "css", "less": "css", "py": "py", "pyi": "py", "js": "js", "mjs": "js", "cjs": "cjs", "jsx": "jsx", "ts": "ts", "mts": "ts",
             "cts": "ts", "tsx": "tsx", "go": "go", "rs": "rust", "java": "java", "kt": "kotlin", "kts": "kotlin",
             "cs": "csharp", "rb": "ruby", "sh": "sh", "bash": "sh", "php": "php", "c": "c", "cc": "c", "cpp": "c",
             "swift": "swift", "scala": "scala", "vue": "js", "svelte": "js"}
JS = ("js", "jsx", "ts", "tsx", "cjs")
ESM = JS[:-1]  # CommonJS files (.cjs) load modules with require() by definition
TS = ("ts", "tsx")
JSX = ("jsx", "tsx")
CATCHING = JS + ("java", "kotlin", "csharp", "c", "php", "swift", "scala")


def dialect(path: str) -> str:
    """py | js | jsx | ts | tsx | go | rust | java | kotlin | csharp | ruby | sh | docker | php | ... | ''."""
    name = os.path.basename(path or "").lower()
    if name.startswith("dockerfile") or name.endswith((".dockerfile", "containerfile")):
        return "docker"
    return _DIALECTS.get(name.rsplit(".", 1)[-1] if "." in name else "", "")


def _shapes(**by_dialect: str | tuple[tuple[str, ...], str]) -> dict[str, re.Pattern[str]]:
    """{"py": rx} or {"js": (JS, rx)}: one pattern for a group of dialects."""
    out = {}
    for key, value in by_dialect.items():
        names, rx = value if isinstance(value, tuple) else ((key,), value)
        out.update({n: re.compile(rx) for n in names})
    return out


def _cue(rx: str) -> re.Pattern[str]:
    return re.compile(rx, re.I)


# -- confirmations: what a line alone cannot tell ----------------------------------------------
_LET = re.compile(r"^\s*let\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=(?!=)")


def _never_reassigned(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """prefer-const: the `let` binding is not assigned again in the file's new side."""
    if not _block_visible(ln, new_side, i):
        return False  # a reassignment may sit in lines the hunk does not show
    name = re.escape(_LET.match(ln.code).group(1))
    again = re.compile(rf"(?<![\w$.]){name}\s*(?:[-+*/%&|^]|\*\*|<<|>>|\?\?|&&|\|\|)?=(?!=)|(?:\+\+|--){name}\b|"
                       rf"\b{name}(?:\+\+|--)|\bfor\s*\(\s*let\s+{name}\b|[\[{{,]\s*{name}\s*[\]}},][^=]*=(?!=)")
    return not any(again.search(x.code) for j, x in enumerate(new_side) if j != i)


def _block_visible(ln: Line, new_side: list[Line], i: int) -> bool:
    """The block a line sits in ends within the shown lines (a less indented line follows), or the
    file is new: nothing of it is out of sight."""
    indent = len(ln.text) - len(ln.text.lstrip())
    if all(x.side == "+" or not x.text.strip() for x in new_side):
        return True
    return indent > 0 and any(x.text.strip() and len(x.text) - len(x.text.lstrip()) < indent for x in new_side[i + 1:])


_NAMED_RESULTS = re.compile(r"^\s*func\b.*\)\s*\(\s*\w+(?:\s*,\s*\w+)*\s+[\w.*\[\]]")


def _in_named_results_func(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """nakedret: a bare `return` in a Go function whose results are named."""
    head = next((x for x in reversed(new_side[:i]) if re.match(r"^\s*func\b", x.code)), None)
    return head is not None and _NAMED_RESULTS.match(head.code) is not None


def _empty_block_follows(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """no-empty: a `catch (...) {` / `except ...:` whose block holds nothing (or only `pass`)."""
    if re.search(r"\{\s*\}\s*$|:\s*pass\s*$", ln.code):
        return True
    nxt = next((x for x in new_side[i + 1:] if x.code.strip() or not x.prose), None)
    return nxt is not None and re.match(r"^\s*(?:\}|pass\s*$|\.\.\.\s*$)", nxt.code) is not None and not nxt.prose


_MUTABLE_VALUE = r"(?:\[|\{|(?:set|dict|list|defaultdict|deque|OrderedDict|Counter)\()"
_MUTABLE_DEFAULT = re.compile(rf"(?:^\s*(?:async\s+)?def\s+\w+\s*\(|[(,])\s*\w+\s*(?::\s*[^=,()]+(?:\[[^=]*\])?)?\s*=\s*"
                              rf"{_MUTABLE_VALUE}")


def _mutable_default(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """B006: a parameter defaulting to a mutable literal, or to a module-level name the file binds
    to one (`cache=_SEEN` with `_SEEN: list = []`), in a `def` signature."""
    sig = _signature(new_side, i)
    if sig is None:
        return False
    if _MUTABLE_DEFAULT.search(ln.code if "def " in ln.code else "(" + ln.code):
        return True
    bound = {m.group(1) for x in new_side if (m := re.match(rf"^([A-Za-z_]\w*)\s*(?::[^=]+)?=\s*{_MUTABLE_VALUE}", x.code))}
    return any(re.search(rf"[(,]\s*\w+\s*(?::[^=,]+)?=\s*{re.escape(b)}\s*[,)]", "(" + ln.code) for b in bound)


def _signature(new_side: list[Line], i: int) -> str | None:
    """The `def` header line `i` belongs to (its first line), if it is part of one."""
    for j in range(i, max(i - 6, -1), -1):
        code = new_side[j].code
        if re.match(r"^\s*(?:async\s+)?def\s+\w+\s*\(", code):
            closed = any(re.search(r"\)\s*(?:->[^:]*)?:\s*$", x.code) for x in new_side[j:i])
            return None if closed and j != i else code
    return None


def _unjoined_cd(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """SC2164: a `cd` whose failure nothing catches, in a script that does not `set -e`."""
    return not any(re.search(r"^\s*set\s+-[a-z]*e|\bset\s+-o\s+errexit", x.code) for x in new_side)


def _without_recommends(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """DL3015: the whole `apt-get install` command (its continued lines too) lacks --no-install-recommends."""
    return "--no-install-recommends" not in _command(new_side, i) and "--no-install-suggests" not in _command(new_side, i)


def _command(new_side: list[Line], i: int) -> str:
    """Line `i` and the lines its trailing backslashes continue onto."""
    out = [new_side[i].code]
    for x in new_side[i + 1:i + 20]:
        if not out[-1].rstrip().endswith("\\"):
            break
        out.append(x.code)
    return " ".join(s.rstrip().rstrip("\\") for s in out)


def _unquoted_expansion(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """SC2086: `$var` outside double quotes in a command's words (not an assignment, a [[ ]] test or
    an arithmetic expansion, where the shell does not split)."""
    if _in_heredoc(new_side, i) or re.match(r"^\s*case\s", ln.code):
        return False
    text = re.sub(r"\"(?:\\.|[^\"\\])*\"|'[^']*'", "", ln.code)
    text = re.sub(r"\[\[.*?\]\]|\$\(\(.*?\)\)", "", text)
    text = re.sub(r"^\s*(?:export\s+|local\s+|readonly\s+)?\w+=\S*", "", text)
    return re.search(r"(?<![\w\\])\$(?:\{[A-Za-z_]\w*\}|[A-Za-z_]\w*|@|\*)", text) is not None


def _in_heredoc(new_side: list[Line], i: int) -> bool:
    """Line `i` is the body of a here-document (`cat <<EOF ... EOF`) the shown lines open."""
    end = None
    for x in new_side[:i]:
        if end is not None:
            end = None if x.text.strip() == end else end
            continue
        m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", x.code)
        end = m.group(1) if m else None
    return end is not None


def _no_issue_reference(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """TD003: a TODO that cites no issue (a URL, #123, ABC-123, an (owner))."""
    after = re.split(r"\b(?:TODO|FIXME|XXX|HACK)\b", ln.text, maxsplit=1)[-1]
    return re.search(r"https?://|(?<![\w&])#\d+\b|\b[A-Z][A-Z0-9]+-\d+\b|^\s*\(", after) is None


_ASYNC_DEF = re.compile(r"\basync\s+function\s*\*?\s*(\w+)|\b(?:const|let|var)\s+(\w+)\s*=\s*async\b|"
                        r"^\s*(?:(?:public|private|protected|static)\s+)*async\s+(\w+)\s*\(")


def _console_named(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """A decision naming console methods (`console.log`) and not the console as a whole rules out those."""
    named = set(re.findall(r"\bconsole\.(\w+)", decision))
    if not named or re.search(r"`console`|\bconsole\s+(?:statements?|calls?|output|methods?)\b|\bno-console\b", decision, re.I):
        return True
    return re.search(r"\bconsole\.(\w+)", ln.code).group(1) in named


def _floating(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """no-floating-promises: a statement that calls an async function the file declares, its promise
    neither awaited, returned, chained nor handed on."""
    asyncs = {next(g for g in m.groups() if g) for x in new_side for m in _ASYNC_DEF.finditer(x.code)}
    m = re.match(r"^\s*(?:this\.)?(\w+)\s*\(.*\)\s*;?\s*$", ln.code)
    return bool(m) and m.group(1) in asyncs


def _reassigns_param(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """no-param-reassign: the assigned name is a parameter of the nearest function above."""
    name = re.match(r"^\s*([A-Za-z_$][\w$]*)", ln.code).group(1)
    for x in reversed(new_side[max(0, i - 30):i]):
        m = re.search(r"\bfunction\b[^(]*\(([^)]*)\)|\(([^()]*)\)\s*(?::\s*[^=]+)?=>|^\s*(?:async\s+)?\w+\s*\(([^)]*)\)\s*\{", x.code)
        if m:
            params = next(g for g in m.groups() if g is not None)
            return name in re.findall(r"(?:^|,)\s*(?:\.\.\.)?([A-Za-z_$][\w$]*)", params)
    return False


def _untagged(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """DL3006 / DL3007: `FROM image` or `FROM image:latest`, not a stage built earlier in the file or scratch."""
    image = re.match(r"^\s*FROM\s+(?:--platform=\S+\s+)?([\w.\-/]+)", ln.code).group(1)
    stages = {m.group(1).lower() for x in new_side if (m := re.search(r"\bAS\s+(\w[\w.\-]*)\s*$", x.code, re.I))}
    return image.lower() not in stages | {"scratch"}


def _not_an_entity(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """records-for-dtos: a JPA / persistence entity is neither a DTO nor a value object."""
    return not any(re.match(r"^\s*@(?:Entity|Table|Document|Embeddable|MappedSuperclass)\b", x.code) for x in new_side)


def _not_in_must(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """panic: Go's `MustX` helpers and `init` panic by convention; the rule is about normal flow."""
    head = next((x.code for x in reversed(new_side[:i]) if re.match(r"^\s*func\b", x.code)), "")
    return re.match(r"^\s*func\s+(?:\([^)]*\)\s*)?(?:[Mm]ust\w*|init)\s*\(", head) is None


def _outside_routines(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """A BEGIN / END that is not the body of a function or DO block (`$$ BEGIN ... END; $$`)."""
    return not any(re.search(r"\$\$|\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|PROCEDURE|TRIGGER)\b|^\s*DO\b", x.code, re.I)
                   for x in new_side)


def _call(new_side: list[Line], i: int) -> str:
    """The code of the call line `i` opens, through the line its parentheses close on (at most 8 lines)."""
    text, depth = "", 0
    for x in new_side[i:i + 8]:
        text += " " + x.code
        depth += x.code.count("(") - x.code.count(")")
        if depth <= 0:
            break
    return text


def _no_timeout(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """S113: an HTTP call with no timeout argument (a session or client configured elsewhere is not seen)."""
    return re.search(r"\btimeout\s*=", _call(new_side, i)) is None


def _no_encoding(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """PLW1514: a text-mode open() with no encoding (binary modes need none)."""
    call = _call(new_side, i)
    mode = next((m for m in re.findall(r"[\"']([rwaxbt+]{1,3})[\"']", ln.text)), "")
    return "encoding" not in call and "b" not in mode


def _unchained_raise(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """B904: a `raise X(...)` directly in an except block, without `from`."""
    if re.search(r"\bfrom\b", ln.code):
        return False
    indent = len(ln.text) - len(ln.text.lstrip())
    head = next((x for x in reversed(new_side[:i]) if x.text.strip() and len(x.text) - len(x.text.lstrip()) < indent), None)
    return head is not None and re.match(r"^\s*except\b", head.code) is not None


def _undocumented_unsafe(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """undocumented_unsafe_blocks: no `SAFETY:` comment on the line or the three lines above it."""
    return not any("SAFETY" in x.text for x in new_side[max(0, i - 3):i + 1])


def _injected_field(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """Field injection: `@Autowired` / `@Inject` on a field, not on a constructor or setter."""
    rest = ln.code.split("@", 1)[-1].split(None, 1)[1:] or [""]
    target = rest[0] if rest[0].strip() else next((x.code for x in new_side[i + 1:i + 4] if x.code.strip() and
                                                     not x.code.strip().startswith("@")), "")
    return re.match(r"^\s*+(?:(?:private|protected|public|final|static|lateinit)\s+)*(?:var\s+\w+\s*:|[\w<>,\[\]? ]+\s++\w++\s*+;)",
                    target) is not None


def _lists_kept(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """DL3009: the install's RUN command does not delete /var/lib/apt/lists."""
    return "/var/lib/apt/lists" not in _command(new_side, i)


def _not_an_event_handler(ln: Line, new_side: list[Line], i: int, decision: str) -> bool:
    """async void is how C# event handlers are written (`object sender, EventArgs e`)."""
    return re.search(r"\(\s*object\??\s+\w+\s*,\s*\w*EventArgs\b", ln.code) is None


# -- the catalogue ----------------------------------------------------------------------------
# "unless justified", "explain why in a comment", "except in verified paths": a commented use may be the allowed one.
_JUSTIFIABLE = re.compile(r"\b(?:unless|except)\b[^.;]{0,60}\b(?:justif\w*|necessary|documented|explained|reasons?|verified)\b|"
                          r"\b(?:document|explain|write|give|add)\w*\s+(?:the\s+|a\s+)?(?:justification|reason|rationale|why)\b"
                          r"[^.;]{0,30}\bcomment|\bwhenever\s+possible\b|\bexcept\s+(?:in|for|when|where)\b", re.I)

ENTRIES: tuple[Entry, ...] = (
    # ESLint core
    Entry("no-eval", _cue(r"\bno-eval\b|" + banned(r"`?\beval\b(?:\(\))?`?")),
          _shapes(js=(JS, r"(?<![\w.$])eval\s*\("), py=r"(?<![\w.])eval\s*\(", php=r"(?<![\w>$])eval\s*\("),
          "evaluates a string as code (eval)"),
    Entry("no-implied-eval", _cue(r"\bno-(?:implied-eval|new-func)\b|(?-i:\bnew Function\b|\bFunction constructor\b)|"
                                  r"\bimplied eval\b|`?new`?\s+operators?\s+with\s+the\s+`?Function`?|" + banned(r"`?\beval\b(?:\(\))?`?")),
          _shapes(js=(JS, r"\bnew\s+Function\s*\(|(?<![\w.])Function\s*\(\s*[\"'`]|\bset(?:Timeout|Interval)\(\s*[\"'`]")),
          "builds code from a string (new Function, setTimeout with a string), eval by another name", kind="indirect"),
    Entry("eqeqeq", _cue(r"\beqeqeq\b|`?===`?\s+and\s+`?!==`?|\bstrict (?:in)?equality\b|\btriple[- ]equals?\b|"
                         + banned(r"`?(?<![=!])==(?!=)`?|loose (?:in)?equality|double[- ]equals|abstract equality")),
          _shapes(js=(JS, r"(?<![=!<>])[=!]=(?!=)")), "compares with == / != instead of === / !=="),
    Entry("no-var", _cue(r"\bno-var\b|" + banned(r"`var`|\bvar\s+(?:declarations?|keyword|statements?)\b|\bvar\b(?=\s*[,;.(]|\s+(?:in|for)\b)")
                         + r"|\b(?:let|const)\b[^.;]{0,25}\b(?:instead of|over|rather than|not)\s+`?var\b"),
          _shapes(js=(JS, r"^\s*(?:export\s+)?var\s+[\w${\[]"), csharp=r"^\s*(?:(?:using|await|ref|readonly)\s+)*var\s+\w+\s*="),
          "declares a variable with var"),
    Entry("prefer-const", _cue(r"\bprefer-const\b|\bprefer\s+`?const`?\b|\b`?const`?\b[^.;]{0,25}\b(?:over|instead of|rather than)\s+`?let\b|"
                               r"\b`?const`?[^.;]{0,40}\b(?:never|not)\s+(?:re-?)?assigned\b"),
          _shapes(js=(JS, _LET.pattern)), "declares with let a binding that is never reassigned (prefer const)",
          confirm=_never_reassigned),
    Entry("no-console", _cue(r"\bno-console\b|" + banned(r"`?console\.\w+(?:\(\))?`?|`console`|\bconsole\s+(?:statements?|calls?|logs?|logging|"
                                                         r"output|methods?)\b")),
          _shapes(js=(JS, r"\bconsole\.(?:log|debug|info|warn|error|trace|dir|table|time|timeEnd|group)\s*\(")),
          "writes to the console", confirm=_console_named),
    Entry("no-debugger", _cue(r"\bno-debugger\b|" + banned(r"`?debugger`?\s*(?:statements?|keyword)?|`?breakpoint\(\)`?|\bpdb\b|"
                                                           r"\bset_trace\b|\bdebug\s+calls?\b|`?binding\.pry`?|`?byebug`?")),
          _shapes(js=(JS, r"^\s*debugger\s*;?\s*$"), py=r"\bbreakpoint\(\s*\)|\b(?:i?pdb)\.set_trace\(|^\s*import\s+i?pdb\b",
                  ruby=r"\bbinding\.(?:pry|irb)\b|^\s*(?:byebug|debugger)\s*$"),
          "leaves a debugger breakpoint in the code"),
    Entry("no-alert", _cue(r"\bno-alert\b|" + banned(r"`?(?:window\.)?alert\(\)`?|`alert`|\balert\s*,\s*confirm\b|"
                                                     r"\bbrowser (?:alerts?|dialogs?)\b")),
          _shapes(js=(JS, r"(?<![\w.$])(?:window\.)?(?:alert|confirm|prompt)\s*\(")), "opens a browser alert / confirm / prompt"),
    Entry("no-with", _cue(r"\bno-with\b|" + banned(r"`with`\s*(?:statements?)?|\bwith\s+statements?\b")),
          _shapes(js=(JS, r"^\s*with\s*\(")), "uses a with statement"),
    Entry("no-empty-catch", _cue(r"\bno-empty\b|" + banned(r"\bempty\s+(?:block\s+)?(?:statements?|blocks?)\b") + r"|\bempty\s+(?:`?catch`?|`?except`?)(?:\s+(?:blocks?|clauses?|handlers?))?\b|"
                                 r"\b(?:catch|except)\s+(?:blocks?|clauses?)\s+(?:must|should|may)\s+not\s+be\s+empty|"
                                 r"\bswallow\w*\s+(?:\w+\s+){0,2}?(?:errors?|exceptions?)\b|\bsilently\s+(?:ignor|swallow|discard)\w*"),
          _shapes(braces=(CATCHING, r"\bcatch\b\s*(?:\([^)]*\))?\s*\{\s*(?:\}\s*)?$"), py=r"^\s*except\b[^:]*:\s*(?:pass\s*)?$",
                  ruby=r"^\s*rescue\b"),
          "catches an error and does nothing with it", confirm=_empty_block_follows),
    Entry("no-throw-literal", _cue(r"\bno-throw-literal\b|\bonly-throw-error\b|" + banned(r"\bthrow(?:ing)?\s+(?:string|literal|"
                                   r"plain|raw)\w*") + r"|\bthrow\s+(?:only\s+)?`?Error`?\s+(?:objects|instances)\b|"
                                   r"\bonly\s+throw\s+`?Error`?"),
          _shapes(js=(JS, r"\bthrow\s+(?:[\"'`]|\d|\{|\[)")), "throws a literal instead of an Error"),
    Entry("no-param-reassign", _cue(r"\bno-param-reassign\b|" + banned(r"\b(?:re-?assign\w*|mutat\w*|modify\w*)\s+(?:`?function`?\s+)?"
                                    r"(?:param\w*|arguments?)\b") + r"|\b(?:param\w*|arguments?)\s+(?:must|should)\s+not\s+be\s+"
                                    r"(?:re-?assigned|mutated|modified)"),
          _shapes(js=(JS, r"^\s*[A-Za-z_$][\w$]*\s*(?:[-+*/%]|\?\?|\|\||&&)?=(?!=)")),
          "reassigns a function parameter", confirm=_reassigns_param),
    Entry("no-nested-ternary", _cue(r"\bno-nested-ternary\b|\bnested\s+ternar\w*|\bnested\s+conditional\s+expressions?|"
                                    r"\bternar\w*\s+(?:\w+\s+){0,2}(?:must|should|may)\s+not\s+be\s+nested"),
          _shapes(braces=(JS + ("java", "csharp", "php", "c", "kotlin"),
                          r"(?<![?])\?(?![.?:\[])[^;]*?:[^;]*?(?<![?])\?(?![.?:\[])[^;]*:|"
                          r"(?<![?])\?(?![.?:\[])[^;:]*?(?<![?])\?(?![.?:\[])[^;]*:[^;]*:"),
                  py=r"\bif\b[^:]*\belse\b[^:]*\bif\b[^:]*\belse\b"),
          "nests a ternary expression in another"),
    Entry("radix", _cue(r"\bradix\b|\bparseInt\b[^.;]{0,40}\b(?:base|second argument)\b"),
          _shapes(js=(JS, r"\bparseInt\(\s*(?:[^,()]|\([^()]*\))+\)")), "calls parseInt without a radix"),
    Entry("curly", _cue(r"\bcurly\b(?![- ]brace)|\b(?:always|must|require\w*)\b[^.;]{0,30}\b(?:curly\s+)?braces\b[^.;]{0,30}\b"
                        r"(?:if|else|for|while|control|blocks?|statements?|bodies)\b|\bbraces\s+(?:for|around|on)\s+(?:all\s+|every\s+)?"
                        r"(?:if|control|blocks?|statements?|bodies)\b|\bbrace-?less\b|\bbrace\s+style\b[^.;]{0,30}\bcontrol\s+statements?\b|"
                        + banned(r"\b(?:single-line|one-line|brace-?less)\s+(?:if|ifs|blocks?|statements?|bodies)\b")),
          _shapes(braces=(JS + ("java", "csharp", "c", "php", "kotlin", "swift"),
                          r"^\s*(?:\}\s*)?(?:if|else\s+if|for|while)\s*\(.*\)\s*(?!\s*\{)[^\s{].*;\s*$|^\s*(?:\}\s*)?else\s+(?!if\b)[^\s{].*;\s*$")),
          "writes a control statement without braces"),
    # typescript-eslint
    Entry("no-non-null-assertion", _cue(r"\bno-non-null-assertion\b|\bnon-null\s+assertions?\b|\bnull-forgiving\b|"
                                        r"\bdouble[- ]bang\b|\bUnsafeCallOnNullableType\b|\bunsafe\s+calls?\s+on\s+nullable\s+types?\b|" + banned(r"`!!`|!!\s+operator")),
          _shapes(ts=(TS + ("csharp",), r"(?<=[\w\])])!(?=[.;,)\]])|(?<=[)\]])!\s*$"), kotlin=r"!!"),
          "asserts a value is not null instead of handling null",
          confirm=lambda ln, side, i, decision: "!!" not in decision or "!!" in ln.code),  # `!!` names Kotlin
    Entry("nullable-disable", _cue(r"\bnull-forgiving\b|\bnullable\s+reference\s+types\b"),
          _shapes(csharp=r"^\s*#\s*nullable\s+disable\b"), "switches nullable reference checks off", on="text"),
    Entry("no-namespace", _cue(r"\bno-namespace\b|" + banned(r"`?namespaces?`?(?!\s+(?:imports?|packages?|pollution))")),
          _shapes(ts=(TS, r"^\s*(?:export\s+)?(?:declare\s+)?(?:namespace|module)\s+[A-Za-z_]\w*\s*\{")),
          "declares a TypeScript namespace instead of a module"),
    Entry("no-floating-promises", _cue(r"\bno-floating-promises\b|\bfloating\s+promises?\b|\bunhandled\s+promises?\b|"
                                       r"\bpromises?\s+(?:must|should)\s+(?:always\s+)?be\s+(?:awaited|handled)\b|"
                                       r"\b(?:always\s+)?await\s+(?:all|every)\s+(?:promises?|async\s+calls?)\b|"
                                       r"\bpromise(?:-like)?\s+(?:statements?|values?|calls?)\b[^.;]{0,30}\bhandled\b"),
          _shapes(js=(JS, r"^\s*(?:this\.)?\w+\s*\(.*\)\s*;?\s*$")), "calls an async function without awaiting or handling its promise",
          confirm=_floating),
    Entry("no-require-imports", _cue(r"\bno-(?:require-imports|var-requires)\b|" + banned(r"`require`(?:\s+(?:statements?|calls?))?|"
                                     r"`?require\(\)`?|\brequire\s+(?:statements?|calls?)\b|\bCommonJS\b")),
          _shapes(ts=(ESM, r"(?<![\w.$])require\s*\(")), "loads a module with require() instead of import"),
    # React / JSX
    Entry("no-danger", _cue(r"\bno-danger\b|\bdangerous\s+(?:JSX\s+)?(?:properties|props)\b|" + banned(r"`?dangerouslySetInnerHTML`?|`?innerHTML`?|\braw\s+HTML\b")),
          _shapes(jsx=(JS, r"\bdangerouslySetInnerHTML\b|\.(?:innerHTML|outerHTML)\s*=(?!=)|\binsertAdjacentHTML\(")),
          "injects raw HTML"),
    Entry("no-array-index-key", _cue(r"\bno-array-index-key\b|\b(?:array\s+)?index(?:es)?\s+as\s+(?:a\s+|the\s+)?(?:React\s+)?keys?\b|"
                                     r"\bkeys?\b[^.;]{0,25}\b(?:array|map|loop)\s+index\b|" + banned(r"\bindex(?:es)?\s+keys?\b|\b(?:array\s+)?index\w*\s+(?:in|for)\s+keys?\b")),
          _shapes(jsx=(JSX, r"\bkey=\{\s*(?:i|idx|index|\w+Index|\w+Idx)\s*\}|\bkey=\{\s*`[^`]*\$\{\s*(?:i|idx|index)\s*\}")),
          "uses the array index as a React key"),
    # Python: Ruff / flake8 / pylint / bugbear / bandit
    Entry("bare-except", _cue(r"\bE722\b|\bbare-except\b|\bbare\s+`?except`?(?!\s+Exception)|" + banned(r"`except:`")),
          _shapes(py=r"^\s*except\s*:"), "catches everything with a bare except"),
    Entry("mutable-default", _cue(r"\bB006\b|\bmutable[- ]default|\bmutable\s+(?:\w+\s+)?(?:default|defaults)\b|\bdefault\s+(?:arguments?|"
                                  r"parameters?|values?|args?)\b[^.;]{0,30}\bmutable\b|\bmutable\s+(?:data\s+structures?|values?|objects?|types?)\s+(?:for|as)\s+"
                                  r"(?:argument|parameter)\s+defaults?\b|\bdef\s+\w+\(\w+=\[\]\)|\bdangerous-default-value\b"),
          _shapes(py=r"="), "gives a parameter a mutable default, shared between calls", confirm=_mutable_default),
    Entry("wildcard-import", _cue(r"\bF40[35]\b|\bwildcard[_ -]imports?\b|\bglob\s+imports?\b|\bstar\s+imports?\b|\bimport\s+\*|"
                                  r"::\*|\.\*\s+imports?\b|\*\s+notation\b|\bAvoidStarImport\b|\bno-wildcard-imports?\b|\bexplicit\s+(?:imports?|use)\b"),
          _shapes(py=r"^\s*from\s+\S+\s+import\s+\*", rust=r"^\s*(?:pub\s+)?use\s+(?!super::\*)(?![\w:]*prelude::\*)[\w:{}]*::\*\s*;",
                  java=r"^\s*import\s+(?:static\s+)?[\w.]+\.\*\s*;", kotlin=r"^\s*import\s+[\w.]+\.\*\s*$",
                  scala=r"^\s*import\s+[\w.]+\._\s*$"),
          "imports every name of a module (a wildcard import)"),
    Entry("print", _cue(r"\bT20[13]?\b|\bforbidigo\b|\bprint_std(?:out|err)\b|\bSystemPrintln\b|\bRails/Output\b|"
                        + banned(r"`?print\(\)`?|`print`|\bprint\s+(?:statements?|calls?|debugging)\b|`?e?println!?`?|`?fmt\.Print\w*`?|"
                                 r"`?System\.(?:out|err)`?|\bprint(?:ing)?\s+to\s+(?:stdout|the console|standard output)|`puts`|"
                                 r"\boutput\s+calls?\b") + r"|\bSystem\.\(?(?:out|err)\b"),
          _shapes(py=r"(?<![\w.])print\s*\(", go=r"\bfmt\.Print(?:f|ln)?\s*\(|(?<![\w.])print(?:ln)?\s*\(",
                  rust=r"\be?print(?:ln)?!\s*\(", java=r"\bSystem\.(?:out|err)\.print", kotlin=r"(?<![\w.])print(?:ln)?\s*\(",
                  csharp=r"\bConsole\.Write(?:Line)?\s*\(", ruby=r"^\s*(?:puts|print|pp|p)\b(?!\s*[=:.])"),
          "prints to the console instead of logging"),
    Entry("printf-format", _cue(r"\bUP03[12]\b|\bf-?strings?\b[^.;]{0,30}\b(?:over|instead\s+of|rather\s+than)\b|"
                                r"\b(?:prefer|use)\s+f-?strings\b|" + banned(r"`%`\s+formatting|\bprintf-style\b|%-formatting|`?\.format\(\)`?")),
          _shapes(py=r"\"\"\s*%\s*[\w(\[{]|\"\"\.format\("), "formats a string with % or .format() instead of an f-string"),
    Entry("assert", _cue(r"\bS101\b|\bassert\w*\s+(?:statements?\s+)?(?:in|outside)\s+(?:production|non-test|library|application|"
                         r"runtime)\b|" + banned(r"`assert`|\bassert\s+statements?\b|\bassert\s+for\b", gap=12)),
          _shapes(py=r"^\s*assert\b"), "relies on assert, which python -O strips"),
    Entry("shell-true", _cue(r"\bS60[2-5]\b|\bshell\s*=\s*True\b|\bsubprocess\b[^.;]{0,40}\bshell\b|\bshell\b[^.;]{0,30}\bsubprocess\b|"
                             + banned(r"`?os\.system`?")),
          _shapes(py=r"\bshell\s*=\s*True\b|\bos\.(?:system|popen)\s*\("), "runs a command through a shell"),
    Entry("unsafe-deserialization", _cue(r"\bS30[12]\b|\bS506\b|\bsafe_load\b|\byaml\.load\b|\bunsafe\s+(?:yaml|deserializ\w*|loading)\b|"
                                         r"\bdeserializ\w*\b[^.;]{0,30}\buntrusted\b|\buntrusted\b[^.;]{0,40}\bdeserializ\w*|"
                                         + banned(r"`?pickle`?|`?marshal`?|`?shelve`?")),
          _shapes(py=r"\b(?:c?pickle|dill|marshal)\.loads?\s*\(|\bshelve\.open\s*\(|\byaml\.unsafe_load\s*\(|"
                     r"\byaml\.load\s*\((?![^)]*Loader\s*=\s*(?:yaml\.)?C?SafeLoader)"),
          "deserialises data unsafely (pickle, yaml.load)"),
    Entry("todo-issue", _cue(r"\bTD00[23]\b|\bFIX00[12]\b|\b(?:TODOs?|FIXMEs?)\b[^.;]{0,40}\b(?:issue|ticket|link|reference)s?\b|"
                             r"\b(?:issue|ticket)s?\b[^.;]{0,30}\bTODOs?\b"),
          _shapes(any=r"\b(?:TODO|FIXME)\b"), "adds a TODO that cites no issue", on="comment", confirm=_no_issue_reference),
    Entry("no-todo", _cue(banned(r"`?TODO`?\s*(?:comments?|markers?)|`?FIXME`?\s*(?:comments?|markers?)|\bTODOs\b", gap=15)
                          + r"|\bTODO\s+comments?\b[^.;]{0,20}\b(?:not\s+allowed|forbidden)"),
          _shapes(any=r"\b(?:TODO|FIXME)\b"), "adds a TODO comment", on="comment"),
    Entry("global-statement", _cue(r"\bW0603\b|\bPLW0603\b|\bglobal-statement\b|" + banned(r"`global`|\bglobal\s+(?:statements?|keyword)\b")),
          _shapes(py=r"^\s*global\s+\w"), "rebinds a module-level name through a global statement"),
    Entry("none-comparison", _cue(r"\bE711\b|`?==\s*None`?|\bcompar\w*\s+(?:\w+\s+){0,2}(?:to|with|against)\s+`?None\b|"
                                  r"`?is\s+(?:not\s+)?None`?\s+(?:for|when|instead|rather|over)\b"),
          _shapes(py=r"[=!]=\s*None\b|\bNone\s*[=!]="), "compares with None by == instead of is"),
    Entry("ignore-without-code", _cue(r"\bPGH003\b|\bignore-without-code\b|\btype:\s*ignore\b`?[^.;]{0,40}\b(?:error\s+)?codes?\b|"
                                      r"\b(?:specific|explicit)\s+(?:error\s+)?codes?\b[^.;]{0,40}\btype:\s*ignore|"
                                      r"\b(?:specific|explicit)\s+(?:rule\s+|error\s+)?codes?\s+when\s+(?:ignoring|suppressing)\s+type\b"),
          _shapes(py=r"#\s*type:\s*ignore(?!\[)"), "silences the type checker without naming the error", on="text"),
    # Go: golangci-lint
    Entry("no-init", _cue(r"\bgochecknoinits\b|" + banned(r"`?init\(\)`?\s*(?:functions?)?|\binit\s+functions?\b|`?func\s+init`?")),
          _shapes(go=r"^\s*func\s+init\s*\(\s*\)"), "adds an init function"),
    Entry("naked-return", _cue(r"\bnakedret\b|\bnaked\s+returns?\b|\bbare\s+returns?\b"),
          _shapes(go=r"^\s*return\s*$"), "returns named results with a naked return", confirm=_in_named_results_func),
    Entry("dot-import", _cue(r"\bdot[- ]imports?\b|\bST1001\b|`import\s+\.`|(?<![\w.])\.\s+imports\b"),
          _shapes(go=r"^\s*(?:import\s+)?\.\s+\""), "dot-imports a package", on="text"),
    # Rust: clippy
    Entry("dbg", _cue(r"\bdbg_macro\b|" + banned(r"`?dbg!`?(?:\(\))?")), _shapes(rust=r"\bdbg!\s*\("), "leaves a dbg! call"),
    Entry("todo-macro", _cue(r"\bclippy::(?:todo|unimplemented)\b|" + banned(r"`?(?:todo|unimplemented)!`?(?:\(\))?")),
          _shapes(rust=r"\b(?:todo|unimplemented)!\s*\("), "leaves a todo!/unimplemented! that panics"),
    Entry("unwrap", _cue(r"\bunwrap_used\b|" + banned(r"`?\.?unwrap\(\)`?|\bunwrap(?:ping)?\b")),
          _shapes(rust=r"\.unwrap(?:_err)?\(\)"), "unwraps a Result or Option, which panics on failure"),
    Entry("expect", _cue(r"\bexpect_used\b|" + banned(r"`?\.?expect\(\)`?|\bunwrap\(\)`?\s*(?:or|and|/|,)\s*`?\.?expect\b")),
          _shapes(rust=r"\.expect(?:_err)?\("), "calls expect, which panics on failure"),
    Entry("panic", _cue(r"\bclippy::panic\b|" + banned(r"`?panic!?`?(?:\(\))?(?!\w)")),
          _shapes(rust=r"\bpanic!\s*\(", go=r"(?<![\w.])panic\s*\("), "panics instead of returning an error", confirm=_not_in_must),
    # Shell: shellcheck
    Entry("quote-expansions", _cue(r"\bSC2086\b|\bquote\s+(?:all\s+|your\s+|every\s+)?(?:shell\s+)?(?:variables?|expansions?|vars)\b|"
                                   r"\b(?:variables?|expansions?|vars)\s+(?:must|should)\s+(?:always\s+)?be\s+(?:double[- ])?quoted\b|"
                                   r"\bdouble[- ]quote\s+(?:all\s+|every\s+)?(?:variables?|expansions?)|\bdouble[- ]quote\s+to\s+prevent\b|"
                                   + banned(r"\bunquoted\s+(?:variables?|expansions?|vars)\b")),
          _shapes(sh=r"\$", docker=r"^\s*RUN\b.*\$"), "expands a variable without double quotes", confirm=_unquoted_expansion),
    Entry("cd-or-exit", _cue(r"\bSC2164\b|`?cd\b[^.;`]{0,20}\|\|\s*exit`?|\bcd\b[^.;]{0,30}\b(?:fails?|failure)\b"),
          _shapes(sh=r"^\s*cd\s+[^|&;]+$"), "changes directory without handling a failed cd", confirm=_unjoined_cd),
    Entry("backticks", _cue(r"\bSC2006\b|\bbackticked\b|`?\$\(\.\.\.\)`?\s+(?:notation\s+)?instead\s+of\b|\bbackticks?\b[^.;]{0,40}\b(?:command\s+substitution|\$\(\S*\))|"
                            r"\$\(\S*\)[^.;]{0,40}\bbackticks?\b|" + banned(r"\bbackticks?\b[^.;]{0,20}\b(?:shell|scripts?|commands?)")),
          _shapes(sh=r"`[^`]+`", docker=r"^\s*RUN\b.*`[^`]+`"), "substitutes a command with backticks instead of $(...)"),
    Entry("posix-sh", _cue(r"\bPOSIX\s+(?:`?sh`?|shell)\b|\bbashisms?\b|\bSC3\d{3}\b|\bcheckbashisms\b|\bportable\s+(?:sh|shell)\b"),
          _shapes(sh=r"^#!.*\bbash\b|\[\[|^\s*(?:local\s+)?\w+=\(|^\s*source\s|^\s*function\s+\w+|\$'|&>|<<<|\$\{\w+//|"
                     r"\[\s[^\]]*\s==\s"),
          "uses a bash feature in a POSIX sh script", on="text"),
    # Dockerfiles: hadolint
    Entry("no-install-recommends", _cue(r"\bDL3015\b|--no-install-recommends\b|\brecommended\s+packages\b"),
          _shapes(docker=r"\bapt-get\s+(?:-\S+\s+)*install\b", sh=r"\bapt-get\s+(?:-\S+\s+)*install\b"),
          "installs apt packages without --no-install-recommends", confirm=_without_recommends),
    Entry("no-latest-tag", _cue(r"\bDL300[67]\b|" + banned(r"`?:?latest`?\s*(?:tags?|images?)?", gap=20)
                                + r"|\b(?:explicit|specific|pinned)\s+(?:image\s+)?(?:tags?|versions?)\b[^.;]{0,30}\b(?:images?|FROM)\b|"
                                r"\btag\s+(?:the\s+)?(?:version\s+of\s+)?(?:an?\s+|the\s+)?(?:base\s+)?images?\b[^.;]{0,15}\bexplicitly\b"),
          _shapes(docker=r"^\s*FROM\s+(?:--platform=\S+\s+)?[\w.\-/]+(?::latest)?(?:\s+(?:AS|as)\s+\w+)?\s*$"),
          "builds from an untagged or :latest image", confirm=_untagged),
    Entry("copy-not-add", _cue(r"\bDL3020\b|(?-i:\bCOPY\b)[^.;]{0,30}\b(?:instead of|over|rather than|not)\s+`?(?-i:ADD)\b|"
                               r"(?-i:\bADD\b)`?\s+(?:\w+\s+){0,3}(?-i:COPY)\b|" + banned(r"`?(?-i:ADD)`?\s+(?:instructions?|for)\b")),
          _shapes(docker=r"^\s*ADD\s+(?!https?://)(?!\S+\.(?:tar|tgz|tar\.\w+)\s)"), "uses ADD where COPY does"),
    Entry("no-sudo", _cue(r"\bDL3004\b|" + banned(r"`?sudo`?", gap=15)),
          _shapes(docker=r"^\s*RUN\b.*\bsudo\s|^\s*sudo\s", sh=r"(?:^|[;&|]\s*)sudo\s"), "runs a command with sudo"),
    # Schemas, migrations and views
    Entry("no-foreign-keys", _cue(banned(r"\bforeign[- ]keys?(?:\s+constraints?)?\b", gap=20)),
          _shapes(ruby=r"\badd_foreign_key\b|\bforeign_key:\s*(?:true|\{)", sql=r"(?i)\bFOREIGN\s+KEY\b|\bREFERENCES\s+[\w\"`.]+\s*\(",
                  py=r"\bForeignKey(?:Constraint)?\(", php=r"->(?:foreign|constrained|foreignId)\(",
                  js=(JS, r"\.references\(|\bforeignKey\s*:")),
          "adds a foreign key constraint"),
    Entry("no-transaction-statements", _cue(banned(r"(?-i:`?BEGIN`?)\s*(?:and|or|/|,)\s*(?-i:`?COMMIT`?)|\btransaction\s+statements\b|"
                                                   r"\bexplicit\s+transactions?\b", gap=15)),
          _shapes(sql=r"(?i)^\s*(?:BEGIN(?:\s+(?:TRANSACTION|WORK))?|START\s+TRANSACTION|COMMIT(?:\s+WORK)?|END(?:\s+TRANSACTION)?|"
                      r"ROLLBACK)\s*;"),
          "opens or ends a transaction by hand", confirm=_outside_routines),
    Entry("no-app-logic-in-migrations", _cue(banned(r"\b(?:application|business|domain|app)\s+logic\b", gap=15)),
          _shapes(py=r"^\s*(?:from|import)\s+(?:app|src|core|services|domain|api|backend|server)(?:\.\w+)*\b"),
          "runs application code from a migration", paths=re.compile(r"(?:^|/)(?:migrations?|alembic|migrate)/")),
    Entry("no-queries-in-views", _cue(r"\b(?:DB|database|SQL|ORM|model)\s+(?:queries|calls|access|lookups)\b[^.;]{0,20}\b(?:in|from|inside)\s+"
                                      r"(?:the\s+)?(?:Blade|views?|templates?)\b|" + banned(r"\bqueries\s+in\s+(?:Blade|views?|templates?)\b")),
          _shapes(php=r"\b[A-Z]\w*::(?:where\w*|find\w*|all|query|first|count|with|latest|get)\(|\bDB::(?:table|select|raw|statement)\(",
                  ruby=r"\b[A-Z]\w*\.(?:where|find|find_by|all|count|first|last|includes)\b"),
          "queries the database from a view", paths=re.compile(r"(?:^|/)(?:views?|templates?)/|\.blade\.php$|\.erb$|\.twig$")),
    # naming conventions
    Entry("snake-case-functions", _cue(r"\bN80[23]\b|\bsnake[_ ]case\b[^.;]{0,40}\b(?:functions?|methods?|variables?|names?)\b|"
                                       r"\b(?:functions?|methods?|variables?)\b[^.;]{0,30}\bsnake[_ ]case\b"),
          _shapes(py=r"^\s*(?:async\s+)?def\s+_*[a-z]+[A-Z]\w*\s*\(|^\s*_*[a-z]+[A-Z]\w*\s*=(?!=)"),
          "names a function or variable in camelCase instead of snake_case"),
    Entry("pascal-case-classes", _cue(r"\bN801\b|\b(?:Pascal|Upper)(?:Case|\s+case|\s+Camel\s*Case)\b[^.;]{0,30}\b(?:class|type|component)"
                                      r"(?:es|s)?\b|\b(?:class|type|component)(?:es|s)?\b[^.;]{0,30}\b(?:Pascal|Upper)(?:Case|\s+case)\b"),
          _shapes(py=r"^\s*class\s+_?[a-z]\w*\s*[(:]", js=(JS, r"^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+_?[a-z]\w*\b"),
                  java=r"^\s*(?:public\s+)?(?:final\s+)?class\s+[a-z]\w*", csharp=r"^\s*(?:public\s+|internal\s+)?class\s+[a-z]\w*"),
          "names a class in lower case instead of PascalCase"),
    Entry("camel-case-js", _cue(r"\bcamel-?case\b(?![^.;]{0,30}\b(?:json|keys?|fields?|properties|columns?|api|responses?)\b)"),
          _shapes(js=(JS, r"\b(?:const|let|var|function)\s+[a-z][a-z0-9]*_[a-z0-9_]*\b")),
          "names a variable or function in snake_case instead of camelCase"),
    Entry("go-mixed-caps", _cue(r"\bMixedCaps\b|\bmixedCaps\b|\b(?:no\s+)?underscores?\s+in\s+(?:Go\s+)?(?:names|identifiers)\b"),
          _shapes(go=r"^\s*func\s+(?:\([^)]*\)\s*)?(?!Test|Benchmark|Example|Fuzz)[A-Za-z]+_\w*\s*\(|\b(?:var|const)\s+[A-Za-z]+_\w*\b"),
          "names a Go identifier with underscores instead of MixedCaps"),
    # more ESLint / TypeScript
    Entry("prefer-template", _cue(r"\bprefer-template\b|\btemplate\s+(?:literals?|strings?)\b[^.;]{0,30}\b(?:instead of|over|rather than)\s+"
                                  r"(?:string\s+)?concatenation|" + banned(r"\bstring\s+concatenation\b")),
          _shapes(js=(JS, r"(?:\"\"|''|``)\s*\+\s*[\w$(]|[\w$)\]]\s*\+\s*(?:\"\"|''|``)")), "builds a string by concatenation"),
    Entry("no-plusplus", _cue(r"\bno-plusplus\b|" + banned(r"(?:the\s+)?unary\s+operators?\s+`?\+\+`?|`\+\+`")),
          _shapes(js=(JS, r"\+\+|(?<![-!<>=])--(?![->=])")), "uses ++ / --"),
    Entry("prefer-arrow-callback", _cue(r"\bprefer-arrow-callback\b|\b(?:prefer|use)\s+arrow\s+functions?\b|\barrow\s+functions?\b[^.;]{0,20}\b"
                                        r"(?:for|as)\s+callbacks?\b"),
          _shapes(js=(JS, r"[(,]\s*(?:async\s+)?function\s*\*?\s*\w*\s*\(")), "passes a function expression where an arrow function is preferred"),
    Entry("no-type-assertions", _cue(r"\bconsistent-type-assertions\b|" + banned(r"\btype\s+assertions?\b|\b`as`\s+(?:casts?|assertions?)\b|"
                                                                                  r"\btype\s+casts?\b")),
          _shapes(ts=(TS, r"\bas\s+(?!const\b)[A-Z][\w.<>\[\]]*|\bas\s+(?:any|unknown|string|number)\b")),
          "asserts a type with `as` instead of narrowing"),
    # more Python
    Entry("http-timeout", _cue(r"\bS113\b|^(?=[\s\S]*\b(?:requests|httpx|http|outbound|network)\b)[\s\S]*?(?:\b(?:always|must|should|every|all|explicit\w*|"
                               r"require\w*|set|include|with|default\s+to)\b[^.;]{0,30}\btimeouts?\b|\bwithout\s+(?:an?\s+)?timeouts?\b)"),
          _shapes(py=r"\b(?:requests|httpx)\.(?:get|post|put|patch|delete|head|request)\s*\(",
                  go=r"\bhttp\.(?:Get|Post|Head|PostForm)\(|\bhttp\.DefaultClient\b|&?http\.Client\{\s*\}"),
          "makes an HTTP call without a timeout", confirm=_no_timeout),
    Entry("open-encoding", _cue(r"\bPLW1514\b|\bunspecified-encoding\b|\bencoding\b[^.;]{0,30}\bopen\(|\bopen\(\)[^.;]{0,40}\bencoding\b|"
                                r"\b(?:always\s+)?(?:pass|specify|set|give)\s+(?:an?\s+)?(?:explicit\s+)?encoding\b"),
          _shapes(py=r"(?<![\w.])open\s*\(|\.open\s*\((?=\s*\)|\s*[\"'])|\.(?:read|write)_text\s*\("),
          "opens a text file without an explicit encoding", confirm=_no_encoding),
    Entry("logging-fstring", _cue(r"\bG00[34]\b|\blogging-f-?string\w*|\blazy\s+(?:%\s+)?(?:formatting|interpolation)\b|"
                                  + banned(r"\bf-?strings?\s+(?:in|for|with)\s+(?:log|logging|logger)\w*")),
          _shapes(py=r"\b(?:log|logger|logging|LOG|_log|_logger)\.(?:debug|info|warning|warn|error|exception|critical|log)\(\s*f\"\""),
          "formats a log message eagerly with an f-string"),
    Entry("raise-from", _cue(r"\bB904\b|\braise\s+\.\.\.\s+from\b|`raise\s+\w*\s*(?:\.\.\.|\w+)?\s*from\s+\w+`|\bexception\s+chaining\b|"
                             r"\bchain(?:ed)?\s+(?:the\s+)?(?:original\s+)?exceptions?\b"),
          _shapes(py=r"^\s*raise\s+\w"), "re-raises inside except without `from`, losing the cause", confirm=_unchained_raise),
    # more Go / Rust
    Entry("go-error-strings", _cue(r"\bST1005\b|\berror\s+(?:strings?|messages?)\s+(?:should|must)\s+not\s+(?:be\s+capitali[sz]ed|"
                                   r"start\s+with\s+a\s+capital|end\s+with\s+punctuation)|\blower-?case\s+error\s+(?:strings|messages)\b|"
                                   r"\berror\s+(?:strings|messages)\b[^.;]{0,20}\blower-?case\b"),
          _shapes(go=r"\b(?:errors\.New|fmt\.Errorf)\(\s*\"(?:[A-Z][a-z]|[^\"]*[.!?:]\")"),
          "starts an error string with a capital or ends it with punctuation", on="text"),
    Entry("go-wrap-errors", _cue(r"\berrorlint\b|\bwrap\w*\s+(?:the\s+)?(?:underlying\s+|returned\s+)?errors?\b[^.;]{0,40}%w|%w\b[^.;]{0,40}\bwrap"
                                 r"|\bwrap\w*\s+errors?\s+with\s+(?:context\s+)?(?:using\s+|via\s+)?`?fmt\.Errorf"),
          _shapes(go=r"\bfmt\.Errorf\(\s*\"[^\"]*%[vs][^\"]*\"\s*,[^)]*\berr\b"), "formats an error with %v instead of wrapping it with %w",
          on="text", confirm=lambda ln, side, i, decision: "%w" not in ln.text),
    Entry("undocumented-unsafe", _cue(r"\bundocumented_unsafe_blocks\b|\bunsafe\b[^.;]{0,50}(?-i:\bSAFETY\b)|(?-i:\bSAFETY\b)[^.;]{0,50}\bunsafe\b"),
          _shapes(rust=r"\bunsafe\s*\{|\bunsafe\s+impl\b"), "writes unsafe code without a SAFETY comment", confirm=_undocumented_unsafe),
    # more Dockerfile
    Entry("json-cmd", _cue(r"\bDL3025\b|\bJSON\s+(?:notation|form|array|syntax)\b[^.;]{0,40}\b(?:CMD|ENTRYPOINT)\b|\bexec\s+form\b"),
          _shapes(docker=r"^\s*(?:CMD|ENTRYPOINT)\s+(?!\[)\S"), "writes CMD / ENTRYPOINT in shell form"),
    Entry("workdir-not-cd", _cue(r"\bDL3003\b|\bWORKDIR\b[^.;]{0,30}\b(?:instead of|rather than|not)\s+`?cd\b|\bWORKDIR\s+to\s+switch\b"),
          _shapes(docker=r"^\s*RUN\b.*(?:^|\s|&&|;)cd\s+\S"), "changes directory with cd in RUN instead of WORKDIR"),
    Entry("apt-lists", _cue(r"\bDL3009\b|/var/lib/apt/lists\b|\bapt(?:-get)?\s+(?:package\s+)?lists\b|\bapt\s+caches?\b"),
          _shapes(docker=r"\bapt-get\s+(?:-\S+\s+)*install\b"), "installs apt packages without deleting the apt lists", confirm=_lists_kept),
    # CSS
    Entry("no-important", _cue(r"\bdeclaration-no-important\b|" + banned(r"`?!important`?")),
          _shapes(css=r"!\s*important\b", jsx=(JS, r"!\s*important\b")), "adds !important", on="text"),
    # Java / C# / Kotlin
    Entry("records-for-dtos", _cue(r"\brecords?\b[^.;]{0,30}\b(?:DTOs?|value\s+objects?|data\s+carriers?)\b"),
          _shapes(java=r"^\s*(?:public\s+)?(?:final\s+)?class\s+\w*(?:Dto|DTO)\b|^\s*@(?:Data|Value)\s*$"),
          "writes a DTO or value object as a class instead of a record", confirm=_not_an_entity),
    Entry("prefer-val", _cue(r"\bval\b[^.;]{0,20}\b(?:over|instead of|rather than)\s+`?var\b|\bprefer\s+`?val`?\b|\bimmutable\s+`?val`?\b"),
          _shapes(kotlin=r"^\s*(?:(?:private|internal|protected|public|override|lateinit)\s+)*var\s+\w"), "declares a Kotlin var where val is preferred"),
    Entry("field-injection", _cue(r"\bfield\s+injection\b|\bconstructor\s+injection\b|" + banned(r"`?@Autowired`?\s+(?:on\s+)?fields?")),
          _shapes(java=r"^\s*@(?:Autowired|Inject)\b", kotlin=r"^\s*@(?:Autowired|Inject)\b"), "injects a dependency into a field",
          confirm=_injected_field),
    Entry("print-stack-trace", _cue(r"\bAvoidPrintStackTrace\b|" + banned(r"`?(?:e\.)?printStackTrace(?:\(\))?`?")),
          _shapes(java=r"\.printStackTrace\(\s*\)", kotlin=r"\.printStackTrace\(\s*\)"), "prints a stack trace instead of logging it"),
    Entry("async-void", _cue(r"\bVSTHRD100\b|" + banned(r"`?async\s+void`?")),
          _shapes(csharp=r"\basync\s+void\b"), "declares an async void method", confirm=_not_an_event_handler),
    Entry("sync-over-async", _cue(r"\bsync[- ]over[- ]async\b|\bblock\w*\s+on\s+async\b|" + banned(r"`?\.Result`?|`?\.Wait\(\)`?|"
                                  r"`?\.GetAwaiter\(\)\.GetResult\(\)`?")),
          _shapes(csharp=r"\.Result\b(?!\s*=)|\.Wait\(\s*\)|\.GetAwaiter\(\)\.GetResult\(\)"), "blocks on an async task"),
    Entry("catch-exception", _cue(banned(r"\bcatch(?:ing)?\s+(?:`|\()?(?-i:Exception|Throwable|RuntimeException)\b")),
          _shapes(braces=(("java", "kotlin", "csharp", "php", "scala"),
                          r"\bcatch\s*\(\s*(?:final\s+)?(?:System\.|\\)?(?:Exception|Throwable|RuntimeException)\b[^)]*\)|"
                          r"\bcatch\s*\(\s*\w+\s*:\s*(?:Exception|Throwable)\s*\)")),
          "catches Exception itself instead of a specific type"),
)


# "Do NOT: Ignore context cancellation; Swallow errors; Panic in normal flow": each item is prohibited.
_LIST_HEAD = re.compile(r"\b(?:do\s+not|don'?t|never|avoid|forbidden|prohibited|not\s+allowed)\s*:\s*([^\n.]+)", re.I)


def distributed(text: str) -> str:
    """The decision with the head of a list of prohibitions put before each item."""
    items = [x for m in _LIST_HEAD.finditer(text) for x in re.split(r"(?:(?<!\s)\s+)?[;,•]\s*", m.group(1)) if x.strip()]
    return text + "".join(f". Do not {x.strip()}" for x in items)


def entries_for(decision: str) -> list[Entry]:
    """The catalogue entries a decision's own words state."""
    text = distributed(decision)
    return [e for e in ENTRIES if e.cue.search(text)]


class _Cue:
    """The catalogue's cue, as a rule reads one: `search(text)` is true when an entry is."""

    def search(self, text: str) -> bool:
        return bool(entries_for(text))


CUE = _Cue()


def violations(lines: list[Line], lang: str, decision: str, path: str = "") -> list[Hit]:
    """Added lines that break a lint rule the decision states, in the dialect of `path`."""
    name = dialect(path)
    chosen = [e for e in entries_for(decision) if (name in e.shapes or "any" in e.shapes) and
              (e.paths is None or e.paths.search(path.replace("\\", "/")))]
    if not _in_places(decision, path):
        return []
    if not chosen or code_scope.generated(path, lines) or code_scope.library_only(decision) and code_scope.entry_point(path, lines):
        return []
    if _DOCKER_ONLY.search(decision) and name != "docker":
        return []  # "Do not use sudo in Dockerfiles": an install script is another matter
    justifiable = _JUSTIFIABLE.search(decision) is not None
    new_side = [ln for ln in lines if ln.side != "-"]
    out = []
    for i, ln in enumerate(new_side):
        if ln.side != "+" or name == "rust" and code_scope.in_test_module(ln, new_side):
            continue
        for e in chosen:
            if _breaks(e, ln, name, new_side, i, decision) and not (justifiable and _commented(new_side, i)):
                out.append((e.kind, ln, f"{e.why} ({e.rule})"))
                break
    return out


# "into alembic/versions", "in the SQLite migration flavours": where a decision puts its rule.
_PLACE_PATH = re.compile(r"\b(?:in|into|inside|within|under)\s+(?:the\s+)?`?([\w.\-]+/[\w.\-/]*)`?")
_PLACE_WORD = re.compile(r"\b(?:in|into|inside|within|under)\s+(?:the\s+|all\s+)?([A-Za-z]\w+)\s+(?:migration\s+|schema\s+)?"
                         r"(?:flavou?rs?|variants?|dialects?|templates?|folders?|director(?:y|ies)|packages?)\b", re.I)


def _in_places(decision: str, path: str) -> bool:
    """The file is in a place the decision names, or the decision names none."""
    low = path.replace("\\", "/").lower()
    places = [m.group(1).strip("/.").lower() for m in _PLACE_PATH.finditer(decision)]
    places += [m.group(1).lower() for m in _PLACE_WORD.finditer(decision)]
    return not places or any(p in low for p in places)


_DOCKER_ONLY = re.compile(r"\bDockerfiles?\b|\bhadolint\b|\bDL\d{4}\b", re.I)


def _breaks(e: Entry, ln: Line, name: str, new_side: list[Line], i: int, decision: str) -> bool:
    rx = e.shapes.get(name) or e.shapes["any"]
    if e.on == "comment":
        if not ln.comment or not rx.search(ln.text):
            return False
    elif ln.prose or not rx.search(ln.text if e.on == "text" else ln.code):
        return False
    return e.confirm is None or e.confirm(ln, new_side, i, decision)


def _commented(new_side: list[Line], i: int) -> bool:
    """A comment on line `i` or a comment line just above it: where a justification is written."""
    above = new_side[i - 1] if i else None
    return new_side[i].comment or (above is not None and (above.prose or above.comment and not above.code.strip()))


RULES = (Rule("detector:lint_rules", "code that breaks a lint rule the decision states (this module's catalogue)",
              on_lines(violations, path=True), CUE),)
