"""The three metacognitive metrics on scripted event sequences, at each threshold's edge."""

from __future__ import annotations

import pytest

from engram.monitor import metacognitive as mc


def read(path: str, distance: int | None = None) -> list[dict]:
    out = [{"type": "file_read", "ok": True, "path": path}]
    if distance is not None:
        out.append({"type": "expanding_search", "path": path, "distance": distance, "ref": 1})
    return out


def write(path: str, line: str = "x = 1") -> list[dict]:
    return [{"type": "file_write", "ok": True, "path": path, "diff": f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n+{line}\n"}]


def test_fail(file: str = "tests/test_calc.py", etype: str = "AssertionError") -> list[dict]:
    return [{"type": "test_run", "outcome": "fail", "failing_tests": [f"{file}::test_add"],
             "output": f"E   {etype}: assert 1 == 2", "exit_code": 1}]


test_fail.__test__ = False  # a helper, not a test
PASS = [{"type": "test_run", "outcome": "pass", "failing_tests": [], "output": "3 passed", "exit_code": 0}]


def run(st: dict, *steps: list[dict]) -> tuple[list[str], list[dict]]:
    """Observe each step as one tool call; all notes and events."""
    notes, events = [], []
    for step in steps:
        n, e = mc.observe(st, step)
        notes += n
        events += e
    return notes, events


def fresh(typical: int = 40) -> dict:
    st: dict = {}
    mc.state(st)["typical"] = typical
    return st


# -- error repetition ---------------------------------------------------------------------------


def test_error_repetition_two_is_normal_three_is_flagged_once():
    st = fresh()
    notes, _ = run(st, test_fail(), write("calc.py"), test_fail())
    assert notes == []  # 2 occurrences after a fix: normal debugging
    notes, events = run(st, write("calc.py"), test_fail())
    assert len(notes) == 1 and "AssertionError in tests/test_calc.py" in notes[0] and "3 times" in notes[0]
    assert events[0]["type"] == "metacog_flag" and events[0]["metric"] == "error_repetition"
    notes, _ = run(st, write("calc.py"), test_fail(), write("calc.py"), test_fail())
    assert notes == []  # same episode: no nagging at 4 and 5


def test_a_rerun_without_a_fix_attempt_does_not_count():
    st = fresh()
    notes, _ = run(st, test_fail(), test_fail(), test_fail(), write("calc.py"), test_fail())
    assert notes == [] and mc.state(st)["errors"]["test:tests/test_calc.py:AssertionError"]["count"] == 2


def test_a_pass_ends_the_episode_and_a_new_streak_can_flag_again():
    st = fresh()
    seq = [test_fail(), write("a.py"), test_fail(), write("a.py"), test_fail()]
    assert len(run(st, *seq)[0]) == 1
    run(st, write("a.py"), PASS)
    assert mc.state(st)["errors"] == {} and mc.state(st)["flags"] == {}
    assert len(run(st, *seq)[0]) == 1


def test_a_different_error_type_is_a_different_signature():
    st = fresh()
    notes, _ = run(st, test_fail(etype="AssertionError"), write("a.py"), test_fail(etype="TypeError"),
                   write("a.py"), test_fail(etype="KeyError"))
    assert notes == []


def test_build_errors_have_signatures_too():
    st = fresh()
    build = [{"type": "build", "exit_code": 1, "error_summary": "src/main.rs:10:5: error[E0308]: mismatched types"}]
    notes, _ = run(st, build, write("src/main.rs"), build, write("src/main.rs"), build)
    assert len(notes) == 1 and "error[E0308] in src/main.rs" in notes[0]


@pytest.mark.parametrize("text,etype,path", [
    ("FAILED tests/t.py::test_x - AssertionError: assert 1 == 2", "AssertionError", None),
    ('  File "app.py", line 3\napp.py:3: TypeError: bad', "TypeError", "app.py"),
    ("src/lib.rs:4:9: error[E0425]: cannot find value", "error[E0425]", "src/lib.rs"),
    ("web/a.ts(3,1): error TS2345: Argument of type", "TS2345", None),
    ("./main.go:12:2: undefined: foo", "undefined", "./main.go"),
    ("make: *** [all] Error 2", "error", None),
])  # fmt: skip
def test_signatures(text, etype, path):
    assert mc.error_type(text) == etype
    assert mc.first_path(text) == path


# -- search-to-act ------------------------------------------------------------------------------


def _searching(st: dict, reads: int, writes: int, distance: int) -> tuple[list[str], list[dict]]:
    """`reads` reads (the last one `distance` away) and `writes` writes, after enough calls to be late."""
    steps = [read(f"src/a{i}.py") for i in range(reads - 1)] + [read("far/away/x/y.py", distance)]
    steps = [write("src/w.py")] * writes + steps
    return run(st, *steps)


@pytest.mark.parametrize("reads,writes,calls_before,distance,flagged", [
    (17, 3, 10, 3, True),   # ratio 5.67 > 4, progress 30/40 > 0.5, distance 3 > 2
    (16, 4, 10, 3, False),  # ratio exactly 4.0: not over the threshold
    (17, 3, 0, 3, False),   # progress exactly 20/40 = 0.5: not past half
    (17, 3, 10, 2, False),  # distance 2: not past the expansion threshold
    (17, 3, 10, None, False),  # reads not expanding at all
])  # fmt: skip
def test_search_to_act_needs_all_three_conditions(reads, writes, calls_before, distance, flagged):
    st = fresh(typical=40)
    run(st, *[[{"type": "command", "exit_code": 0}]] * calls_before)
    notes, events = _searching(st, reads, writes, distance)
    assert bool(notes) is flagged
    if flagged:
        assert events[0]["metric"] == "search_to_act" and events[0]["ratio"] > mc.SEARCH_RATIO
        assert "reads/searches to 3 writes" in notes[0]


def test_search_to_act_flags_once_per_episode():
    st = fresh(typical=40)
    run(st, *[[{"type": "command", "exit_code": 0}]] * 10)
    assert len(_searching(st, 17, 3, 3)[0]) == 1
    assert run(st, read("src/b.py"), read("other/far/dir/c.py", 4))[0] == []  # still the same episode
    run(st, *[write(f"src/w{i}.py") for i in range(mc.EPISODE_QUIET + 5)])  # acting again: the episode ends
    assert "search_to_act" not in mc.state(st)["flags"]
    assert len(_searching(st, 18, 2, 3)[0]) == 1  # a new episode may flag again


# -- progress velocity ---------------------------------------------------------------------------


def _window(files: list[str], writes: int) -> list[list[dict]]:
    """One velocity window: `writes` meaningful writes spread over `files`, the rest reads."""
    steps = [write(files[i % len(files)], f"v = {i}") for i in range(writes)]
    return steps + [read("src/r.py")] * (mc.VELOCITY_WINDOW - len(steps))


def test_velocity_trend_and_thrashing_flag():
    st = fresh(typical=60)
    run(st, *_window([f"f{i}.py" for i in range(6)], 6), *_window([f"g{i}.py" for i in range(6)], 6))
    assert mc.state(st)["velocities"] == [6, 6]
    notes, events = run(st, *_window(["f0.py"], 8))  # 8 writes, one file, late in the task
    assert len(notes) == 1 and events[0]["metric"] == "velocity" and events[0]["velocity"] == 1
    assert "thrashing" in notes[0]


def test_slowing_down_without_writing_is_not_thrashing():
    st = fresh(typical=60)
    run(st, *_window([f"f{i}.py" for i in range(6)], 6), *_window([f"g{i}.py" for i in range(6)], 6))
    assert run(st, *_window(["f0.py"], 2))[0] == []  # e.g. running tests at the end


def test_whitespace_only_writes_are_not_meaningful():
    assert not mc.meaningful({"diff": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-   \n+\n"})
    assert mc.meaningful({"diff": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n+x = 1\n"})


# -- progress and the summary --------------------------------------------------------------------


def test_typical_session_is_the_median_of_recent_sessions(tmp_path):
    for name, calls in (("a", 30), ("b", 90), ("c", 50), ("tiny", 3)):
        st = fresh()
        mc.state(st)["calls"] = calls
        mc.record_session(str(tmp_path), name, st)
    assert mc.typical_calls(str(tmp_path), {}) == 50  # median of 30, 50, 90; tiny sessions are ignored
    assert mc.typical_calls(str(tmp_path / "none"), {}) == mc.TYPICAL_CALLS


def test_summary_lines_show_every_metric():
    st = fresh()
    run(st, test_fail(), write("a.py"), test_fail())
    text = "\n".join(mc.summary_lines(st))
    for word in ("tool calls", "velocity", "search-to-act", "error repetition", "x2", "active flags"):
        assert word in text
