"""The package's layering, as docs/architecture.md states it: computed from the code with `ast`.

Fails on an import cycle, on an import from a lower layer into a higher one, on an import
between two packages of one layer, on a module docs/architecture.md does not place, and
on a package folder past ~15 modules. Imports inside functions count like any other.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "engram"
MAX_MODULES = 16


def layers() -> list[tuple[int, str, list[str]]]:
    """[(rank, name, [paths])] from the ```layers block of docs/architecture.md."""
    text = (REPO / "docs" / "architecture.md").read_text()
    block = re.search(r"```layers\n(.*?)```", text, re.S)
    assert block, "docs/architecture.md has no ```layers block"
    out = []
    for line in block.group(1).strip().splitlines():
        rank, rest = line.split(" ", 1)
        name, paths = rest.split(":", 1)
        out.append((int(rank), name.strip(), paths.split()))
    return out


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The engram modules `name` imports (a `from pkg import mod` names the module)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = ".".join(pkg[: len(pkg) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and target != "engram":
                found.add(target)
    return found


def place(path: Path, table) -> tuple[int, str]:
    """(rank, unit): the unit is the package folder, or the layer for top-level modules."""
    rel = path.relative_to(REPO).as_posix()
    best = None
    for rank, layer, paths in table:
        for p in paths:
            if rel == p or (p.endswith("/") and rel.startswith(p)):
                if best is None or len(p) > len(best[2]):
                    best = (rank, p if p.endswith("/") else layer, p)
    assert best, f"{rel} is in no layer of docs/architecture.md: place it there"
    return best[0], best[1]


def graph():
    known = modules()
    return known, {name: imports(name, path, known) for name, path in known.items()}


def test_no_import_cycles():
    known, edges = graph()
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                cycles.append(sorted(scc))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    assert cycles == []


def test_imports_follow_the_layers():
    table = layers()
    known, edges = graph()
    wrong = []
    for name, targets in sorted(edges.items()):
        rank, unit = place(known[name], table)
        for target in sorted(targets):
            trank, tunit = place(known[target], table)
            if trank > rank:
                wrong.append(f"{name} (layer {rank}) imports {target} (layer {trank}): a lower layer reaches up")
            elif trank == rank and tunit != unit:
                wrong.append(f"{name} imports {target}: two packages of layer {rank} must not depend on each other")
    assert wrong == []


def test_every_module_is_placed_and_folders_stay_small():
    table = layers()
    for path in modules().values():
        place(path, table)
    for folder in [PACKAGE, *[p for p in PACKAGE.rglob("*") if p.is_dir() and p.name != "__pycache__"]]:
        count = len(list(folder.glob("*.py")))
        assert count <= MAX_MODULES, f"{folder.relative_to(REPO)} holds {count} modules: group them by concern"


def test_one_module_builds_the_read_only_uri():
    """One read-only opener (graph/readonly.py `open_ro`): `connect(readonly=True)` goes through it."""
    holders = sorted(p.relative_to(REPO).as_posix() for p in PACKAGE.rglob("*.py") if "mode=ro" in p.read_text())
    assert holders == ["engram/graph/readonly.py"]
