"""Pass/fail counts and failing test names from test-runner output.

Recognises pytest, unittest, bun test, node:test (TAP and spec reporters), jest, vitest,
go test and cargo test, also behind a monorepo runner's task prefixes (turbo's "pkg:test: "). When none matches, the result says `recognized: False` and carries
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
