"""`engram demo` (the README's main-job command) shows the whole cycle, offline."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from testing.helpers import REPO


def _demo(tmp_path, *argv: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "ENGRAM_OFFLINE"}
    env["TMPDIR"] = str(tmp_path)  # where the demo makes its temporary folder
    res = subprocess.run([sys.executable, "-m", "engram", "demo", *argv], capture_output=True, text=True,
                         cwd=str(REPO), env=env, timeout=180)
    assert res.returncode == 0, res.stderr
    return res.stdout


def _section(out: str, start: str) -> str:
    """The lines under the heading that starts with `start`, up to the next heading."""
    return out.split("\n== " + start, 1)[1].split("\n== ", 1)[0].split("\n", 1)[1]


def test_demo_shows_the_whole_cycle(tmp_path):
    out = _demo(tmp_path, "--dir", str(tmp_path / "demo"))
    for heading in ("Session 1", "Session 2", "Consolidation", "Session 5 starts", "On demand", "contradicts",
                    "the warning arrives", "Where everything is"):
        assert heading in out, heading
    assert "fix_attempt" in out and "Decision: Use Decimal for all money arithmetic" in out
    start = out.split("starts: what engram injects at SessionStart", 1)[1].split("==", 1)[0]
    for group in ("Where we left off:", "Commands that work:", "Known problems:", "Decisions and instructions:"):
        assert group in start, group
    assert "Add apply_discount() to calc.py" in start and "`python -m unittest test_calc` runs the tests" in start
    assert "`make test` fails" in start
    # a non-build gotcha: in the next session's text, and again the moment it is met again
    assert "`./tools/publish.sh` fails: error: INVOICE_ENV must be set" in start
    again = _section(out, "The agent runs ./tools/publish.sh")
    assert "`INVOICE_ENV=staging ./tools/publish.sh` worked instead" in again
    instructions = start.split("Decisions and instructions:", 1)[1].split(":\n", 1)[0]
    assert 'The user said: "Make sure to run the unit tests before you say a change is done."' in instructions
    after_write = out.split("the warning arrives", 1)[1]
    assert "may contradict a recorded decision" in after_write.split("And the one after")[0]
    assert "contradict" not in after_write.split("And the one after")[1].split("Where everything")[0]


def test_each_channel_delivers_what_session_start_did_not_show(tmp_path):
    """Finding 10: the prompt and the first read each bring something new, and the query's
    heading is the question that ran."""
    out = _demo(tmp_path, "--dir", str(tmp_path / "demo"))
    start = _section(out, "Session 5 starts")
    prompt = _section(out, "The user asks")
    first_read = _section(out, "The agent's first read of invoice.py")
    assert "Keep VAT rates in rates.py" in first_read and "Keep VAT rates" not in start
    assert "Keep VAT rates in rates.py" in prompt  # shown again, in full: the prompt names it
    shown = [line for line in first_read.splitlines() if line.startswith("  | - ")]
    assert shown and all(line[4:] not in start for line in shown)
    (asked,) = re.findall(r"== On demand: engram query '([^']+)'", out)
    assert f"engram memory for “{asked}”" in _section(out, "On demand")


def test_demo_removes_its_temporary_folder(tmp_path):
    out = _demo(tmp_path)
    assert not [p for p in os.listdir(tmp_path) if p.startswith("engram-demo-")]
    assert "temporary folder is removed" in out and "demo --dir DIR" in out
    page = out.strip().splitlines()[-1].split("page: ", 1)[1]  # the page outlives the folder: its path is printed
    assert os.path.dirname(page) == str(tmp_path) and "Knowledge by kind" in open(page).read()


def test_demo_ends_with_the_payoff_line_and_the_page(tmp_path):
    """Issue 27: session 5 runs the command SessionStart served it, so the payoff counts a use."""
    out = _demo(tmp_path, "--dir", str(tmp_path / "demo"))
    *_, payoff, page = out.strip().splitlines()
    used = re.match(r"  payoff: last (\d+) session\(s\): (\d+) item\(s\) injected \([\d,]+ words\), (\d+) used", payoff)
    assert used and int(used.group(1)) >= 4 and int(used.group(3)) >= 1, payoff
    assert page == f"  page: {tmp_path / 'demo' / 'memory.html'}"
    streams = (tmp_path / "demo" / "engram-home" / "projects").glob("*/events/demo-session-5.jsonl")
    vias = {e["via"] for e in map(json.loads, next(streams).read_text().splitlines()) if e["type"] == "injected"}
    assert vias == {"session_start", "first_read", "prompt"}
    html = (tmp_path / "demo" / "memory.html").read_text()
    assert "python -m unittest test_calc" in html and "demo-session-5" in html
