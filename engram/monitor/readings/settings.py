"""Settings a decision keeps narrow, opened to everything: "restrict origins to the expected
hostnames" against `allow_origins=["*"]`, "declare minimal required permissions" against
`permissions: write-all`.

The decision names the setting by its noun ("origins", "permissions"); a line the change adds that
gives a key holding that noun a wildcard (`"*"`, `write-all`, a pattern that matches anything) has
undone the restriction, whatever the narrow value was meant to be. Narrow values are left alone:
which hostnames are "expected" is not in the words.
"""

from __future__ import annotations

import re

from engram.monitor.code_lines import Line
from engram.text import singular

Hit = tuple[str, Line, str]

# "restrict origins", "narrow the scopes", "minimal required permissions", "least-privilege roles",
# "origins must be restricted"
_NARROW = [re.compile(r"\b(?:restrict|narrow)\s+(?:the\s+|allowed\s+|its\s+)*([a-z][\w\-]*)", re.I),
           re.compile(r"\b(?:minimal|minimum|least[- ]privilege)\s+(?:required\s+|necessary\s+)?([a-z][\w\-]*)", re.I),
           re.compile(r"\b([a-z][\w\-]*)\s+(?:must|should|shall)\s+(?:always\s+)?be\s+(?:restricted|narrow|minimal|"
                      r"explicit|allowlisted|whitelisted)\b", re.I)]
_NOT_SETTINGS = frozenset("""the a an to it this that them code data access use usage changes change footprint set
number amount size version versions""".split())
_KEY = re.compile(r"[\"']?(?<![A-Za-z_])(?<![A-Za-z_][\w\-])([A-Za-z_][\w\-]*)[\"']?\s*(?:=|:=|:)\s*(.+)")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|[A-Z]+|\d+")
# Everything: `"*"`, `['*']`, `write-all`, `all`; a pattern that matches any host: `https?://.*`.
_WILDCARD = re.compile(r"""^\[?\s*(?:["'](?:\*|write-all|all)["']|\*|write-all)\s*\]?\s*[,;)]?\s*$""")
_ANY_PATTERN = re.compile(r"""^r?["'][^"']*(?<![\\])\.[*+][^"']*["']\s*[,;)]?\s*$""")


def narrowed(text: str) -> list[str]:
    """The settings, by noun in the singular, a decision keeps narrow."""
    nouns = [m.group(1).lower() for rx in _NARROW for m in rx.finditer(text)]
    return list(dict.fromkeys(singular(n) for n in nouns if n not in _NOT_SETTINGS and len(n) > 3))


def _parts(key: str) -> set[str]:
    return {singular(p.lower()) for chunk in re.split(r"[_\-]", key) for p in _CAMEL.findall(chunk)}


def opened(nouns: list[str], lines: list[Line]) -> list[Hit]:
    """Added lines giving a narrowed setting a value that lets everything through."""
    out = []
    for ln in lines:
        if ln.side != "+" or ln.prose or not nouns:
            continue
        m = _KEY.search(ln.text.strip())
        if m is None or not set(nouns) & _parts(m.group(1)):
            continue
        value = m.group(2).strip()
        if _WILDCARD.match(value):
            out.append(("direct", ln, f"opens {m.group(1)} to everything, which the decision keeps restricted"))
        elif _ANY_PATTERN.match(value):
            out.append(("indirect", ln, f"gives {m.group(1)} a pattern that matches anything, where the decision "
                                        f"keeps it restricted"))
    return out
