"""Dependencies added to a manifest: new ones against "no new third-party dependencies" /
"standard library only", loosely pinned ones against "pin exact versions".

An entry is a dependency line of package.json, pyproject.toml / setup.cfg / Pipfile,
requirements*.txt, go.mod or Cargo.toml. An entry whose name a removed line of the same
diff also names is a version change, not a new dependency; a go.mod `require` is always
exact. Rules like the others (engram.monitor.rules): added lines only, called for by the
decision's words.
"""

from __future__ import annotations

import re

from engram.monitor.code_lines import Line
from engram.monitor.rules import Hit, Rule, on_lines
from engram.monitor.tech_terms import manifest_language

_JSON_DEP = re.compile(r"^\s*\"(@?[\w.\-/]+)\"\s*:\s*\"([^\"]*)\"")
_JS_SPEC = re.compile(r"^(?:[\^~<>=*]|\d|latest$|next$|x$|workspace:|npm:|github:|git\+|file:|https?:)")
_NOT_PACKAGES = {"node", "npm", "pnpm", "yarn", "name", "version", "description", "main", "type", "license", "private"}
_PY_DEP = re.compile(r"^([A-Za-z][\w.\-]*)(?:\[[\w,\s\-]+\])?\s*((?:===?|[<>!~]=?)\s*[^;#]+?)?\s*(?:;.*)?(?:#.*)?$")
_GO_DEP = re.compile(r"^\s*(?:require\s+)?([a-z0-9.\-]+\.[a-z]{2,}/[\w.\-/]+)\s+v\d")
_CARGO_DEP = re.compile(r"^\s*([A-Za-z][\w\-]*)\s*=\s*(?:\"([^\"]*)\"|\{)")


def entries(lines: list[Line], path: str, side: str = "+") -> list[tuple[Line, str, str | None]]:
    """(line, package name, version spec or None) of each dependency entry the diff adds (or,
    with side "-", removes). A bare name in a TOML array counts only next to entries with a
    version: `keywords = ["cli"]` is no dependency."""
    lang = manifest_language(path)
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    found = [(ln, _entry(ln.code, lang, name)) for ln in lines if ln.code.strip()]
    versioned = any(e and e[1] for ln, e in found if ln.side != side)
    return [(ln, e[0], e[1]) for ln, e in found if ln.side == side and e
            and (e[1] or name.startswith("requirements") or name in ("package.json", "go.mod") or versioned)]


def _entry(code: str, lang: str | None, name: str) -> tuple[str, str | None] | None:
    if name == "package.json":
        m = _JSON_DEP.match(code)
        if m and m.group(1).lower() not in _NOT_PACKAGES and _JS_SPEC.match(m.group(2).strip()):
            return m.group(1), m.group(2).strip()
        return None
    if name == "go.mod":
        m = _GO_DEP.match(code)
        return (m.group(1), "exact") if m else None
    if name == "cargo.toml":
        m = _CARGO_DEP.match(code)
        return (m.group(1), m.group(2)) if m else None
    if lang != "python":
        return None
    entry = code.strip()
    if name.startswith("requirements"):
        if entry.startswith(("-", "#")):
            return None
    elif entry.startswith(("\"", "'")):  # an item of a TOML dependency array: "httpx>=0.27",
        entry = entry.rstrip(",").strip("\"'")
    else:
        return None
    m = _PY_DEP.match(entry)
    return (m.group(1), (m.group(2) or "").strip() or None) if m else None


def _removed_names(lines: list[Line], path: str) -> set[str]:
    return {n.lower() for _, n, _ in entries(lines, path, "-")}


def new_dependencies(lines: list[Line], lang: str, decision: str, path: str = "") -> list[Hit]:
    if manifest_language(path) is None:
        return []
    known = _removed_names(lines, path)
    return [("direct", ln, f"adds the dependency {name}, which the decision does not allow")
            for ln, name, _ in entries(lines, path) if name.lower() not in known]


def unpinned_dependencies(lines: list[Line], lang: str, decision: str, path: str = "") -> list[Hit]:
    if manifest_language(path) is None:
        return []
    known = _removed_names(lines, path)  # a version bump of a dependency already there is not a new one
    out = []
    for ln, name, spec in entries(lines, path):
        if name.lower() not in known and not _exact(spec, path):
            shown = spec or "no version"
            out.append(("direct", ln, f"adds {name} at {shown}, not pinned to an exact version"))
    return out


def _exact(spec: str | None, path: str) -> bool:
    if spec == "exact":
        return True
    if not spec:
        return False
    if path.lower().endswith("package.json"):
        return re.fullmatch(r"=?v?\d+\.\d+\.\d+(?:[-+][\w.\-]+)?", spec) is not None
    if path.lower().endswith("cargo.toml"):
        return spec.startswith("=")
    return re.fullmatch(r"===?\s*[\w.\-+]+", spec) is not None and "*" not in spec


RULES = (
    Rule("detector:new_dependencies", "a new dependency in a manifest, against a decision that allows none",
         on_lines(new_dependencies, path=True),
         re.compile(r"\b(?:no|never|don'?t|do not|avoid|not)\s+(?:\w+\s+){0,2}?(?:new|additional|extra|"
                                   r"external|third[- ]party|3rd[- ]party)\s+(?:[\w\-]+\s+)?(?:dependenc\w*|librar\w*|packages?)\b|"
                                   r"\bavoid\s+(?:adding\s+)?dependenc\w*|\badding\s+(?:a\s+)?(?:new\s+)?dependency\s+is\s+a\s+big\s+deal|"
                                   r"\b(?:add|adding|introduc\w*)\s+(?:any\s+)?(?:new\s+)?dependenc\w*\s+(?:\w+\s+){0,2}?without\s+"
                                   r"(?:prior\s+|explicit\s+)?(?:approval|discussion|asking|permission)", re.I)),
    Rule("detector:unpinned_dependencies", "a dependency added to a manifest without an exact version",
         on_lines(unpinned_dependencies, path=True),
         re.compile(r"\bpin\w*\s+(?:\w+\s+){0,3}?(?:exact|versions?|dependenc\w*)\b|\bexact\s+versions?\b|"
                                        r"\b(?:no|never|don'?t|do not)\s+(?:use\s+)?(?:floating|loose|unpinned)\s+versions?\b",
                                        re.I)),
)
