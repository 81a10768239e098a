"""Pass/fail counts and failing test names from test-runner output.

Recognises pytest, unittest, node:test (TAP and spec reporters), jest, vitest, go test
and cargo test. When none matches, the result says `recognized: False` and carries
only the exit code's verdict, so a reader of the JSONL knows the counts are absent,
not zero.
"""

from __future__ import annotations

import re

_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected|todo|pending)\b")
_PYTEST_SUMMARY = re.compile(r"^=*\s*((?:\d+ \w+(?:, )?)+)(?: in [\d.]+s)", re.M)
_PYTEST_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.M)
_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in", re.M)
_UNITTEST_RESULT = re.compile(r"^(OK|FAILED)\b(?: \(([^)]*)\))?", re.M)
_UNITTEST_FAIL = re.compile(r"^(?:FAIL|ERROR): (\S+) \(([^)]+)\)", re.M)
_TAP_COUNT = re.compile(r"^(?:#|ℹ) (pass|fail|skipped|todo) (\d+)", re.M)
_TAP_FAIL = re.compile(r"^\s*not ok \d+ - (.+)$", re.M)
_JEST_TESTS = re.compile(r"^Tests:\s+(.*\d+ total)", re.M)
_JEST_FAIL = re.compile(r"^\s+● (.+)$", re.M)
_VITEST_TESTS = re.compile(r"^\s*Tests\s+(\d+ (?:failed|passed).*)$", re.M)
_VITEST_FAIL = re.compile(r"^\s*(?:FAIL|×|✗)\s+(.+?)\s*(?:\[.*\])?$", re.M)
_GO_CASE = re.compile(r"^\s*--- (PASS|FAIL|SKIP): (\S+)", re.M)
_GO_PKG = re.compile(r"^(ok|FAIL)\s+(\S+)", re.M)
_CARGO_RESULT = re.compile(r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored", re.M)
_CARGO_FAIL = re.compile(r"^test (\S+) \.\.\. FAILED", re.M)

MAX_NAMES = 20


def _result(framework, passed, failed, skipped, names) -> dict:
    return {
        "framework": framework,
        "recognized": True,
        "passed": passed,
        "failed": failed,
        "skipped": skipped,
        "failing_tests": list(dict.fromkeys(n.strip() for n in names))[:MAX_NAMES],
    }


def _counts(text: str) -> dict:
    c = {"passed": 0, "failed": 0, "skipped": 0}
    for n, word in _COUNT.findall(text):
        key = {"error": "failed", "errors": "failed", "todo": "skipped", "pending": "skipped",
               "xfailed": "skipped", "xpassed": "passed", "deselected": None}.get(word, word)
        if key:
            c[key] += int(n)
    return c


def parse(output: str, command: str = "") -> dict:
    """Parse runner output; always returns the same keys."""
    text = output or ""
    m = _PYTEST_SUMMARY.findall(text)
    if m and ("pytest" in command or "passed" in m[-1] or "failed" in m[-1]):
        c = _counts(m[-1])
        return _result("pytest", c["passed"], c["failed"], c["skipped"], _PYTEST_FAILED.findall(text))
    ran = _UNITTEST_RAN.search(text)
    if ran:
        res = _UNITTEST_RESULT.search(text, ran.end())
        detail = res.group(2) or "" if res else ""
        bad = sum(int(n) for n in re.findall(r"(?:failures|errors)=(\d+)", detail))
        skipped = sum(int(n) for n in re.findall(r"skipped=(\d+)", detail))
        # 3.11+ prints the full id in parentheses: "FAIL: test_x (mod.Class.test_x)"
        names = [cls if cls.endswith("." + name) else f"{cls}.{name}" for name, cls in _UNITTEST_FAIL.findall(text)]
        return _result("unittest", int(ran.group(1)) - bad - skipped, bad, skipped, names)
    jest = _JEST_TESTS.search(text)
    if jest:
        c = _counts(jest.group(1))
        return _result("jest", c["passed"], c["failed"], c["skipped"], _JEST_FAIL.findall(text))
    vit = _VITEST_TESTS.search(text)
    if vit:
        c = _counts(vit.group(1).replace("|", ","))
        names = [n for n in _VITEST_FAIL.findall(text) if not n.startswith("Tests")]
        return _result("vitest", c["passed"], c["failed"], c["skipped"], names)
    tap = _TAP_COUNT.findall(text)
    if tap:
        c = {"pass": 0, "fail": 0, "skipped": 0, "todo": 0}
        for word, n in tap:
            c[word] = int(n)
        return _result("node:test", c["pass"], c["fail"], c["skipped"] + c["todo"], _TAP_FAIL.findall(text))
    cargo = _CARGO_RESULT.findall(text)
    if cargo:
        p, f, s = (sum(int(r[i]) for r in cargo) for i in range(3))
        return _result("cargo test", p, f, s, _CARGO_FAIL.findall(text))
    cases = _GO_CASE.findall(text)
    pkgs = _GO_PKG.findall(text)
    if cases or (pkgs and "go test" in command):
        if cases:
            p = sum(1 for v, _ in cases if v == "PASS")
            f = sum(1 for v, _ in cases if v == "FAIL")
            s = sum(1 for v, _ in cases if v == "SKIP")
            names = [n for v, n in cases if v == "FAIL"]
        else:
            p = sum(1 for v, _ in pkgs if v == "ok")
            f = sum(1 for v, _ in pkgs if v == "FAIL")
            s, names = 0, [n for v, n in pkgs if v == "FAIL"]
        return _result("go test", p, f, s, names)
    return {"framework": None, "recognized": False, "passed": None, "failed": None,
            "skipped": None, "failing_tests": []}
