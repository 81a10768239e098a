"""The docs hold the facts the code cites, so every citation must land.

`docs/<file>.md, "Section"` and `docs/harness-contracts.md §N` (in engram/, tests/, bench/,
docs/ and the README) name a real heading of that file, and every `engram/....py` path the
docs and the README name exists. A heading renamed or a module moved fails here, not in a
reader's hands.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCES = [p for d in ("engram", "tests", "bench") for p in sorted((REPO / d).rglob("*.py"))]
DOCS = [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md"]
# A citation may wrap onto a comment's next line: `docs/spec.md,\n# "Event types"`.
SECTION = re.compile(r'docs/([\w.-]+\.md),\s*(?:#\s*)?"([^"\n]+)"')
CONTRACT = re.compile(r"harness-contracts(?:\.md)?\s*(§\d+(?:\.\d+)*(?:\s*(?:,|-|–|and)\s*§\d+(?:\.\d+)*)*)")
PLACEHOLDERS = {"Section", "Section name"}  # how docs/architecture.md and docs/spec.md show the form


def headings(doc: Path) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"^#{1,6}\s+(.+?)\s*$", doc.read_text(), re.M)]


def names_a_heading(section: str, doc: Path) -> bool:
    """The heading itself, or the heading without its parenthesis: "Strength" names
    "Strength (`engram/graph/strength.py`)"."""
    return any(h == section or h.startswith(section + " (") for h in headings(doc))


def texts() -> list[tuple[Path, str]]:
    return [(p, p.read_text()) for p in [*SOURCES, *DOCS]]


def test_every_section_citation_names_a_heading():
    wrong = []
    for path, text in texts():
        for name, section in SECTION.findall(text):
            doc = REPO / "docs" / name
            if section in PLACEHOLDERS:
                continue
            if not doc.exists():
                wrong.append(f"{path.relative_to(REPO)}: docs/{name} does not exist")
            elif not names_a_heading(section, doc):
                wrong.append(f'{path.relative_to(REPO)}: docs/{name} has no heading "{section}"')
    assert wrong == []


def test_every_contract_section_cited_exists():
    numbers = set()
    for heading in headings(REPO / "docs" / "harness-contracts.md"):
        m = re.match(r"(\d+(?:\.\d+)*)\.?\s", heading)
        if m:
            numbers.add(m.group(1))
    wrong = []
    for path, text in texts():
        for run in CONTRACT.findall(text):
            for number in re.findall(r"§(\d+(?:\.\d+)*)", run):
                if number.rstrip(".") not in numbers:
                    wrong.append(f"{path.relative_to(REPO)}: harness-contracts.md has no §{number}")
    assert numbers and wrong == []


def test_every_module_the_docs_name_exists():
    wrong = []
    for doc in DOCS:
        for rel in sorted(set(re.findall(r"\bengram/[\w/]+\.py\b", doc.read_text()))):
            if not (REPO / rel).exists():
                wrong.append(f"{doc.relative_to(REPO)} names {rel}, which does not exist")
    assert wrong == []
