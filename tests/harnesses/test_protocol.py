"""Every harness of the registry provides every member of the `Harness` protocol
(engram/harnesses/base.py), read off the protocol itself, so a member added there is
required of every harness at once."""

from __future__ import annotations

import ast

import pytest
from testing.helpers import REPO

from engram.harnesses.registry import HARNESSES


def protocol_members() -> dict[str, bool]:
    """{member: is a method} of `class Harness(Protocol)` in base.py."""
    tree = ast.parse((REPO / "engram" / "harnesses" / "base.py").read_text())
    (cls,) = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "Harness"]
    out = {}
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = False
        elif isinstance(node, ast.FunctionDef):
            out[node.name] = True
    return out


def test_the_protocol_is_read():
    members = protocol_members()
    assert {"request", "render", "settings_path", "mcp_entry", "register_mcp", "doctor_caveat"} <= set(members)


@pytest.mark.parametrize("name", sorted(HARNESSES))
def test_every_harness_provides_every_member(name):
    mod = HARNESSES[name]()
    missing = [m for m in protocol_members() if not hasattr(mod, m)]
    not_callable = [m for m, method in protocol_members().items() if method and hasattr(mod, m)
                    and not callable(getattr(mod, m))]
    assert missing == [] and not_callable == [], (name, missing, not_callable)
