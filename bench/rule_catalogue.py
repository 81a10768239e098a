"""The offline checker's rule catalogue as a Markdown table, from the registry
(engram/monitor/rules/registry.py): docs/monitoring.md, "The rule catalogue", holds it between
two markers, and tests/monitor/test_rule_catalogue.py checks that it matches.

    python bench/rule_catalogue.py            # print the table
    python bench/rule_catalogue.py --write    # rewrite it in docs/monitoring.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DOC = REPO / "docs" / "monitoring.md"
BEGIN, END = "<!-- rule catalogue: bench/rule_catalogue.py --write -->", "<!-- end of rule catalogue -->"


def table() -> str:
    from engram.monitor.rules.registry import RULES, family_of

    rows = ["| rule | family | switched on by | why it warns |", "|---|---|---|---|"]
    for r in RULES:
        on = "its words (a cue)" if r.cue is not None else "what the decision parses to"
        rows.append(f"| `{r.id}` | {family_of(r)} | {on} | {r.why.replace('|', '/')} |")
    return f"{BEGIN}\n{len(RULES)} rules.\n\n" + "\n".join(rows) + f"\n{END}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="rewrite the table in docs/monitoring.md")
    args = ap.parse_args()
    if not args.write:
        print(table())
        return 0
    text = DOC.read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    DOC.write_text(text[:start] + table() + text[end:])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
