"""One copy of what the round-3, -4 and -5 contradiction sets' builders share: a rule, its labelled
cases (each file's diff computed by build_real_rules2's `diff`), and the JSON the bench reads. Each
builder holds only its rules and cases; the set is held out whole under one split name."""

from __future__ import annotations

import json
from pathlib import Path

from build_real_rules2 import diff

D, I, N = "DIRECT_CONTRADICTION", "INDIRECT_CONTRADICTION", "NO_CONTRADICTION"


class RuleSet:
    def __init__(self, split: str, doc: str, out: Path) -> None:
        self.split, self.doc, self.out = split, doc, out
        self.rules: list[dict] = []

    def rule(self, rid: str, source: str, category: str, decision: str) -> dict:
        r = {"rule": rid, "source": source, "category": category, "decision": decision, "cases": []}
        self.rules.append(r)
        return r

    def case(self, r: dict, n: int, kind: str, expected: str, files: list[tuple[str, str, str]], note: str) -> None:
        """One labelled change: files as (path, before, after); `note` says why the label is right.
        The kind and the label must agree (a direct or indirect case is a contradiction, no other is)."""
        assert (kind in ("direct", "indirect")) == (expected != N), (r["rule"], n)
        assert (kind == "indirect") == (expected == I), (r["rule"], n)
        r["cases"].append({"id": f"{r['rule']}-{n}", "kind": kind, "expected": expected, "note": note,
                           "files": [{"path": p, "diff": diff(p, b, a)} for p, b, a in files]})

    def build(self) -> dict:
        cases = [{"id": c["id"], "rule": r["rule"], "split": self.split, "category": r["category"],
                  "kind": c["kind"], "source": r["source"], "decisions": [r["decision"]],
                  "expected": c["expected"], "note": c["note"], "files": c["files"]}
                 for r in self.rules for c in r["cases"]]
        return {"about": self.doc.split("\n\n", 2)[2].strip().replace("\n", " "), "cases": cases}

    def write(self) -> None:
        data = self.build()
        self.out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        print(f"{len(data['cases'])} cases from {len(self.rules)} rules -> {self.out.name}")
