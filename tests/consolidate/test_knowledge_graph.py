"""Knowledge nodes across sessions: keys replace and retire, repetition strengthens."""

from __future__ import annotations

from testing.consolidation import Session, cfg, consolidate, make_root, rows

PR_URL = "https://github.com/o/r/pull/{n}\n"


def _done(s: Session, sid: str) -> None:
    s.stop("Done.")
    assert consolidate(s.project, sid, cfg(s.project)).status == "consolidated"


def _live(s: Session, kind: str) -> list[str]:
    return [n for (n,) in rows(s.project, "SELECT name FROM nodes WHERE status = 'active' AND "
                                          "json_extract(data, '$.kind') = ? ORDER BY name", kind)]


def test_open_work_is_closed_by_a_later_session(tmp_path):
    root = make_root(tmp_path)
    a = Session(root, "a").start().prompt("Fix the notes endpoint and open a PR.")
    a.command("git checkout -b fix/notes").command('gh pr create -t "Fix notes"', output=PR_URL.format(n=380))
    a.test(2, 1, ("tests/test_notes.py::test_body",))
    _done(a, "a")
    assert _live(a, "unfinished") == ["Failing at the end: pytest -q", "PR #380 open", "The last session"]
    # the session failed; what it left open is observed all the same (graph/strength.py)
    assert rows(a.project, "SELECT outcome FROM episodes") == [("failure",)]
    assert min(s for (s,) in rows(a.project, "SELECT strength FROM nodes WHERE status = 'active' AND "
                                             "json_extract(data, '$.kind') = 'unfinished'")) >= 1.0

    b = Session(root, "b").start().prompt("Merge the notes PR once the tests pass.")
    b.write("src/notes.py", "def body(n):\n    return n['content']\n").test(3, 0).command("gh pr merge 380 --squash")
    _done(b, "b")
    assert _live(b, "unfinished") == ["The last session"]  # b's own: it replaced a's
    (desc,) = rows(b.project, "SELECT description FROM nodes WHERE status = 'active' AND name = 'The last session'")
    assert "Merge the notes PR once the tests pass." in desc[0] and "Done." in desc[0]
    reasons = rows(b.project, "SELECT name, json_extract(data, '$.history[0].reason') FROM nodes "
                              "WHERE status = 'superseded' AND json_extract(data, '$.kind') = 'unfinished' ORDER BY name")
    assert reasons == [("Failing at the end: pytest -q", "the check passed"),
                       ("PR #380 open", "merged, closed, or its branch deleted")]


def test_a_command_that_stopped_working_is_replaced_by_its_working_variant(tmp_path):
    root = make_root(tmp_path)
    a = Session(root, "a").start().prompt("Run the suite for the parser module.")
    a.command("npm test", 0, "Test Files  3 passed (3)\n      Tests  12 passed (12)")
    _done(a, "a")
    b = Session(root, "b").start().prompt("Run the suite again after the upgrade.")
    b.command("npm test", 127, "sh: vitest: command not found").command(
        "npx vitest run", 0, "Test Files  3 passed (3)\n      Tests  12 passed (12)")
    _done(b, "b")
    assert _live(b, "command") == ["npx vitest run"]
    (row,) = rows(b.project, "SELECT n.name, s.name FROM nodes n JOIN nodes s ON s.id = n.superseded_by "
                             "WHERE n.name = 'npm test'")
    assert row == ("npm test", "npx vitest run")


def test_an_instruction_said_again_gets_stronger(tmp_path):
    root = make_root(tmp_path)
    for sid in ("a", "b"):
        s = Session(root, sid).start().prompt("Review the open issues with @agent-triage and list the easy ones.")
        _done(s, sid)
    (strength, count), = rows(s.project, "SELECT strength, episode_count FROM nodes WHERE name = 'Use @agent-triage'")
    assert count >= 1 and strength > 0.35  # past the implicit band it started in


def test_a_subagent_named_once_is_a_mention_and_named_again_in_a_later_session_an_instruction(tmp_path):
    from engram import lifecycle

    root = make_root(tmp_path)
    a = Session(root, "a").start().prompt("continue with the @agent-debug-specialist")
    a.prompt("@agent-git-merge-pr-specialist").prompt("Always use @agent-docs-architect for README changes.")
    _done(a, "a")
    assert _live(a, "instruction") == ["Use @agent-docs-architect"]  # phrased as a rule
    assert _live(a, "mention") == ["Use @agent-debug-specialist", "Use @agent-git-merge-pr-specialist"]

    b = Session(root, "b")
    text = lifecycle.session_start(b.ctx) or ""
    assert "@agent-docs-architect" in text and "debug-specialist" not in text and "merge-pr" not in text, text
    b.prompt("ok continue with @agent-debug-specialist on the flaky test").test(3, 0)
    _done(b, "b")
    assert _live(b, "instruction") == ["Use @agent-debug-specialist", "Use @agent-docs-architect"]
    c = Session(root, "c")
    text = lifecycle.session_start(c.ctx) or ""
    assert 'Use @agent-debug-specialist — The user said: "ok continue with @agent-debug-specialist on the flaky ' \
           'test"' in text, text
    assert "merge-pr" not in text
    c.prompt("@agent-debug-specialist again please").test(3, 0)
    _done(c, "c")  # named again: reinforced, in the words that made it an instruction
    ((desc,),) = rows(c.project, "SELECT description FROM nodes WHERE name = 'Use @agent-debug-specialist'")
    assert desc == 'The user said: "ok continue with @agent-debug-specialist on the flaky test"'


def test_a_subagent_named_twice_in_one_session_stays_a_mention(tmp_path):
    s = Session(make_root(tmp_path), "a").start().prompt("continue with the @agent-debug-specialist").test(3, 0)
    _done(s, "a")
    s.prompt("@agent-debug-specialist look again").test(3, 0)  # a second range: the graph's mention is its own
    _done(s, "a")
    assert _live(s, "mention") == ["Use @agent-debug-specialist"] and _live(s, "instruction") == []


def test_consolidation_is_deterministic_for_identical_input(tmp_path):
    texts = []
    for home in ("one", "two"):
        s = Session(make_root(tmp_path / home), "s").start().prompt("Add a cache. Don't use pickle for it.")
        s.command("make build", 2, "make: *** No rule to make target 'build'.").command("make all")
        s.write("src/cache.py", '"""An LRU cache for parsed files."""\n').test(1, 1, ("t::x",)).test(2, 0)
        _done(s, "s")
        nodes = rows(s.project, "SELECT type, name, description, status, json_extract(data, '$.kind'), "
                                "json_extract(data, '$.key') FROM nodes WHERE type != 'episode' ORDER BY name")
        edges = rows(s.project, "SELECT a.name, b.name, e.type, e.strength FROM edges e JOIN nodes a ON a.id = "
                                "e.from_node JOIN nodes b ON b.id = e.to_node ORDER BY 1, 2, 3")
        texts.append((nodes, edges))
    assert texts[0] == texts[1] and len(texts[0][0]) > 5 and len(texts[0][1]) > 5


def test_a_missing_program_is_a_fact_until_a_later_session_runs_it(tmp_path):
    root = make_root(tmp_path)
    a = Session(root, "a").start().prompt("Load the schema into the dev database.")
    a.command('$env:DATABASE_URL="postgres://localhost/dev"; Get-Content schema.sql | psql $env:DATABASE_URL', 1,
              "psql : The term 'psql' is not recognized as the name of a cmdlet, function, script file, or operable "
              "program. Check the spelling of the name, or if a path was included, verify that the path is correct.")
    _done(a, "a")
    assert _live(a, "gotcha") == ["psql is not found on this machine"]
    (desc,) = rows(a.project, "SELECT description FROM nodes WHERE name = 'psql is not found on this machine'")
    assert desc[0] == ("`psql` is not found on this machine: `psql $env:DATABASE_URL` failed with \"psql : The term "
                       "'psql' is not recognized as the name of a cmdlet, function, script file, or operable program\".")
    b = Session(root, "b").start().prompt("Check the tables now that psql is installed.")
    b.command('psql "$DATABASE_URL" -c "\\dt"', 0, " public | users | table")
    _done(b, "b")
    assert _live(b, "gotcha") == []


def test_a_script_run_by_a_path_that_is_not_there_is_said_where_it_was_run(tmp_path):
    """A project's notes named `scripts/todo-kanban.sh`; it lives elsewhere (zsh: exit 127)."""
    root = make_root(tmp_path)
    a = Session(root, "a").start().prompt("Add the mail feature to TODO.md.")
    a.command("scripts/todo-kanban.sh --validate-only TODO.md 2>&1", 127,
              "(eval):1: no such file or directory: scripts/todo-kanban.sh")
    _done(a, "a")
    assert _live(a, "gotcha") == ["scripts/todo-kanban.sh is not found where it was run"]


def test_a_glob_that_matched_nothing_again_is_one_shell_gotcha(tmp_path):
    """zsh stops a line whose glob matched nothing: two commands, one fact about the shell."""
    root = make_root(tmp_path)
    a = Session(root, "a").start().prompt("Smoke-test the server.")
    a.command("rm -f data/bbs.db* && ./sshbbs -addr=:2222", 1, "(eval):1: no matches found: data/bbs.db*")
    a.command("rm -f /tmp/frame_*.png ; git status", 1, "(eval):1: no matches found: /tmp/frame_*.png\nOn branch main")
    _done(a, "a")
    assert [g for g in _live(a, "gotcha") if "no matches found" in g] == ["Shell: (eval):1: no matches found: data/bbs.db*"]


def test_a_refused_option_is_a_fact_until_a_later_session_runs_it(tmp_path):
    """macOS's BSD cat has no -A: worth knowing before the next session pipes through it."""
    root = make_root(tmp_path)
    a = Session(root, "a").start().prompt("Why does the banner misalign?")
    a.command("sed -n '637,640p' internal/tui/view.go | cat -A", 1, "cat: illegal option -- A\nusage: cat [-belnstuv]")
    _done(a, "a")
    assert _live(a, "gotcha") == ["cat -A is refused on this machine"]
    b = Session(root, "b").start().prompt("Show the tabs in the banner file.")
    b.command("cat -A internal/seed/banner.txt", 0, "Welcome$")
    _done(b, "b")
    assert _live(b, "gotcha") == []
