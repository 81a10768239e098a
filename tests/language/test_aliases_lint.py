"""The curated alias table (engram/language/aliases.txt) holds no fact twice and none that contradicts
another (issue 26): the parser keeps the first entry of a name silently, so a second, different one is
a fact nobody reads, and a cycle of parts makes "a part of" mean nothing. Each check is run on a small
table that breaks it, then on the real one."""

from __future__ import annotations

from collections import defaultdict

import pytest

from engram.language import aliases


def _facts(text: str) -> list[tuple[int, str, str, list[str]]]:
    """(line number, kind "=" / "<" / "^", head, the names after the sign) of every fact line."""
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].strip()
        for sign in (" = ", " < ", " ^ "):
            if line and not line.startswith("#") and sign in line:
                head, _, rest = line.partition(sign)
                names = [x.strip() for x in rest.split(",") if x.strip()] if sign != " < " else [rest.strip()]
                out.append((n, sign.strip(), head.strip(), names))
                break
    return out


def duplicates(text: str) -> list[str]:
    """A fact written twice, or a name listed twice on one line."""
    seen: dict[tuple[str, str, str], int] = {}
    out = []
    for n, kind, head, names in _facts(text):
        for name in names:
            fact = (kind, aliases.key(head), aliases.key(name))
            if fact in seen:
                out.append(f"line {n}: {head} {kind} {name} again (line {seen[fact]})")
            seen.setdefault(fact, n)
    return out


def two_canonicals(text: str) -> list[str]:
    """A name given as the same thing as two different canonicals ("A = x" and "B = x"), or a
    canonical listed as another one's alias: the parser keeps the first."""
    table = aliases.parse(text)
    out = []
    first: dict[str, tuple[int, str]] = {}
    for n, kind, head, names in _facts(text):
        if kind != "=":
            continue
        c = table.canon[aliases.key(head)]
        for name in [head, *names]:
            k = aliases.key(name)
            was = first.setdefault(k, (n, c))
            if was[1] != c:
                out.append(f"line {n}: {name!r} is {table.display[c]!r} here and {table.display[was[1]]!r} "
                           f"on line {was[0]}")
    return out


def self_parts(text: str) -> list[str]:
    """A part that is its parent under another name ("pip3 < pip" where "pip = pip3")."""
    table = aliases.parse(text)
    return [f"line {n}: {head} < {names[0]}: one thing" for n, kind, head, names in _facts(text)
            if kind == "<" and table.canonical(head) == table.canonical(names[0])]


def cycles(text: str) -> list[str]:
    """A part of a part ... of itself, and an owner that is a part of one of its own products."""
    table = aliases.parse(text)
    links: dict[str, set[str]] = defaultdict(set)
    for part, parents in table.parents.items():
        links[part] |= set(parents)
    out = []
    for start in sorted(links):
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for p in links.get(node, ()):
                if p == start:
                    out.append(" < ".join(table.display[x] for x in [*path, p]))
                elif p not in seen:
                    seen.add(p)
                    stack.append((p, [*path, p]))
    for prefix, owner in table.owners.items():
        owned = {c for c, parents in table.parents.items() if owner in parents}
        out += [f"{table.display[owner]} ^ {prefix}: and a part of its own {table.display[c]}"
                for c in owned if c in links.get(owner, ())]
    return out


def two_owners(text: str) -> list[str]:
    """A prefix two owners write before their products (the parser keeps the first)."""
    table = aliases.parse(text)
    out = []
    for n, kind, head, names in _facts(text):
        if kind == "^":
            out += [f"line {n}: {name} is {table.display[table.owners[aliases.key(name)]]}'s prefix, not {head}'s"
                    for name in names if table.owners.get(aliases.key(name)) != table.canonical(head)]
    return out


CHECKS = [duplicates, two_canonicals, self_parts, cycles, two_owners]


@pytest.mark.parametrize("check, broken", [
    (duplicates, "Go = golang\nGo = golang\n"),
    (duplicates, "pip < Python\npip < Python\n"),
    (duplicates, "Go = golang, golang\n"),
    (two_canonicals, "Go = golang\nGolang Tools = golang\n"),
    (two_canonicals, "Go = golang\nGo Lang = go\n"),
    (self_parts, "pip = pip3\npip3 < pip\n"),
    (cycles, "A < B\nB < C\nC < A\n"),
    (cycles, "AWS ^ aws\nAWS < Amazon RDS\nAmazon RDS < AWS\n"),
    (two_owners, "AWS ^ amazon\nAmazon Inc ^ amazon\n"),
])  # fmt: skip
def test_each_check_finds_what_it_is_for(check, broken):
    assert check(broken)
    assert not check("Go = golang\npip < Python\nAWS ^ amazon, aws\n")


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_the_curated_table_passes(check):
    with open(aliases.TABLE_PATH, encoding="utf-8") as f:
        found = check(f.read())
    assert not found, f"{len(found)} in aliases.txt:\n" + "\n".join(found[:40])
