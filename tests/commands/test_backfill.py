"""`engram backfill`: Claude Code history becomes past sessions, once."""

from __future__ import annotations

import hashlib
import os
import time

import pytest
from testing.evaluation import shop_history

from engram import config
from engram.cli import main
from engram.consolidate import trigger
from engram.history import corpus

SESSIONS = ["sess-one", "sess-two", "sess-three"]


@pytest.fixture
def shop(tmp_path):
    """A project checkout and its Claude Code history under ~/.claude/projects (HOME is a tmp dir)."""
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    name = corpus.claude_dir_names(str(root.resolve()))[0]
    history = os.path.join(os.path.expanduser(corpus.CLAUDE_PROJECTS), name)
    shop_history(history, str(root))
    return config.Project.from_cwd(str(root))


def _snapshot(home: str) -> dict[str, tuple]:
    out = {}
    for d, _, files in os.walk(home):
        for f in files:
            p = os.path.join(d, f)
            st = os.stat(p)
            out[p] = (st.st_size, st.st_mtime_ns, hashlib.sha256(open(p, "rb").read()).hexdigest())
    return out


def _consolidated(project) -> list[str]:
    return [s for s in SESSIONS
            if os.path.exists(project.events_path(s)) and not trigger.needs_consolidation(project, s)]


def test_backfill_imports_the_projects_history_and_twice_changes_nothing(shop, engram_home, capsys):
    assert main(["backfill", "--cwd", shop.root, "--wait"]) == 0
    assert "3 imported" in capsys.readouterr().out
    assert _consolidated(shop) == SESSIONS
    with open(shop.events_path("sess-two")) as f:
        assert '"type":"test_run"' in f.read().replace(" ", "")
    first = os.stat(shop.events_path("sess-one")).st_mtime
    assert first < os.stat(shop.events_path("sess-three")).st_mtime < time.time() - 86400  # history's own times
    before = _snapshot(str(engram_home))
    assert main(["backfill", "--cwd", shop.root]) == 0
    assert capsys.readouterr().out.strip() == "3 unchanged"
    assert _snapshot(str(engram_home)) == before


def test_backfill_consolidates_in_the_background_with_progress(shop, monkeypatch, capsys):
    monkeypatch.delenv("ENGRAM_NO_WORKER", raising=False)
    assert main(["backfill", "--cwd", shop.root]) == 0
    assert "in the background" in capsys.readouterr().err
    deadline = time.time() + 30
    while _consolidated(shop) != SESSIONS and time.time() < deadline:
        time.sleep(0.2)  # a real detached `engram worker` drains the queue
    assert _consolidated(shop) == SESSIONS
    assert main(["backfill", "--progress"]) == 0
    assert f"{shop.root}: 3/3 imported session(s) consolidated, 0 queued" in capsys.readouterr().out


def test_a_session_captured_live_is_not_imported_again(shop, capsys):
    shop.ensure()
    with open(shop.events_path("sess-one"), "w") as f:
        f.write('{"type":"session_start","seq":1}\n')  # the live hooks got there first
    assert main(["backfill", "--cwd", shop.root, "--wait"]) == 0
    assert capsys.readouterr().out.strip() == "2 imported, 1 live"
    with open(shop.events_path("sess-one")) as f:
        assert len(f.readlines()) == 1


def test_without_history_the_error_names_the_folder_it_looked_for(tmp_path, capsys):
    assert main(["backfill", "--cwd", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and ".claude/projects/" in err and "pass the transcripts' DIR" in err


def test_install_offers_backfill(capsys):
    assert main(["install"]) == 0
    assert "engram backfill" in capsys.readouterr().out


def test_backfilled_knowledge_shows_the_transcripts_dates_not_the_import_date(shop, capsys):
    import json

    from testing.helpers import payload, run_hook

    assert main(["backfill", "--cwd", shop.root, "--wait"]) == 0
    with open(shop.events_path("sess-two")) as f:
        assert {json.loads(line)["ts"][:10] for line in f} == {"2026-03-03"}  # the record's day, every event
    res = run_hook("SessionStart", payload("SessionStart", "sess-new", shop.root, source="startup"))
    text = json.loads(res.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "`python -m pytest` runs the tests; last worked 2026-03-03" in text, text  # sess-two's run
    # the README session ran no test or build: its day, and no outcome nobody observed
    assert "running the tests. (2026-03-04)" in text and "(outcome: success, 2026-03-03)" in text, text
    assert time.strftime("%Y-%m-%d", time.gmtime()) not in text
