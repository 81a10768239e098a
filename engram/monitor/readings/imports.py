"""Layers a decision forbids importing from: "the domain layer never imports from infrastructure or
from frameworks", a boundaries block `{"layer": "shared", "must_not_import": ["features", "adapters"]}`.

Each layer is a folder or package name; an import the change adds whose module path has it as a
segment (`@/features/payments/account`, `../infrastructure/db`, `bidcvc.models.user`) crosses the
boundary. Where the rule holds (the importing layer) is the decision's scope (`monitor/scope.py`).
"""

from __future__ import annotations

import re

from engram.monitor.code_lines import Line
from engram.monitor.rules import Hit, Rule
from engram.text import singular

_JSON = re.compile(r"[\"'](?:must_not_import|mustNotImport|forbidden_imports|cannot_import)[\"']\s*:\s*\[([^\]]*)\]", re.I)
_PROSE = re.compile(r"\b(?:never|not|must not|do not|don'?t|cannot|may not|should not)\s+(?:ever\s+)?imports?\s+"
                    r"(?:anything\s+|code\s+)?from\s+([^.;()]+)", re.I)
_ITEM_SEP = re.compile(r"\s*+(?:,|\b(?:or|and|nor)\b)\s*+(?:from\s+)?(?:the\s+)?", re.I)
_NOT_LAYERS = frozenset("the a an any other outside it this that directly here there".split())


def forbidden_layers(text: str) -> list[str]:
    """The layers (folder or package names) a decision's words forbid importing from."""
    found = [x for m in _JSON.finditer(text) for x in re.findall(r"[\"']([\w.\-/@*]+)[\"']", m.group(1))]
    for m in _PROSE.finditer(text):
        for item in _ITEM_SEP.split(m.group(1)):
            words = item.strip(" `'\"").split()
            if len(words) == 1 and words[0].lower() not in _NOT_LAYERS:
                found.append(words[0].strip("`'\""))
    return list(dict.fromkeys(_normal(x) for x in found if _normal(x)))


def _normal(layer: str) -> str:
    return re.sub(r"[./]\*+$", "", layer.strip().lower()).strip("./")


def _segments(module: str) -> list[str]:
    return [s for s in re.split(r"[/.:]+", module.lower().lstrip("@~")) if s]


def _crosses(layer: str, module: str) -> bool:
    """Whether an imported module lies in the layer: a segment of its path, or its dotted prefix."""
    if re.search(r"[./]", layer):
        return (module.lower().replace("/", ".") + ".").startswith(layer.replace("/", ".") + ".")
    names = {layer, singular(layer), layer + "s"}
    return any(s in names for s in _segments(module))


def crossings(layers: list[str], lines: list[Line]) -> list[Hit]:
    """Import lines the change adds that reach into a forbidden layer."""
    out = []
    for ln in lines:
        if ln.side != "+" or not ln.imports or not layers:
            continue
        modules = ln.strings or re.findall(r"(?:from|import)\s+([\w.]+)", ln.code)
        hit = next((layer for layer in layers for mod in modules if _crosses(layer, mod)), None)
        if hit:
            out.append(("direct", ln, f"imports from {hit}, a layer the decision keeps out"))
    return out


RULES = (Rule("layer:imports", "an import from a layer the decision forbids importing from",
              lambda w, r: crossings(forbidden_layers(r.text), w.lines)),)
