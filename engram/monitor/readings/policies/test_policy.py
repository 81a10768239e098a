"""What a project's rules say tests must not do: focused tests ("Disallow focused tests",
"no `it.only`"), disabled or skipped tests ("Disallow disabled tests", "never skip a failing
test"), fixed sleeps ("tests must not sleep", "no hard-coded waits in tests"), the network ("unit
tests never hit the network") and the real clock ("tests must not depend on the current time").

These are lint rules most JavaScript and Python projects enable (eslint-plugin-jest's
no-focused-tests and no-disabled-tests, mocha's no-exclusive-tests and no-skipped-tests,
Playwright's no-wait-for-timeout) and CONTRIBUTING rules of every language. The decision names
the practice, never the code: `it.only(`, `xit(`, `@pytest.mark.skip`, `@Disabled`, `t.Skip()`,
`#[ignore]`, `time.sleep(` in a test. Each table below is those spellings, by what they do, and
each cue is the decision's words that call for one (`decision_rules.DETECTOR_CUES`).

Conditional skips (`skipif`, `skipUnless`, `t.Skip` under a platform check is still a skip) are
told apart where the spelling says so: `@pytest.mark.skipif(...)` states its reason in code, so
only an unconditional skip counts.
"""

from __future__ import annotations

import re

from engram.monitor.code_lines import Line, is_test_path

Hit = tuple[str, Line, str]

_BAN = r"(?:no|never|don'?t|do not|must not|mustn'?t|should not|shouldn'?t|disallow\w*|avoid|forbid\w*|ban\w*|prohibit\w*)"
# "Disallow focused tests", "no `.only`", "never commit fdescribe": a prohibition of a focused test.
_FOCUSED_CUE = re.compile(rf"\b{_BAN}\b[^.;]{{0,40}}(?:\bfocused\s+tests?\b|\bexclusive\s+tests?\b|\.only\b|"
                          r"\bfdescribe\b)", re.I)
# "Disallow disabled tests", "never skip tests", "tests must not be skipped", "no `xit`".
_SKIPPED_CUE = re.compile(rf"\b{_BAN}\b[^.;]{{0,40}}(?:\b(?:disabled|skipped|pending|ignored)\s+(?:unit\s+)?tests?\b|"
                          r"\b(?:skip|skipping|disable|disabling)\s+(?:(?!in\b|for\b|on\b|when\b)\w+\s+){0,2}?tests?\b|\.skip\b|\bxit\b|\bxdescribe\b|"
                          r"@Disabled\b|@Ignore\b)|\btests?\s+(?:must|should|shall)\s+(?:never|not)\s+be\s+"
                          r"(?:skipped|disabled|ignored)\b", re.I)
# "Tests must not sleep", "no `time.sleep` in tests", "avoid hard-coded waits": needs the tests named.
_SLEEP_CUE = re.compile(rf"\A(?=.*\btests?\b|.*\bspecs?\b)(?=.*\b{_BAN}\b[^.;]{{0,40}}(?:\bsleep\w*|\bwaitForTimeout\b|"
                        r"\b(?:fixed|arbitrary|hard-?coded|static)\s+(?:waits?|delays?|timeouts?|sleeps?)\b))", re.I | re.S)

# "Tests must not hit the network", "no real HTTP calls in unit tests", "tests run offline".
_NETWORK_CUE = re.compile(rf"\A(?=.*\btests?\b)(?=.*(?:\b{_BAN}\b|\bwithout\b|\bnot\b)[^.;]{{0,40}}\b(?:network|internet|"
                          r"real (?:http|network|api|services?|endpoints?)|external (?:services?|apis?|calls?|requests?)|"
                          r"outbound|live (?:apis?|services?|endpoints?))\b|.*\btests?\s+(?:must\s+)?run\s+offline\b)",
                          re.I | re.S)
# "Tests must not depend on the current time", "freeze time in tests", "use a fake clock".
_CLOCK_CUE = re.compile(r"\A(?=.*\btests?\b)(?=.*\b(?:current|real|wall[- ]clock|system)\s+(?:time|date|clock)\b|"
                        r".*\bfreez\w*\s+(?:the\s+)?(?:time|clock)\b|.*\b(?:fake|mock\w*|fixed|injected)\s+(?:timers?|clocks?)\b)",
                        re.I | re.S)
# "Tests must not ...", "Unit tests should never ...": a rule whose subject is the tests holds in test files only.
_TESTS_SUBJECT = re.compile(r"^\W*(?:(?:unit|integration|e2e|end-to-end)\s+)?tests?\s+(?:code\s+)?(?:must|should|shall|may|can)"
                            r"(?:\s+not|\s+never|n'?t)\b", re.I)

_FOCUSED = [
    re.compile(r"(?<![\w.])(?:it|test|describe|context|suite|specify)(?:\.describe)?\.only\s*\("),
    re.compile(r"(?<![\w.])(?:fit|fdescribe|fcontext|ftest)\s*\("),
    re.compile(r"(?<![\w.])test\.describe\.only\s*\("),
]
_SKIPPED = [
    re.compile(r"(?<![\w.])(?:it|test|describe|context|suite|specify)(?:\.describe)?\.skip\s*\("),
    re.compile(r"(?<![\w.])(?:xit|xtest|xdescribe|xcontext|xspecify)\s*\("),
    re.compile(r"@pytest\.mark\.skip\b(?!if)|@unittest\.skip\b(?!If|Unless)|\bpytest\.skip\(|\bself\.skipTest\("),
    re.compile(r"^\s*@(?:Disabled|Ignore)\b|^\s*\[Ignore\b|\[(?:Fact|Theory|Test)\s*\(\s*Skip\s*="),
    re.compile(r"\bt\.Skip(?:f|Now)?\("),
    re.compile(r"^\s*#\[ignore\b"),
]
_SLEEP = re.compile(r"\btime\.sleep\(|\bThread\.sleep\(|\bTimeUnit\.\w+\.sleep\(|\btime\.Sleep\(|\bthread::sleep\(|"
                    r"\bwaitForTimeout\(|\bcy\.wait\(\s*\d|\bnew\s+Promise\(\s*\(?\s*\w+\s*\)?\s*=>\s*setTimeout\(|"
                    r"^\s*sleep\s*\(?\s*\d|\bTask\.Delay\(\s*\d")

# A request to a host that is not this machine: `requests.get("https://api...")`, `fetch("https://...")`.
_REMOTE_CALL = re.compile(r"\b(?:requests|httpx|aiohttp|urllib\.request|axios|http|got|superagent|ky)\s*\.\s*(?:get|post|put|"
                          r"patch|delete|head|request|urlopen|Get|Post|Head)\s*\(\s*[fr]?[\"'`]https?://(?!localhost|127\.|"
                          r"0\.0\.0\.0|\[::1\]|[\w.\-]*example\.(?:com|org)|[\w.\-]+\.test\b)|\bfetch\(\s*[\"'`]https?://"
                          r"(?!localhost|127\.|[\w.\-]*example\.(?:com|org))|\burlopen\(\s*[\"']https?://(?!localhost|127\.)")
_NOW = re.compile(r"\bdatetime\.(?:now|utcnow|today)\(|\bdate\.today\(|\btime\.time\(\)|\bDate\.now\(\)|"
                  r"\bnew\s+Date\(\s*\)|\btime\.Now\(\)|\bInstant\.now\(|\bLocalDate(?:Time)?\.now\(|"
                  r"\bSystem\.currentTimeMillis\(|\bDateTime\.(?:Now|UtcNow)\b|\bTime\.now\b")

CUES = {"focused_tests": _FOCUSED_CUE, "skipped_tests": _SKIPPED_CUE, "test_sleeps": _SLEEP_CUE,
        "test_network": _NETWORK_CUE, "test_clock": _CLOCK_CUE}


def tests_only(text: str) -> bool:
    """Whether a decision's subject is the tests ("Tests must not sleep"): then it says nothing of
    production code, which may sleep, call the network and read the clock."""
    return _TESTS_SUBJECT.search(text) is not None


def _added(lines: list[Line]) -> list[Line]:
    return [ln for ln in lines if ln.side == "+" and not ln.prose]


def focused_tests(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """`it.only(`, `fdescribe(`: the rest of the suite stops running wherever this is committed."""
    return [("direct", ln, "focuses the test run on one test, which the decision rules out") for ln in _added(lines)
            if any(rx.search(ln.code) for rx in _FOCUSED)]


def skipped_tests(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """`it.skip(`, `xit(`, `@pytest.mark.skip`, `@Disabled`, `t.Skip()`, `#[ignore]`: a test switched off."""
    return [("direct", ln, "skips a test, which the decision rules out") for ln in _added(lines)
            if any(rx.search(ln.code) for rx in _SKIPPED)]


def _in_tests(rx: re.Pattern[str], why: str, raw: bool = False):
    """A detector of `rx` on the added lines of test files; `raw`: read string contents too (a URL)."""
    def detect(lines: list[Line], lang: str, decision: str, path: str = "") -> list[Hit]:
        if not is_test_path(path):
            return []
        return [("direct", ln, why) for ln in _added(lines) if rx.search(ln.text if raw else ln.code)]
    return detect


DETECTORS = {"focused_tests": focused_tests, "skipped_tests": skipped_tests,
             "test_sleeps": _in_tests(_SLEEP, "sleeps for a fixed time in a test, which the decision rules out"),
             "test_network": _in_tests(_REMOTE_CALL, "calls a remote host from a test, which the decision rules out", True),
             "test_clock": _in_tests(_NOW, "reads the real clock in a test, which the decision rules out")}
PATH_DETECTORS = frozenset({"test_sleeps", "test_network", "test_clock"})
