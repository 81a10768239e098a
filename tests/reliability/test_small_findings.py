"""The smaller findings of issue 18 (finding 9).

* `write_atomic` left `*.tmp.<pid>` files behind when a write failed;
* CLI paths showed a traceback or a generic error: `query` on a read-only home or a locked
  database, `consolidate` on a full disk (import of malformed exports: test_import_validation);
* `doctor` advised moving a healthy database aside on a read-only home, and exited 0 when a
  table was missing or the database was /dev/zero;
* `episodes/<s>.lock` was 0644, `backups/` and export folders 0755.
"""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from testing.helpers import engram
from testing.reliability import db_path, replay_inproc, session_script

LIMIT = 64 * 1024


def _fsize_limit(limit: int):
    def pre() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of death, as ENOSPC would be
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return pre


def _one_line_error(res: subprocess.CompletedProcess) -> None:
    assert res.returncode == 1, (res.returncode, res.stdout, res.stderr)
    assert "Traceback" not in res.stderr + res.stdout and "unexpected error" not in res.stderr, res.stderr
    assert res.stderr.startswith("Error: ") and res.stderr.count("\n") == 1, res.stderr


def test_write_atomic_leaves_no_temp_file_when_the_write_fails(tmp_path):
    code = ("import sys; from engram.fsio import write_atomic\n"
            "try:\n    write_atomic(sys.argv[1], b'x' * 200000)\nexcept OSError as e:\n    print(e.errno)")
    folder = tmp_path / "data"
    folder.mkdir()
    res = subprocess.run([sys.executable, "-c", code, str(folder / "state.json")], capture_output=True, text=True,
                         timeout=60, preexec_fn=_fsize_limit(LIMIT))
    assert res.stdout.strip() == "27"  # EFBIG
    assert list(folder.iterdir()) == []


def test_consolidate_on_a_full_disk_says_so_in_one_line(proj_s0):
    replay_inproc(session_script(proj_s0, "s1", 1))
    res = engram("consolidate", "--all", "--project", str(proj_s0), preexec_fn=_fsize_limit(4096), cwd=proj_s0)
    assert "Traceback" not in res.stderr + res.stdout
    assert res.returncode == 1 and ("FAILED" in res.stdout or res.stderr.startswith("Error: ")), (res.stdout, res.stderr)


LOCKER = """
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA locking_mode=EXCLUSIVE")
c.execute("BEGIN EXCLUSIVE")
c.execute("INSERT INTO meta (key, value) VALUES ('locker', 'x')")
print("locked", flush=True)
time.sleep(60)
"""


def test_query_on_a_locked_database_is_one_line(proj_s0):
    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(db_path(proj_s0))], stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout.readline().strip() == "locked"
        res = engram("query", "integer offsets in mod0", cwd=proj_s0)
    finally:
        locker.kill()
        locker.wait()
    _one_line_error(res)
    assert "locked" in res.stderr


def _immutable(path: Path, on: bool) -> bool:
    """Make a tree unwritable even for root (chattr +i); False when the filesystem refuses."""
    if os.geteuid() != 0:
        return subprocess.run(["chmod", "-R", "a-w" if on else "u+w", str(path)]).returncode == 0
    return subprocess.run(["chattr", "-R", "+i" if on else "-i", str(path)], capture_output=True).returncode == 0


def test_read_only_home_query_answers_and_doctor_does_not_call_it_damage(proj_s0, engram_home):
    conn = sqlite3.connect(db_path(proj_s0))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    if not _immutable(engram_home, True):
        pytest.skip("cannot make a directory read-only here")
    try:
        query = engram("query", "integer offsets in mod0", cwd=proj_s0)
        report = engram("doctor", cwd=proj_s0)
    finally:
        _immutable(engram_home, False)
    assert query.returncode == 0 and "Use integer offsets in mod0" in query.stdout, query.stderr
    assert "Traceback" not in report.stdout + report.stderr
    lines = report.stdout.splitlines()
    assert not any("mv " in ln and "engram.db" in ln for ln in lines), report.stdout  # no advice to move it aside
    assert any("read-only" in ln for ln in lines)


@pytest.mark.parametrize("damage", ["missing table", "dev zero"])
def test_doctor_fails_on_a_missing_table_or_a_device(proj_s0, damage):
    db = db_path(proj_s0)
    for extra in ("-wal", "-shm"):
        db.with_name(db.name + extra).unlink(missing_ok=True)
    if damage == "missing table":
        conn = sqlite3.connect(db)
        conn.execute("DROP TABLE edges")
        conn.commit()
        conn.close()
    else:
        db.unlink()
        db.symlink_to("/dev/zero")
    res = engram("doctor", cwd=proj_s0)
    assert res.returncode == 1, res.stdout
    assert any(ln.startswith("FAIL") for ln in res.stdout.splitlines())


def test_every_file_and_folder_is_private(proj_s0, engram_home, tmp_path):
    from engram.consolidate import trigger
    from engram.workers import lock

    fd = lock(trigger.session_lock_path(__import__("engram.config").config.Project.from_cwd(str(proj_s0)), "s0"))
    os.close(fd)
    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{}")
    assert engram("install", "--harness", "claude-code", cwd=proj_s0).returncode == 0  # writes a backup
    assert engram("export", str(tmp_path / "exported"), cwd=proj_s0).returncode == 0
    loose = []
    for root in (engram_home, tmp_path / "exported"):
        for p in [root, *root.rglob("*")]:
            mode = stat.S_IMODE(p.lstat().st_mode)
            if p.is_symlink():
                continue
            want = 0o700 if p.is_dir() else 0o600
            executable = p.name in ("python", "engram-hook") and mode & 0o077 == 0  # 0700: the owner runs it
            if mode != want and not executable:
                loose.append(f"{oct(mode)} {p}")
    assert loose == []
