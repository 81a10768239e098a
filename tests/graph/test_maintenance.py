"""maintenance.py: pattern scan, decay, rename following, supersession of deleted files."""

from __future__ import annotations

import subprocess

import pytest

from engram.graph import maintenance as m
from engram.graph import store
from engram.graph.connect import connect

GIT = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false"]


@pytest.fixture
def root(tmp_path):
    r = tmp_path / "repo"
    (r / "src").mkdir(parents=True)
    for name in ("a.py", "b.py", "c.py"):
        (r / "src" / name).write_text(f"# {name}\n" * 20)
    return r


@pytest.fixture
def conn(tmp_path):
    c = connect(str(tmp_path / "engram.db"))
    yield c
    c.close()


def git(root, *args):
    subprocess.run([*GIT, "-C", str(root), *args], check=True, capture_output=True)


def hub_with(conn, n, etype="requires", direction="in"):
    hub = store.create_node(conn, name="SQLite", type="concept", source_episodes=["e1"])
    for i in range(n):
        x = store.create_node(conn, name=f"dep {i}", type="finding", source_episodes=[f"e{i}"])
        a, b = (x, hub) if direction == "in" else (hub, x)
        store.upsert_edge(conn, a, b, etype, strength=0.6, source_episodes=[f"e{i}"])
    return hub


def test_pattern_created_once_and_linked(conn, root):
    hub = hub_with(conn, 3)
    rep = m.maintain(conn, root=str(root))
    assert (rep.patterns_created, rep.patterns_updated) == (1, 0)
    pats = store.list_nodes(conn, type="pattern")
    assert len(pats) == 1 and pats[0]["id"] == m.pattern_id(hub, "requires", "in")
    assert pats[0]["summary"] == "3 nodes requires SQLite"
    assert pats[0]["episode_count"] == 3 and pats[0]["strength"] == 1.0
    assert store.find_edge(conn, pats[0]["id"], hub, "interacts_with")
    again = m.maintain(conn, root=str(root))
    assert (again.patterns_created, again.patterns_updated, again.changes()) == (0, 0, 0)
    assert len(store.list_nodes(conn, type="pattern")) == 1


def test_two_edges_make_no_pattern_and_a_fourth_updates_it(conn, root):
    hub = hub_with(conn, 2)
    assert m.maintain(conn, root=str(root)).patterns_created == 0
    for i in range(2, 4):
        x = store.create_node(conn, name=f"more {i}", type="finding")
        store.upsert_edge(conn, x, hub, "requires")
    assert m.maintain(conn, root=str(root)).patterns_created == 1
    y = store.create_node(conn, name="fifth", type="finding")
    store.upsert_edge(conn, y, hub, "requires")
    rep = m.maintain(conn, root=str(root))
    assert (rep.patterns_created, rep.patterns_updated) == (0, 1)
    assert "5 nodes" in store.list_nodes(conn, type="pattern")[0]["summary"]


def test_edges_from_a_single_episode_are_not_a_pattern(conn, root):
    hub = store.create_node(conn, name="episode 12", type="episode")
    for i in range(4):
        x = store.create_node(conn, name=f"finding {i}", type="finding")
        store.upsert_edge(conn, x, hub, "discovered_during", source_episodes=["ep12"])
    assert m.maintain(conn, root=str(root)).patterns_created == 0


def test_lineage_and_pattern_edges_never_count(conn, root):
    hub = store.create_node(conn, name="auth", type="decision")
    for i in range(3):
        x = store.create_node(conn, name=f"v{i}", type="decision")
        store.upsert_edge(conn, x, hub, "version_of")
    assert m.maintain(conn, root=str(root)).patterns_created == 0


def test_deleted_files_supersede_only_when_all_are_gone(conn, root):
    for name in ("x.py", "y.py"):  # files the project had: committed, then deleted
        (root / "src" / name).write_text("pass\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    git(root, "rm", "-q", "src/x.py", "src/y.py")
    gone = store.create_node(conn, name="gone", type="finding", affected_files=["src/x.py", "src/y.py"])
    partial = store.create_node(conn, name="partial", type="finding", affected_files=["src/a.py", "src/y.py"])
    episode = store.create_node(conn, name="ep", type="episode", affected_files=["src/x.py"])
    for n in ("b", "c"):
        store.create_node(conn, name=n, type="concept", affected_files=[f"src/{n}.py"])
    rep = m.maintain(conn, root=str(root))
    assert rep.nodes_superseded == 1 and rep.files_checked == 5
    g = store.get_node(conn, gone)
    assert g["status"] == "superseded" and g["strength"] == 0.0
    assert "src/x.py" in g["data"]["history"][0]["reason"]
    assert store.get_node(conn, partial)["status"] == "active"
    assert store.get_node(conn, episode)["status"] == "active"
    assert m.maintain(conn, root=str(root)).changes() == 0


def test_a_file_never_seen_is_not_a_deleted_file(conn, root, tmp_path):
    """Issue 14, finding 3: `engram decide ... --files jobs/queue.py` before the file exists."""
    future = store.create_node(conn, name="Use SQLite for the job queue", type="decision", strength=0.85,
                               affected_files=["jobs/queue.py"])
    rep = m.maintain(conn, root=str(root))
    assert (rep.nodes_superseded, rep.nodes_unseen) == (0, 1)
    assert store.get_node(conn, future)["status"] == "active"
    # evidence that the project had it: an episode wrote it, or a session read it
    events = tmp_path / "events"
    events.mkdir()
    written = store.create_node(conn, name="worker", type="concept", affected_files=["jobs/worker.py"])
    read = store.create_node(conn, name="retry", type="concept", affected_files=["jobs/retry.py"])
    store.insert_episode(conn, session_id="s1", outcome="success", episode_data={"files_modified": ["jobs/worker.py"]})
    (events / "s2.jsonl").write_text('{"seq": 1, "type": "file_read", "path": "jobs/retry.py", "ok": true}\n')
    rep = m.maintain(conn, root=str(root), events_dir=str(events))
    assert (rep.nodes_superseded, rep.nodes_unseen) == (2, 1)
    assert [store.get_node(conn, n)["status"] for n in (future, written, read)] == ["active", "superseded",
                                                                                   "superseded"]


def test_git_renames_move_the_link_instead_of_superseding(conn, root):
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    git(root, "mv", "src/a.py", "src/core.py")
    git(root, "commit", "-qm", "rename")
    git(root, "mv", "src/core.py", "src/engine.py")
    git(root, "commit", "-qm", "rename again")
    git(root, "mv", "src/b.py", "src/bee.py")  # staged, not committed
    n1 = store.create_node(conn, name="core", type="concept", affected_files=["src/a.py"])
    n2 = store.create_node(conn, name="bee", type="concept", affected_files=["src/b.py"])
    assert m.git_renames(str(root)) == {"src/a.py": "src/core.py", "src/core.py": "src/engine.py",
                                        "src/b.py": "src/bee.py"}
    rep = m.maintain(conn, root=str(root))
    assert (rep.links_renamed, rep.nodes_superseded) == (2, 0)
    assert store.get_node(conn, n1)["affected_files"] == ["src/engine.py"]
    assert [n["id"] for n in store.find_by_file(conn, "src/bee.py")] == [n2]
    assert m.maintain(conn, root=str(root)).changes() == 0


def test_missing_root_or_mass_disappearance_supersedes_nothing(conn, tmp_path, root):
    ids = [store.create_node(conn, name=f"n{i}", type="concept", affected_files=[f"lib/f{i}.py"])
           for i in range(12)]
    store.create_node(conn, name="ok", type="concept", affected_files=["src/a.py"])
    rep = m.maintain(conn, root=str(tmp_path / "nowhere"))
    assert rep.nodes_superseded == 0 and "not a directory" in rep.warnings[0]
    rep = m.maintain(conn, root=str(root))
    assert rep.nodes_superseded == 0 and "12 of 13 linked files are missing" in rep.warnings[0]
    assert all(store.get_node(conn, i)["status"] == "active" for i in ids)


def test_decay_catch_up_and_dry_run(conn, root):
    store.insert_episode(conn, id="ep1", session_id="s1", outcome="success")
    stale = store.create_node(conn, name="stale", type="concept", source_episodes=["e0"])
    store.create_node(conn, name="fresh", type="concept", source_episodes=["ep1"])
    hub_with(conn, 3)
    dry = m.maintain(conn, root=str(root), dry_run=True)
    assert dry.sessions_counted == 1 and dry.patterns_created == 1 and dry.strength_changed > 0
    assert store.list_nodes(conn, type="pattern") == []  # nothing written
    assert store.get_node(conn, stale)["strength"] == 1.0 and not conn.in_transaction
    real = m.maintain(conn, root=str(root))
    assert (real.sessions_counted, real.patterns_created) == (1, 1)
    assert store.get_node(conn, stale)["sessions_without_reinforcement"] == 1
    assert store.get_node(conn, stale)["strength"] == pytest.approx(0.9048374180)
    assert m.maintain(conn, root=str(root)).changes() == 0


def test_maintain_embeds_new_patterns_and_purges_orphans(conn, root):
    from engram.graph import embeddings
    from engram.providers.offline import LocalEmbedder

    hub_with(conn, 3)
    doomed = store.create_node(conn, name="doomed", type="concept")
    embeddings.sync(conn, LocalEmbedder())
    store.delete_node(conn, doomed)
    rep = m.maintain(conn, root=str(root), embedder=LocalEmbedder())
    assert rep.embedded == 1 and rep.vectors_purged == 1
    assert m.maintain(conn, root=str(root), embedder=LocalEmbedder()).changes() == 0


def test_maintain_waits_for_a_concurrent_writer_instead_of_failing(conn, root, tmp_path):
    import threading
    import time

    from engram.graph.connect import connect as open_db

    hub_with(conn, 3)
    db_file = conn.execute("PRAGMA database_list").fetchone()[2]
    other = open_db(db_file)
    holding = threading.Event()

    def writer():
        with store.transaction(other):
            store.create_node(other, name="written by a worker", type="finding")
            holding.set()
            time.sleep(0.3)

    t = threading.Thread(target=writer)
    t.start()
    holding.wait()
    rep = m.maintain(conn, root=str(root))  # blocks on the lock (busy timeout), then runs
    t.join()
    assert rep.patterns_created == 1
    assert store.find_by_name(conn, "written by a worker")
