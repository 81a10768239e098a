"""`engram import` and `engram backfill` validate everything before they change anything
(issue 18, finding 7).

Import used to follow symlinks (copying /etc/passwd in), hang on a FIFO or /dev/zero, accept
files that are no event stream and names that are no session id (which then broke crash
recovery for the whole project), and crash after committing the graph when events/ held a
directory, then refuse the re-run. Now each is one line naming the file, exit 1, and the
target project is exactly as before; backfill skips a FIFO instead of hanging on it.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest
from testing.helpers import engram, project_dir
from testing.reliability import consolidate_all, make_project, replay_inproc, session_script


@pytest.fixture
def export(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    root = make_project(tmp_path, "src-proj")
    for i in range(2):
        replay_inproc(session_script(root, f"s{i}", i))
    consolidate_all(root)
    out = tmp_path / "export"
    assert engram("export", str(out), cwd=root).returncode == 0
    assert os.stat(out).st_mode & 0o777 == 0o700  # finding 9: export folders are private
    return out


def _tamper(export: Path, how: str, tmp_path: Path) -> None:
    events = export / "events"
    if how == "symlink":
        (events / "stolen.jsonl").symlink_to("/etc/passwd")
    elif how == "fifo":
        os.mkfifo(events / "pipe.jsonl")
    elif how == "zero":
        (events / "zero.jsonl").symlink_to("/dev/zero")
    elif how == "not jsonl":
        (events / "notes.jsonl").write_text("just some notes\n")
    elif how == "bad name":
        (events / "bad name!.jsonl").write_bytes((events / "s0.jsonl").read_bytes())
    elif how == "directory":
        (events / "dir.jsonl").mkdir()
    elif how == "manifest link":
        target = tmp_path / "manifest.json"
        target.write_bytes((export / "manifest.json").read_bytes())
        (export / "manifest.json").unlink()
        (export / "manifest.json").symlink_to(target)
    elif how == "bad rows":
        (export / "graph.json").write_text('{"nodes": [{"id": 1, "name": "x", "type": "concept"}]}')


def _untouched(root: Path) -> None:
    pdir = project_dir(root)
    db = pdir / "engram.db"
    if db.exists():
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("SELECT count(*) FROM nodes").fetchone() == (0,)
        finally:
            conn.close()
    assert not list((pdir / "events").glob("*")) if (pdir / "events").exists() else True
    assert not list((pdir / "episodes").glob("*")) if (pdir / "episodes").exists() else True


HOW = ["symlink", "fifo", "zero", "not jsonl", "bad name", "directory", "manifest link", "bad rows"]


@pytest.mark.parametrize("how", HOW)
def test_a_bad_export_is_refused_whole(export, tmp_path, how, figures):
    _tamper(export, how, tmp_path)
    target = make_project(tmp_path, "target")
    t = time.monotonic()
    res = engram("import", str(export), cwd=target)
    assert time.monotonic() - t < 30, f"{how}: import took too long"
    assert res.returncode == 1, (how, res.stdout, res.stderr)
    assert res.stderr.startswith("Error: ") and res.stderr.count("\n") == 1 and "Traceback" not in res.stderr, res.stderr
    _untouched(target)
    assert b"root:" not in b"".join(p.read_bytes() for p in project_dir(target).rglob("*") if p.is_file())
    figures.add("import", bad_exports=1, partially_imported=0)


def test_the_rerun_after_fixing_the_export_succeeds(export, tmp_path):
    _tamper(export, "directory", tmp_path)
    target = make_project(tmp_path, "target")
    assert engram("import", str(export), cwd=target).returncode == 1
    (export / "events" / "dir.jsonl").rmdir()
    res = engram("import", str(export), cwd=target)
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in (project_dir(target) / "events").iterdir()) == ["s0.jsonl", "s1.jsonl"]
    assert not list(project_dir(target).rglob("*.import.*"))  # no staged leftovers


def test_backfill_skips_a_fifo_among_transcripts(tmp_path):
    from testing.helpers import TRANSCRIPTS

    folder = tmp_path / "history"
    folder.mkdir()
    os.mkfifo(folder / "stuck.jsonl")
    (folder / "zero.jsonl").symlink_to("/dev/zero")
    sample = TRANSCRIPTS / "drmaciver-claude-reliability" / "hello-world-script.transcript.jsonl"
    if sample.exists():
        (folder / "real.jsonl").write_bytes(sample.read_bytes())
    proj = make_project(tmp_path)
    t = time.monotonic()
    res = engram("backfill", str(folder), "--wait", cwd=proj, timeout=120)
    assert time.monotonic() - t < 60 and res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
