"""Code a decision quotes and forbids: "Avoid `except Exception:` or bare `except:` blocks",
"use `model_dump_json()` (not `json.dumps`)", "`any` casts are banned".

A decision that writes code in backticks says exactly what to look for, so the quote is matched
as code, token by token, on the lines the change adds (comments and message strings are not
code). Its polarity comes from the clause around it: the nearest cue before the quote (a
negation, "instead of", "avoid") or a passive prohibition after it ("... is forbidden"). A
quote the clause allows under a condition ("without an issue link", "except in tests") is left
to the rules that can see the condition, and one quoted after "use" or "with" is required, not
forbidden.
"""

from __future__ import annotations

import re

from engram.graph import decision_text
from engram.monitor.code_lines import Line

Hit = tuple[str, Line, str]

_QUOTE = re.compile(r"`([^`\n]{1,60})`")
_NEGATIVE = r"(?:never|don'?t|do not|must not|mustn'?t|should not|shouldn'?t|cannot|can'?t|no|not|nor|avoid|" \
            r"avoiding|instead of|rather than|forbid|forbids|forbidden|ban|bans|banned|stop|prohibit|prohibits|prohibited|" \
            r"disallow|disallows|disallowed)"
_POSITIVE = r"(?:use|using|prefer|always|must|should|require|requires|required|with|via|through|wrap|call|" \
            r"keep|enforce|only)"
_CUE = re.compile(rf"\b(?:(?P<neg>{_NEGATIVE})|(?P<pos>{_POSITIVE}))\b", re.I)


def _words_before(n: int) -> str:
    r"""`(?:[\w-]+\W+){0,n}` as a pattern that cannot backtrack: the first n-1 words are whole runs of
    word characters and hyphens, and only the last may end inside one ("built-in": the `in`), so a
    long run of hyphens costs linear time instead of trying every way to cut it into words."""
    return rf"(?:[\w\-]++\W++){{0,{n - 1}}}?(?:(?:[\w\-]*\w|-)\W++)??"


_PASSIVE = re.compile(r"^\W{0,3}" + _words_before(3) + r"(?:is|are)\s+(?:strictly\s+|also\s+)?(?:forbidden|prohibited|banned|"
                      r"disallowed|not allowed|not permitted|deprecated)\b", re.I)
# "... without an issue link", "... via execute_sql", "... in async code": forbidden only in a way or a
# place the quote alone does not show.
# "unless explicitly requested": a permission the user gives, not a condition the code can meet.
UNLESS_ASKED = r"unless(?!\s+(?:explicitly|specifically|expressly|requested|asked|approved|instructed|told)\b)"
_CONDITION = re.compile(rf"^\W{{0,3}}{_words_before(4)}(?:without|{UNLESS_ASKED}|except|other than|outside|if|when|via|through|"
                        r"in|inside|within|during|on)\b(?!\s+(?:the\s+)?(?:code|codebase|repo|repository|project)\b)", re.I)
# "without `X`" may ask for X ("deletes without `WHERE`") or rule it out ("fetch without `axios`").
_AMBIGUOUS_BEFORE = re.compile(r"\bwithout\s*(?:[\w\-]+\s+){0,2}$", re.I)
_MEANS = re.compile(r"\bby\s+(?:specifying|using|adding|passing|setting|writing|calling)\s*$", re.I)
KEYWORDS = frozenset("""if else for while return def function fn func class const let var import from export true
false null none nil new this self int str string number bool boolean any void async await try catch except
finally raise throw public private static type interface struct enum match case default break continue""".split())
_TOKEN = re.compile(r"[A-Za-z_$][\w$]*|\d+|\S")


def forbidden(text: str) -> list[str]:
    """The code a decision quotes in a clause that forbids it, unconditionally."""
    out = []
    for sentence in decision_text.sentences(text) or [text]:
        for clause in re.split(r";\s+|:\s+(?=[A-Z])", sentence):
            for m in _QUOTE.finditer(clause):
                if _polarity(clause[:m.start()], clause[m.end():]) == "forbid" and _matchable(m.group(1)):
                    out.append(m.group(1).strip())
    return list(dict.fromkeys(out))


def _polarity(before: str, after: str) -> str:
    after = _own_tail(before, after)
    before = _QUOTE.sub(" code ", before)  # other quotes hold no cues
    if _CONDITION.match(after):
        return "conditional"
    if _PASSIVE.match(after):
        return "forbid"
    if _AMBIGUOUS_BEFORE.search(before):
        return "conditional"
    if _MEANS.search(before):
        return "require"  # "Avoid additional packages by specifying `--no-install-recommends`": the remedy
    cues = list(_CUE.finditer(before))
    if not cues:
        return "none"
    last = cues[-1]
    if last.group("neg"):
        return "forbid"
    negated = [c for c in cues[:-1] if c.group("neg") and len(before[c.end():last.start()].split()) <= 2]
    if negated:  # "never use `x`", "do not call `x`"
        return "forbid"
    if re.search(r"\bover\s*$", before, re.I) and re.search(r"\bprefer", before, re.I):
        return "forbid"  # "prefer `a` over `b`"
    return "require"


def _own_tail(before: str, after: str) -> str:
    """The words after a quote that govern it: in "avoid `a`, and `b` without X" the condition after the
    next quote is b's; in "never run DDL (`CREATE`, `ALTER`) via X" the list is in parentheses, and what
    follows them governs every item."""
    if before.count("(") > before.count(")") and ")" in after:
        return after[after.index(")") + 1:]
    return after.split("`", 1)[0]


def _matchable(quote: str) -> bool:
    """Code worth looking for: not a path, a placeholder or a bare keyword (banned_syntax reads those)."""
    q = quote.strip()
    if not q or q.lower() in KEYWORDS or "/" in q and not re.search(r"[(=:]", q) or re.fullmatch(r"\W+", q):
        return False
    return not re.fullmatch(r"[\w\-]+\.(?:json|ya?ml|toml|lock|sql|md|txt|env|cfg|ini)", q, re.I)


def pattern(quote: str) -> re.Pattern[str]:
    """The quote as a token-by-token pattern: `except Exception:` matches `except Exception as e:`
    (a trailing colon is dropped when words remain), `foo()` matches any call of foo, `f(shell=True)`
    its argument, `npx tool cmd` the command without its runner."""
    q = quote.strip()
    call = re.fullmatch(r"[\w.$]+\(\s*([\w$]+\s*=\s*[^,()]+)\s*\)", q)
    if call:
        q = call.group(1)  # `subprocess(shell=True)`: the argument is what is ruled out
    if q.endswith("()"):
        q = q[:-1]
    runner = re.match(r"(?:npx|bunx|pnpm exec|pnpm dlx|yarn dlx|poetry run|uv run)\s+(?=\S+\s+\S)", q)
    q = q[runner.end():] if runner else q  # `npx prisma db push` is run as `prisma db push` from package.json too
    toks = _TOKEN.findall(q)
    while len(toks) > 1 and toks[-1] in ":;," and sum(t[0].isalnum() or t[0] in "_$" for t in toks) >= 2:
        toks = toks[:-1]
    body = r"\s*".join(re.escape(t) for t in toks)
    lead = r"(?<![\w$.])" if re.match(r"[\w$]", toks[0]) else ""
    tail = r"(?![\w$])" if re.match(r"[\w$]", toks[-1]) else ""
    return re.compile(lead + body + tail)


# "If required, document the justification in a code comment": a use with a comment above it is allowed.
_JUSTIFY = re.compile(r"\b(?:document|add|write|give|leave)\w*\s+(?:the\s+|a\s+)?(?:justification|reason|rationale)\b[^.;]{0,30}"
                      r"\bcomment|\bjustif\w*\s+(?:it\s+)?in\s+a\s+(?:code\s+)?comment", re.I)
_NEAR = 3


def allows_justified(text: str) -> bool:
    """Whether a decision lets a forbidden use stand when a comment justifies it."""
    return _JUSTIFY.search(text) is not None


def _commented(ln: Line, lines: list[Line]) -> bool:
    """A comment on the added line or on one of the added lines just above it."""
    return any(x.side == "+" and x.comment and ln.number - _NEAR <= x.number <= ln.number for x in lines)


def introduced(quotes: list[str], lines: list[Line], config: bool = False, justified_ok: bool = False) -> list[Hit]:
    """Added lines whose code holds a forbidden quote, when more added than removed lines do. A quote
    that is one plain word (`latest`) is a value, looked for in configuration only: in source it is
    as likely a variable. `justified_ok`: a use with a comment just above it is allowed."""
    out = []
    for quote in quotes:
        if re.fullmatch(r"[a-z]{2,10}", quote.strip()) and not config:
            continue
        rx = pattern(quote)
        plus = [ln for ln in lines if ln.side == "+" and not ln.prose and rx.search(ln.code)
                and not (justified_ok and _commented(ln, lines))]
        minus = [ln for ln in lines if ln.side == "-" and not ln.prose and rx.search(ln.code)]
        if len(plus) > len(minus):
            out.append(("direct", plus[0], f"adds `{quote}`, which the decision rules out"))
    return out
