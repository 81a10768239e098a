"""A hook killed mid-append leaves at most one partial line, which readers skip and report.

Three angles: every prefix of an event line is rejected as JSON the way the hot path parses
it (without `import json`); a JSONL cut at every byte of its last line still takes the next
append cleanly with a gap-free `seq`; and real hook processes killed with SIGKILL at random
moments never leave more than one torn line per kill.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time

import pytest
from testing.helpers import events, payload, project_dir
from testing.reliability import jsonl_lines, run_inproc

PREFIX_CHECK = r"""
import sys
from engram import jsonio
assert "json" not in sys.modules, "the hot path must not import json"
line = sys.stdin.read()
bad = []
for i in range(len(line)):
    try:
        jsonio.loads(line[:i])
    except ValueError:
        continue
    except BaseException as exc:
        bad.append((i, type(exc).__name__))
    else:
        if line[:i].strip():
            bad.append((i, "parsed"))
print(len(line), bad[:5])
"""


def test_every_prefix_of_a_line_is_a_value_error_without_json_imported():
    """`_json` raises SystemError for a torn object when `json` is not imported; jsonio must not."""
    line = json.dumps({"type": "command", "ts": "2026-11-30T04:10:59.124Z", "session": "s", "seq": 12,
                       "turn": 1, "tool": "Bash", "ok": True, "command": "pytest -q", "nested": {"a": [1, 2.5, None]},
                       "output": "é\\\"💥"})
    res = subprocess.run([sys.executable, "-c", PREFIX_CHECK], input=line, capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == f"{len(line)} []"


def _bash(proj, session: str, i: int) -> bytes:
    return json.dumps(payload("PostToolUse", session, proj, tool_name="Bash", tool_input={"command": f"echo e{i}"},
                              tool_response={"stdout": f"out {i}", "stderr": ""})).encode()


def test_cut_at_every_byte_of_the_last_line(proj, figures):
    """Truncate the JSONL at each offset inside its last line (as a killed writer would), then append."""
    for i in range(2):
        assert run_inproc("PostToolUse", _bash(proj, "s", i)).rc == 0
    state = project_dir(proj) / "sessions" / "s.state.json"
    saved_state = state.read_bytes()  # what a hook killed while appending event 3 leaves behind
    assert run_inproc("PostToolUse", _bash(proj, "s", 2)).rc == 0
    path = project_dir(proj) / "events" / "s.jsonl"
    full = path.read_bytes()
    start = full.rstrip(b"\n").rfind(b"\n") + 1
    cuts = 0
    for cut in range(start + 1, len(full) - 1):  # strictly inside the line: a torn line
        path.write_bytes(full[:cut])
        state.write_bytes(saved_state)  # the killed hook never got to update the state
        assert run_inproc("PostToolUse", _bash(proj, "s", 99)).rc == 0
        good, bad = jsonl_lines(path)
        assert bad == 1, f"cut at {cut}: {bad} unreadable lines"
        assert [e["seq"] for e in good] == [1, 2, 3], f"cut at {cut}: seq {[e['seq'] for e in good]}"
        assert good[-1]["command"] == "echo e99"
        cuts += 1
    figures.add("crash", torn_line_offsets=cuts, lost_beyond_torn=0)


def test_readers_skip_and_report_a_torn_line(proj):
    from engram.capture import event_stream

    for i in range(2):
        run_inproc("PostToolUse", _bash(proj, "s", i))
    path = project_dir(proj) / "events" / "s.jsonl"
    path.write_bytes(path.read_bytes()[:-25])
    evs, bad = event_stream.read_events(str(path))
    assert (len(evs), bad) == (1, 1)
    run_inproc("PostToolUse", _bash(proj, "s", 2))
    log = (project_dir(proj) / "logs" / "engram.log").read_text()
    assert log.count("torn") == 1, log  # reported once, when the next append found it
    run_inproc("PostToolUse", _bash(proj, "s", 3))
    assert (project_dir(proj) / "logs" / "engram.log").read_text().count("torn") == 1


@pytest.mark.slow
def test_hooks_killed_at_random_moments(proj, figures):
    """SIGKILL real hook processes 0-40 ms after start while others append to the same session."""
    rnd = random.Random(8)
    kills = survivors = 0
    n = 60
    running = []
    for i in range(n):
        p = subprocess.Popen([sys.executable, "-m", "engram.hook", "PostToolUse"], stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        p.stdin.write(_bash(proj, "k", i))
        p.stdin.close()
        running.append((p, time.monotonic() + rnd.uniform(0.0, 0.04) if i % 2 else None))
        if len(running) == 6:
            for q, at in running:
                if at is not None:
                    time.sleep(max(0.0, at - time.monotonic()))
                    q.send_signal(signal.SIGKILL)
                q.wait(30)
                if q.returncode == -signal.SIGKILL:
                    kills += 1
                else:
                    assert q.returncode == 0
                    survivors += 1
            running = []
    # one more append after the carnage: it must land cleanly
    assert run_inproc("PostToolUse", _bash(proj, "k", 999)).rc == 0
    path = project_dir(proj) / "events" / "k.jsonl"
    good, bad = jsonl_lines(path)
    seqs = [e["seq"] for e in good]
    assert seqs == list(range(1, len(good) + 1))
    assert bad <= kills
    assert len(good) >= survivors + 1
    assert len({e["command"] for e in good}) == len(good), "an event appended twice"
    figures.add("crash", hooks_killed=kills, hooks_survived=survivors, torn_lines_left=bad,
                duplicated=0, seq_gaps=0)
