"""Privacy controls: `engram forget` leaves no copy anywhere, a tombstone keeps it forgotten,
`engram export` / `engram import` round-trip a project, `ENGRAM_DISABLE=1` makes every hook a no-op.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from testing.helpers import engram, project_dir
from testing.reliability import (EVENT_NAMES, adapter_events, consolidate_all, db_path, graph_problems, harnesses,
                                 jsonl_lines, make_project, replay_inproc, run_inproc, session_script)

FORGET = "Use integer offsets in mod1"
SECRET_PHRASE = "bluefin-7 staging box"


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    root = make_project(tmp_path)
    for i in range(3):
        replay_inproc(session_script(root, f"s{i}", i))
    replay_inproc([("UserPromptSubmit", {"session_id": "s2", "cwd": str(root), "prompt": f"deploy to the {SECRET_PHRASE} tonight"})])
    consolidate_all(root)
    return root


def everywhere(home: Path, text: str) -> list[str]:
    """Files under home whose bytes mention text (case-insensitive, also JSON-escaped)."""
    needles = {text.lower().encode(), json.dumps(text)[1:-1].lower().encode()}
    hits = []
    for p in home.rglob("*"):
        if p.is_file() and any(n in p.read_bytes().lower() for n in needles):
            hits.append(str(p.relative_to(home)))
    return hits


def q(db: Path, sql: str, *args) -> list[tuple]:
    """One stdlib query, connection closed at once: this process also runs sqlean (in-process
    consolidation), and two SQLite copies with open handles on one file break each other's locks."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def node_id(root: Path, name: str) -> str | None:
    rows = q(db_path(root), "SELECT id FROM nodes WHERE name = ?", name)
    return rows[0][0] if rows else None


def test_forget_a_node_removes_every_copy(proj, engram_home, figures):
    nid = node_id(proj, FORGET)
    assert nid and everywhere(engram_home, FORGET)
    before = (project_dir(proj) / "events" / "s1.jsonl").read_bytes()
    # SessionStart's context cache (retrieve/start/cache.py) holding it goes too
    (project_dir(proj) / "session_start.cache").write_text(json.dumps({"key": "k", "text": f"- {FORGET}"}))
    res = engram("forget", nid, cwd=proj)
    assert res.returncode == 0, res.stderr
    assert "1 node(s) deleted" in res.stdout
    assert everywhere(engram_home, FORGET) == []
    db = db_path(proj)
    assert q(db, "SELECT count(*) FROM edges WHERE from_node = ? OR to_node = ?", nid, nid) == [(0,)]
    for table in ("node_vectors", "embedded", "node_files"):
        assert q(db, f"SELECT count(*) FROM {table} WHERE node_id = ?", nid) == [(0,)]
    keys = [r[0] for r in q(db, "SELECT key FROM tombstones")]
    assert len(keys) == 1 and keys[0].startswith("term:5:")  # a hash, not a copy of the text
    assert _vec0_ids(db_path(proj)).isdisjoint({nid})
    good, bad = jsonl_lines(project_dir(proj) / "events" / "s1.jsonl")
    assert bad == 0 and [e["seq"] for e in good] == list(range(1, len(good) + 1))
    assert any(e["type"] == "forgotten" for e in good)
    assert graph_problems(db_path(proj)) == []
    assert _pending(proj) == [], "forget must not make sessions look unconsolidated"
    # old events come back (a backup restored as another session): the tombstone holds
    (project_dir(proj) / "events" / "restored.jsonl").write_bytes(before.replace(b'"session":"s1"', b'"session":"restored"'))
    consolidate_all(proj)
    assert node_id(proj, FORGET) is None
    assert everywhere(engram_home, FORGET) == ["projects/" + project_dir(proj).name + "/events/restored.jsonl"]
    figures.add("privacy", forgets=1, copies_left=0, recreated=0)


def _vec0_ids(db: Path) -> set[str]:
    from engram.graph.connect import connect

    conn = connect(str(db), migrate=False)
    try:
        if not conn.vec_version:
            return set()
        try:
            return {r[0] for r in conn.execute("SELECT node_id FROM node_embeddings")}
        except Exception:  # no vector table yet
            return set()
    finally:
        conn.close()


def _pending(root: Path) -> list[str]:
    from engram.config import Project
    from engram.consolidate import trigger

    return trigger.pending_sessions(Project.from_cwd(str(root)))


def test_forget_a_text_everywhere(proj, engram_home, figures):
    assert everywhere(engram_home, SECRET_PHRASE)
    res = engram("forget", SECRET_PHRASE.upper(), cwd=proj)
    assert res.returncode == 0, res.stderr
    assert everywhere(engram_home, SECRET_PHRASE) == []
    assert engram("forget", "--list", cwd=proj).stdout.startswith("term:4:")
    # a new session mentions it again: the tombstone keeps it out of the graph
    replay_inproc([("UserPromptSubmit", {"session_id": "s9", "cwd": str(proj), "prompt": f"is the {SECRET_PHRASE} up?"}),
                   ("Stop", {"session_id": "s9", "cwd": str(proj), "last_assistant_message": f"{SECRET_PHRASE} is up"})])
    consolidate_all(proj)
    db_text = b"".join(p.read_bytes() for p in project_dir(proj).glob("engram.db*")).lower()
    assert SECRET_PHRASE.encode() not in db_text
    assert engram("forget", "--allow", SECRET_PHRASE, cwd=proj).stdout == ""
    figures.add("privacy", forgets=1, copies_left=0, recreated=0)


def test_forget_refuses_a_too_short_text(proj):
    res = engram("forget", "ab", cwd=proj)
    assert res.returncode == 1 and "shorter than 3" in res.stderr


def test_forget_dry_run_changes_nothing(proj, engram_home):
    before = {str(p): p.read_bytes() for p in engram_home.rglob("*") if p.is_file() and "engram.db" not in p.name}
    res = engram("forget", FORGET, "--dry-run", cwd=proj)
    assert res.returncode == 0 and res.stdout.startswith("would forget") and " 1 node(s) deleted" in res.stdout
    after = {str(p): p.read_bytes() for p in engram_home.rglob("*") if p.is_file() and "engram.db" not in p.name}
    assert after == before


def test_export_import_round_trip(proj, tmp_path, engram_home, figures):
    out1, out2 = tmp_path / "export1", tmp_path / "export2"
    assert engram("export", str(out1), cwd=proj).returncode == 0
    other_home = tmp_path / "other-home"
    other_root = make_project(tmp_path, "clone")
    env = {**os.environ, "ENGRAM_HOME": str(other_home)}
    res = engram("import", str(out1), cwd=other_root, env=env)
    assert res.returncode == 0, res.stderr
    assert engram("export", str(out2), cwd=other_root, env=env).returncode == 0
    g1, g2 = (json.loads((d / "graph.json").read_text()) for d in (out1, out2))
    assert g1 == g2 and len(g1["nodes"]) > 5 and g1["edges"] and g1["episodes"] and g1["consolidations"]
    for sub in ("events", "episodes"):
        assert {p.name: p.read_bytes() for p in (out1 / sub).iterdir()} == {p.name: p.read_bytes() for p in (out2 / sub).iterdir()}
    gml = ET.parse(out1 / "graph.graphml").getroot()
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    assert len(gml.findall(".//g:node", ns)) == len(g1["nodes"]) and len(gml.findall(".//g:edge", ns)) == len(g1["edges"])
    query = engram("query", "integer offsets mod1", "--cwd", str(other_root), env=env)
    assert FORGET in query.stdout
    conflict = engram("import", str(out1), cwd=other_root, env=env)
    assert conflict.returncode == 1 and "--merge" in conflict.stderr
    assert engram("import", str(out1), "--merge", cwd=other_root, env=env).returncode == 0
    other_db = other_home / "projects" / project_dir(other_root).name / "engram.db"
    assert q(other_db, "SELECT count(*) FROM nodes") == [(len(g1["nodes"]),)]
    figures.add("privacy", export_import_round_trips=1, rows_differing=0)


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_kill_switch_every_event_every_harness_in_process(tmp_path, engram_home, monkeypatch, value, figures):
    root = make_project(tmp_path)
    monkeypatch.setenv("ENGRAM_DISABLE", value)
    n = 0
    for harness in harnesses():
        for event in adapter_events(harness):
            body = {"session_id": "k", "cwd": str(root), "prompt": "hi", "tool_name": "Bash",
                    "tool_input": {"command": "ls"}, "tool_response": {"stdout": "x"}}
            res = run_inproc(event, json.dumps(body).encode(), "--harness", harness)
            assert (res.rc, res.stdout, res.stderr) == (0, "", "")
            n += 1
    assert list(engram_home.iterdir()) == []
    figures.add("kill_switch", hook_runs=n, wrote=0)


def test_kill_switch_subprocess_and_off_values(tmp_path, engram_home):
    root = make_project(tmp_path)
    body = json.dumps({"session_id": "k", "cwd": str(root), "prompt": "hi"}).encode()
    hook_bin = Path(__file__).resolve().parents[2] / "plugin" / "bin" / "engram-hook"
    for event in EVENT_NAMES[:10]:
        res = subprocess.run([sys.executable, "-m", "engram.hook", event], input=body, capture_output=True,
                             env={**os.environ, "ENGRAM_DISABLE": "1"}, timeout=30)
        assert (res.returncode, res.stdout, res.stderr) == (0, b"", b"")
    if hook_bin.exists():
        res = subprocess.run([str(hook_bin), "UserPromptSubmit"], input=body, capture_output=True,
                             env={**os.environ, "ENGRAM_DISABLE": "1", "ENGRAM_PYTHON": sys.executable}, timeout=30)
        assert res.returncode == 0 and res.stdout == b""
    assert list(engram_home.iterdir()) == []
    for off in ("0", ""):
        res = subprocess.run([sys.executable, "-m", "engram.hook", "UserPromptSubmit"], input=body, capture_output=True,
                             env={**os.environ, "ENGRAM_DISABLE": off, "ENGRAM_NO_WORKER": "1"}, timeout=30)
        assert res.returncode == 0
    good, _ = jsonl_lines(project_dir(root) / "events" / "k.jsonl")
    assert [e["type"] for e in good] == ["user_prompt", "user_prompt"]


def _append_forever(root: str, home: str, w: int, n: int) -> None:
    os.environ["ENGRAM_HOME"] = home
    os.environ["ENGRAM_NO_WORKER"] = "1"
    from engram import lifecycle

    for j in range(n):
        ctx = lifecycle.Ctx("s1", root)
        lifecycle.tool_calls(ctx, [{"tool": "Bash", "ok": True, "action": "shell", "command": f"echo w{w}-{j}",
                                    "output": f"{SECRET_PHRASE} {j}" if j % 10 == 0 else "ok"}])


@pytest.mark.slow
def test_forget_while_hooks_append_loses_nothing(proj, engram_home, figures):
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    writers = [ctx.Process(target=_append_forever, args=(str(proj), str(engram_home), w, 150)) for w in range(4)]
    for p in writers:
        p.start()
    res = engram("forget", SECRET_PHRASE, cwd=proj)
    for p in writers:
        p.join(60)
        assert p.exitcode == 0
    assert res.returncode == 0, res.stderr
    good, bad = jsonl_lines(project_dir(proj) / "events" / "s1.jsonl")
    assert bad == 0 and [e["seq"] for e in good] == list(range(1, len(good) + 1))
    cmds = [e["command"] for e in good if e["type"] == "command" and e["command"].startswith("echo w")]
    forgotten = sum(1 for e in good if e["type"] == "forgotten")
    # every append is there: as itself, or as a stub if forget caught it
    assert len(cmds) + forgotten >= 4 * 150 and len(set(cmds)) == len(cmds)
    figures.add("privacy", forgets=1, appends_during_forget=4 * 150, lost=0)
