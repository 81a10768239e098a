"""A toy agent harness that gives its agent engram's memory through the generic Python API.

    python examples/generic_harness.py [PROJECT_DIR]

It creates a tiny project (default: a temporary directory), runs a first "agent session"
(read a file, run the tests for real: they fail, fix the code, they pass, record a
decision), consolidates it, then starts a second session and prints what engram hands
the agent: the context at session start and the note on its first read of the file.
Memory goes to $ENGRAM_HOME, or a temporary one when that is unset. The test suite runs
this file (tests/harnesses/test_generic.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engram.harnesses import generic as engram  # noqa: E402

CALC_BUGGY = "def add(a, b):\n    return a - b\n"
TEST = ("import unittest\n\nfrom calc import add\n\n\nclass TestAdd(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n")


def make_project(root: str) -> None:
    os.makedirs(os.path.join(root, ".git"), exist_ok=True)  # a project root, as `git init` marks it
    with open(os.path.join(root, "calc.py"), "w") as f:
        f.write(CALC_BUGGY)
    with open(os.path.join(root, "test_calc.py"), "w") as f:
        f.write(TEST)


def run_tests(root: str) -> tuple[str, str, int]:
    """The agent's shell tool: really run the tests, return (command, output, exit code)."""
    command = f"{sys.executable} -m unittest -v test_calc"
    res = subprocess.run(command.split(), cwd=root, capture_output=True, text=True, timeout=60)
    return "python -m unittest -v test_calc", res.stdout + res.stderr, res.returncode


def session_one(root: str) -> None:
    s = "toy-1"
    engram.on_session_start(s, root)
    engram.on_prompt(s, root, "add() returns the wrong sum; fix it")
    with open(os.path.join(root, "calc.py")) as f:
        engram.on_tool_call(s, root, engram.read("calc.py", content=f.read()))
    engram.on_tool_call(s, root, engram.shell(*run_tests(root)))
    with open(os.path.join(root, "calc.py"), "w") as f:
        f.write(CALC_BUGGY.replace("a - b", "a + b"))
    engram.on_tool_call(s, root, engram.edit("calc.py", "    return a - b", "    return a + b"))
    command, output, code = run_tests(root)
    engram.on_tool_call(s, root, engram.shell(command, output, code))
    engram.on_tool_call(s, root, engram.decision("add() must stay a pure function of its arguments",
                                                 "callers memoise it", ["calc.py"]))
    engram.on_stop(s, root, last_message="Fixed add(): it subtracted. Tests pass.")
    engram.on_session_end(s, root, "exit")
    print(f"session 1: tests {'passed' if code == 0 else 'FAILED'} after the fix; events in $ENGRAM_HOME/projects/")


def consolidate(root: str) -> None:
    """What the Stop hook's background worker does; run in the foreground so the demo waits."""
    from engram.cli import main

    code = main(["consolidate", "--all", "--project", root])
    if code:
        raise SystemExit(f"consolidation failed ({code})")


def session_two(root: str) -> None:
    s = "toy-2"
    print("session 2")
    start = engram.on_session_start(s, root)
    print("  context at session start:\n    " + (start or "(none)").replace("\n", "\n    "))
    with open(os.path.join(root, "calc.py")) as f:
        note = engram.on_tool_call(s, root, engram.read("calc.py", content=f.read()))
    print("  note on the first read of calc.py:\n    " + (note or "(none)").replace("\n", "\n    "))
    engram.on_stop(s, root, last_message="Looked around.")


def main() -> int:
    os.environ.setdefault("ENGRAM_HOME", tempfile.mkdtemp(prefix="engram-example-home-"))
    os.environ["ENGRAM_NO_WORKER"] = "1"  # consolidate() below does the worker's job, in order
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="engram-example-"))
    make_project(root)
    print(f"project {root}\nmemory  {os.environ['ENGRAM_HOME']}")
    session_one(root)
    consolidate(root)
    session_two(root)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
