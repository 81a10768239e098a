"""Issue 17, round 3: mechanisms that work from a decision's own words (protected paths, quoted code,
data access by layer, size limits, limits in more phrasings, protected tables through the ORM,
suppressions by the tools a decision names, decisions about one language, tool choices stated as a
stack), each with the look-alike that must stay silent; and floors on the development sets.

The decisions here are written for these tests, not taken from the round-3 held-out set
(tests/monitor/real_rules3.json), which no test reads: its figure is the bench's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engram.monitor import decision_rules
from engram.monitor.readings import literals, protected_paths
from engram.monitor.offline_checker import all_matches, check

from testing.decisions import diff, new_file, node

HERE = Path(__file__).parent


VENDOR = "Never edit files in `vendor/`; update the pinned copy with the sync script instead."
SAMPLES = "Do not add any new files to the samples/ folder."
SECRETS_DIR = "Do not put secrets in `config/`."
EVAL = "Never use `eval()` or `new Function()` in the renderer."
NO_PICKLE = "Avoid `pickle.loads`; use JSON for anything that crosses a process."
BARE_EXCEPT = "Do not write bare `except:` clauses."
CONTROLLERS = "Controllers must never query the database directly; data access goes through repositories."
PARAMS = "Keep functions to at most 4 parameters."
LENGTH = "Functions must stay under 12 lines."
TTL = "Session TTL must not exceed 900 seconds."
EVENTS = "Table `order_events`: no UPDATE/DELETE; corrections are new events."
NOLINT = "Never use `//nolint`; fix what golangci-lint reports."
TS_ONLY = "NEVER use the `as` keyword in TypeScript."
STACK = "Stack: FastAPI, SQLAlchemy, PostgreSQL."
NO_PRINT = "Never print from library code."

CASES = [
    # protected paths: the write itself is the evidence
    (VENDOR, "vendor/left-pad/index.js", diff("vendor/left-pad/index.js", "-module.exports = pad;", "+module.exports = padStart;"), True),
    (VENDOR, "src/pad.js", diff("src/pad.js", "-module.exports = pad;", "+module.exports = padStart;"), False),
    (SAMPLES, "samples/stream.py", new_file("samples/stream.py", "print('hi')"), True),
    (SAMPLES, "samples/basic.py", diff("samples/basic.py", "-print('hello')", "+print('hello, world')"), False),
    (SECRETS_DIR, "config/app.yaml", diff("config/app.yaml", "-port: 8080", "+port: 8081"), False),
    # quoted code, by the polarity of its clause
    (EVAL, "src/render.ts", diff("src/render.ts", "+  const f = new Function('x', body);"), True),
    (EVAL, "src/render.ts", diff("src/render.ts", "+  // never eval() here: templates are compiled ahead of time"), False),
    (NO_PICKLE, "worker/ipc.py", diff("worker/ipc.py", "+    job = pickle.loads(payload)"), True),
    (NO_PICKLE, "worker/ipc.py", diff("worker/ipc.py", "+    job = json.loads(payload)"), False),
    (BARE_EXCEPT, "app/io.py", diff("app/io.py", "+    try:", "+        return read(path)", "+    except:", "+        return None"), True),
    (BARE_EXCEPT, "app/io.py", diff("app/io.py", "+    try:", "+        return read(path)", "+    except OSError:",
                                   "+        return None"), False),
    # data access: governed layers, the place access belongs
    (CONTROLLERS, "app/controllers/orders.py", diff("app/controllers/orders.py", "+    rows = session.query(Order).all()"), True),
    (CONTROLLERS, "app/controllers/orders.py", diff("app/controllers/orders.py", "+    rows = self.orders.list_open()"), False),
    (CONTROLLERS, "app/repositories/orders.py", diff("app/repositories/orders.py", "+    return session.query(Order).all()"), False),
    (CONTROLLERS, "app/controllers/proxy.py", diff("app/controllers/proxy.py", "+    r = session.get(UPSTREAM + path)"), False),
    # size limits: the function the change writes
    (PARAMS, "app/report.py", diff("app/report.py", "+def render(title, rows, footer, width, height):", "+    return title"), True),
    (PARAMS, "app/report.py", diff("app/report.py", "+def render(self, title, rows, footer, width):", "+    return title"), False),
    (LENGTH, "app/calc.py", new_file("app/calc.py", "def total(items):", *["    x = 1"] * 13, "    return x"), True),
    (LENGTH, "app/calc.py", new_file("app/calc.py", "def total(items):", *["    x = 1"] * 5, "    return x"), False),
    # limits in more phrasings
    (TTL, "app/settings.py", diff("app/settings.py", "-SESSION_TTL = 900", "+SESSION_TTL = 3600"), True),
    (TTL, "app/settings.py", diff("app/settings.py", "-SESSION_TTL = 900", "+SESSION_TTL = 600"), False),
    # protected tables, SQL or ORM
    (EVENTS, "app/events.py", diff("app/events.py", "+    OrderEvent.objects.filter(order=o).delete()"), True),
    (EVENTS, "app/events.py", diff("app/events.py", "+    OrderEvent.objects.create(order=o, kind='refund')"), False),
    (EVENTS, "app/events.py", diff("app/events.py", "+    Order.objects.filter(pk=o.pk).update(state='refunded')"), False),
    # suppressions of the tools a decision names
    (NOLINT, "pkg/io.go", diff("pkg/io.go", "+\tdefer f.Close() //nolint:errcheck"), True),
    (NOLINT, "web/app.ts", diff("web/app.ts", "+  // @ts-expect-error: typed upstream in v3", "+  call(x);"), False),
    # a decision about one language
    (TS_ONLY, "web/parse.ts", diff("web/parse.ts", "+  const n = value as number;"), True),
    (TS_ONLY, "tools/parse.py", diff("tools/parse.py", "+    with open(p) as fh:"), False),
    # a stack stated as a list: another member of a role is an alternative
    (STACK, "app/db.py", diff("app/db.py", "+import pymongo"), True),
    (STACK, "app/db.py", diff("app/db.py", "+from sqlalchemy.orm import Session"), False),
    # a pure prohibition is kept by any alternative
    (NO_PRINT, "lib/core.py", diff("lib/core.py", "+    logger.info('loaded %s', name)"), False),
]


@pytest.mark.parametrize("decision,path,text,warns", CASES, ids=[f"{i}-{c[1]}" for i, c in enumerate(CASES)])
def test_round_three_mechanisms(decision, path, text, warns):
    assert check([node(decision)], path, text).warns is warns


def test_protected_paths_are_the_verbs_object():
    assert protected_paths.protected(SECRETS_DIR) == ([], [])
    assert protected_paths.protected("Do not put business logic in `src/components/`.") == ([], [])
    found, allowed = protected_paths.protected("You may not edit `gen/` (except `gen/README.md`).")
    assert [p.pattern for p in found] == ["gen/"] and allowed == ["gen/README.md"]


def test_quotes_read_with_their_clause():
    assert literals.forbidden("Prefer `pathlib` over `os.path`.") == ["os.path"]
    assert literals.forbidden("Use `fetch` without `axios`.") == []  # without: either way
    assert literals.forbidden("Never call `time.sleep` in async code.") == []  # a place the quote cannot show
    assert literals.forbidden("Always use `select()` for queries.") == []


def test_limits_in_more_phrasings():
    got = {(lim.subject, lim.op, lim.value, lim.measure) for lim in decision_rules.limits_in(
        "Keep responses under 50 items per page; handlers ≤ 30 LOC; uploads smaller than 5 MB.")}
    assert ("per page", "<", 50.0, "") in got and ("handlers", "<=", 30.0, "lines") in got
    assert not any(lim.subject == "uploads" for lim in decision_rules.limits_in("Uploads must be smaller than 5 MB."))


def test_every_match_names_its_mechanism():
    matches = all_matches([node(VENDOR)], "vendor/x/a.js", diff("vendor/x/a.js", "-a", "+b"))
    assert {m["mechanism"] for m in matches} == {"path:protected"}


# -- floors on the development material (never on round 3's held-out set) --------------------

def _score(name: str, split: str | None = None) -> tuple[float, float]:
    cases = [c for c in json.loads((HERE / name).read_text())["cases"] if split is None or c["split"] == split]
    rows = []
    for c in cases:
        nodes = [node(t) for t in c["decisions"]]
        files = c.get("files") or [{"path": c["path"], "diff": c["diff"]}]
        warned = any(check(nodes, f["path"], "\n".join(f["diff"]) + "\n").warns for f in files)
        rows.append((warned, c["expected"] != "NO_CONTRADICTION"))
    tp = sum(w and p for w, p in rows)
    fp = sum(w and not p for w, p in rows)
    return tp / max(1, tp + fp), tp / max(1, sum(p for _, p in rows))


@pytest.mark.parametrize("name,split,recall", [
    ("real_rules.json", "dev", 0.8), ("real_rules.json", "holdout", 0.8), ("real_rules2.json", "dev2", 0.8),
    ("real_rules2.json", "holdout2", 0.6), ("audit_cases.json", None, 0.85),
])
def test_development_sets_stay_precise(name, split, recall):
    """Regression floors on the sets tuned on in round 3."""
    precision, got = _score(name, split)
    assert precision >= 0.95 and got >= recall
