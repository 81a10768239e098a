"""Files and folders a decision protects: "Do not modify `db_init.sql`", "Do not add any new files
to the examples/ directory", "`./src` directory: Read-only", "NEVER commit `.env` files", "Any
file in `__tests__/fixtures/*/modules/` is GENERATED ... NEVER EDIT GENERATED FILES".

The evidence is the write itself: its path is one the decision names in a clause that forbids
changing it (or, for "do not add new files", a file the write creates). Nothing in the code is
read, so a protected file is caught whatever the change inside it. What the decision allows
("except colocated `*.test.ts`") is left alone.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from engram.language import decision_text
from engram.monitor.rules import Rule

_NEG = r"(?:never|do not|don'?t|must not|mustn'?t|should not|shouldn'?t|may not|cannot|can'?t|not allowed to|avoid)"
_CHANGE = (r"(?:modify|modifying|edit|editing|change|changing|touch|touching|alter|altering|overwrite|hand-edit|"
           r"rewrite|write to|commit|committing|push)")
_CREATE = r"(?:add|adding|create|creating|put|place|write)"
# A clause that forbids changing what it names: "do not modify X", "X: read-only", "DO NOT EDIT".
_PROTECT = re.compile(rf"\b{_NEG}\s+(?:\w+\s+){{0,2}}?(?:{_CHANGE}|{_CREATE})\b|\bread-only\b|\bdo not edit\b", re.I)
# "Do not add any new files to X", "do not create X": only files the write creates.
_NEW_ONLY = re.compile(rf"\b{_NEG}\s+(?:\w+\s+){{0,2}}?(?:{_CREATE})\s+(?:any\s+)?(?:new\s+)?(?:files?|folders?|"
                       rf"directories)\b|\b{_NEG}\s+(?:create|add)\s+[`'\"]", re.I)
# "NEVER EDIT GENERATED FILES" with "Any file in X is GENERATED": X is protected too.
# "you CREATE, NEVER MODIFY existing", "do not edit already-applied migrations": new files there are fine.
_EXISTING_ONLY = re.compile(rf"\b{_CHANGE}\s+(?:any\s+|the\s+)?existing\b|\balready[- ](?:applied|run|merged|released|deployed)\b",
                            re.I)
_GENERATED_RULE = re.compile(rf"\b{_NEG}\s+(?:\w+\s+){{0,2}}?{_CHANGE}\s+(?:the\s+|any\s+)?generated\b|\bnever edit generated\b",
                             re.I)
_GENERATED = re.compile(r"\b(?:is|are)\s+(?:auto-?)?generated\b|\bgenerated\s+(?:files?|code|output)\b", re.I)
_SPAN = re.compile(r"`([^`\n]{1,80})`|(?<![\w/.`])((?:\./)?(?:[\w.\-*]++/)+[\w.\-*]*|[\w\-*]++\.[A-Za-z]\w{0,9}|"
                   r"\.[a-z][\w.\-]{1,20})(?![\w/])")
_EXCEPT = re.compile(r"\b(?:except|other than|apart from|excluding|but not)\b", re.I)
# "must not change existing helper functions in migrations/_helpers": what is protected lives in the
# folder; a new file there is fine, so the folder is not what the clause protects.
_FILLER = set("""any new more additional extra other the a an files file folders folder directories directory dir
anything to in into under inside within from existing generated or and these those here""".split())
_INSIDE = set("""function functions helper helpers method methods class classes logic row rows record records value
values entry entries column columns table tables behaviour behavior signature signatures interface interfaces type
types field fields""".split())
_EXTENSIONS = ("sql json yaml yml toml lock env tf tfvars tfstate md txt ini cfg conf csv jsonl xml properties gradle "
               "py ts tsx js jsx go rs rb java kt cs php sh html css scss").split()
_CODE_EXTENSIONS = set("py ts tsx js jsx go rs rb java kt cs php".split())  # "Next.js", "Node.js" are names


@dataclass(frozen=True)
class Protected:
    """A path pattern a decision protects; `new_only`: only files the write creates there;
    `existing_only`: only files already there."""

    pattern: str
    new_only: bool
    existing_only: bool = False  # only files already there ("never modify existing")


def protected(text: str) -> tuple[list[Protected], list[str]]:
    """(what a decision protects, what it allows) among the paths its words name."""
    found: list[Protected] = []
    allowed: list[str] = []
    generated_rule = _GENERATED_RULE.search(text) is not None
    for sentence in decision_text.sentences(text) or [text]:
        for clause in re.split(r";\s+|(?<!\s)\s+[-—]\s+", sentence):
            if not (_PROTECT.search(clause) or (generated_rule and _GENERATED.search(clause))):
                continue
            cut = _EXCEPT.search(clause)
            new_only = _NEW_ONLY.search(clause) is not None
            existing_only = _EXISTING_ONLY.search(clause) is not None
            verb = _PROTECT.search(clause)
            for m in _SPAN.finditer(clause):
                pattern = _pattern(m.group(1) or m.group(2), bool(m.group(1)), clause[m.end():m.end() + 12])
                if pattern is None:
                    continue
                if cut and m.start() > cut.start():
                    allowed.append(pattern)
                    continue
                between = clause[verb.end():m.start()] if verb and verb.end() <= m.start() else ""
                if _names_the_path(verb.group(0) if verb else "", between):
                    found.append(Protected(pattern, new_only, existing_only))
    return list(dict.fromkeys(found)), allowed


def _names_the_path(verb: str, between: str) -> bool:
    """Whether the path is what the verb acts on ("do not add new files to `examples/`", "avoid changing
    backend config (`backend.tf`)"), not where its object lives ("do not put secrets in `config/`",
    "must not change existing helper functions in `migrations/_helpers`")."""
    words = set(re.findall(r"[a-z]+", between.lower()))
    if words & _INSIDE:
        return False
    if between.rstrip().endswith("(") or re.search(r"\bcommit", verb, re.I):
        return True  # an apposition names the thing; what is committed is files
    return words <= _FILLER


def _pattern(raw: str, quoted: bool, after: str) -> str | None:
    """A path or glob as a decision writes it, normalised (a folder ends with "/"); None for what is
    not a path (`json.dumps`, `x()`, a URL, "Next.js")."""
    p = raw.strip().strip("'\"()").rstrip(".,;:")
    folder = p.endswith("/") or p.startswith("./") or re.match(r"\s*(?:directory|folder|dir)\b", after, re.I) is not None
    p = p.removeprefix("./").removeprefix("/").rstrip("/")
    if not p or " " in p or "(" in p or "://" in p or p.startswith("@") or p in (".", ".."):
        return None
    ext = p.rsplit(".", 1)[-1].lower() if "." in p.rsplit("/", 1)[-1] else ""
    if folder or ("/" in p and not ext and "*" not in p.rsplit("/", 1)[-1]):
        return p + "/"
    if "/" in p or "*" in p or p.startswith("."):
        return p
    if ext in _EXTENSIONS and (quoted or ext not in _CODE_EXTENSIONS):
        return p
    return None


def matches(pattern: str, path: str) -> bool:
    """Whether a write's path is under (a folder) or is (a file name, a glob) the pattern."""
    path = path.replace("\\", "/").removeprefix("./")
    if pattern.endswith("/"):
        folder = pattern.rstrip("/")
        return any(fnmatch.fnmatchcase(path, f"{lead}{folder}/*") for lead in ("", "*/"))
    if "/" in pattern:
        return any(fnmatch.fnmatchcase(path, f"{lead}{pattern}") for lead in ("", "*/"))
    return fnmatch.fnmatchcase(path.rsplit("/", 1)[-1], pattern)


def violations(text: str, path: str, new_file: bool) -> list[str]:
    """The protected patterns this write breaks (why, one line each)."""
    found, allowed = protected(text)
    if any(matches(a, path) for a in allowed):
        return []
    return [f"writes {path}, which the decision protects ({p.pattern})"
            for p in found if matches(p.pattern, path) and (new_file or not p.new_only) and not (new_file and p.existing_only)]


RULES = (Rule("path:protected", "a file or folder the decision protects, written (the write is the evidence)",
              lambda w, r: [("direct", w.all_lines[0], why, "protected-path") for why in violations(r.text, w.path, w.new_file)],
              reach="any"),)
