"""`engram status`, `engram show`, `engram maintain` through the real CLI entry point."""

from __future__ import annotations

from engram.graph import migrations

import json
import os
import subprocess
import sys

import pytest

from engram.cli import main
from engram.config import Project
from engram.graph.supersession import supersede
from engram.graph import store
from engram.graph.connect import connect


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "myrepo"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()  # a project root, as config.project_root finds it
    (root / "src" / "db.py").write_text("x = 1\n")
    p = Project(str(root)).ensure()
    (open(os.path.join(p.dir, "events", "s1.jsonl"), "w")).close()
    (open(os.path.join(p.dir, "events", "s2.jsonl"), "w")).close()
    return p


@pytest.fixture
def filled(project):
    conn = connect(project.db_path)
    ep = store.insert_episode(conn, session_id="s1", outcome="success", goal="add WAL mode",
                              episode_data={"files_modified": ["src/db.py"]})
    sq = store.create_node(conn, name="SQLite", type="concept", description="embedded database",
                           affected_files=["src/db.py"], source_episodes=[ep])
    wal = store.create_node(conn, name="Use WAL", type="decision", strength=0.9, data={"explicit": True})
    old = store.create_node(conn, name="Rollback journal", type="decision", strength=0.5)
    store.upsert_edge(conn, wal, sq, "requires", strength=0.8, source_episodes=[ep])
    supersede(conn, old, wal, reason="readers must not block", episode_id=ep)
    conn.close()
    return {"sqlite": sq, "wal": wal, "old": old}


def test_status_json(project, filled, capsys):
    assert main(["status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["vector_path"].startswith("sqlite-vec v")
    assert data["embedder"]["provider"] == "local" and data["embedder"]["dim"] == 384
    (p,) = data["projects"]
    assert p["root"] == project.root and p["sessions"] == 2
    assert p["nodes"] == {"concept": {"active": 1}, "decision": {"active": 1, "superseded": 1}}
    assert p["edges"] == {"requires": 1, "supersedes": 1} and p["episodes"] == {"success": 1}
    assert p["db"]["schema_version"] == len(migrations.sections()) and p["db"]["bytes"] > 0 and p["db"]["pending_migrations"] == []


def test_status_text_and_empty_home(project, filled, capsys):
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "myrepo" in out and "decision 2 (1 superseded)" in out and "vectors      sqlite-vec" in out


def test_status_without_projects(capsys):
    assert main(["status"]) == 0
    assert "no projects yet" in capsys.readouterr().out


def test_status_never_writes(project, filled):
    before = os.stat(project.db_path).st_mtime_ns
    main(["status", "--json"])
    assert os.stat(project.db_path).st_mtime_ns == before


def test_show_by_name_and_id(project, filled, capsys):
    assert main(["show", "use  wal", "--project", project.root]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Use WAL  [decision, active, strength 0.90]")
    assert "-> requires          SQLite" in out and "-> supersedes" in out and "readers must not block" in out
    assert "trajectory (oldest first):" in out
    assert main(["show", filled["old"], "--project", project.dir, "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["node"]["status"] == "superseded" and rep["node"]["superseded_by"] == filled["wal"]
    assert [t["name"] for t in rep["trajectory"]] == ["Use WAL", "Rollback journal"]  # creation order


def test_show_from_the_project_directory(project, filled, capsys, monkeypatch):
    monkeypatch.chdir(os.path.join(project.root, "src"))
    assert main(["show", "sqlite"]) == 0
    out = capsys.readouterr().out
    assert "files: src/db.py" in out and "add WAL mode" in out


def test_show_errors_are_one_line(project, filled, capsys, tmp_path):
    assert main(["show", "nothing like this", "--project", project.root]) == 1
    assert capsys.readouterr().err.startswith("Error: no node with id or name 'nothing like this'")
    assert main(["show", "x", "--project", str(tmp_path)]) == 1
    assert "no engram database for" in capsys.readouterr().err


def test_maintain_all_projects_twice(project, filled, capsys):
    (open(os.path.join(project.root, "src", "db.py"), "a")).close()
    os.remove(os.path.join(project.root, "src", "db.py"))
    assert main(["maintain"]) == 0
    out = capsys.readouterr().out
    assert "maintain: 1 project(s)" in out and "1 superseded" in out
    assert main(["maintain", "--json"]) == 0
    (rep,) = json.loads(capsys.readouterr().out)
    assert rep["nodes_superseded"] == 0 and rep["patterns_created"] == 0 and rep["strength_changed"] == 0
    log = open(project.log_path).read()
    assert "maintain INFO" in log


def test_maintain_dry_run_and_project_selection(project, filled, capsys, tmp_path):
    os.remove(os.path.join(project.root, "src", "db.py"))
    assert main(["maintain", "--dry-run", "--project", project.root]) == 0
    assert "dry run" in capsys.readouterr().out
    conn = connect(project.db_path)
    assert store.get_node(conn, filled["sqlite"])["status"] == "active"
    assert main(["maintain", "--project", str(tmp_path)]) == 0
    assert "nothing to do" in capsys.readouterr().out


def test_maintain_reports_a_broken_database_and_exits_1(project, capsys):
    with open(project.db_path, "wb") as f:
        f.write(b"this is not a database" * 100)
    assert main(["maintain"]) == 1
    assert "FAILED" in capsys.readouterr().out


def test_python_dash_m_cli_runs_maintain(project, filled):
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.dirname(__file__)))}
    res = subprocess.run([sys.executable, "-m", "engram.cli", "maintain"], capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr
    assert "myrepo" in res.stdout


def test_maintain_progress_appears_only_when_slow(capsys):
    from engram.commands.maintain import _Progress

    quick = _Progress("proj", after=60)
    quick("patterns")
    slow = _Progress("proj", after=0)
    slow("patterns")
    assert capsys.readouterr().err == "maintain: proj: patterns...\n"
