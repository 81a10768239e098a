"""Issue 17, round 2: decisions read from varied phrasings, the missing categories (a practice
removed or replaced, sensitive data in logs, protected tables, suppressions, path exemptions,
constructs banned by kind, manifests, limits), each with a look-alike that must stay silent."""

from __future__ import annotations

import pytest

from engram.monitor import decision_rules
from engram.monitor.offline_checker import check

from testing.decisions import node, diff


LOGIN = "Every view that changes data must be decorated with @login_required."
CARDS = "Never write social security numbers or card numbers to the logs."
PIN = "Pin every package to an exact version in requirements.txt."
COMMENTS = "Do not add comments in code files; names explain the code."
URLS = "Don't hardcode service URLs; read them from settings."
MONEY = "Floating-point arithmetic is forbidden for money amounts."
DISCARD = "Handle all errors explicitly; never discard an error with `_`."
WRITES = "Never run UPDATE or DELETE without a WHERE clause."
DEPS = "Do not add new third-party dependencies without a discussion first."

CASES = [
    # a required practice removed, replaced or left out
    (LOGIN, "orders/views.py", [" ", "-@login_required", " def cancel_order(request, pk):", "     return cancel(pk)"], True),
    (LOGIN, "orders/views.py", [" @login_required", " def cancel_order(request, pk):", "     return cancel(pk)", " ",
                                "+def refund_order(request, pk):", "+    return refund(pk)"], True),
    (LOGIN, "orders/views.py", [" @login_required", " def cancel_order(request, pk):", " ", "+@login_required",
                                "+def refund_order(request, pk):", "+    return refund(pk)"], False),
    ("Passwords are hashed with argon2.", "accounts/hashing.py",
     [" def hash_password(raw: str) -> str:", "-    return argon2.PasswordHasher().hash(raw)",
      "+    return hashlib.md5(raw.encode()).hexdigest()"], True),
    ("All calls to the billing API must pass `idempotency_key=`.", "billing/client.py",
     [" def charge(self, cents):", "     return self.http.post('/charges', json={'c': cents}, idempotency_key=new_key())",
      " ", "+def refund(self, cents):", "+    return self.http.post('/refunds', json={'c': cents})"], True),
    # sensitive data in logs
    (CARDS, "billing/pay.py", [" def pay(card_number, amount):", "+    log.info('paying with %s', card_number)"], True),
    (CARDS, "billing/pay.py", [" def pay(card_number, amount):", "+    log.info('paying %s', amount)"], False),
    (CARDS, "billing/pay.py", [" def pay(card_number, amount):", "+    result = gateway.charge(card_number, amount)",
                               "+    log.info('charge %s ok', result.id)"], False),
    (CARDS, "billing/pay.py", [" def pay(card_number, amount):", "+    log.info('card on file: %s', bool(card_number))"], False),
    # suppression and settings kept on
    ("Do not silence the linter; fix the warnings.", "app/util.py", [" def f(x):", "+    return eval(x)  # noqa: S307"], True),
    ("Keep XSRF protection on for every endpoint.", "api/views.py", [" ", "+@xsrf_exempt", " def hook(request):"], True),
    ("Keep XSRF protection on for every endpoint.", "api/settings.py",
     ["-XSRF_TRUSTED_ORIGINS = ['https://a.dev']", "+XSRF_TRUSTED_ORIGINS = ['https://a.dev', 'https://b.dev']"], False),
    # limits
    ("Worker pools are capped at 8 processes.", "jobs/settings.py",
     [" BROKER = 'x'", "-WORKER_POOL_PROCESSES = 8", "+WORKER_POOL_PROCESSES = 16"], True),
    ("Worker pools are capped at 8 processes.", "jobs/settings.py",
     [" BROKER = 'x'", "-WORKER_POOL_PROCESSES = 8", "+WORKER_POOL_PROCESSES = 4"], False),
    ("Keep lines to a maximum line length of 100 characters.", "app/x.py", ["+VALUE = compute(" + "a, " * 40 + ")"], True),
    # manifests
    (PIN, "requirements.txt", [" flask==3.0.2", "+celery>=5.3", " gunicorn==21.2.0"], True),
    (PIN, "requirements.txt", [" flask==3.0.2", "+celery==5.3.6", " gunicorn==21.2.0"], False),
    (PIN, "requirements.txt", ["-flask>=3.0", "+flask>=3.0.2", " gunicorn==21.2.0"], False),
    (DEPS, "package.json", ['   "dependencies": {', '     "react": "18.3.1",', '+    "lodash": "4.17.21",'], True),
    (DEPS, "package.json", ['   "dependencies": {', '-    "react": "18.2.0",', '+    "react": "18.3.1",'], False),
    (DEPS, "pyproject.toml", [' keywords = [', '+  "cli",', ' ]'], False),
    # path exemptions
    ("No print() calls outside the tools/ folder; use the logger.", "src/run.py", [" def main():", "+    print('hi')"], True),
    ("No print() calls outside the tools/ folder; use the logger.", "tools/dump.py", [" def main():", "+    print('hi')"], False),
    # constructs
    (COMMENTS, "src/app.js", [" function f(a) {", "+  // add one", "+  return a + 1;"], True),
    (COMMENTS, "src/app.js", [" function f(a) {", '+  return a + "//" + 1;'], False),
    (COMMENTS, "README.md", ["+Run it with `make`."], False),
    (URLS, "src/api.ts", [" export async function load() {", '+  return fetch("https://api.internal.acme.dev/v1/items");'], True),
    (URLS, "src/api.ts", [" export async function load() {", '+  throw new Error("see https://docs.acme.dev/errors#42");'], False),
    (URLS, "src/api.ts", [' const base = process.env.API ?? "http://localhost:8080";'], False),
    (MONEY, "src/cart.ts", [" export function total(c: Cart) {", "+  return c.priceCents / 100 * 1.2;"], True),
    (MONEY, "src/cart.ts", [" export function label(c: Cart) {", "+  return (c.priceCents / 100).toFixed(2);"], False),
    (MONEY, "src/ui.ts", [" export function fade(el) {", "+  el.style.opacity = parseFloat(el.dataset.o);"], False),
    (DISCARD, "cmd/run.go", [" func run() {", "+\tdata, _ := os.ReadFile(path)"], True),
    (DISCARD, "cmd/run.go", [" func run() {", "+\tfor _, p := range paths {"], False),
    (WRITES, "db/queries.sql", ["+UPDATE devices SET name = '';"], True),
    (WRITES, "db/queries.sql", ["+UPDATE devices SET name = ''", "+WHERE owner_id = $1;"], False),
    ("Don't use class components.", "src/Badge.tsx", ["+export class Badge extends React.Component<P> {"], True),
    ("Don't use class components.", "src/store.ts", ["+export class Store extends EventEmitter {"], False),
]  # fmt: skip


@pytest.mark.parametrize("text,path,lines,warns", CASES)
def test_round2_categories(text, path, lines, warns):
    assert check([node(text)], path, diff(path, *lines)).warns is warns


@pytest.mark.parametrize("text,forbids", [
    ("This project uses pnpm: never run npm install, npx or yarn.", {"npm install", "npx", "yarn"}),
    ("We standardise on httpx; requests is not used.", {"requests"}),
    ("Use uv; add dependencies with uv add instead of pip install.", {"pip install"}),
    ("Never run containers as root.", set()),
    ("Do NOT use floating versions, ranges, wildcards, or latest.", set()),
])  # fmt: skip
def test_prohibitions_from_varied_phrasing(text, forbids):
    r = decision_rules.rules_for(node(text))
    assert {t.canon or t.forms[0] for t in r.forbids} == forbids


def test_verb_first_rules_and_capped_limits():
    r = decision_rules.rules_for(node("HTTP request timeouts are capped at 30 seconds."))
    assert [(lim.words, lim.op, lim.value) for lim in r.limits] == [(frozenset({"timeout"}), "<=", 30.0)]
    r = decision_rules.rules_for(node("Adopt structured logging using the `structlog` library."))
    assert [t.canon for t in r.requires] == ["structlog"]
    r = decision_rules.rules_for(node("Pagination: MAX_PAGE_SIZE: 100."))
    assert [(lim.words, lim.value) for lim in r.limits] == [(frozenset({"page", "size"}), 100.0)]


def test_a_prohibition_requires_nothing():
    assert decision_rules.rules_for(node("UPDATE and DELETE on ledger_events are not allowed.")).required == []
    assert decision_rules.rules_for(node("Keep `status` on every job row.")).required == ["status"]


def _warned(case: dict) -> bool:
    nodes = [node(t) for t in case["decisions"]]
    return any(check(nodes, f["path"], "\n".join(f["diff"]) + "\n").warns for f in case["files"])


def test_tuning_half_of_round_two_stays_precise():
    """Regression floor on the half tuned on (dev2); the held-out half is measured by the bench."""
    import json
    from pathlib import Path

    cases = [c for c in json.loads((Path(__file__).parent / "real_rules2.json").read_text())["cases"] if c["split"] == "dev2"]
    rows = [(_warned(c), c["expected"] != "NO_CONTRADICTION") for c in cases]
    tp = sum(w and pos for w, pos in rows)
    fp = sum(w and not pos for w, pos in rows)
    positives = sum(pos for _, pos in rows)
    assert tp / max(1, tp + fp) >= 0.95 and tp / positives >= 0.75
