"""SessionStart's context cache (engram/retrieve/start/cache.py): a hit gives exactly what the
uncached path gives, and any change of what the context is made from is a miss."""

from __future__ import annotations

import os

import pytest

from engram import jsonio
from engram.fsio import fingerprint
from engram.graph.items import evidence
from engram.retrieve import inject
from engram.retrieve.start import cache, gitstate


@pytest.fixture
def built(g, root, monkeypatch):
    """A graph with knowledge about the files an earlier session wrote; the racy window off
    (the graph was written a moment ago); the uncached path counted."""
    monkeypatch.setattr(cache, "RACY_NS", 0)
    ev = os.path.join(g.project.dir, "events")
    with open(os.path.join(ev, "s1.jsonl"), "w") as f:
        f.write(jsonio.dumps({"type": "file_write", "seq": 1, "ok": True, "path": "src/a.py"}) + "\n")
    g.node("parser needs utf-8", type="finding", strength=0.9, files=["src/a.py"], description="It reads bytes.")
    g.node("run the tests with make test", type="concept", strength=0.8, files=["src/a.py"])
    calls = []
    real = inject._session_context

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(inject, "_session_context", counted)
    return g, calls


def _start(g, cfg, st=None, source="startup", low=None):
    st = {} if st is None else st
    text = inject.session_start(g.project, "s2", cfg, st, source, low)
    return text, st["retrieval"]["injected"]


def test_a_hit_gives_what_the_uncached_path_gives(built, cfg, monkeypatch):
    g, calls = built
    first = _start(g, cfg)
    assert first[0] and "parser needs utf-8" in first[0] and calls == [1]
    assert os.path.exists(cache.path_of(g.project.dir))
    again = _start(g, cfg)
    assert calls == [1]  # served from the cache
    assert again == first  # the same text, the same items marked as shown
    os.unlink(cache.path_of(g.project.dir))
    assert _start(g, cfg) == first and calls == [1, 1]


def _change_graph(g, root, cfg):
    g.node("a new finding on src/a.py", type="finding", strength=0.9, files=["src/a.py"])


def _change_config(g, root, cfg):
    cfg["tokenBudget"] = int(cfg["tokenBudget"]) - 1


def _change_recent_files(g, root, cfg):
    with open(os.path.join(g.project.dir, "events", "s3.jsonl"), "w") as f:
        f.write(jsonio.dumps({"type": "file_write", "seq": 1, "ok": True, "path": "src/b.py"}) + "\n")


def _change_plan(g, root, cfg):
    os.makedirs(os.path.join(root, ".planning"))
    with open(os.path.join(root, ".planning", "STATE.md"), "w") as f:
        f.write("Working on src/b.py\n")


def _change_branch(g, root, cfg):
    os.makedirs(os.path.join(root, ".git"))
    with open(os.path.join(root, ".git", "HEAD"), "w") as f:
        f.write("ref: refs/heads/feature/parser\n")


@pytest.mark.parametrize("change", [_change_graph, _change_config, _change_recent_files, _change_plan,
                                    _change_branch])
def test_any_change_of_an_input_is_a_miss(built, root, cfg, change):
    g, calls = built
    _start(g, cfg)
    change(g, root, cfg)
    text, shown = _start(g, cfg)
    assert calls == [1, 1]
    os.unlink(cache.path_of(g.project.dir))
    assert _start(g, cfg) == (text, shown)  # and what it stored is the uncached context of the new inputs
    assert _start(g, cfg) == (text, shown) and calls == [1, 1, 1]


def test_the_working_trees_changes_and_the_names_line_are_part_of_the_key(built, cfg, monkeypatch):
    g, calls = built
    _start(g, cfg)
    monkeypatch.setattr(gitstate, "changed_files", lambda root: ["src/c.py"])
    _start(g, cfg)
    assert calls == [1, 1]
    _start(g, cfg, low=inject.PLAIN_LOW_PREFIX)
    assert calls == [1, 1, 1]


def test_a_session_already_shown_something_neither_reads_nor_writes_the_cache(built, cfg):
    g, calls = built
    text, shown = _start(g, cfg)
    st = {"retrieval": {"injected": dict(shown)}}
    assert _start(g, cfg, st, source="resume")[0] is None and calls == [1, 1]  # all shown already
    assert _start(g, cfg, st, source="clear") == (text, shown) and calls == [1, 1]  # cleared: new again


def test_a_graph_written_within_the_racy_window_is_not_stored(built, cfg, monkeypatch):
    g, calls = built
    monkeypatch.setattr(cache, "RACY_NS", 60 * 10**9)
    _start(g, cfg)
    assert not os.path.exists(cache.path_of(g.project.dir))


def test_a_changed_evidence_file_or_module_is_a_miss(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "RACY_NS", 0)  # the files' ctimes are now
    checked, module = tmp_path / "Makefile", tmp_path / "mod.py"
    checked.write_text("test:\n\techo ok\n")
    module.write_text("X = 1\n")
    old = 10**9
    os.utime(checked, ns=(old, old))
    os.utime(module, ns=(old, old))
    log: dict = {}
    reader = evidence.Reader(str(tmp_path), log=log)
    assert reader.read("Makefile", 100) and reader.exists("gone.txt") is False
    assert log == {str(checked): fingerprint(str(checked)), str(tmp_path / "gone.txt"): None}
    key = cache.key([1, old, 0, 0], {"recent_files": []}, {"k": 1}, None, str(tmp_path))
    assert cache.store(str(tmp_path), key, ([1, old, 0, 0],) * 2, log, "text", {"n1": ["t", 2]})
    entry = jsonio.loads((tmp_path / cache.NAME).read_text())
    entry["code"].append([str(module), 6, old])
    (tmp_path / cache.NAME).write_text(jsonio.dumps(entry))
    assert cache.load(str(tmp_path), key) == ("text", [["n1", "t", 2]])
    assert cache.load(str(tmp_path), key.replace('"k":1', '"k":2')) is None
    module.write_text("X = 2\n")
    assert cache.load(str(tmp_path), key) is None
    os.utime(module, ns=(old, old))  # modules are stamped as Python stamps their byte code
    assert cache.load(str(tmp_path), key) is not None
    checked.write_text("test:\n\techo no\n")  # the same size: its mtime and ctime tell
    assert cache.load(str(tmp_path), key) is None
    os.unlink(checked)
    assert cache.load(str(tmp_path), key) is None
    (tmp_path / "gone.txt").write_text("")
    assert cache.load(str(tmp_path), key) is None


def test_a_corrupt_or_foreign_entry_is_a_miss(tmp_path):
    for data in (b"", b"{", b"[1]", b'{"key": "k", "code": [], "files": {}, "shown": 3, "text": null}'):
        (tmp_path / cache.NAME).write_bytes(data)
        assert cache.load(str(tmp_path), "k") is None


def _old_graph(g):
    """The fixture graph with a previous session's writes, its files dated long ago (outside
    the racy window, as a graph is by the time a new session starts)."""
    with open(os.path.join(g.project.dir, "events", "s1.jsonl"), "w") as f:
        f.write(jsonio.dumps({"type": "session_start", "seq": 1, "harness": "codex"}) + "\n")
        f.write(jsonio.dumps({"type": "file_write", "seq": 2, "ok": True, "path": "src/a.py"}) + "\n")
    g.node("parser needs utf-8", type="finding", strength=0.9, files=["src/a.py"])
    g.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for path in (g.project.db_path, g.project.db_path + "-wal"):
        os.utime(path, ns=(10**9, 10**9))


def _hook_start(g, root, session, *args):
    """(stdout, modules imported, items of the `injected` event) of a real SessionStart hook."""
    import json
    import subprocess
    import sys

    from testing.helpers import REPO, payload

    from engram.config import HOOK_ARGS

    proc = subprocess.run([sys.executable, "-X", "importtime", *HOOK_ARGS, "SessionStart", *args], cwd=str(REPO),
                          input=json.dumps(payload("SessionStart", session, root, source="startup")).encode(),
                          capture_output=True, env=dict(os.environ))
    mods = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines() if "|" in line}
    events = [json.loads(x) for x in open(g.project.events_path(session))]
    return proc.stdout, mods, [e["items"] for e in events if e["type"] == "injected"]


RANKING = {"engram.retrieve.activation", "engram.retrieve.sections", "engram.retrieve.tiers", "engram.retrieve.seeds",
           "engram.language.aliases", "engram.graph.readonly", "_sqlite3"}


def test_the_hook_serves_a_new_session_from_the_cache_without_the_ranking_modules(g, root):
    _old_graph(g)
    out, mods, injected = _hook_start(g, root, "s2")
    assert b"parser needs utf-8" in out and "engram.retrieve.activation" in mods
    again, mods, injected_again = _hook_start(g, root, "s3")
    assert again == out and injected_again == injected
    assert not mods & RANKING


def test_a_graph_with_no_writer_open_is_served_from_the_cache(g, root):
    """With every writer closed SQLite has deleted the WAL; the first reader creates it and the
    last one deletes it again. That empty WAL is no change of the graph: the second session is
    served what the first one stored."""
    _old_graph(g)
    g.close()
    assert not os.path.exists(g.project.db_path + "-wal")
    os.utime(g.project.db_path, ns=(10**9, 10**9))
    out, mods, injected = _hook_start(g, root, "s2")
    assert b"parser needs utf-8" in out and mods & RANKING
    again, mods, injected_again = _hook_start(g, root, "s3")
    assert again == out and injected_again == injected
    assert not mods & RANKING


def test_the_worker_warms_the_cache_for_the_next_session_of_the_last_sessions_harness(g, root):
    from testing.helpers import engram

    from engram.commands.worker import _harness_of

    _old_graph(g)
    assert _harness_of(g.project, "s1") == "codex" and _harness_of(g.project, "none") == "claude-code"
    res = engram("worker", "--warm", "codex", "--project", g.project.dir)
    assert res.returncode == 0, res.stderr
    warmed, mods, injected = _hook_start(g, root, "s2", "--harness", "codex")
    assert b"parser needs utf-8" in warmed and not mods & RANKING
    os.unlink(cache.path_of(g.project.dir))
    uncached, mods, injected_uncached = _hook_start(g, root, "s3", "--harness", "codex")
    assert uncached == warmed and injected_uncached == injected and mods & RANKING


def test_a_drain_that_consolidated_starts_the_warm_step_after_the_racy_window(g, monkeypatch):
    from engram import workers
    from engram.commands import worker

    started = []
    monkeypatch.setattr(workers, "start", lambda argv, log, **kw: started.append((argv, kw)))
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    worker._start_warm(g.project, "s1")
    assert started == []  # workers off: nothing starts
    monkeypatch.delenv("ENGRAM_NO_WORKER")
    worker._start_warm(g.project, "s1")
    assert started == [(["worker", "--warm", "claude-code", "--project", g.project.dir],
                        {"delay": cache.RACY_NS / 1e9 + 0.5, "nice": 10})]
