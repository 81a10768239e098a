"""`engram demo` (the README's main-job command) shows the whole cycle, offline."""

from __future__ import annotations

import os
import subprocess
import sys

from testing.helpers import REPO


def test_demo_shows_the_whole_cycle(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "ENGRAM_OFFLINE"}
    res = subprocess.run([sys.executable, "-m", "engram", "demo", "--dir", str(tmp_path / "demo")],
                         capture_output=True, text=True, cwd=str(REPO), env=env, timeout=180)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    for heading in ("Session 1", "Consolidation", "Session 2 starts", "On demand", "contradicts",
                    "the warning arrives", "Where everything is"):
        assert heading in out, heading
    assert "fix_attempt" in out and "Decision: Use Decimal for all money arithmetic" in out
    start = out.split("Session 2 starts", 1)[1].split("==", 1)[0]
    for group in ("Unfinished:", "Commands that work:", "Known problems:", "Decisions and instructions:"):
        assert group in start, group
    assert "Add apply_discount() to calc.py" in start and "`python -m unittest test_calc` runs the tests" in start
    assert "`make test` fails" in start
    after_write = out.split("the warning arrives", 1)[1]
    assert "may contradict a recorded decision" in after_write.split("And the one after")[0]
    assert "contradict" not in after_write.split("And the one after")[1].split("Where everything")[0]
