"""The injected text: grouped by kind in a fixed order, each node once, within the budget."""

from __future__ import annotations

import pytest

from engram.retrieve import sections, tiers


def _node(i: int, **kw) -> dict:
    base = {"id": f"n{i:03d}", "name": f"node {i}", "type": "finding", "summary": f"summary {i}",
            "description": f"The full description, number {i}. It has a second sentence.",
            "affected_files": '["src/a.py"]', "data": "{}", "updated_at": "t"}
    base.update(kw)
    return base


def test_groups_come_in_their_order_with_one_heading_each():
    items = [(_node(1, type="decision"), 0.9), (_node(2, data='{"kind": "command"}', description="`make` builds"), 1.0),
             (_node(3, data='{"kind": "unfinished"}', description="PR #3 open", affected_files="[]"), 1.0),
             (_node(4, type="error"), 0.9), (_node(5, data='{"kind": "command"}', description="`make test` tests"), 1.0)]
    text, shown = sections.render(items, 1000, "H")
    assert text.split("\n") == [
        "H", "Where we left off:", "- PR #3 open", "Commands that work:", "- `make` builds", "- `make test` tests",
        "Known problems:", "- node 4 — The full description, number 4. It has a second sentence. [files: src/a.py]",
        "Decisions and instructions:",
        "- node 1 — The full description, number 1. It has a second sentence. [files: src/a.py]"]
    assert len(shown) == 5


def test_each_tier_renders_its_form_and_names_go_last():
    text, shown = sections.render([(_node(1), 0.9), (_node(2), 0.5), (_node(3), 0.2)], 1000, "H")
    lines = text.split("\n")
    assert lines[:2] == ["H", "Also known:"]
    assert "The full description, number 1. It has a second sentence." in lines[2]
    assert lines[3].startswith("- node 2 — summary 2")
    assert lines[4].startswith(tiers.LOW_PREFIX) and "node 3" in lines[4]
    assert shown == [("n001", tiers.FULL), ("n002", tiers.SUMMARY), ("n003", tiers.LOW)]


def test_a_node_is_shown_once():
    n = _node(1)
    text, shown = sections.render([(n, 0.9), (n, 0.9)], 1000, "H")
    assert text.count("node 1") == 1 and shown == [("n001", tiers.FULL)]


def test_a_command_seen_working_is_not_also_listed_as_run_without_a_status():
    work = _node(1, name="bun test", data='{"kind": "command"}', description="`bun test` runs the tests")
    run = _node(2, name="bun test (exit status not recorded)", data='{"kind": "command_run", "command": "bun test"}')
    other = _node(3, name="bun run e2e (exit status not recorded)", data='{"kind": "command_run", "command": "bun run e2e"}')
    text, shown = sections.render([(work, 1.0), (run, 1.0), (other, 1.0)], 1000, "H")
    assert text.count("bun test") == 1 and "`bun run e2e`" in text and "n002" not in {i for i, _ in shown}


def test_a_check_failing_at_the_end_of_a_session_is_not_also_a_known_problem():
    left = _node(1, name="Failing at the end: bun run lint", data='{"kind": "unfinished", "key": "check:bun run lint"}',
                 description="`bun run lint` was failing when the session ended: Found 2 errors.")
    err = _node(2, name="`bun run lint` failed (exit 1): Found 2 errors.", type="error")
    other = _node(3, name="`bun run build` failed (exit 1): TS2304", type="error")
    text, shown = sections.render([(left, 1.0), (err, 0.9), (other, 0.9)], 1000, "H")
    assert [i for i, _ in shown] == ["n001", "n003"] and text.count("Found 2 errors") == 1


def test_of_the_forms_of_one_command_working_in_one_folder_the_first_is_said():
    def cmd(i: int, name: str, where: str = "") -> tuple[dict, float]:
        folder = f" (in `{where}`)" if where else ""
        return _node(i, name=name, data='{"kind": "command"}', description=f"`{name}` runs the tests{folder}."), 1.0

    items = [cmd(1, "uv run pytest -v", "api"), cmd(2, "uv run pytest -x -q", "api"), cmd(3, "uv run pytest -q", "web"),
             cmd(4, "uv run ruff check", "api"), cmd(5, 'PATH="/opt/uv/bin:$PATH" uv run pytest', "api"),
             cmd(6, "xcodebuild build -scheme App", "ios"), cmd(7, "xcodebuild -scheme App build", "ios")]
    text, shown = sections.render(items, 1000, "H")
    assert [i for i, _ in shown] == ["n001", "n003", "n004", "n006"] and "-x -q" not in text and "PATH=" not in text


def test_shares_leave_room_for_every_group_before_the_rest():
    """Thirty long commands first in the ranking cannot take a later group's share."""
    cmds = [(_node(i, data='{"kind": "command"}', description=f"`cmd{i}` " + "word " * 20), 1.0) for i in range(30)]
    files = [(_node(50 + i, data='{"kind": "file", "role": "the request handlers"}', name=f"src/f{i}.py",
                    description="the request handlers"), 1.0) for i in range(3)]
    text, _ = sections.render(cmds + files + [(_node(99, type="decision"), 0.9)], 500, "H")
    assert "Decisions and instructions:" in text and "Files:" in text
    assert tiers.tokens(text) <= 500


def test_files_whose_description_says_nothing_more_share_one_line():
    named = [(_node(i, data='{"kind": "file"}', name=f"src/m{i}.py", description=f"src/m{i}.py: changed"), 1.0)
             for i in range(3)]
    role = [(_node(9, data='{"kind": "file", "role": "the job queue"}', name="src/q.py",
                   description="src/q.py: the job queue"), 1.0)]
    text, shown = sections.render(role + named, 1000, "H")
    assert text.split("\n")[1:] == ["Files:", "- src/q.py: the job queue",
                                     "- Also worked on: `src/m0.py`, `src/m1.py`, `src/m2.py`."]
    assert len(shown) == 4


def test_the_paths_kept_out_of_commits_share_one_line_and_a_name_said_is_not_said_again():
    kept = [(_node(i, type="finding", name=f"{p} is kept out of commits", affected_files="[]",
                   data=f'{{"kind": "gotcha", "key": "kept-out:{p}"}}', description=f"`{p}` stays untracked"), 1.0)
            for i, p in enumerate((".claude/", "ops/sessions/a.json"))]
    gotcha = [(_node(7, type="error", name="`npm ci` fails", affected_files="[]", description="`npm ci` fails: EACCES"), 1.0)]
    text, shown = sections.render(gotcha + kept, 1000, "H")
    assert text.split("\n")[1:] == ["Known problems:", "- `npm ci` fails: EACCES",
                                     "- Kept out of commits (unstaged, or left untracked): `.claude/`, `ops/sessions/a.json`."]
    assert dict(shown)["n000"] == tiers.FULL  # its name is all it shows: a later prompt does not repeat it


@pytest.mark.parametrize("budget", [20, 50, 120, 400])
def test_token_budget_is_respected(budget):
    items = [(_node(i, description="word " * 80), 0.9 - i * 0.001) for i in range(60)]
    text, shown = sections.render(items, budget, "Header line")
    if text is not None:
        assert tiers.tokens(text) <= budget
    assert len(shown) < 60


def test_entries_that_do_not_fit_are_demoted_before_dropped():
    big = _node(1, description="x " * 400)
    text, shown = sections.render([(big, 0.9)], 70, "H")
    assert shown == [("n001", tiers.SUMMARY)]
    assert tiers.tokens(text) <= 70


def test_render_is_deterministic():
    items = [(_node(i), 0.5) for i in range(10)]
    assert sections.render(items, 200, "H") == sections.render(list(items), 200, "H")


def test_nothing_fits_gives_none():
    assert sections.render([(_node(1), 0.9)], 2, "a long header that eats the budget") == (None, [])


def test_the_files_one_failed_rm_left_share_one_line_and_all_count_as_shown():
    def left(i: int, path: str, command: str = "rm a.js b.js") -> dict:
        data = ('{"kind": "unfinished", "key": "leftover:%s", "path": "%s", "command": "%s", "error": "blocked"}'
                % (path, path, command))
        return _node(i, name=f"Left in the working tree: {path}", data=data, affected_files="[]",
                     description=f"`{path}` is still in the working tree: `{command}` failed (blocked).")
    items = [(left(2, "b.js"), 1.0), (left(1, "a.js"), 1.0), (left(3, "c.js", "rm c.js"), 1.0)]
    text, shown = sections.render(items, 1000, "H")
    assert text.split("\n")[1:] == ["Where we left off:", "- `a.js` and `b.js` are still in the working tree: `rm a.js b.js` "
                                    "failed (blocked).", "- `c.js` is still in the working tree: `rm c.js` failed "
                                    "(blocked)."]
    assert sorted(nid for nid, _ in shown) == ["n001", "n002", "n003"]


def test_a_subagent_mentioned_once_is_never_shown():
    mention = _node(1, type="decision", name="Use @agent-debug", data='{"kind": "mention"}')
    text, shown = sections.render([(mention, 1.0), (_node(2), 0.9)], 1000, "H")
    assert "@agent-debug" not in text and shown == [("n002", tiers.FULL)]


def test_the_closing_names_line_ends_with_one_full_stop():
    text, _ = sections.render([(_node(2), 0.2), (_node(1, name="Make sure to run the tests."), 0.2)], 1000, "H",
                              low_prefix="Weaker matches: ")
    assert text.split("\n")[-1] == "Weaker matches: node 2; Make sure to run the tests."
