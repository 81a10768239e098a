"""`engram forget` reaches every copy (issue 18, finding 8; issue 14's forget points).

Found before: the text stayed in engram.db-wal while a reader held a read transaction
after forget reported success; queued write checks and GSD's KNOWLEDGE.md kept it;
tombstones were the unsalted SHA-256 of the term (a guess could be confirmed against any
database); forgetting a file name scrubbed nothing from other nodes' file lists or
node_files; a mistyped id exited 0 and wrote a tombstone; the dry run promised more than
the real run did.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from testing.helpers import engram, project_dir
from testing.reliability import consolidate_all, db_path, make_project, replay_inproc, session_script

PHRASE = "bluefin-7 staging box"


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    root = make_project(tmp_path)
    for i in range(3):
        replay_inproc(session_script(root, f"s{i}", i))
    replay_inproc([("UserPromptSubmit", {"session_id": "s2", "cwd": str(root), "prompt": f"deploy to the {PHRASE}"}),
                   ("Stop", {"session_id": "s2", "cwd": str(root), "last_assistant_message": f"{PHRASE} is up"})])
    consolidate_all(root)
    return root


def copies(home: Path, text: str) -> list[str]:
    """Files under home whose bytes hold `text` (any case, also JSON-escaped): `strings` would find it."""
    needles = {text.lower().encode(), json.dumps(text)[1:-1].lower().encode()}
    return [str(p.relative_to(home)) for p in home.rglob("*")
            if p.is_file() and any(n in p.read_bytes().lower() for n in needles)]


READER = """
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN")
c.execute("SELECT count(*) FROM nodes").fetchone()
print("reading", flush=True)
time.sleep(float(sys.argv[2]))
c.execute("COMMIT")
"""


def _reader(root: Path, seconds: float) -> subprocess.Popen:
    r = subprocess.Popen([sys.executable, "-c", READER, str(db_path(root)), str(seconds)], stdout=subprocess.PIPE,
                         text=True)
    assert r.stdout.readline().strip() == "reading"
    return r


def test_forget_waits_for_a_reader_then_leaves_no_copy_in_the_wal(proj, engram_home, figures):
    reader = _reader(proj, 7.0)  # an old snapshot, held past SQLite's 5 s busy wait: its pages must stay readable
    try:
        res = engram("forget", PHRASE, cwd=proj)
    finally:
        reader.wait(30)
    assert res.returncode == 0, res.stderr
    assert copies(engram_home, PHRASE) == []  # engram.db and engram.db-wal included
    figures.add("privacy", forgets=1, copies_left=0)


def test_forget_says_so_when_a_reader_keeps_the_wal(proj, engram_home, monkeypatch):
    from engram.commands import forget as cmd
    from engram.config import Project
    from engram.graph import privacy

    monkeypatch.setattr(privacy.compact, "__defaults__", (0.5,))  # give up on the reader quickly
    reader = _reader(proj, 20)
    try:
        report = cmd.forget(Project.from_cwd(str(proj)), PHRASE)
    finally:
        reader.kill()
        reader.wait()
    assert report["checkpointed"] == 0  # the CLI turns this into exit 1 and a line saying why
    res = engram("forget", PHRASE, cwd=proj)  # the documented remedy: run it again
    assert res.returncode == 0 and copies(engram_home, PHRASE) == []


def test_queued_checks_and_gsd_knowledge_are_scrubbed(proj, engram_home):
    from engram.harnesses import gsd_knowledge

    checks = project_dir(proj) / "checks"
    checks.mkdir(exist_ok=True)
    (checks / "s9.0000000003.json").write_text(json.dumps({"session": "s9", "diff": f"+deploy = '{PHRASE}'\n"}))
    (checks / "s9.0000000004.json").write_text(json.dumps({"session": "s9", "diff": "+x = 1\n"}))
    (proj / ".gsd").mkdir()
    (proj / ".gsd" / "KNOWLEDGE.md").write_text("# Knowledge\nkeep me\n" + gsd_knowledge.section(
        f"- Finding: the {PHRASE} runs the smoke tests\n- Decision: Use integer offsets") + "\n")
    res = engram("forget", PHRASE, cwd=proj)
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in checks.iterdir()) == ["s9.0000000004.json"]
    knowledge = (proj / ".gsd" / "KNOWLEDGE.md").read_text()
    assert PHRASE not in knowledge and "keep me" in knowledge and "Use integer offsets" in knowledge
    assert copies(engram_home, PHRASE) == []


def test_tombstones_are_salted(proj):
    assert engram("forget", PHRASE, cwd=proj).returncode == 0
    keys = engram("forget", "--list", cwd=proj).stdout.split()
    bare = hashlib.sha256("\x1f".join(["bluefin", "7", "staging", "box"]).encode()).hexdigest()[:32]  # the old key
    assert keys and all(bare not in k for k in keys)
    assert all(len(k.split(":")) == 4 for k in keys)  # term:<n>:<salt>:<hash>
    other = make_project(proj.parent, "other")
    replay_inproc([("UserPromptSubmit", {"session_id": "o", "cwd": str(other), "prompt": f"the {PHRASE} again"}),
                   ("Stop", {"session_id": "o", "cwd": str(other), "last_assistant_message": "ok"})])
    consolidate_all(other)
    assert engram("forget", PHRASE, cwd=other).returncode == 0
    other_keys = engram("forget", "--list", cwd=other).stdout.split()
    assert set(keys).isdisjoint(other_keys)  # the same text leaves unrelated keys in two projects
    # and the tombstone still works: the text comes back in a new session and is kept out
    replay_inproc([("UserPromptSubmit", {"session_id": "s9", "cwd": str(proj), "prompt": f"is the {PHRASE} up?"}),
                   ("Stop", {"session_id": "s9", "cwd": str(proj), "last_assistant_message": f"{PHRASE} is up"})])
    consolidate_all(proj)
    assert PHRASE.encode() not in b"".join(p.read_bytes() for p in project_dir(proj).glob("engram.db*")).lower()


def test_forgetting_a_file_name_scrubs_every_file_list(proj, engram_home):
    name = "src/mod1.py"
    import sqlite3

    conn = sqlite3.connect(db_path(proj))
    before = conn.execute("SELECT count(*) FROM node_files WHERE path = ?", (name,)).fetchone()[0]
    conn.close()
    assert before > 0
    dry = engram("forget", name, "--dry-run", cwd=proj)
    res = engram("forget", name, cwd=proj)
    assert res.returncode == 0, res.stderr
    assert dry.stdout.replace("would forget", "forgot").split(";")[0] == res.stdout.split(";")[0]  # exact counts
    assert " 0 file link(s)" not in res.stdout
    conn = sqlite3.connect(db_path(proj))
    try:
        assert conn.execute("SELECT count(*) FROM node_files WHERE path LIKE '%mod1.py%'").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM nodes WHERE affected_files LIKE '%mod1.py%'").fetchone() == (0,)
    finally:
        conn.close()
    shown = engram("show", "Use integer offsets in mod0", cwd=proj)
    assert "mod1.py" not in shown.stdout


def test_an_unknown_id_is_an_error_and_leaves_no_tombstone(proj):
    res = engram("forget", "n_doesnotexist", cwd=proj)
    assert res.returncode == 1 and res.stderr.startswith("Error: no node 'n_doesnotexist'") and "Traceback" not in res.stderr
    assert engram("forget", "--list", cwd=proj).stdout == ""


def test_dry_run_counts_are_what_the_real_run_changes(proj):
    for target in ("Use integer offsets in mod1", PHRASE):
        dry = engram("forget", target, "--dry-run", cwd=proj)
        real = engram("forget", target, cwd=proj)
        assert dry.returncode == real.returncode == 0
        strip = lambda out: out.split(";")[0].replace("would forget", "forgot")  # noqa: E731
        assert strip(dry.stdout) == strip(real.stdout), (dry.stdout, real.stdout)


WORD = "bluefin"  # porter stems it to itself: the keyword index stores it whole


def _bluefin_session(root: Path) -> None:
    """A decision (and its episode) named by the word: both are indexed for keyword search."""
    replay_inproc([("UserPromptSubmit", {"session_id": "s3", "cwd": str(root),
                                         "prompt": f"Let's use {WORD} for the deploy queue."}),
                   ("Stop", {"session_id": "s3", "cwd": str(root),
                             "last_assistant_message": f"The deploy queue runs on {WORD} now."})])
    consolidate_all(root)


def test_a_single_forgotten_word_leaves_the_keyword_index(proj, engram_home):
    """FTS5 keeps a deleted row's terms in its segments (node_fulltext_data) until a merge:
    a one-word term is stored there whole, which the phrase tests above never show."""
    _bluefin_session(proj)
    assert [p for p in copies(engram_home, WORD) if "engram.db" in p]  # indexed before
    res = engram("forget", WORD, cwd=proj)
    assert res.returncode == 0, res.stderr
    assert copies(engram_home, WORD) == []
    assert engram("query", "deploy queue", "--json", cwd=proj).stdout.count(WORD) == 0


def test_forget_drops_the_cached_embeddings_of_what_it_removed(proj):
    """The embedding cache (a remote model's vectors, by text hash) loses the deleted and the
    scrubbed nodes' texts: a vector is a fingerprint of its text."""
    import sqlite3

    from testing.servers.embedding_server import EmbeddingServer

    from engram.graph import embeddings, store
    from engram.graph.connect import connect
    from engram.graph.vectors import CachedEmbedder, text_hash
    from engram.providers.voyage import VoyageEmbedder

    _bluefin_session(proj)
    conn = connect(str(db_path(proj)))
    try:
        with EmbeddingServer(api_key="k") as srv:
            embeddings.sync(conn, CachedEmbedder(VoyageEmbedder(base_url=srv.url, api_key="k", retries=0), conn))
        named = [n for n in store.list_nodes(conn) if WORD in (n["name"] + (n["description"] or "")).lower()]
        gone = {text_hash(embeddings.node_text(n["name"], n["description"] or "")) for n in named}
    finally:
        conn.close()
    assert len(gone) >= 2
    assert engram("forget", WORD, cwd=proj).returncode == 0
    conn = sqlite3.connect(db_path(proj))
    try:
        cached = {r[0] for r in conn.execute("SELECT text_hash FROM embedding_cache")}
    finally:
        conn.close()
    assert cached and not gone & cached  # the rest of the cache stays


def _contents(*roots: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for root in roots for p in root.rglob("*")
            if p.is_file()}


def _listed(out: str) -> set[str]:
    """The files a forget run names, one per indented line after its count."""
    return {line.strip() for line in out.splitlines() if line.startswith("  ")}


@pytest.mark.parametrize("target", ["src/mod1.py", PHRASE])
def test_dry_run_names_every_node_scrubbed_and_every_file_the_real_run_changes(proj, engram_home, target):
    from engram.harnesses import gsd_knowledge

    checks = project_dir(proj) / "checks"
    checks.mkdir(exist_ok=True)
    (checks / "s9.0000000003.json").write_text(json.dumps({"session": "s9", "diff": f"+x = '{target}'\n"}))
    (proj / ".gsd").mkdir()
    (proj / ".gsd" / "KNOWLEDGE.md").write_text(gsd_knowledge.section(f"- Finding: {target} is slow") + "\n")
    before = _contents(engram_home, proj)
    dry = engram("forget", target, "--dry-run", cwd=proj)
    assert dry.returncode == 0, dry.stderr
    assert _contents(engram_home, proj) == before  # a dry run changes nothing
    real = engram("forget", target, cwd=proj)
    assert real.returncode == 0, real.stderr
    after = _contents(engram_home, proj)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    sqlite_side = {p for p in changed if p.endswith(("engram.db-wal", "engram.db-shm"))}  # SQLite's own
    assert _listed(dry.stdout) == changed - sqlite_side, dry.stdout
    assert _listed(real.stdout) == _listed(dry.stdout)
    scrubbed = [ln for ln in dry.stdout.splitlines() if ln.startswith("would scrub the text of: ")]
    count = int(dry.stdout.split(" scrubbed, ")[0].rsplit(" ", 1)[1])
    assert bool(scrubbed) == bool(count) and (not count or scrubbed[0].count("', '") == count - 1)


def test_a_models_kept_answers_are_scrubbed(proj, engram_home):
    """Answers kept for a session not yet consolidated (consolidate/passes.answer) quote its events."""
    kept = project_dir(proj) / "answers" / "s9"
    kept.mkdir(parents=True)
    (kept / "a1.json").write_text(json.dumps({"model": "m", "step": "pass1[1]", "text": f"ran the {PHRASE}"}))
    (kept / "a2.json").write_text(json.dumps({"model": "m", "step": "pass2", "text": "{}"}))
    res = engram("forget", PHRASE, cwd=proj)
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in kept.iterdir()) == ["a2.json"] and copies(engram_home, PHRASE) == []
