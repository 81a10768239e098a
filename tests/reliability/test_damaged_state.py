"""Damaged state: each fault leaves the hook exiting 0, capturing what it can, logging the fault
once per hook, `engram doctor` showing it, and recovery needing at most one command.

Faults: a corrupt episode file, a truncated JSONL, a corrupt / locked engram.db, a corrupt
state file or config.json, a full disk (RLIMIT_FSIZE with SIGXFSZ ignored, so writes fail
with EFBIG the way a full disk fails them with ENOSPC), and a read-only data dir (chattr +i
when running as root, whom chmod does not stop).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testing.helpers import project_dir
from testing.reliability import (consolidate_all, db_path, graph_problems, jsonl_lines, make_project,
                                 replay_inproc, run_inproc, session_script)


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    root = make_project(tmp_path)
    for i in range(2):
        replay_inproc(session_script(root, f"old{i}", i))
    consolidate_all(root)
    return root


def hook(root: Path, event: str, session: str = "live", **fields) -> tuple[int, str, str]:
    """A real hook subprocess (exit code and output are what the harness sees)."""
    body = {"session_id": session, "cwd": str(root), **fields}
    res = subprocess.run([sys.executable, "-m", "engram.hook", event], input=json.dumps(body).encode(),
                         capture_output=True, timeout=60, env={**os.environ, "ENGRAM_NO_WORKER": "1"})
    return res.returncode, res.stdout.decode(), res.stderr.decode()


def three_hooks(root: Path, session: str = "live") -> list[tuple[int, str, str]]:
    target = str(root / "src" / "mod0.py")
    return [
        hook(root, "SessionStart", session, source="startup"),
        hook(root, "UserPromptSubmit", session, prompt="why integer offsets in mod0?"),
        hook(root, "PostToolUse", session, tool_name="Read", tool_input={"file_path": target},
             tool_response={"type": "text", "file": {"filePath": target, "content": "x\n"}}),
    ]


def log_lines(root: Path, needle: str = "") -> list[str]:
    path = project_dir(root) / "logs" / "engram.log"
    lines = path.read_text().splitlines() if path.exists() else []
    return [ln for ln in lines if needle in ln]


def doctor() -> str:
    res = subprocess.run([sys.executable, "-m", "engram", "doctor"], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in res.stdout + res.stderr
    return res.stdout


def flagged(report: str, check: str) -> str:
    """The level (WARN / FAIL) doctor gives a check, asserting it is not OK."""
    levels = [ln.split()[0] for ln in report.splitlines() if ln[6:].startswith(check)]
    assert levels and set(levels) - {"OK"}, f"doctor does not flag {check!r}:\n{report}"
    return sorted(set(levels) - {"OK"})[0]


def captured(root: Path, session: str = "live") -> list[str]:
    good, _ = jsonl_lines(project_dir(root) / "events" / f"{session}.jsonl")
    return [e["type"] for e in good if e["type"] != "injected"]  # what retrieval showed: docs/curation.md


def test_corrupt_episode_file(proj, figures):
    ep = project_dir(proj) / "episodes" / "old0.episode.json"
    before = graph_problems(db_path(proj))
    ep.write_bytes(b'{"mark":{"consolidated_to":3,"ev\x00\xff garbage')
    assert all(rc == 0 for rc, _, _ in three_hooks(proj))
    assert captured(proj) == ["session_start", "user_prompt", "file_read", "exploration"]
    outcomes = {o.session: o.status for o in consolidate_all(proj)}
    assert outcomes["old0"] == "recovered"  # nothing re-applied: the graph's record wins
    assert json.loads(ep.read_text())["mark"]["consolidated_to"] > 0
    assert graph_problems(db_path(proj)) == before == []
    assert len(log_lines(proj, "episode file behind the graph")) == 1, log_lines(proj)
    figures.add("damage", scenarios=1, hooks_failed=0)


def test_truncated_jsonl(proj, figures):
    path = project_dir(proj) / "events" / "old1.jsonl"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 40])  # cut inside the last line
    rc, out, _ = hook(proj, "UserPromptSubmit", "old1", prompt="carry on")
    assert rc == 0
    good, bad = jsonl_lines(path)
    good = [e for e in good if e["type"] != "injected"]  # what the prompt's retrieval showed, if anything
    assert bad == 1 and good[-1]["type"] == "user_prompt"
    seqs = [e["seq"] for e in good]
    # the state had recorded the cut event: its seq is not reused, so the gap marks the loss
    assert seqs == list(range(1, len(good))) + [len(good) + 1]
    assert len(log_lines(proj, "torn")) == 1
    assert flagged(doctor(), "hook faults") == "WARN"
    consolidate_all(proj)
    assert graph_problems(db_path(proj)) == []
    figures.add("damage", scenarios=1, hooks_failed=0)


def test_corrupt_database(proj, figures):
    db = db_path(proj)
    for extra in ("-wal", "-shm"):
        Path(str(db) + extra).unlink(missing_ok=True)
    raw = bytearray(db.read_bytes())
    raw[100:4096] = os.urandom(3996)  # the schema page: every query fails
    db.write_bytes(bytes(raw))
    results = three_hooks(proj)
    assert [rc for rc, _, _ in results] == [0, 0, 0]
    assert all(out == "" for _, out, _ in results)
    assert captured(proj) == ["session_start", "user_prompt", "file_read", "exploration"]
    faults = log_lines(proj, " ERROR ")
    assert 1 <= len(faults) <= len(results), faults  # at most one line per hook
    report = doctor()
    assert flagged(report, "database") == "FAIL" and flagged(report, "hook faults") == "WARN"
    fix = next(ln.split("fix:", 1)[1].strip() for ln in report.splitlines()
               if "fix:" in ln and str(project_dir(proj)) in ln)
    subprocess.run(fix, shell=True, check=True)  # the one documented command
    replay_inproc(session_script(proj, "after", 5))
    consolidate_all(proj)
    assert graph_problems(db_path(proj)) == []
    import sqlite3

    names = {r[0] for r in sqlite3.connect(db_path(proj)).execute("SELECT name FROM nodes")}
    assert {"Use integer offsets in mod0", "Use integer offsets in mod1", "Use integer offsets in mod5"} <= names
    figures.add("damage", scenarios=1, hooks_failed=0)


LOCKER = """
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA locking_mode=EXCLUSIVE")
c.execute("BEGIN EXCLUSIVE")
c.execute("INSERT INTO meta (key, value) VALUES ('locker', 'x')")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
c.execute("ROLLBACK")
"""


def test_locked_database(proj, figures):
    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(db_path(proj)), "30"], stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout.readline().strip() == "locked"
        t = time.monotonic()
        results = three_hooks(proj)
        took = time.monotonic() - t
    finally:
        locker.kill()
        locker.wait()
    assert [rc for rc, _, _ in results] == [0, 0, 0]
    assert captured(proj) == ["session_start", "user_prompt", "file_read", "exploration"]
    assert took < 3 * 4, f"three hooks took {took:.1f}s against a locked database"
    assert 1 <= len(log_lines(proj, " ERROR ")) <= 3  # at most one line per hook
    assert flagged(doctor(), "hook faults") == "WARN"
    rc, out, _ = hook(proj, "UserPromptSubmit", prompt="why integer offsets in mod0?")
    assert rc == 0  # the lock is gone: no lasting effect
    figures.add("damage", scenarios=1, hooks_failed=0)


def test_doctor_on_a_locked_database_warns_and_moves_nothing(proj):
    """A database another process holds is healthy: moving it (and its WAL) aside while that
    process writes would lose what it writes, so doctor says to run again, nothing more."""
    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(db_path(proj)), "60"], stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout.readline().strip() == "locked"
        report = doctor()
    finally:
        locker.kill()
        locker.wait()
    assert flagged(report, "database") == "WARN", report
    assert "held by another process" in report and "mv " not in report and "damaged" not in report, report
    assert "database" not in "".join(ln for ln in report.splitlines() if ln.startswith("FAIL")), report


def test_corrupt_state_and_config(proj, engram_home, figures):
    hook(proj, "UserPromptSubmit", prompt="one")
    state = project_dir(proj) / "sessions" / "live.state.json"
    state.write_bytes(b'{"seq": 1, "size": 9\x00')
    (engram_home / "config.json").write_text('{"maxOutputChars": 2000,')  # a typo: no closing brace
    try:
        rc, out, _ = hook(proj, "PostToolUse", tool_name="Bash", tool_input={"command": "ls"},
                          tool_response={"stdout": "a", "stderr": ""})
        assert rc == 0 and out == ""
        good, bad = jsonl_lines(project_dir(proj) / "events" / "live.jsonl")
        assert [e["seq"] for e in good] == [1, 2] and bad == 0
        assert len(log_lines(proj, "config.json")) == 1
        assert flagged(doctor(), "config") == "FAIL"
    finally:
        (engram_home / "config.json").unlink()
    figures.add("damage", scenarios=2, hooks_failed=0)


def _fsize_limit(limit: int):
    def pre() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of death, as ENOSPC would be
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return pre


def test_full_disk(proj, figures):
    path = project_dir(proj) / "events" / "old0.jsonl"
    size = path.stat().st_size
    body = {"session_id": "old0", "cwd": str(proj), "tool_name": "Bash", "tool_input": {"command": "echo big"},
            "tool_response": {"stdout": "y" * 500, "stderr": ""}}
    res = subprocess.run([sys.executable, "-m", "engram.hook", "PostToolUse"], input=json.dumps(body).encode(),
                         capture_output=True, timeout=60, preexec_fn=_fsize_limit(size + 60),
                         env={**os.environ, "ENGRAM_NO_WORKER": "1"})
    assert res.returncode == 0 and res.stdout == b""
    assert path.stat().st_size == size, "a partial line was left behind"
    assert len(log_lines(proj, "File too large")) == 1
    rc, _, _ = hook(proj, "PostToolUse", "old0", tool_name="Bash", tool_input={"command": "echo after"},
                    tool_response={"stdout": "ok", "stderr": ""})
    good, bad = jsonl_lines(path)
    assert rc == 0 and bad == 0 and good[-1]["command"] == "echo after"
    assert [e["seq"] for e in good] == list(range(1, len(good) + 1))
    assert flagged(doctor(), "hook faults") == "WARN"
    figures.add("damage", scenarios=1, hooks_failed=0)


def _readonly(path: Path, on: bool) -> bool:
    """Make a tree unwritable even for root (chattr +i); False when the filesystem refuses."""
    if os.geteuid() != 0:
        mode = "a-w" if on else "u+w"
        return subprocess.run(["chmod", "-R", mode, str(path)]).returncode == 0
    if not shutil.which("chattr"):
        return False
    return subprocess.run(["chattr", "-R", "+i" if on else "-i", str(path)], capture_output=True).returncode == 0


def test_read_only_data_dir(proj, engram_home, figures):
    pdir = engram_home
    if not _readonly(pdir, True):
        pytest.skip("cannot make a directory read-only here (no chattr +i as root)")
    try:
        results = three_hooks(proj)
        assert [rc for rc, _, _ in results] == [0, 0, 0]
        assert all(out == "" for _, out, _ in results)
        assert all("ERROR" in err for _, _, err in results)  # the log is unwritable: stderr, one line
        assert all(err.count("\n") == 1 for _, _, err in results)
        report = doctor()
    finally:
        _readonly(pdir, False)
    assert flagged(report, "data dir") == "FAIL"
    assert all(rc == 0 for rc, _, _ in three_hooks(proj))  # writable again: capture resumes
    assert captured(proj)[:1] == ["session_start"]
    figures.add("damage", scenarios=1, hooks_failed=0)
