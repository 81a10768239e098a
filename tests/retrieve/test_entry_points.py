"""Entry points from text, git state and recent sessions; matching them to nodes."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from engram import jsonio
from engram.retrieve import entry_points, seeds
from engram.retrieve.start import gitstate, project_context
from engram.retrieve.entry_points import terms_from_text


def test_paths_files_modules_and_names_from_a_prompt(root):
    t = terms_from_text(f"Fix {root}/src/net/retry.ts:42 and see handlers/notes.ts, "
                        "engram.retrieve.activation, `utils.py` and the SQLite WAL mode; https://x.io/a/b.ts",
                        root)  # fmt: skip
    assert "src/net/retry.ts" in t.paths
    assert "handlers/notes.ts" in t.paths and "handlers/notes.ts" in t.suffixes
    assert "engram/retrieve/activation" in t.suffixes and "utils.py" in t.suffixes
    assert "sqlite wal mode" in t.names and "sqlite" in t.names
    assert not any("x.io" in p for p in t.paths + t.suffixes)
    assert "the" not in t.names and "and" not in t.names


def test_technology_aliases_and_identifier_splitting():
    t = terms_from_text("migrate from postgres; see retryClient")
    assert "postgresql" in t.names
    assert entry_points.normalise("retryClient") == "retry client"
    assert entry_points.normalise("shared-handlers_v2") == "shared handlers v2"


def test_terms_are_deterministic():
    text = "edit a.py then b.ts with React and Postgres"
    assert repr(terms_from_text(text)) == repr(terms_from_text(text))


def test_match_by_file_suffix_exact_and_loose_name(g, ro):
    by_file = g.node("the retry module", files=["src/net/retry.ts"], strength=0.9)
    by_mod = g.node("retrieval", files=["engram/retrieve/activation.py"], strength=0.8)
    exact = g.node("SQLite WAL", strength=0.7)
    loose = g.node("shared-handlers", strength=0.6)
    found = seeds.match(ro, terms_from_text("retry.ts engram.retrieve.activation sqlite wal; shared handlers"))
    assert found[by_file] == (0.9, "file:src/net/retry.ts")
    assert found[by_mod][1] == "file:engram/retrieve/activation.py"
    assert found[exact] == (0.7, "name:sqlite wal")
    assert found[loose][1].startswith("loose:")


def _git(root, *args):
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=root, check=True,
                   capture_output=True)


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_git_branch_and_changes_from_one_git_status(root, version):
    os.makedirs(os.path.join(root, "src/a"))
    for name in ("src/a/x.py", "src/a/y.py", "z.md"):
        with open(os.path.join(root, name), "w") as f:
            f.write("one\n")
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "init")
    _git(root, "checkout", "-qb", "feature/retry-client")
    _git(root, "update-index", "--index-version", version)
    with open(os.path.join(root, "src/a/y.py"), "a") as f:
        f.write("two\n")
    os.remove(os.path.join(root, "z.md"))
    assert gitstate.branch(root) == "feature/retry-client"
    assert gitstate.changed_files(root) == ["src/a/y.py", "z.md"]


def test_not_a_repo(root):
    assert gitstate.branch(root) is None and gitstate.changed_files(root) == []


def _stream(path, events):
    with open(path, "w") as f:
        for i, ev in enumerate(events, 1):
            f.write(jsonio.dumps({"seq": i, **ev}) + "\n")


def test_recent_session_files_newest_first(tmp_path):
    ev = tmp_path / "events"
    ev.mkdir()
    _stream(ev / "old.jsonl", [{"type": "file_write", "ok": True, "path": "old.py"}])
    _stream(ev / "new.jsonl", [{"type": "file_write", "ok": True, "path": "a.py"},
                               {"type": "file_write", "ok": False, "path": "failed.py"},
                               {"type": "decision", "files": ["d.py"]},
                               {"type": "file_read", "ok": True, "path": "read.py"}])
    _stream(ev / "current.jsonl", [{"type": "file_write", "ok": True, "path": "mine.py"}])
    os.utime(ev / "old.jsonl", (1, 1))
    assert project_context.recent_files(str(ev), "current") == ["d.py", "a.py", "old.py"]


def test_files_written_in_a_stream_are_distinct_newest_first_whatever_repeats(tmp_path):
    path = tmp_path / "s.jsonl"
    events = [{"type": "file_write", "ok": True, "path": "old.py"},
              {"type": "decision", "files": ["d.py", "a.py"], "content": "keep a.py"},
              *[{"type": "file_write", "ok": True, "path": "a.py", "diff": '"path":"x"'} for _ in range(50)],
              {"type": "file_write", "ok": True, "path": 'we"ird\\.py'},
              {"type": "file_write", "ok": False, "path": "failed.py"},
              {"type": "file_write", "ok": True, "meta": {"path": "a.py"}, "path": "b.py"},
              *[{"type": "file_write", "ok": True, "path": "a.py"} for _ in range(50)]]
    _stream(path, events)
    want = []
    for ev in reversed(events):  # what parsing every line gives
        names = [ev["path"]] if ev["type"] == "file_write" and ev["ok"] else ev.get("files", [])
        want += [p for p in names if p not in want]
    assert want == ["a.py", "b.py", 'we"ird\\.py', "d.py", "old.py"]
    assert project_context.written_in(str(path)) == want


def test_a_tails_lines_with_a_needle_are_those_a_line_by_line_filter_gives(tmp_path):
    path = tmp_path / "s.jsonl"
    lines = [jsonio.dumps({"seq": i, "type": ["a", "b", "c"][i % 3], "x": "needle" * (i % 2)}) for i in range(200)]
    path.write_bytes(("\n".join(lines) + "\n" + '{"torn').encode())
    for limit in (10**6, 5000, 777, 40):
        for needles in ((b'"a"',), (b'"b"', b"needle"), (b"needle", b"needle"), (b"absent",)):
            tail = path.read_bytes()[-limit:]
            want = []
            for raw in reversed(tail.split(b"\n")):
                if raw.strip() and any(n in raw for n in needles):
                    try:
                        want.append(json.loads(raw))
                    except ValueError:
                        pass
            assert list(jsonio.tail_objects(str(path), limit, needles)) == want


def test_gsd_plan_contributes_terms(root):
    os.makedirs(os.path.join(root, ".planning/phases/01-x"))
    with open(os.path.join(root, ".planning/STATE.md"), "w") as f:
        f.write("Stopped at: task 2\nResume file: .planning/phases/01-x/01-02-PLAN.md\n")
    with open(os.path.join(root, ".planning/phases/01-x/01-02-PLAN.md"), "w") as f:
        f.write("Implement retry in src/net/retry.ts with exponential backoff\n")
    terms, sources = project_context.session_start_terms(root, os.path.join(root, "none"), "s")
    assert sources["gsd_plan"] and "src/net/retry.ts" in terms.paths
    assert "exponential backoff" in terms.names


def _repo_with_a_change(root) -> None:
    for name in ("a.py", "b.py"):
        with open(os.path.join(root, name), "w") as f:
            f.write("one\n")
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "init")
    os.remove(os.path.join(root, "a.py"))


def test_a_bigger_index_than_the_bound_skips_the_git_pass(root, monkeypatch):
    _repo_with_a_change(root)
    monkeypatch.setenv("GIT_DIR", os.path.join(root, "elsewhere"))  # the hook's environment names no repository
    assert gitstate.changed_files(root) == ["a.py"]
    monkeypatch.setattr(gitstate, "MAX_ENTRIES", 1)
    assert gitstate.changed_files(root) == []


def _children_named(comm: str) -> list[int]:
    """This process's children called `comm` (any state, zombies included), from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name, rest = stat[stat.index("(") + 1: stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
        if int(rest[1]) == os.getpid() and name == comm:
            found.append(int(entry))
    return found


def test_a_late_or_failing_git_is_killed_and_reports_nothing(root, tmp_path, monkeypatch):
    """git on PATH that hangs: killed at the deadline (no zombie left); one that fails: []."""
    import time

    _repo_with_a_change(root)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text("#!/bin/sh\nprintf ' M a.py\\0'\nexec sleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(gitstate, "DEADLINE_S", 0.3)
    t0 = time.monotonic()
    assert gitstate.changed_files(root) == []
    assert time.monotonic() - t0 < 5
    assert not _children_named("sleep")  # killed and reaped: no child left, running or zombie
    fake.write_text("#!/bin/sh\nprintf ' M a.py\\0'\nexit 128\n")
    assert gitstate.changed_files(root) == []
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert gitstate.changed_files(root) == []
