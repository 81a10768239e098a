"""Every harness of the registry provides every member of the `Harness` protocol
(engram/harnesses/base.py), read off the protocol itself, so a member added there (or a
parameter added to one: `render`'s `notice`) is required of every harness at once."""

from __future__ import annotations

import ast
import inspect

import pytest
from testing.helpers import REPO

from engram.harnesses.registry import HARNESSES


def _protocol() -> ast.ClassDef:
    tree = ast.parse((REPO / "engram" / "harnesses" / "base.py").read_text())
    (cls,) = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "Harness"]
    return cls


def protocol_members() -> dict[str, bool]:
    """{member: is a method} of `class Harness(Protocol)` in base.py."""
    out = {}
    for node in _protocol().body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = False
        elif isinstance(node, ast.FunctionDef):
            out[node.name] = True
    return out


def protocol_parameters() -> dict[str, list[str]]:
    """{method: its parameters after self} of the protocol."""
    return {n.name: [a.arg for a in n.args.args[1:]] for n in _protocol().body if isinstance(n, ast.FunctionDef)}


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


@pytest.mark.parametrize("name", sorted(HARNESSES))
def test_every_harness_takes_every_parameter_of_the_protocol(name):
    mod = HARNESSES[name]()
    for method, params in protocol_parameters().items():
        taken = list(inspect.signature(getattr(mod, method)).parameters)
        assert taken[: len(params)] == params, (name, method, taken, params)
