"""Files the payload or the project points at, and engram's own files, replaced by something
that is not a file (issue 18, finding 4).

* A committed symlink (`.planning/STATE.md`, `.gsd/STATE.md`, a plan file) to
  /proc/self/fd/1, a FIFO or /dev/zero hung SessionStart or ate memory: now read as nothing.
* A symlinked `.gsd` made engram write KNOWLEDGE.md outside the project: now left alone.
* An Edit of a file outside the project stored lines of it as the snippet: now the diff only.
* config, state, episode, events, database files replaced by a FIFO or /dev/zero hung
  hooks, `doctor` and the worker: now each is refused at once and reported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testing.helpers import engram, events, payload, project_dir, run_hook
from testing.reliability import replay_inproc

FAST = 8.0  # seconds: a hook that hangs is killed by the harness at 10 s (or 60 s), so anything near is a fail


def _special(kind: str, where: Path) -> str:
    if kind == "fifo":
        os.mkfifo(where / "pipe")
        return str(where / "pipe")
    return {"stdout": "/proc/self/fd/1", "zero": "/dev/zero", "urandom": "/dev/urandom"}[kind]


def _timed(event: str, body: dict, **kw) -> tuple[subprocess.CompletedProcess, float]:
    t = time.monotonic()
    res = run_hook(event, body, timeout=60, **kw)
    return res, time.monotonic() - t


@pytest.mark.parametrize("kind", ["fifo", "stdout", "zero"])
@pytest.mark.parametrize("rel", [".planning/STATE.md", ".gsd/STATE.md", "plans/01-PLAN.md"])
def test_committed_symlink_in_the_project_is_not_followed(proj_s0, tmp_path, kind, rel):
    target = _special(kind, tmp_path)
    (proj_s0 / ".planning").mkdir(exist_ok=True)
    if rel.endswith("-PLAN.md"):  # the state file names the plan, which is the special file
        (proj_s0 / ".planning" / "STATE.md").write_text("Current plan: plans/01-PLAN.md\n")
    link = proj_s0 / rel
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    res, took = _timed("SessionStart", payload("SessionStart", "s", proj_s0, source="startup"))
    assert res.returncode == 0 and took < FAST, f"{rel} -> {target}: {took:.1f}s"
    assert b"Traceback" not in res.stdout + res.stderr


def test_symlinked_gsd_dir_gets_no_write(proj_s0, tmp_path):
    from engram import lifecycle
    from engram.harnesses import gsd_knowledge

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (proj_s0 / ".gsd").symlink_to(outside)
    ctx = lifecycle.Ctx("gsd-1", str(proj_s0), "gsd")
    assert gsd_knowledge.refresh(ctx, "- Decision: Use integer offsets") is False
    assert list(outside.iterdir()) == []


def test_knowledge_file_that_is_a_link_out_is_left_alone(proj_s0, tmp_path):
    from engram import lifecycle
    from engram.harnesses import gsd_knowledge

    secret = tmp_path / "secret.md"
    secret.write_text("do not touch\n")
    (proj_s0 / ".gsd").mkdir()
    (proj_s0 / ".gsd" / "KNOWLEDGE.md").symlink_to(secret)
    assert gsd_knowledge.refresh(lifecycle.Ctx("gsd-1", str(proj_s0), "gsd"), "- Decision: x") is False
    assert secret.read_text() == "do not touch\n" and (proj_s0 / ".gsd" / "KNOWLEDGE.md").is_symlink()


@pytest.mark.parametrize("tool", ["Edit", "Write"])
def test_a_write_outside_the_project_keeps_no_lines_of_the_file(proj_s0, tmp_path, tool):
    creds = tmp_path / "home" / ".aws" / "credentials"
    creds.parent.mkdir(parents=True)
    creds.write_text("[default]\nregion = eu-west-1\nmarker_line_one = 1\nmarker_line_two = 2\nregion = x\n")
    tin = {"file_path": str(creds), "old_string": "region = x", "new_string": "region = y", "content": "region = y\n"}
    res = run_hook("PostToolUse", payload("PostToolUse", "w", proj_s0, tool_name=tool, tool_input=tin,
                                          tool_response={"filePath": str(creds)}))
    assert res.returncode == 0
    ev = [e for e in events(proj_s0, "w") if e["type"] == "file_write"]
    assert len(ev) == 1 and "snippet" not in ev[0]
    assert "marker_line" not in json.dumps(ev[0])


# -- engram's own files replaced -----------------------------------------------------------------


def _replace(path: Path, kind: str, tmp_path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


def _home_file(proj_s0: Path, engram_home: Path, which: str) -> Path:
    pdir = project_dir(proj_s0)
    return {"config": engram_home / "config.json", "state": pdir / "sessions" / "s.state.json",
            "episode": pdir / "episodes" / "s0.episode.json", "events": pdir / "events" / "s.jsonl",
            "database": pdir / "engram.db", "wal": pdir / "engram.db-wal",
            "lock": pdir / "sessions" / "s.lock"}[which]


@pytest.mark.parametrize("kind", ["fifo", "zero"])
@pytest.mark.parametrize("which", ["config", "state", "episode", "events", "database", "wal", "lock"])
def test_engram_files_replaced_never_hang_a_hook(proj_s0, engram_home, tmp_path, which, kind, figures):
    _replace(_home_file(proj_s0, engram_home, which), kind, tmp_path)
    target = str(proj_s0 / "src" / "mod0.py")
    bodies = [("SessionStart", dict(source="startup")), ("UserPromptSubmit", dict(prompt="why integer offsets in mod0?")),
              ("PostToolUse", dict(tool_name="Read", tool_input={"file_path": target},
                                   tool_response={"type": "text", "file": {"filePath": target, "content": "x"}})),
              ("Stop", dict(last_assistant_message="done"))]
    for event, fields in bodies:
        res, took = _timed(event, payload(event, "s", proj_s0, **fields))
        assert res.returncode == 0 and took < FAST, f"{which} as {kind}: {event} took {took:.1f}s"
    if which not in ("events",):
        assert "turn_complete" in [e["type"] for e in events(proj_s0, "s")], which
    figures.add("special_files", replaced=1, hooks=len(bodies), hung=0)


@pytest.mark.parametrize("which", ["config", "episode", "events", "database", "wal"])
def test_doctor_and_worker_refuse_a_fifo_at_once(proj_s0, engram_home, tmp_path, which):
    replay_inproc([("UserPromptSubmit", {"session_id": "s", "cwd": str(proj_s0), "prompt": "more work"})])
    _replace(_home_file(proj_s0, engram_home, which), "fifo", tmp_path)
    for argv in (["doctor"], ["consolidate", "--all", "--project", str(proj_s0)]):
        t = time.monotonic()
        res = engram(*argv, cwd=proj_s0)
        took = time.monotonic() - t
        assert took < 30, f"engram {argv[0]} took {took:.1f}s with {which} a FIFO"
        assert "Traceback" not in res.stdout + res.stderr, res.stderr
    if which in ("database", "wal", "events"):
        report = engram("doctor").stdout
        assert any(ln.startswith("FAIL") and "not a regular file" in ln for ln in report.splitlines()), report


# -- the queue, a notice and the log replaced (the audit of issue 18) ---------------------------------


def test_a_fifo_as_a_queued_job_never_hangs_a_hook(proj_s0, engram_home, figures):
    from engram.config import Project
    from engram.consolidate import trigger

    assert run_hook("UserPromptSubmit", payload("UserPromptSubmit", "s", proj_s0, prompt="fix mod0")).returncode == 0
    job = project_dir(proj_s0) / "queue" / "s"
    job.parent.mkdir(exist_ok=True)
    os.mkfifo(job)
    for event, session, fields in (("SessionStart", "s2", dict(source="startup")),
                                   ("Stop", "s", dict(last_assistant_message="done"))):
        res, took = _timed(event, payload(event, session, proj_s0, **fields))
        assert res.returncode == 0 and took < FAST, f"{event} took {took:.1f}s with queue/s a FIFO"
    assert job.is_file() and "s" in trigger.queued(Project.from_cwd(str(proj_s0)))  # still queued: nothing lost
    figures.add("special_files", replaced=1, hooks=2, hung=0)


def test_a_fifo_as_a_pending_notice_never_hangs_session_start(proj_s0, engram_home, figures):
    folder = engram_home / "notices"
    folder.mkdir()
    (folder / "budget-a").write_text("")
    (folder / "budget-a.pending").write_text("engram: the day's model budget is spent")
    (folder / "budget-b").write_text("")
    os.mkfifo(folder / "budget-b.pending")
    res, took = _timed("SessionStart", payload("SessionStart", "s", proj_s0, source="startup"))
    assert res.returncode == 0 and took < FAST, f"SessionStart took {took:.1f}s with a notice a FIFO"
    assert b"model budget is spent" in res.stdout
    figures.add("special_files", replaced=1, hooks=1, hung=0)


def test_a_fifo_as_the_log_never_hangs_the_hook_that_starts_a_worker(proj_s0, engram_home, monkeypatch, figures):
    monkeypatch.delenv("ENGRAM_NO_WORKER")
    assert run_hook("UserPromptSubmit", payload("UserPromptSubmit", "s", proj_s0, prompt="fix mod0")).returncode == 0
    log = project_dir(proj_s0) / "logs" / "engram.log"
    log.parent.mkdir(exist_ok=True)
    log.unlink(missing_ok=True)
    os.mkfifo(log)
    for event, fields in (("Stop", dict(last_assistant_message="done")), ("SessionEnd", dict(reason="exit"))):
        res, took = _timed(event, payload(event, "s", proj_s0, **fields))
        assert res.returncode == 0 and took < FAST, f"{event} took {took:.1f}s with the log a FIFO"
    episode = project_dir(proj_s0) / "episodes" / "s.episode.json"
    deadline = time.monotonic() + 60
    while not episode.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert episode.exists(), "the worker started without its log did not consolidate the session"
    figures.add("special_files", replaced=1, hooks=2, hung=0)


@pytest.mark.parametrize("where", ["queue/s", "checks/s.0000000001.json", "notices/budget-b.pending",
                                   "workers/slot-0.lock"])
def test_doctor_names_a_special_file_in_the_queues_and_notices(proj_s0, engram_home, where, figures):
    path = (engram_home if where.startswith("notices") else project_dir(proj_s0)) / where
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    res = subprocess.run([sys.executable, "-m", "engram", "doctor"], capture_output=True, text=True, timeout=120,
                         cwd=str(proj_s0))
    fails = [ln for ln in res.stdout.splitlines() if ln.startswith("FAIL") and "data files" in ln]
    assert fails and str(path) in fails[0], res.stdout
    figures.add("special_files", doctor_named=1)


def test_a_fifo_as_the_recorded_interpreter_hangs_neither_the_launcher_nor_doctor(proj_s0, engram_home, figures):
    """plugin/bin/engram-hook reads $ENGRAM_HOME/python before any Python runs: `cat` on a FIFO waits
    for a writer, and so did doctor's check of it."""
    from testing.helpers import PLUGIN

    os.mkfifo(engram_home / "python")
    env = {k: v for k, v in os.environ.items() if k != "ENGRAM_PYTHON"}
    body = json.dumps(payload("SessionStart", "s", proj_s0, source="startup")).encode()
    t = time.monotonic()
    res = subprocess.run(["sh", str(PLUGIN / "bin" / "engram-hook"), "SessionStart"], input=body, capture_output=True,
                         env=env, timeout=60)
    assert res.returncode == 0 and time.monotonic() - t < FAST
    t = time.monotonic()
    res = subprocess.run([sys.executable, "-m", "engram", "doctor"], capture_output=True, text=True, timeout=60,
                         cwd=str(proj_s0))
    assert time.monotonic() - t < 30 and "Traceback" not in res.stdout + res.stderr, res.stderr
    assert any(ln.startswith("FAIL") and "python" in ln for ln in res.stdout.splitlines()), res.stdout
    figures.add("special_files", replaced=1, hooks=1, hung=0, doctor_named=1)
