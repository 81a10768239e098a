"""Every module-level regular expression of `engram`, and hostile inputs to time them on.

A backtracking pattern cannot be stopped from outside while the C engine runs it, but the
engine does check for signals, so a worker process times each pattern × input under an
interval timer (a runaway is cut at `cap` seconds) and the caller still holds a deadline
on the whole worker. `python -m testing.patterns` (with `tests/` on the path) is the
worker: it reads a JSON job on stdin and prints one JSON line per slow pair.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import json
import pkgutil
import re
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import engram

SIZE = 4096
# Modules that act when imported rather than define things.
_SKIP = {"engram.__main__"}


def _fill(unit: str, tail: str = "") -> str:
    body = unit * (SIZE // len(unit) + 1)
    return body[: SIZE - len(tail)] + tail


# name -> 4 KB of text built to make a backtracking pattern try every split of a long run.
HOSTILE: dict[str, str] = {
    "spaces": _fill(" ", "!"),
    "tabs-newlines": _fill(" \t\n"),
    "newlines": _fill("\n"),
    "dots": _fill("."),
    "dashes": _fill("-"),
    "slashes": _fill("/"),
    "backslashes": _fill("\\"),
    "underscores": _fill("_"),
    "double-quotes": _fill('"'),
    "single-quotes": _fill("'"),
    "backticks": _fill("`"),
    "colons-equals": _fill(":="),
    "hashes-stars": _fill("#*"),
    "long-word": _fill("a", "!"),
    "long-upper-word": _fill("A"),
    "camel-word": _fill("aB"),
    "digits": _fill("7"),
    "dotted-digits": _fill("1."),
    "alternating": _fill("a "),
    "words": _fill("word "),
    "dotted-words": _fill("a."),
    "dashed-words": _fill("a-"),
    "slashed-words": _fill("a/"),
    "quoted-words": _fill("'a' "),
    "comma-list": _fill("a, "),
    "or-list": _fill("a or "),
    "deep-punctuation": _fill(".,;:!?-_/\\'\"`()[]{}<>@#$%^&*+=|~"),
    "nested-parens": "(" * (SIZE // 2) + ")" * (SIZE // 2),
    "nested-brackets": "[" * (SIZE // 2) + "]" * (SIZE // 2),
    "nested-braces": "{" * (SIZE // 2) + "}" * (SIZE // 2),
    "nested-calls": _fill("f("),
    "tags": _fill("<a "),
    "decision-phrases": _fill("never use the a "),
    "path-segments": _fill("src/a.b/"),
    "dotted-calls": _fill("a.b() "),
    "accented": _fill("é"),
}


@dataclasses.dataclass(frozen=True)
class Found:
    """One distinct pattern and every place a module's globals hold it."""

    pattern: str | bytes
    flags: int
    where: tuple[str, ...]
    ops: tuple[str, ...] = ("search", "finditer")


def _inside(value: object, name: str, depth: int = 0) -> Iterator[tuple[str, re.Pattern]]:
    """The patterns `value` holds: itself, or inside containers and dataclass instances."""
    if depth > 4:
        return
    if isinstance(value, re.Pattern):
        yield name, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _inside(key, f"{name}[key]", depth + 1)
            yield from _inside(item, f"{name}[{key!r}]"[:120], depth + 1)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for index, item in enumerate(value):
            yield from _inside(item, f"{name}[{index}]", depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for spec in dataclasses.fields(value):
            yield from _inside(getattr(value, spec.name), f"{name}.{spec.name}", depth + 1)
    elif "_source" in getattr(type(value), "__slots__", ()):  # compiled on first use (decision_text._Lazy)
        yield name, re.compile(*value._source)


def _module_names() -> list[str]:
    names = [info.name for info in pkgutil.walk_packages(engram.__path__, "engram.")]
    return ["engram", *sorted(n for n in names if n not in _SKIP)]


def collect() -> tuple[list[Found], list[str]]:
    """Every distinct module-level pattern of the package, and the modules not importable here.

    Only a module whose import needs an absent third-party package is skipped; any other
    import failure is raised. The literal patterns of `inline` are added to the list.
    """
    places: dict[tuple, list[str]] = {}
    skipped = []
    for name in _module_names():
        try:
            module = importlib.import_module(name)
        except ImportError as err:
            if (err.name or "engram").split(".")[0] == "engram":
                raise
            skipped.append(f"{name} (needs {err.name})")
            continue
        for attr, value in vars(module).items():
            if isinstance(value, type) and value.__module__ == name:
                holders = [(f"{attr}.{k}", v) for k, v in vars(value).items()]
            else:
                holders = [(attr, value)]
            for label, held in holders:
                for where, pattern in _inside(held, label):
                    places.setdefault((pattern.pattern, pattern.flags), []).append(f"{name}:{where}")
    found = [Found(p, f, tuple(w)) for (p, f), w in places.items()]
    return found + [f for f in inline() if (f.pattern, f.flags) not in places], skipped


# re function -> the position of its `flags` argument
_FLAGS_AT = {"compile": 1, "search": 2, "match": 2, "fullmatch": 2, "findall": 2, "finditer": 2, "split": 3,
             "sub": 4, "subn": 4}
# re function -> what to time it with: a `re.match` only ever tries the start of its text.
_OPS = {"compile": ("search", "finditer"), "search": ("search",), "match": ("match",), "fullmatch": ("fullmatch",)}


def _flags(node: ast.expr | None) -> int | None:
    """The value of a flags expression made of `re.X` names and `|`, else None."""
    if node is None:
        return 0
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "re":
        return int(getattr(re, node.attr))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _flags(node.left), _flags(node.right)
        return None if left is None or right is None else left | right
    return None


def inline() -> list[Found]:
    """The literal patterns the package's code hands to `re.search(r"...")` and its kin."""
    root = Path(engram.__file__).parent
    places: dict[tuple, list[str]] = {}
    ops: dict[tuple, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        module = ".".join(path.relative_to(root.parent).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                    and node.func.attr in _FLAGS_AT and node.args and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)):
                continue
            at = _FLAGS_AT[node.func.attr]
            given = node.args[at] if len(node.args) > at else next(
                (k.value for k in node.keywords if k.arg == "flags"), None)
            flags = _flags(given)
            if flags is not None:
                compiled = re.compile(node.args[0].value, flags)
                key = (compiled.pattern, compiled.flags)
                places.setdefault(key, []).append(f"{module}:{node.lineno}")
                ops.setdefault(key, set()).update(_OPS.get(node.func.attr, ("finditer",)))
    return [Found(p, f, tuple(w), tuple(sorted(ops[(p, f)]))) for (p, f), w in places.items()]


class _Cut(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Cut


def _run(pattern: re.Pattern, text, op: str, cap: float) -> float:
    """CPU seconds `op` takes on `text` (the other processes of a shared machine do not count),
    or `cap` if the timer cut it."""
    signal.setitimer(signal.ITIMER_REAL, cap)
    start = time.thread_time()
    try:
        if op in ("search", "match", "fullmatch"):
            getattr(pattern, op)(text)
        else:
            for _ in pattern.finditer(text):
                pass
    except _Cut:
        return cap
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return time.thread_time() - start


def measure(job: dict) -> Iterator[dict]:
    """For each pattern × hostile input × op, a record when it reaches `bound` (best of `tries`)."""
    signal.signal(signal.SIGALRM, _on_alarm)
    bound, cap, tries = job["bound"], job["cap"], job["tries"]
    for item in job["patterns"]:
        source = item["pattern"] if isinstance(item["pattern"], str) else item["pattern"]["bytes"].encode("latin-1")
        pattern = re.compile(source, item["flags"])
        for family, text in HOSTILE.items():
            subject = text if isinstance(source, str) else text.encode("utf-8")
            for op in item["ops"]:
                seconds = _run(pattern, subject, op, cap)
                for _ in range(tries - 1):
                    if seconds < bound or seconds >= cap:
                        break
                    seconds = min(seconds, _run(pattern, subject, op, cap))
                if seconds >= bound:
                    yield {"where": item["where"], "family": family, "op": op, "seconds": round(seconds, 3)}


def job_item(found: Found) -> dict:
    """`found` as JSON (a bytes pattern travels as latin-1 text)."""
    pattern = found.pattern if isinstance(found.pattern, str) else {"bytes": found.pattern.decode("latin-1")}
    return {"pattern": pattern, "flags": found.flags, "where": list(found.where), "ops": list(found.ops)}


def main() -> None:
    job = json.load(sys.stdin)
    for record in measure(job):
        print(json.dumps(record), flush=True)
    print(json.dumps({"done": len(job["patterns"])}), flush=True)


if __name__ == "__main__":
    main()
