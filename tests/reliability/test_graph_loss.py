"""Silent knowledge loss is loud and repaired (issue 18, finding 6).

* A zero-byte, deleted or older engram.db while the episode files claim consolidation:
  `status` and `doctor` fail and say what to run, SessionStart says so and queues the
  sessions, and consolidation rebuilds the graph from the event streams. Before, the
  nodes went 13 -> 0, `consolidate --all` said "nothing" and doctor reported no FAIL.
* An episode mark beyond the stream's end (a truncated or replaced stream) no longer
  stops the session from ever being consolidated again.
"""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from testing.helpers import engram, project_dir
from testing.reliability import consolidate_all, db_path, graph_problems, make_project, replay_inproc, run_inproc, \
    session_script


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    root = make_project(tmp_path)
    for i in range(3):
        replay_inproc(session_script(root, f"s{i}", i))
    consolidate_all(root)
    return root


def _names(root) -> set[str]:
    conn = sqlite3.connect(db_path(root))
    try:
        return {r[0] for r in conn.execute("SELECT name FROM nodes WHERE type = 'decision'")}
    finally:
        conn.close()


def _damage(root, how: str, tmp_path) -> None:
    db = db_path(root)
    for extra in ("-wal", "-shm"):
        db.with_name(db.name + extra).unlink(missing_ok=True)
    if how == "empty":
        db.write_bytes(b"")
    elif how == "deleted":
        db.unlink()
    else:  # "older": a copy taken after the first session only
        shutil.copy(tmp_path / "older.db", db)


@pytest.mark.parametrize("how", ["empty", "deleted", "older"])
def test_a_lost_graph_is_reported_and_rebuilt(proj, tmp_path, how, figures):
    before = _names(proj)
    assert {f"Use integer offsets in mod{i}" for i in range(3)} <= before
    if how == "older":  # the database as it was after s0 only
        other = make_project(tmp_path / "o")
        replay_inproc(session_script(other, "s0", 0))
        consolidate_all(other)
        shutil.copy(db_path(other), tmp_path / "older.db")
    _damage(proj, how, tmp_path)

    status = engram("status", "--project", str(proj), cwd=proj)
    assert status.returncode == 1 and "consolidate --all" in status.stdout, status.stdout
    report = engram("doctor", cwd=proj)
    assert report.returncode == 1
    assert any(ln.startswith("FAIL") and "database" in ln for ln in report.stdout.splitlines()), report.stdout
    if how != "older":  # the hooks' check is two stats: a missing or empty file
        out = run_inproc("SessionStart", json.dumps({"session_id": "new", "cwd": str(proj), "source": "startup"}).encode())
        said = json.loads(out.stdout)["systemMessage"]  # the user's to know: not in the agent's context
        assert "missing or empty" in said and "rebuilt" in said
        queued = sorted(p.name for p in (project_dir(proj) / "queue").iterdir())
        assert {"s0", "s1", "s2"} <= set(queued)
    res = engram("consolidate", "--all", "--project", str(proj), cwd=proj)
    assert res.returncode == 0, res.stderr
    assert before <= _names(proj)
    assert graph_problems(db_path(proj)) == []
    assert engram("doctor", cwd=proj).returncode in (0, 1)
    assert "database" not in " ".join(ln for ln in engram("doctor", cwd=proj).stdout.splitlines() if ln.startswith("FAIL"))
    again = engram("consolidate", "--all", "--project", str(proj), cwd=proj)
    assert again.stdout.strip() == "nothing to consolidate"  # rebuilt once, not on every run
    figures.add("graph_loss", scenarios=1, sessions_rebuilt=3, silent=0)


def test_a_mark_past_the_end_of_its_stream_does_not_stop_consolidation(proj, figures):
    from engram.config import Project
    from engram.consolidate import episode_file

    project = Project.from_cwd(str(proj))
    path = project.episode_path("s1")
    rec = episode_file.read(path)
    episode_file.write(path, "s1", episode_file.Mark(999, 10**9), rec["episodes"])  # the stream ends near seq 12
    replay_inproc([("PostToolUse", {"session_id": "s1", "cwd": str(proj), "tool_name": "Bash",
                                    "tool_input": {"command": 'engram decide "Use a ring buffer for the event log" '
                                                              "--files src/log.py"},
                                    "tool_response": {"stdout": "recorded", "stderr": ""}}),
                   ("Stop", {"session_id": "s1", "cwd": str(proj), "last_assistant_message": "done"})])
    outcomes = consolidate_all(proj)
    assert [o.status for o in outcomes] == ["consolidated"], outcomes
    assert "Use a ring buffer for the event log" in _names(proj)
    mark = episode_file.read_mark(path)
    assert mark.consolidated_to < 999 and mark.consolidated_to == outcomes[0].to_seq
    assert graph_problems(db_path(proj)) == []
    figures.add("graph_loss", scenarios=1, stuck_sessions=0)
