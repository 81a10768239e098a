"""Hook fuzzing: random and adversarial payloads for every event and every harness adapter.

Whatever arrives on stdin, `python -m engram.hook` must exit 0, print nothing or one JSON
object (never a traceback), and write nothing outside ENGRAM_HOME (docs/architecture.md, "Process model"). Most
examples run in-process through `engram.hook.main` (a subprocess costs ~15 ms); a smaller
sample runs as real subprocesses, where exit codes and stray output are the real thing.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from engram.harnesses.registry import get as harness_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from testing.reliability import (adapter_events, consolidate_all, harness_problem, harnesses, make_project,
                                 output_problem, replay_inproc, run_inproc, session_script, snapshot)

HOSTILE = [
    "", ".", "..", "../../../../etc/passwd", "/etc/passwd", "/", "~", "~/.ssh/id_rsa", "a/../../b",
    "a\x00b", "\x00", "x" * 5000, "\udcff\udcfe", "\u202egnp.exe", "$(touch /tmp/pwned)", "`reboot`",
    "%s%s%n", "C:\\Windows\\System32", "file:///etc/passwd", "/dev/zero", "/dev/stdin", "/proc/self/mem",
    "\n\r\t", "null", "{}", '{"seq": 1}', "\\\\server\\share", "-rf", "--harness",
]
TOOLS = [
    "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "PowerShell", "Grep", "Glob", "LS",
    "WebSearch", "WebFetch", "Task", "Agent", "TodoWrite", "mcp__engram__save_decision",
    "mcp__engram__query_knowledge", "shell", "exec_command", "apply_patch", "run_shell_command",
    "read_file", "write_file", "replace", "read_many_files", "google_web_search", "web_fetch",
    "glob", "search_file_content", "bash", "read", "edit", "write",
]
INPUT_KEYS = [
    "file_path", "command", "content", "old_string", "new_string", "edits", "pattern", "path",
    "url", "query", "description", "subagent_type", "decision", "rationale", "files",
    "notebook_path", "offset", "limit", "absolute_path", "patch", "input", "cmd",
]
RESPONSE_KEYS = [
    "stdout", "stderr", "file", "filePath", "structuredPatch", "originalFile", "type", "numFiles",
    "numLines", "results", "code", "output", "exit_code", "exitCode", "error", "llmContent",
    "returnDisplay", "isError", "content", "success", "metadata",
]
TOP_KEYS = [
    "session_id", "cwd", "transcript_path", "hook_event_name", "tool_name", "tool_input",
    "tool_response", "prompt", "error", "source", "last_assistant_message", "stop_hook_active",
    "reason", "trigger", "turn_id", "tool_use_id", "model", "permission_mode", "llm_request",
    "unit", "milestone", "slice", "task", "isError", "result",
]

# Past every cap (2,000-4,000 chars) by far; sizes above the 64 MiB stdin cap have their own test.
huge = st.builds(lambda c, n: c * n, st.sampled_from(["x", "é", "\x00", "\n", "💥", "a\\"]),
                 st.integers(20_000, 400_000))
text = st.one_of(st.text(max_size=60), st.sampled_from(HOSTILE), huge)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True), text,
)
values = st.recursive(
    scalars, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                     st.dictionaries(st.text(max_size=12), inner, max_size=5)),
    max_leaves=12,
)


def _structured_patch():
    hunk = st.fixed_dictionaries({}, optional={k: values for k in ("oldStart", "oldLines", "newStart", "newLines")}) | \
        st.fixed_dictionaries({"oldStart": st.integers(-5, 10**9), "oldLines": st.integers(-5, 10**6),
                               "newStart": st.integers(-5, 10**9), "newLines": st.integers(-5, 10**6),
                               "lines": st.lists(text, max_size=6)})
    return st.lists(hunk, max_size=3)


def _dict_of(keys: list[str], extra) -> st.SearchStrategy:
    return st.dictionaries(st.sampled_from(keys), extra, max_size=len(keys)) | st.dictionaries(
        st.text(max_size=10), values, max_size=4)


def payloads(project: Path) -> st.SearchStrategy:
    session = st.one_of(st.sampled_from(["s1", "s2", "sess-3.a_b"]), st.from_regex(r"[A-Za-z0-9_.-]{1,128}", fullmatch=True),
                        text, st.integers(), st.none(), st.lists(st.text(max_size=3), max_size=2))
    cwd = st.one_of(st.just(str(project)), st.just(str(project / "src")), st.just(str(project / "missing")),
                    text, st.integers(), st.none())
    tool_input = st.one_of(_dict_of(INPUT_KEYS, st.one_of(values, text, st.just(str(project / "src" / "app.py")),
                                                           st.lists(st.fixed_dictionaries({"old_string": text, "new_string": text}), max_size=3))),
                           values)
    tool_response = st.one_of(_dict_of(RESPONSE_KEYS, st.one_of(values, _structured_patch(),
                                                                 st.fixed_dictionaries({"content": text, "filePath": text}))),
                              values)
    field_values = {"session_id": session, "cwd": cwd, "tool_name": st.one_of(st.sampled_from(TOOLS), values),
                    "tool_input": tool_input, "tool_response": tool_response}
    return st.fixed_dictionaries(
        {"session_id": session, "cwd": cwd},
        optional={k: field_values.get(k, values) for k in TOP_KEYS if k not in ("session_id", "cwd")},
    ) | st.dictionaries(st.sampled_from(TOP_KEYS), values, max_size=8)


def plausible(project: Path) -> st.SearchStrategy:
    """Well-formed payloads about what the seeded graph knows, with fuzzed text around it."""
    target = str(project / "src" / "mod0.py")
    about = st.builds(lambda a, b: f"{a} why integer offsets in mod0 and src/mod0.py? {b}", text, text)
    return st.fixed_dictionaries({
        "session_id": st.sampled_from(["p1", "p2"]), "cwd": st.just(str(project)), "prompt": about,
        "source": st.sampled_from(["startup", "resume", "clear", "compact"]),
        "tool_name": st.sampled_from(["Read", "read_file", "read"]),
        "tool_input": st.fixed_dictionaries({"file_path": st.just(target), "absolute_path": st.just(target),
                                             "path": st.just(target)}),
        "tool_response": st.fixed_dictionaries({"type": st.just("text"), "file": st.fixed_dictionaries(
            {"filePath": st.just(target), "content": text})}),
    }, optional={k: values for k in ("transcript_path", "llm_request", "turn_id")})


MUTATIONS = 11


def encode(obj, how: int) -> bytes:
    """The payload as the harness would send it (how=0, 1), or damaged on the way."""
    good = json.dumps(obj).encode()
    if how == 0:
        return good
    if how == 1:
        return json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return [
        lambda: good[: len(good) // 2], lambda: b"\xef\xbb\xbf" + good, lambda: good + b"\x00garbage",
        lambda: good.replace(b'"', b"\xff", 1), lambda: b"\x00" * 64, lambda: good + b"\n" + good,
        lambda: b"[" * 200_000, lambda: b'{"a":' * 100_000, lambda: good.replace(b"{", b"{\xc3\x28", 1),
    ][how - 2]()


@pytest.fixture
def world(tmp_path, engram_home, monkeypatch):
    """A project, an unrelated directory with a file, and a scratch cwd; all must stay unchanged."""
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    project = make_project(tmp_path)
    replay_inproc(session_script(project, "seed", 0))
    consolidate_all(project)  # a graph, so retrieval has context to print
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("untouched")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    return project, tmp_path, engram_home


HARNESSES = harnesses()
FUZZ_EXAMPLES = int(os.environ.get("ENGRAM_FUZZ_EXAMPLES", "500"))
SUBPROCESS_EXAMPLES = int(os.environ.get("ENGRAM_FUZZ_SUBPROCESS", "40"))


@pytest.mark.parametrize("harness", HARNESSES)
def test_fuzz_in_process(harness, world, figures):
    project, tmp_path, home = world
    events = adapter_events(harness)
    before = snapshot(tmp_path, skip=home)
    seen = {"n": 0, "context": 0}

    adapter = harness_of(harness)
    injectable = sorted(getattr(adapter, "INJECTABLE", set())) or ["SessionStart"]

    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def check(data):
        if data.draw(st.integers(0, 3), label="plausible") == 0:  # shaped to reach retrieval and print context
            event = data.draw(st.sampled_from(injectable), label="event")
            obj = data.draw(plausible(project), label="payload")
        else:
            event = data.draw(st.one_of(st.sampled_from(events), text), label="event")
            obj = data.draw(payloads(project), label="payload")
        raw = encode(obj, data.draw(st.integers(0, MUTATIONS - 1) | st.just(0), label="encoding"))
        args = data.draw(st.sampled_from([("--harness", harness), (f"--harness={harness}",),
                                          ("--harness", harness, "--extra", "x")]))
        res = run_inproc(event, raw, *args)
        seen["n"] += 1
        seen["context"] += bool(res.stdout)
        assert res.rc == 0
        problem = output_problem(res.stdout, event) or harness_problem(harness, event, res.stdout)
        assert problem is None, problem
        assert "Traceback" not in res.stderr

    check()
    assert snapshot(tmp_path, skip=home) == before, "something was written outside ENGRAM_HOME"
    figures.add("fuzz", payloads_in_process=seen["n"], with_context_output=seen["context"], harnesses=1, crashed=0,
                bad_output=0, outside_writes=0)


def _random_value(rnd: random.Random, depth: int = 0):
    pick = rnd.randrange(9 if depth < 3 else 6)
    if pick == 0:
        return None
    if pick == 1:
        return rnd.choice([True, False, 0, -1, 10**30, 1.5, float("inf")])
    if pick in (2, 3, 4):
        return rnd.choice(HOSTILE)
    if pick == 5:
        return "".join(chr(rnd.randrange(0, 0x2FFF)) for _ in range(rnd.randrange(40)))
    if pick == 6:
        return rnd.choice("xé\x00\n") * rnd.randrange(10_000, 200_000)
    if pick == 7:
        return [_random_value(rnd, depth + 1) for _ in range(rnd.randrange(4))]
    return {rnd.choice(INPUT_KEYS + RESPONSE_KEYS): _random_value(rnd, depth + 1) for _ in range(rnd.randrange(5))}


def _random_payload(rnd: random.Random, project: Path) -> dict:
    """A payload built from the same vocabulary as the hypothesis strategies (seeded, reproducible)."""
    obj = {k: _random_value(rnd) for k in rnd.sample(TOP_KEYS, rnd.randrange(len(TOP_KEYS)))}
    obj["session_id"] = rnd.choice(["s1", "s2", *HOSTILE[:12], 7, None])
    obj["cwd"] = rnd.choice([str(project), str(project), str(project / "src"), *HOSTILE[:8]])
    obj["tool_name"] = rnd.choice(TOOLS)
    obj["tool_input"] = {k: rnd.choice([_random_value(rnd), str(project / "src" / "app.py")])
                         for k in rnd.sample(INPUT_KEYS, rnd.randrange(6))}
    obj["tool_response"] = rnd.choice([_random_value(rnd), {k: _random_value(rnd) for k in rnd.sample(RESPONSE_KEYS, 4)}])
    return obj


def _sample(project: Path, harness: str, n: int, seed: int) -> list[tuple[str, bytes]]:
    """n (event, raw stdin) pairs, reproducibly."""
    events = adapter_events(harness)
    rnd = random.Random(f"{seed}-{harness}")
    return [(rnd.choice(events), encode(_random_payload(rnd, project), rnd.randrange(MUTATIONS) if i % 3 == 2 else 0))
            for i in range(n)]


@pytest.mark.slow
@pytest.mark.parametrize("harness", HARNESSES)
def test_fuzz_subprocess_sample(harness, world, figures):
    project, tmp_path, home = world
    before = snapshot(tmp_path, skip=home)
    env = {**os.environ, "ENGRAM_NO_WORKER": "1"}
    cases = _sample(project, harness, SUBPROCESS_EXAMPLES, seed=8)
    procs = []
    for i in range(0, len(cases), 8):  # 8 at a time: real concurrency, bounded load
        batch = [(ev, raw, subprocess.Popen([sys.executable, "-m", "engram.hook", ev, "--harness", harness],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                            env=env, cwd=str(tmp_path / "cwd")))
                 for ev, raw in cases[i : i + 8]]
        for ev, raw, p in batch:
            out, err = p.communicate(raw, timeout=60)
            procs.append((ev, p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")))
    for ev, rc, out, err in procs:
        assert rc == 0, (ev, err[-500:])
        assert (output_problem(out, ev) or harness_problem(harness, ev, out)) is None, out[:300]
        assert "Traceback" not in err
    assert snapshot(tmp_path, skip=home) == before
    figures.add("fuzz", payloads_subprocess=len(procs), crashed=0)
