"""`engram memory list|show|edit|pin|unpin|forget` through the CLI (subprocesses) on a real graph."""

from __future__ import annotations

import json

import pytest
from testing.consolidation import Session, cfg, consolidate, make_root, rows
from testing.helpers import engram


@pytest.fixture
def root(tmp_path):
    root = make_root(tmp_path)
    (root / "Makefile").write_text("test:\n\tpytest\nlint:\n\truff .\n")
    s = Session(root, "s1").start()
    s.prompt("Run the checks. Never push to main without a review.")
    s.command("make test", 0, "ok").command("make lint", 0, "ok").stop("Done.")
    consolidate(s.project, "s1", cfg(s.project), lock_timeout=30)
    return root


def memory(root, *args: str):
    return engram("memory", *args, "--project", str(root))


def item(root, name: str) -> dict:
    listed = json.loads(memory(root, "list", "--json").stdout)
    return next(r for r in listed if r["name"] == name)


def test_list_filters_by_kind_and_prints_one_line_per_item(root):
    commands = json.loads(memory(root, "list", "--kind", "command", "--json").stdout)
    assert sorted(r["name"] for r in commands) == ["make lint", "make test"]
    assert all(set(r) >= {"id", "kind", "text", "strength", "pinned", "injected", "used", "evidence"} for r in commands)
    text = memory(root, "list", "--kind", "command").stdout.splitlines()
    assert len(text) == 2 and all(line.startswith("n_") and "command" in line for line in text)
    assert memory(root, "list", "--kind", "nosuchkind").stdout.strip() == "no items of kind nosuchkind"


def test_edit_pin_unpin_are_recorded_and_shown(root):
    target = item(root, "make lint")
    res = memory(root, "edit", target["id"], "--text", "`make lint` runs ruff over the project.")
    assert res.returncode == 0, res.stderr
    assert memory(root, "pin", target["id"]).returncode == 0
    assert "already" in memory(root, "pin", target["id"]).stdout  # a second pin changes nothing
    assert memory(root, "unpin", target["id"]).returncode == 0
    shown = json.loads(memory(root, "show", target["id"], "--json").stdout)
    assert shown["text"] == "`make lint` runs ruff over the project." and shown["pinned"] is False
    assert [c["action"] for c in shown["changes"]] == ["edit", "pin", "unpin"]
    assert shown["changes"][0]["detail"]["new"] == shown["text"] and shown["changes"][0]["detail"]["old"]
    text = memory(root, "show", target["id"]).stdout
    assert "payoff    injected 0, used 0" in text and "make target `lint`" in text and "(holds)" in text


def test_bad_ids_are_one_line_errors(root):
    for args in (("show", "n_0000"), ("pin", "n_0000"), ("unpin", "nope"), ("edit", "n_0000", "--text", "x"),
                 ("forget", "n_0000")):
        res = memory(root, *args)
        assert res.returncode == 1, args
        assert len(res.stderr.strip().splitlines()) == 1 and "engram memory list" in res.stderr, res.stderr
    target = item(root, "make lint")
    empty = memory(root, "edit", target["id"], "--text", "  ")
    assert empty.returncode == 1 and "--text is empty" in empty.stderr
    nowhere = engram("memory", "list", "--project", str(root.parent / "other"))
    assert nowhere.returncode == 1


def test_forget_is_engram_forget(root):
    target = item(root, "make lint")
    memory(root, "pin", target["id"])
    res = memory(root, "forget", target["id"])
    assert res.returncode == 0, res.stderr
    assert "forgot" in res.stdout and "tombstone" in res.stdout
    project_db = json.loads(engram("status", "--json", "--project", str(root)).stdout)["projects"][0]["db"]["path"]
    from engram.config import Project

    project = Project.from_cwd(str(root))
    assert project.db_path == project_db
    assert rows(project, "SELECT count(*) FROM nodes WHERE id = ?", target["id"]) == [(0,)]
    assert rows(project, "SELECT count(*) FROM item_state WHERE node_id = ?", target["id"]) == [(0,)]
    assert rows(project, "SELECT count(*) FROM curation_log WHERE node_id = ?", target["id"]) == [(0,)]
    assert memory(root, "show", target["id"]).returncode == 1


def test_forgetting_a_text_scrubs_an_edits_old_text_from_the_log(root):
    target = item(root, "make test")
    memory(root, "edit", target["id"], "--text", "`make test` runs pytest against the staging-hunter2 database.")
    memory(root, "edit", target["id"], "--text", "`make test` runs pytest.")
    res = engram("forget", "staging-hunter2", "--project", str(root))
    assert res.returncode == 0, res.stderr
    from engram.config import Project

    (detail,) = rows(Project.from_cwd(str(root)), "SELECT group_concat(detail) FROM curation_log")[0]
    assert "hunter2" not in detail and "runs pytest." in detail


def test_pins_payoff_and_the_log_travel_with_an_export(root, tmp_path):
    target = item(root, "make lint")
    memory(root, "pin", target["id"])
    assert engram("export", str(tmp_path / "backup"), "--project", str(root)).returncode == 0
    other = make_root(tmp_path, "other")
    res = engram("import", str(tmp_path / "backup"), "--project", str(other))
    assert res.returncode == 0, res.stderr
    moved = json.loads(memory(other, "show", target["id"], "--json").stdout)
    assert moved["pinned"] is True and [c["action"] for c in moved["changes"]] == ["pin"]
    again = engram("import", str(tmp_path / "backup"), "--project", str(other), "--merge")
    assert again.returncode == 0, again.stderr
    assert [c["action"] for c in json.loads(memory(other, "show", target["id"], "--json").stdout)["changes"]] == ["pin"]
