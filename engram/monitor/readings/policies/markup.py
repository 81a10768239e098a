"""Accessibility rules of markup (HTML, JSX, Vue, templates): what the decision requires of an
element, left out by an element the change writes.

The rules are the ones accessibility guides and lint configurations state (eslint-plugin-jsx-a11y,
react/jsx-no-target-blank, html-validate): "images must have alt text", "links opening new tabs
include `rel=\"noopener noreferrer\"`", "buttons need an explicit type", "prefer `<button>` over a
clickable `<div>`", "icon-only buttons need an `aria-label`", "only one `<h1>` per page", "no
autofocus", "no positive tabindex", "`<html>` has a `lang`". None of them names code a term could
match; each is a fact about one element's tag and attributes, read from the file as the change
leaves it, and reported only where the change wrote that element (its tag or its content).

`RULES` is the table: for each rule, the decision's words that call for it (its cue) and the test
of one element. An element with a spread of props (`{...props}`) may carry any attribute and is
left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from engram.monitor.code_lines import Line

Hit = tuple[str, Line, str]

_MARKUP_FILES = (".jsx", ".tsx", ".js", ".html", ".htm", ".vue", ".svelte", ".astro", ".erb", ".php", ".hbs",
                 ".njk", ".twig", ".cshtml", ".razor", ".jinja", ".j2", ".liquid", ".mdx")
_OPEN = re.compile(r"<([A-Za-z][\w.\-]*)(?=[\s/>])")
_COMMENT = re.compile(r"\{/\*.*?\*/\}|<!--.*?-->", re.S)
_MAX_ELEMENT = 3000  # characters an element's content is read for


@dataclass(frozen=True)
class Element:
    """One element as the file stands after the change: its tag, its opening tag's attributes, its
    content (None when self-closing or unclosed in view), the line it opens on, whether the change
    wrote it."""

    tag: str
    attrs: str
    content: str | None
    line: Line
    changed: bool


def _has(attrs: str, name: str) -> bool:
    return re.search(rf"(?<![\w\-:.]){name}\s*=", attrs, re.I) is not None or re.search(
        rf"(?<![\w\-:.]){name}(?=[\s/>]|$)", attrs, re.I) is not None


def _value(attrs: str, name: str) -> str | None:
    m = re.search(rf"(?<![\w\-:.]){name}\s*=\s*(?:\{{\s*)?([\"'`]?)([^\"'`}}]*)\1", attrs, re.I)
    return m.group(2) if m else None


def _end_of_tag(text: str, i: int) -> int:
    """The index of the `>` closing the opening tag that starts at i (braces and quotes skipped), or -1."""
    depth, quote = 0, ""
    for k in range(i, min(len(text), i + _MAX_ELEMENT)):
        ch = text[k]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'`" and depth == 0:
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif ch == ">" and depth == 0:
            return k
    return -1


def _content(text: str, tag: str, start: int) -> tuple[str | None, int]:
    """The content of an element whose opening tag ends before `start`, up to its closing tag."""
    opens = re.compile(rf"<{re.escape(tag)}(?=[\s/>])|</{re.escape(tag)}\s*>")
    depth = 1
    for m in opens.finditer(text, start, min(len(text), start + _MAX_ELEMENT)):
        depth += -1 if m.group(0).startswith("</") else 1
        if depth == 0:
            return text[start:m.start()], m.end()
    return None, start


def elements(lines: list[Line]) -> list[Element]:
    """The elements of the file as the change leaves it (context and added lines)."""
    after = [ln for ln in lines if ln.side != "-" and not ln.prose]
    text, owner = "", []
    for ln in after:
        piece = ln.text + "\n"
        owner += [ln] * len(piece)
        text += piece
    text = _COMMENT.sub(lambda m: " " * len(m.group(0)), text)
    out = []
    for m in _OPEN.finditer(text):
        end = _end_of_tag(text, m.end())
        if end < 0:
            continue
        attrs = text[m.end():end]
        content, stop = (None, end) if attrs.rstrip().endswith("/") else _content(text, m.group(1), end + 1)
        span = owner[m.start():max(stop, end + 1)]
        out.append(Element(m.group(1), attrs, content, owner[m.start()], any(x.side == "+" for x in span)))
    return out


# -- the rules -------------------------------------------------------------------------------------

_CLICK = re.compile(r"(?<![\w\-])(?:onClick|onclick|@click|v-on:click|\(click\)|on:click|wire:click)\s*=")
_STATIC = frozenset("div span li p section article td tr img header footer main aside label ul ol".split())


def _no_alt(e: Element) -> str | None:
    if e.tag.lower() == "img" and not _has(e.attrs, "alt"):
        return "adds an image without alt text"
    return None


def _blank_without_rel(e: Element) -> str | None:
    if e.tag.lower() not in ("a", "area", "form") or (_value(e.attrs, "target") or "").lower() != "_blank":
        return None
    rel = (_value(e.attrs, "rel") or "").lower()
    if "noopener" in rel or "noreferrer" in rel:
        return None
    return 'opens a new tab without rel="noopener noreferrer"'


def _button_without_type(e: Element) -> str | None:
    return "adds a <button> without an explicit type" if e.tag == "button" and not _has(e.attrs, "type") else None


def _clickable_static(e: Element) -> str | None:
    if e.tag in _STATIC and _CLICK.search(e.attrs):
        return f"gives a <{e.tag}> a click handler instead of using a <button>"
    return None


def _unnamed_icon_button(e: Element) -> str | None:
    if e.tag.lower() not in ("button", "a") and e.tag not in ("Button", "IconButton"):
        return None
    if e.content is None or any(_has(e.attrs, a) for a in ("aria-label", "aria-labelledby", "title")):
        return None
    if "<" not in e.content or re.sub(r"<[^<>]*>", "", e.content).strip():
        return None  # text (or an expression that renders some) is a visible caption
    return f"adds a <{e.tag}> with only an icon inside and no aria-label"


def _autofocus(e: Element) -> str | None:
    return "adds autofocus to an element" if _has(e.attrs, "autofocus") else None


def _positive_tabindex(e: Element) -> str | None:
    value = _value(e.attrs, "tabindex")
    if value and re.fullmatch(r"\s*\d+\s*", value) and int(value) > 0:
        return f"sets a positive tabindex ({value.strip()})"
    return None


def _html_without_lang(e: Element) -> str | None:
    return "adds an <html> element without a lang attribute" if e.tag.lower() == "html" and not _has(e.attrs, "lang") else None


_BAN = r"(?:no|never|avoid|don'?t|do not|disallow\w*|must not|should not|forbid\w*)"
# rule name -> (the decision's words that call for it, the test of one element)
RULES: dict[str, tuple[re.Pattern[str], Callable[[Element], str | None]]] = {
    "missing_alt": (re.compile(r"\balt(?:ernative)?[- ]text\b|\balt\s+(?:attributes?|tags?|props?)\b|`alt`|\balt=|"
                               r"\btext alternatives?\b|\balternative text\b", re.I), _no_alt),
    "blank_target": (re.compile(r"\bnoopener\b|\bnoreferrer\b|\b_blank\b|\bjsx-no-target-blank\b", re.I),
                     _blank_without_rel),
    "button_type": (re.compile(r"\bbutton-has-type\b|\bbuttons?\b[^.;]{0,40}\bexplicit\s+`?type\b|"
                               r"\btype\s+attribute\b[^.;]{0,40}\bbuttons?\b", re.I), _button_without_type),
    "clickable_static": (re.compile(r"\bclickable\s+`?<?(?:div|span)s?\b|\bclick-events-have-key-events\b|"
                                    r"\bno-static-element-interactions\b|\bno-noninteractive-element-interactions\b|"
                                    r"\b(?:divs?|spans?)\b[^.;]{0,30}\b(?:onclick|click handlers?)\b|"
                                    r"\b(?:static|non-interactive)\s+elements?\b[^.;]{0,40}\b(?:click|handlers?)\b", re.I),
                         _clickable_static),
    "unnamed_icon_button": (re.compile(r"\A(?=.*(?:\baria-label|\baccessible names?\b))(?=.*\b(?:icons?|icon-only|"
                                       r"visible (?:captions?|text|labels?)|without (?:visible )?(?:text|captions?))\b)",
                                       re.I | re.S), _unnamed_icon_button),
    "autofocus": (re.compile(rf"\b{_BAN}\b[^.;]{{0,30}}\bauto-?focus\b|\bno-autofocus\b", re.I), _autofocus),
    "positive_tabindex": (re.compile(r"\btab-?index\b[^.;]{0,40}\b(?:positive|greater than (?:0|zero)|above (?:0|zero))\b|"
                                     r"\bpositive\s+`?tab-?index\b|\btabindex-no-positive\b", re.I), _positive_tabindex),
    "html_lang": (re.compile(r"\bhtml-has-lang\b|\b(?:`?<html>?`?)\s+(?:elements?\s+)?(?:must|should|shall)\s+"
                             r"(?:have|include|declare)\s+(?:a\s+|an\s+)?`?lang\b", re.I), _html_without_lang),
}
# "Each page must have only one `<h1>`": a count over the whole file, not a test of one element.
_ONE_H1 = re.compile(r"\b(?:only|single|exactly|just)\s+(?:one|1|a single)\s+`?<?h1\b|\bmultiple\s+`?<?h1\b|"
                     r"\bmore than one\s+`?<?h1\b|\bone\s+`?<?h1>?`?\s+(?:tags?\s+|elements?\s+|headings?\s+)?"
                     r"(?:per|on each|on every|for each)\b", re.I)


def is_markup(path: str) -> bool:
    return path.lower().endswith(_MARKUP_FILES)


def _detector(check: Callable[[Element], str | None]) -> Callable[..., list[Hit]]:
    def detect(lines: list[Line], lang: str, decision: str, path: str = "") -> list[Hit]:
        if not is_markup(path):
            return []
        return [("direct", e.line, why) for e in elements(lines)
                if e.changed and "{..." not in e.attrs and (why := check(e))]
    detect.__doc__ = check.__doc__
    return detect


def one_h1(lines: list[Line], lang: str, decision: str, path: str = "") -> list[Hit]:
    """A second `<h1>` in the file, where the change writes one."""
    if not is_markup(path):
        return []
    h1 = [e for e in elements(lines) if e.tag == "h1"]
    return [("direct", e.line, "adds a second <h1> to the page") for e in h1[1:] if e.changed] if len(h1) > 1 else []


# "All user-facing strings must be translated", "no hard-coded UI text", react/jsx-no-literals,
# i18next/no-literal-string: text written into the markup instead of a translation call.
_LITERAL_CUE = re.compile(r"\bjsx-no-literals\b|\bno-literal-string\b|\b(?:hard-?coded|literal|raw|untranslated|inline)\s+"
                          r"(?:ui\s+|user-facing\s+|display\s+|visible\s+)?(?:strings?|text|copy|labels?)\b[^.;]{0,60}\b(?:jsx|"
                          r"ui|components?|templates?|translat\w*|i18n|locali[sz]\w*)\b|\b(?:all|every|any)\s+(?:ui\s+|user-facing\s+|"
                          r"visible\s+|display\s+)(?:strings?|text|copy|labels?)\s+(?:must|should|shall|need to)\s+(?:be\s+|go\s+)?"
                          r"(?:translat\w*|locali[sz]\w*|through\b|externali[sz]\w*)", re.I)
_TEXT_NODE = re.compile(r">\s*([^<>{}\n]*[A-Za-z]{2,}[^<>{}\n]*?)\s*</")


def literal_text(lines: list[Line], lang: str, decision: str, path: str = "") -> list[Hit]:
    """Words written between tags on a line the change adds (`<h2>Plans</h2>`), not a translation call."""
    if not is_markup(path):
        return []
    out = []
    for ln in lines:
        if ln.side != "+" or ln.prose:
            continue
        m = _TEXT_NODE.search(_COMMENT.sub("", ln.text))
        if m and re.search(r"[A-Za-z]{2,}", m.group(1)):
            out.append(("direct", ln, f"writes the text {m.group(1).strip()!r} into the markup instead of a translation"))
    return out


def _new_tab_opened(lines: list[Line], lang: str, decision: str, path: str = "") -> list[Hit]:
    """`window.open(url, "_blank")` without "noopener": the new tab can reach back through window.opener."""
    return [("indirect", ln, 'opens a new tab with window.open without "noopener"') for ln in lines
            if ln.side == "+" and not ln.prose and re.search(r"\bwindow\.open\([^)]*[\"']_blank[\"']", ln.text)
            and "noopener" not in ln.text]


def _blank_target(lines: list[Line], lang: str, decision: str, path: str = "") -> list[Hit]:
    return _detector(_blank_without_rel)(lines, lang, decision, path) + _new_tab_opened(lines, lang, decision, path)


CUES = {name: cue for name, (cue, _) in RULES.items()} | {"one_h1": _ONE_H1, "literal_text": _LITERAL_CUE}
DETECTORS = {name: _detector(check) for name, (_, check) in RULES.items()} | {
    "one_h1": one_h1, "blank_target": _blank_target, "literal_text": literal_text}
PATH_DETECTORS = frozenset(DETECTORS)
