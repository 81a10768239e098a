"""Payoff per item (consolidate/knowledge/payoff.py): the hook records what it showed, the worker decides
what the session used, items never used fade, pinned ones come back first."""

from __future__ import annotations

import json
import os

import pytest
from testing.consolidation import Session, cfg, consolidate, make_root, rows

from engram.config import ConfigError, load_config, save_setting
from engram.consolidate.knowledge import payoff


def run(root, sid: str, *commands: str, reads: tuple[str, ...] = ()) -> Session:
    s = Session(root, sid).start()
    s.prompt("Run the checks.")
    for path in reads:
        s.read(path)
    for command in commands:
        s.command(command, 0, "ok")
    s.stop("Done.")
    out = consolidate(s.project, sid, cfg(s.project), lock_timeout=30)
    assert out.status in ("consolidated", "nothing", "recovered"), out
    return s


def shown(s: Session) -> str:
    return "\n".join(e.get("via", "") for e in s.events() if e["type"] == "injected")


def state(project, name: str) -> tuple:
    (row,) = rows(project, "SELECT s.injected, s.used, s.faded, s.pinned FROM item_state s JOIN nodes n "
                           "ON n.id = s.node_id WHERE n.name = ?", name)
    return row


@pytest.fixture
def root(tmp_path):
    root = make_root(tmp_path)
    (root / "Makefile").write_text("test:\n\tpytest\nlint:\n\truff .\n")
    (root / "notes.md").write_text("# Release notes for the invoicing service\n")
    return root


def test_the_hook_records_what_it_showed_and_the_worker_what_was_used(root):
    run(root, "s1", "make test", "make lint", reads=("notes.md", "notes.md"))
    s2 = run(root, "s2", "make test 2>&1 | tail -3", reads=("notes.md",))
    (ev,) = [e for e in s2.events() if e["type"] == "injected" and e["via"] == "session_start"]
    assert ev["words"] > 0 and all(isinstance(i, list) and i[0].startswith("n_") for i in ev["items"])
    used = dict(rows(s2.project, "SELECT n.name, j.used_how FROM injections j JOIN nodes n ON n.id = j.node_id "
                                 "WHERE j.session_id = 's2' AND j.used_seq IS NOT NULL"))
    assert used.get("make test") == "ran"  # `make test 2>&1 | tail -3` is `make test`, normalised
    assert "make lint" not in used
    assert state(s2.project, "make test")[:2] == (1, 1) and state(s2.project, "make lint")[:2] == (1, 0)
    (p,) = rows(s2.project, "SELECT injected, used, words FROM session_payoff WHERE session_id = 's2'")
    assert p[0] >= 2 and p[1] >= 1 and p[2] == ev["words"]
    # consolidating again (a later range, a redo) recomputes the same rows: nothing counted twice
    payoff.record(_conn(s2.project), str(root), "s2", s2.events(), cfg(s2.project))
    assert state(s2.project, "make test")[:2] == (1, 1)


def _conn(project):
    from engram.graph.connect import connect

    return connect(project.db_path)


def test_an_item_shown_k_times_and_never_used_fades_and_a_pinned_one_comes_back_first(root, engram_home):
    save_setting("fadeAfterUnused", 1, str(engram_home))
    run(root, "s1", "make test", "make lint")
    s2 = run(root, "s2", "make test")
    assert state(s2.project, "make lint")[1:3] == (0, 1)  # shown once, not used: faded
    assert state(s2.project, "make test")[1:3] == (1, 0)
    s3 = Session(root, "s3").start()
    text = _context(s3)
    assert "`make test`" in text and "make lint" not in text
    _pin(s3.project, "make lint")
    text = _context(Session(root, "s4").start())
    commands = text.split("Commands that work:\n", 1)[1].split("\n")
    assert commands[0].startswith("- `make lint`")  # pinned: first in its section, fading or not


def _pin(project, name: str) -> None:
    from engram.graph import items, store

    conn = _conn(project)
    try:
        (nid,) = [r[0] for r in conn.execute("SELECT id FROM nodes WHERE name = ?", (name,))]
        with store.transaction(conn):
            items.set_pinned(conn, nid, True)
    finally:
        conn.close()


def _context(s: Session) -> str:
    from engram.retrieve import inject

    return inject.session_start(s.project, "x-" + s.ctx.session, s.ctx.cfg, {}) or ""


def test_fade_after_unused_is_validated(engram_home):
    path = os.path.join(str(engram_home), "config.json")
    with open(path, "w") as f:
        json.dump({"fadeAfterUnused": -1}, f)
    with pytest.raises(ConfigError, match="fadeAfterUnused"):
        load_config(str(engram_home))
    with open(path, "w") as f:
        json.dump({"fadeAfterUnused": 0}, f)
    assert load_config(str(engram_home))[0]["fadeAfterUnused"] == 0


def test_use_by_kind():
    """How each kind counts as used (the events after the item was shown)."""
    later = [{"seq": 5, "type": "file_read", "path": "a.py"}, {"seq": 6, "type": "file_write", "path": "b.py"},
             {"seq": 7, "type": "command", "command": "cd web && npm run build -- --watch", "exit_code": 0},
             {"seq": 8, "type": "todos"},
             {"seq": 9, "type": "contradiction_warning", "decisions": ["n_bad"]}]
    file_item = {"id": "n_f", "type": "concept", "affected_files": ["a.py"], "data": {"kind": "file"}}
    assert payoff.use(file_item, later)[1] == "read"
    command = {"id": "n_c", "type": "concept", "name": "npm run build", "data": {"kind": "command"}}
    assert payoff.use(command, later)[0]["seq"] == 7
    todo = {"id": "n_t", "type": "finding", "data": {"kind": "unfinished", "key": "todos"}}
    assert payoff.use(todo, later)[1] == "acted on"
    followed = {"id": "n_d", "type": "decision", "name": "Keep b.py small", "affected_files": ["b.py"], "data": {}}
    assert payoff.use(followed, later)[1] == "followed"
    broke = {"id": "n_bad", "type": "decision", "name": "Never touch b.py", "affected_files": ["b.py"], "data": {}}
    assert payoff.use(broke, later)[1] == "broken"
    said = {"id": "n_i", "type": "decision", "name": "Make sure to run the unit tests before you say it is done",
            "data": {"kind": "instruction"}}
    assert payoff.use(said, later) == (None, "")
    assert payoff.use(said, later + [{"seq": 10, "type": "test_run", "command": "pytest -q"}])[1] == "followed"
    unrelated = {"id": "n_u", "type": "concept", "affected_files": ["z.py"], "data": {}}
    assert payoff.use(unrelated, later) == (None, "")
    missing = {"id": "n_m", "type": "error", "name": "psql is not found on this machine",
               "data": {"kind": "gotcha", "key": "missing:psql"}}
    assert payoff.use(missing, later) == (None, payoff.UNSEEN)  # its use is not running psql: nothing shows it


def test_a_tampered_injected_event_is_read_as_nothing():
    events = [{"seq": 1, "type": "injected", "via": "prompt", "items": [["n_a", 2], "junk", [3], []], "words": "many"},
              {"seq": 2, "type": "injected", "items": "not a list", "words": 7},
              {"seq": 3, "type": "injected", "via": "prompt", "items": [["n_b", 1]], "words": 5}]
    shown, words, _ = payoff.injections(events)
    assert sorted(shown) == ["n_a", "n_b"] and words == 5


def test_a_failing_check_whose_files_all_changed_is_served_as_possibly_fixed(root):
    s = Session(root, "s1").start()
    s.prompt("Fix the total.")
    s.write("src/calc.py", "def total(xs):\n    return sum(xs) + 1\n")
    s.test(passed=3, failed=1, failing=("tests/test_calc.py::test_total",))
    s.stop("Still failing.")
    consolidate(s.project, "s1", cfg(s.project), lock_timeout=30)
    (raw,) = rows(s.project, "SELECT s.evidence FROM item_state s JOIN nodes n ON n.id = s.node_id "
                             "WHERE json_extract(n.data, '$.key') = 'check:pytest -q'")[0]
    assert [n[:2] for n in json.loads(raw)["needs"]] == [["same", "src/calc.py"]]
    (strength,) = rows(s.project, "SELECT strength FROM nodes WHERE name = 'Failing at the end: pytest -q'")[0]
    assert strength > 0  # observed in a failed session, shown without a pin (graph/strength.py)
    before = _context(Session(root, "s2").start())
    assert "`pytest -q` was failing" in before and "Possibly fixed" not in before
    (root / "src" / "calc.py").write_text("def total(xs):\n    return sum(xs)\n")  # fixed outside any session
    after = _context(Session(root, "s3").start())
    assert "Possibly fixed since: `src/calc.py` changed after it failed (not re-run here)." in after



def test_what_the_user_said_and_open_work_never_fade(tmp_path):
    """A decision or an instruction holds until it is replaced, open work until a later session
    resolves it: shown and not seen used, neither fades; a command or a file beside them does."""
    from engram.graph import items, store
    from engram.graph.connect import connect

    conn = connect(str(tmp_path / "engram.db"))
    kinds = {"decision": ("decision", {}), "instruction": ("finding", {"kind": "instruction"}),
             "unfinished": ("finding", {"kind": "unfinished"}), "command": ("concept", {"kind": "command"}),
             "file": ("finding", {"kind": "file"})}
    ids = {k: store.create_node(conn, name=k, type=t, data=d) for k, (t, d) in kinds.items()}
    with store.transaction(conn):
        items.record_session(conn, "s1", [{"node_id": i, "via": "session_start", "seq": 2, "at": "t"}
                                          for i in ids.values()], 40, "t", 1)
    faded = dict(conn.execute("SELECT node_id, faded FROM item_state").fetchall())
    assert {k: faded[i] for k, i in ids.items()} == {"decision": 0, "instruction": 0, "unfinished": 0,
                                                       "command": 1, "file": 1}


def test_an_item_whose_use_no_session_can_show_never_fades(tmp_path):
    """A missing tool is used by not running it: showings where no use could be seen do not
    count towards fading, however many there are."""
    from engram.graph import items, store
    from engram.graph.connect import connect

    conn = connect(str(tmp_path / "engram.db"))
    gotcha = store.create_node(conn, name="psql is not found on this machine", type="error",
                               data={"kind": "gotcha", "key": "missing:psql"})
    command = store.create_node(conn, name="make lint", type="concept", data={"kind": "command"})
    for n in range(1, 4):
        with store.transaction(conn):
            items.record_session(conn, f"s{n}", [{"node_id": gotcha, "via": "session_start", "seq": 2, "at": "t",
                                                  "used_how": payoff.UNSEEN},
                                                 {"node_id": command, "via": "session_start", "seq": 2, "at": "t"}],
                                 40, "t", 3)
    faded = dict(conn.execute("SELECT node_id, faded FROM item_state").fetchall())
    assert (faded[gotcha], faded[command]) == (0, 1)
