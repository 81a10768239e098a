"""Pass/fail counts and failing test names from test-runner output.

Recognises pytest, unittest, bun test, node:test (TAP and spec reporters), jest, vitest,
go test, cargo test, Maven / surefire, Gradle, dotnet test, ExUnit, RSpec, Playwright, mocha, XCTest,
PHPUnit, CTest and meson test, also behind a monorepo runner's task prefixes (turbo's
"pkg:test: "). When none matches, the result says `recognized: False` and carries
only the exit code's verdict, so a reader of the JSONL knows the counts are absent,
not zero.

This runs inside the PostToolUse hook: pytest and unittest, the common cases, are parsed
with plain string operations; `re` is imported (~4 ms) only for the other runners, and
each runner's patterns are compiled only once its marker text is present. Work is
bounded: the output's last MAX_SCAN characters are parsed (the summaries are at the end),
no line longer than MAX_LINE is kept, and every pattern is anchored at a line start with
no run that could rescan a line (spaces and tabs, never a whitespace class, which crosses lines).
"""

from __future__ import annotations

MAX_NAMES = 20
MAX_NAME = 300
MAX_SCAN = 262144
MAX_LINE = 2000
_WORDS = {"passed": "passed", "failed": "failed", "error": "failed", "errors": "failed",
          "skipped": "skipped", "xfailed": "skipped", "xpassed": "passed", "todo": "skipped",
          "pending": "skipped"}


def _result(framework, passed, failed, skipped, names) -> dict:
    return {"framework": framework, "recognized": True, "passed": passed, "failed": failed,
            "skipped": skipped, "failing_tests": list(dict.fromkeys(n.strip()[:MAX_NAME] for n in names))[:MAX_NAMES]}


def _count_words(text: str) -> dict | None:
    """'3 failed, 10 passed' (also '|'-separated) -> counts; None when nothing is counted."""
    c = {"passed": 0, "failed": 0, "skipped": 0}
    found = False
    for part in text.replace("|", ",").split(","):
        words = part.split()
        for i in range(len(words) - 1):
            if words[i].isdigit() and words[i + 1] in _WORDS:
                c[_WORDS[words[i + 1]]] += int(words[i])
                found = True
    return c if found else None


def _pytest(lines: list[str]) -> dict | None:
    for line in reversed(lines):
        s = line.strip().strip("=").strip()
        if " in " in s and s.rsplit(" in ", 1)[1].rstrip("s ").replace(".", "").isdigit():
            c = _count_words(s.rsplit(" in ", 1)[0])
            if c:
                names = [ln.split()[1] for ln in lines
                         if ln.startswith(("FAILED ", "ERROR ")) and len(ln.split()) > 1]
                return _result("pytest", c["passed"], c["failed"], c["skipped"], names)
    return None


def _bun(lines: list[str]) -> dict | None:
    """bun test: " 79 pass" / " 1 fail" / " 2 skip" lines above "Ran 80 tests across 13 files.",
    a failing test as "(fail) suite > name [11.2ms]"."""
    if not any(ln.startswith("Ran ") and " tests across " in ln for ln in lines[-40:]):
        return None
    c = {"pass": 0, "fail": 0, "skip": 0, "todo": 0}
    for ln in lines:
        words = ln.split()
        if len(words) == 2 and words[0].isdigit() and words[1] in c:
            c[words[1]] = int(words[0])
    names = [_vitest_name(ln.strip()[len("(fail) "):]) for ln in lines if ln.lstrip().startswith("(fail) ")]
    return _result("bun test", c["pass"], c["fail"], c["skip"] + c["todo"], names)


def _untasked(line: str) -> str:
    """A line without the task prefix a monorepo runner puts before each line of its tasks' output
    (turbo's "@scope/cli:test: "): a token holding `:` and ending in a task name."""
    head, sep, rest = line.partition(": ")
    if sep and head and " " not in head and ":" in head:
        task = head.rsplit(":", 1)[1]
        if task[:1].isalpha() and task.replace("-", "").replace("_", "").isalnum():
            return rest
    return line


def _unittest(lines: list[str]) -> dict | None:
    ran = next((i for i, ln in enumerate(lines) if ln.startswith("Ran ") and " test" in ln), None)
    if ran is None or not lines[ran].split()[1].isdigit():
        return None
    total = int(lines[ran].split()[1])
    bad = skipped = 0
    for ln in lines[ran + 1:]:
        if ln.startswith(("OK", "FAILED")):
            detail = ln.partition("(")[2].rstrip(")")
            for item in detail.split(","):
                key, _, n = item.strip().partition("=")
                if n.isdigit():
                    if key in ("failures", "errors"):
                        bad += int(n)
                    elif key == "skipped":
                        skipped += int(n)
            break
    names = []
    for ln in lines:
        if ln.startswith(("FAIL: ", "ERROR: ")) and "(" in ln:
            name, _, cls = ln.split(": ", 1)[1].partition(" (")
            cls = cls.rstrip(")")
            # 3.11+ prints the full id in parentheses: "FAIL: test_x (mod.Class.test_x)"
            names.append(cls if cls.endswith("." + name) else f"{cls}.{name}")
    return _result("unittest", total - bad - skipped, bad, skipped, names)


def _others(text: str, command: str) -> dict | None:
    import re

    if "Tests:" in text and " total" in text:
        line = next((ln for ln in text.split("\n") if ln.startswith("Tests:") and " total" in ln), None)
        c = _count_words(line[6:]) if line else None
        if c:
            return _result("jest", c["passed"], c["failed"], c["skipped"], re.findall(r"(?m)^[ \t]++● (.+)$", text))
    if "Tests" in text:
        m = re.search(r"(?m)^[ \t]*+Tests[ \t]++(\d+ (?:failed|passed).*)$", text)
        c = _count_words(m.group(1)) if m else None
        if c:
            names = [_vitest_name(n) for n in re.findall(r"(?m)^[ \t]*+(?:FAIL|×|✗)[ \t]++(\S.*)$", text)]
            return _result("vitest", c["passed"], c["failed"], c["skipped"], names)
    tap = re.findall(r"(?m)^(?:#|ℹ) (pass|fail|skipped|todo) (\d+)", text)
    if tap:
        c = {"pass": 0, "fail": 0, "skipped": 0, "todo": 0}
        for word, n in tap:
            c[word] = int(n)
        names = re.findall(r"(?m)^[ \t]*+not ok \d++ - (.+)$", text)
        return _result("node:test", c["pass"], c["fail"], c["skipped"] + c["todo"], names)
    cargo = re.findall(r"(?m)^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored", text)
    if cargo:
        p, f, s = (sum(int(r[i]) for r in cargo) for i in range(3))
        return _result("cargo test", p, f, s, re.findall(r"(?m)^test (\S++) \.\.\. FAILED", text))
    cases = re.findall(r"(?m)^[ \t]*+--- (PASS|FAIL|SKIP): (\S++)", text)
    pkgs = re.findall(r"(?m)^(ok|FAIL)[ \t]++(\S++)", text)
    if cases or (pkgs and "go test" in command):
        rows = cases or [("PASS" if v == "ok" else "FAIL", n) for v, n in pkgs]
        p = sum(1 for v, _ in rows if v == "PASS")
        f = sum(1 for v, _ in rows if v == "FAIL")
        s = sum(1 for v, _ in rows if v == "SKIP")
        return _result("go test", p, f, s, [n for v, n in rows if v == "FAIL"])
    return _jvm_and_dotnet(text, re) or _others_more(text, re)


def _last(found: list) -> tuple | None:
    return found[-1] if found else None


def _jvm_and_dotnet(text: str, re) -> dict | None:
    """Maven / surefire ("Tests run: 12, Failures: 1, Errors: 0, Skipped: 0", its last line the
    total), Gradle ("12 tests completed, 1 failed"), dotnet test ("Failed!  - Failed: 1, Passed:
    11, Skipped: 0, Total: 12", one line a project)."""
    mvn = _last(re.findall(r"(?m)Tests run: (\d++), Failures: (\d++), Errors: (\d++), Skipped: (\d++)", text))
    if mvn:
        run, fail, err, skip = (int(x) for x in mvn)
        names = re.findall(r"(?m)^\[ERROR\][ \t]++([\w$]++(?:\.[\w$]++)++)(?::\d++)?+ ", text)
        return _result("surefire", run - fail - err - skip, fail + err, skip, names)
    gradle = _last(re.findall(r"(?m)^(\d++) tests? completed, (\d++) failed(?:, (\d++) skipped)?+", text))
    if gradle:
        run, fail, skip = int(gradle[0]), int(gradle[1]), int(gradle[2] or 0)
        return _result("gradle", run - fail - skip, fail, skip, re.findall(r"(?m)^(\S++ > \S[^\n]*?) FAILED$", text))
    dotnet = re.findall(r"(?m)^(?:Passed|Failed)!\s++-\s++Failed:\s++(\d++), Passed:\s++(\d++), Skipped:\s++(\d++)", text)
    if dotnet:
        f, p, s = (sum(int(r[i]) for r in dotnet) for i in range(3))
        return _result("dotnet test", p, f, s, re.findall(r"(?m)^[ \t]++Failed (\S++) \[", text))
    return None


def _others_more(text: str, re) -> dict | None:
    """ExUnit ("3 doctests, 12 tests, 1 failure, 2 excluded") and RSpec ("12 examples, 1 failure,
    2 pending"), mocha ("12 passing", "1 failing"), XCTest ("Executed 12 tests, with 1 failure"),
    PHPUnit ("Tests: 12, Assertions: 30, Failures: 1." / "OK (12 tests, 30 assertions)"), CTest
    ("92% tests passed, 1 tests failed out of 12") and meson test ("Ok: 11", "Fail: 1")."""
    line = _last(re.findall(r"(?m)^(\d++ (?:tests?|doctests?|properties|examples?)(?:, \d++ [a-z]++)*+)$", text))
    if line and "failure" in line:
        c = {w: 0 for w in ("tests", "failures", "excluded", "skipped", "pending", "invalid")}
        for n, word in re.findall(r"(\d++) ([a-z]++)", line):
            key = {"test": "tests", "doctest": "tests", "doctests": "tests", "property": "tests", "properties": "tests",
                   "example": "tests", "examples": "tests", "failure": "failures"}.get(word, word)
            if key in c:
                c[key] += int(n)
        skipped = c["excluded"] + c["skipped"] + c["pending"]
        rspec = "example" in line
        names = (re.findall(r"(?m)^rspec \S++ # (.++)$", text) if rspec
                 else re.findall(r"(?m)^[ \t]++\d++\) (test [^\n]++)$", text))
        return _result("rspec" if rspec else "exunit", c["tests"] - c["failures"] - skipped, c["failures"] + c["invalid"],
                       skipped, names)
    pw = dict((w, int(n)) for n, w in re.findall(r"(?m)^[ \t]++(\d++) (passed|failed|flaky|skipped|did not run)"
                                                     r"(?: \(\d[^)\n]*+\))?+[ \t]*+$", text))
    if "passed" in pw or "failed" in pw:  # Playwright: "  2 failed", "  10 passed (12.3s)"
        names = [n.strip() for n in re.findall(r"(?m)^[ \t]++(?:\d++\) )?+\[[\w-]++\] › ([^─\n]++)", text)]
        return _result("playwright", pw.get("passed", 0) + pw.get("flaky", 0), pw.get("failed", 0),
                       pw.get("skipped", 0) + pw.get("did not run", 0), names)
    mocha = dict((w, int(n)) for n, w in re.findall(r"(?m)^[ \t]*+(\d++) (passing|failing|pending)\b", text))
    if "passing" in mocha or "failing" in mocha:
        return _result("mocha", mocha.get("passing", 0), mocha.get("failing", 0), mocha.get("pending", 0), [])
    xc = _last(re.findall(r"Executed (\d++) tests?, with (\d++) failures?", text))
    if xc:
        names = [f"{c}.{m}" for c, m in re.findall(r"Test Case '-\[(\S++) (\w++)\]' failed", text)]
        return _result("xctest", int(xc[0]) - int(xc[1]), int(xc[1]), 0, names)
    php = _last(re.findall(r"(?m)^Tests: (\d++), Assertions: \d++(?:, ([A-Za-z ]++: \d++(?:, [A-Za-z ]++: \d++)*+))?+", text))
    if php:
        counts = dict((k.strip().lower(), int(v)) for k, v in re.findall(r"([A-Za-z ]++): (\d++)", php[1]))
        bad, skip = counts.get("failures", 0) + counts.get("errors", 0), counts.get("skipped", 0) + counts.get("incomplete", 0)
        return _result("phpunit", int(php[0]) - bad - skip, bad, skip, [])
    ok = _last(re.findall(r"(?m)^OK \((\d++) tests?, \d++ assertions?\)", text))
    if ok:
        return _result("phpunit", int(ok), 0, 0, [])
    ctest = _last(re.findall(r"(?m)^\d++% tests passed, (\d++) tests? failed out of (\d++)", text))
    if ctest:
        return _result("ctest", int(ctest[1]) - int(ctest[0]), int(ctest[0]), 0,
                       re.findall(r"(?m)^[ \t]*+\d++ - (\S++) \((?:Failed|SEGFAULT|Timeout|Not Run)", text))
    meson = dict((k, int(v)) for k, v in re.findall(r"(?m)^(Ok|Fail|Skipped|Timeout|Expected Fail|Unexpected Pass):[ \t]++(\d++)$", text))
    if "Ok" in meson and "Fail" in meson:
        bad = meson["Fail"] + meson.get("Timeout", 0) + meson.get("Unexpected Pass", 0)
        return _result("meson test", meson["Ok"] + meson.get("Expected Fail", 0), bad, meson.get("Skipped", 0),
                       re.findall(r"(?m)^[ \t]*+\d++/\d++ (\S++)[ \t]++(?:FAIL|TIMEOUT)\b", text))
    return None


def _vitest_name(line: str) -> str:
    """`src/a.test.ts > adds [chromium]` -> `src/a.test.ts > adds` (a trailing [..] dropped)."""
    line = line.rstrip()
    if line.endswith("]") and "[" in line:
        line = line[: line.rfind("[")].rstrip()
    return line


def _bounded(output: str) -> str:
    """The output's tail, at most MAX_SCAN characters, no line longer than MAX_LINE."""
    text = output[-MAX_SCAN:]
    if len(text) > MAX_LINE and any(len(ln) > MAX_LINE for ln in text.split("\n")):
        text = "\n".join(ln[:MAX_LINE] for ln in text.split("\n"))
    return text


def parse(output: str, command: str = "") -> dict:
    """Parse runner output; always returns the same keys."""
    text = _bounded(output or "")
    lines = text.split("\n")
    if ": " in text and ":test" in text:  # a monorepo runner's task prefixes (turbo: "pkg:test: ")
        lines = [_untasked(ln) for ln in lines]
        text = "\n".join(lines)
    res = _pytest(lines) if (" passed" in text or " failed" in text or " error" in text) else None
    res = res or _bun(lines) or _unittest(lines) or _others(text, command)
    return res or {"framework": None, "recognized": False, "passed": None, "failed": None,
                   "skipped": None, "failing_tests": []}
