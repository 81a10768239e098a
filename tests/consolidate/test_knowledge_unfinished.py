"""What a session left open, and the user's words: read off events, no model."""

from __future__ import annotations

import pytest

from engram.consolidate.knowledge import unfinished, user_words


def _shell(seq: int, command: str, code: int = 0, output: str = "", type: str = "command", **kw) -> dict:
    return {"seq": seq, "type": type, "command": command, "exit_code": code, "output": output, **kw}


def _prompt(seq: int, text: str) -> dict:
    return {"seq": seq, "type": "user_prompt", "prompt": text, "ts": "2026-11-30T09:00:00Z"}


def test_a_check_failing_at_the_end_is_open_one_passing_closes_its_key():
    events = [_shell(1, "pytest -q", 1, "", type="test_run", recognized=True, passed=2, failed=1, outcome="fail",
                     failing_tests=["t::a"]),
              _shell(2, "npm run build", 0, "", type="build"),
              _shell(3, "npm test a.ts", 1, "sh: vitest: command not found", type="test_run", recognized=False,
                     outcome="fail")]
    failing, passing = unfinished.checks(events)
    assert [(f["key"], f["what"]) for f in failing] == [("check:pytest -q", "1 failing test(s): t::a")]
    assert passing == ["check:npm run build"]  # `npm test` did not run: a gotcha, not an open check


def test_a_type_check_run_as_a_plain_command_is_a_check_too():
    out = 'src/app/router.py:23: error: Library stubs not installed for "yaml"  [import-untyped]\nFound 1 error'
    events = [_shell(1, "uv run mypy src/app/router.py 2>&1", 1, out), _shell(2, "git status", 0, "clean")]
    failing, passing = unfinished.checks(events)
    assert [(f["command"], f["what"]) for f in failing] == [
        ("uv run mypy", 'src/app/router.py:23: error: Library stubs not installed for "yaml" [import-untyped]')]
    assert unfinished.checks(events + [_shell(3, "uv run mypy src/", 0, "Success")])[1] == ["check:uv run mypy"]


def test_a_check_run_again_with_no_status_recorded_is_not_known_to_fail_at_the_end():
    """An export that records no status: the build failed ("Failed to compile.", read from its
    output), then ran again, how that run ended not shown. It may have passed: not "failing"."""
    failed = _shell(1, "npm run build", 1, "Failed to compile.", type="build")
    again = _shell(2, "npm run build", None, "Creating an optimized production build ...", type="build")
    assert unfinished.checks([failed, again]) == ([], [])
    assert unfinished.checks([failed])[0][0]["key"] == "check:npm run build"


def test_a_failed_chain_says_nothing_about_which_part_failed():
    events = [_shell(1, "npm run lint && npm run build", 1, "error", type="build")]
    assert unfinished.checks(events) == ([], [])


def test_the_last_task_list_gives_the_open_items():
    lists = [{"seq": 1, "type": "todos", "items": [{"text": "a", "status": "pending"}]},
             {"seq": 2, "type": "todos", "items": [{"text": "a", "status": "completed"},
                                                   {"text": "b", "status": "in_progress"},
                                                   {"text": "c", "status": "cancelled"}]}]
    todo, had = unfinished.todos(lists)
    assert had and todo["text"] == "b (in progress)"
    done = lists[:1] + [{"seq": 3, "type": "todos", "items": [{"text": "a", "status": "completed"}]}]
    assert unfinished.todos(done) == (None, True)


def test_pull_requests_open_until_merged_closed_or_their_branch_deleted():
    created = "https://github.com/o/r/pull/{n}\n"
    events = [_shell(1, "git checkout -b fix/a"), _shell(2, "git push -u origin fix/a"),
              _shell(3, 'gh pr create -t "Fix A" -b "body"', 0, created.format(n=7)),
              _shell(4, "git checkout -b fix/b"), _shell(5, 'gh pr create --title "Fix B"', 0, created.format(n=8)),
              _shell(6, "gh pr merge 8 --squash"),
              _shell(7, "git checkout -b fix/c"), _shell(8, "gh pr create -t C", 0, created.format(n=9)),
              _shell(9, "git push origin --delete fix/c")]
    opened, closed = unfinished.pull_requests(events)
    assert [(p["number"], p["branch"], p["title"]) for p in opened] == [("7", "fix/a", "Fix A")]
    assert opened[0]["alias"] == "pr-branch:fix/a"
    assert closed == ["pr:8", "pr-branch:fix/c"]


def test_a_file_whose_rm_failed_stays_until_a_later_rm_or_mv_succeeds():
    hook = "Bash operation blocked by hook: Dangerous rm command"
    events = [_shell(1, "rm scratch.js tmp.mjs", 1, hook)]
    left, _ = unfinished.leftovers(events)
    assert [f["path"] for f in left] == ["scratch.js", "tmp.mjs"] and "blocked by hook" in left[0]["error"]
    left, removed = unfinished.leftovers(events + [_shell(2, "mv scratch.js /tmp/")])
    assert [f["path"] for f in left] == ["tmp.mjs"] and removed == ["leftover:scratch.js"]


def test_the_last_request_and_whether_it_was_answered():
    asked = [_prompt(1, "fix the parser"), {"seq": 2, "type": "turn_complete", "tool_calls": 3, "agent_summary": "Done"},
             _prompt(3, "now review https://github.com/o/r/pull/12 please")]
    last = unfinished.last_request(asked)
    assert last["text"] == "now review PR #12 please" and not last["replied"]
    answered = asked + [{"seq": 4, "type": "turn_complete", "tool_calls": 0, "agent_summary": "Reviewed."}]
    assert unfinished.last_request(answered)["replied"]


def test_prompts_are_cleaned_and_trivial_ones_are_not_goals():
    assert user_words.clean_prompt("see https://github.com/o/r/issues/364#c1 │ and https://x.io/a?b") == \
        "see issue #364 and x.io"
    assert not user_words.substantive("ok continue")
    assert not user_words.substantive("yes lets do it")
    assert user_words.substantive("Add retries to the HTTP client")


def test_instructions_in_the_users_words():
    events = [_prompt(1, "Why are you editing the tests? Never touch the fixtures. Use @agent-reviewer for this."),
              _prompt(2, "We should use httpx instead of requests.")]
    found = {i["name"]: i for i in user_words.instructions(events)}
    assert found["Why are you editing the tests?"]["explicit"] is False
    assert found["@agent-reviewer"]["agent"] and found["@agent-reviewer"]["text"] == "Use @agent-reviewer for this."
    assert found["@agent-reviewer"]["kind"] == "mention"  # one-off: "for this" is not a rule
    assert "Never touch the fixtures." not in found  # a rule-shaped decision: decision_text records it
    assert not any("httpx" in name for name in found)


def test_a_pasted_block_and_the_sentence_handing_it_over_are_no_instructions():
    log = ("Fix it. Use recent output from `.specstory` as context:\n```\n== warnings ==\nMake sure x is set\n```\n"
           "Going forward, run the linter before you push.")
    assert [i["name"] for i in user_words.instructions([_prompt(1, log)])] == ["Going forward, run the linter before you push."]


@pytest.mark.parametrize("sentence,explicit", [("Next time you made changes to the code, let me commit.", True),
                                               ("Going forward, run the linter before you push.", True),
                                               ("In the future ask before deleting migrations.", False)])
def test_a_rule_for_next_time_is_an_instruction(sentence, explicit):
    (found,) = user_words.instructions([_prompt(1, f"Thanks, it works. {sentence}")])
    assert (found["name"], found["explicit"]) == (sentence, explicit)


@pytest.mark.parametrize("sentence,rule", [
    ("Again, everything has to be touch friendly.", True),  # of everything: the work, not one step
    ("This filter should be in context file, not in view itself.", True),  # one place against another
    ("Tests should live next to the module rather than in a tests folder.", True),
    ("The modal should close when clicking outside.", False),  # a task's spec
    ("It should not crash when I click save.", False),
    ("We need to add a button to the form.", False),
    ("So from now on every time I commit the tool will link our chat to the commit?", False),  # a question
    ("Why on earth did you reformat every file?", True),  # a reproach is a rule
    ("Why do you think the overlay is applied to the editor itself?", False),  # a question asking an opinion
    # the same in Spanish, Portuguese and Japanese
    ("NUNCA tenes que generar esto a mano.", True), ("Yo nunca te pedí que crees scripts.", True),
    ("Todas las tablas deben migrarse desde SPISA.", True), ("No funciona el build de nuevo.", False),
    ("Lembrando que todas as strings devem estar em Localizable.", True), ("Todos os testes passam agora.", False),
    ("コミットは必ず/commitスキルを使ってください。", True), ("今後はPRのタイトルを英語で書いて。", True),
    ("該当機体のモーダルをスマホ時には表示させないようにして。", False),  # one change asked for
    ("npm:react で monthly_downloads が常に 0 になっている。", False),  # "always" describing
    # German, French, Russian, Ukrainian and Chinese; "immer noch" and "toujours" also say "still"
    ("Verwende keine globalen Variablen.", True), ("Immer noch der gleiche Fehler im Build.", False),
    ("N'utilise jamais de print pour le logging.", True), ("Toujours le même problème avec le build.", False),
    ("Никогда не коммить файлы .env в репозиторий.", True), ("Все сервисы должны логировать в JSON.", True),
    ("Почини ошибку в контроллере заказов.", False), ("Ніколи не змінюй міграції вручну.", True),
    ("以后提交信息必须用英文写。", True), ("修复登录页面的错误。", False),
    ("このファイルは不要なので削除して。", False),  # 不要 in Japanese: "not needed"
])
def test_a_requirement_of_the_work_is_an_instruction_and_a_tasks_spec_is_not(sentence, rule):
    found = [i["name"] for i in user_words.instructions([_prompt(1, f"I looked at it. {sentence}")])]
    assert found == ([sentence] if rule else [])


@pytest.mark.parametrize("prompt,earlier,expected", [
    ("yes lets begin, make use of @agent-orchestrator and make sure to use branching appropriately", set(),
     [("make sure to use branching appropriately", "instruction", False), ("@agent-orchestrator", "mention", False)]),
    ("@agent-git-merge-pr-specialist", set(), [("@agent-git-merge-pr-specialist", "mention", False)]),
    ("continue with the @agent-debug-specialist", set(), [("@agent-debug-specialist", "mention", False)]),
    ("continue with the @agent-debug-specialist", {"@agent-debug-specialist"},
     [("@agent-debug-specialist", "instruction", False)]),  # named in an earlier session too
    ("Always use @agent-docs-architect for docs changes.", set(), [("@agent-docs-architect", "instruction", True)]),
    ("@agent-test-specialist make sure to run the offline suite first", set(),
     [("make sure to run the offline suite first", "instruction", False), ("@agent-test-specialist", "mention", False)]),
])
def test_a_mention_is_removed_and_the_rest_judged_and_alone_is_a_rule_only_when_phrased_or_repeated(
        prompt, earlier, expected):
    found = user_words.instructions([_prompt(1, prompt)], earlier)
    assert [(i["name"], i["kind"], i["explicit"]) for i in found] == expected


def test_an_unanswered_pasted_log_is_said_once_by_its_error_line():
    """A last prompt that is only a pasted test run, with no reply: "Last request … a pasted log: …
    the error", not the fence's first lines, and not again in what the last session asked."""
    from engram.consolidate.knowledge import nodes

    log = ("```\n    def run(self):\n        tx_item = self._tx.get()\n" + "        pass\n" * 30 +
           "E               sqlite3.OperationalError: table user_profiles has no column named first_name\n```")
    events = [_prompt(1, "Plan improvements to the context handling."),
              {"seq": 2, "type": "turn_complete", "agent_summary": "Here is the plan for the context.", "tool_calls": 0,
               "ts": "2026-11-30T09:01:00Z"}, _prompt(3, log)]
    assert unfinished.last_request(events)["text"] == ("a pasted log: … sqlite3.OperationalError: table user_profiles "
                                                       "has no column named first_name")
    descs = [p["description"] for p in nodes.unfinished_nodes(events)[0]]
    assert sum("no column named first_name" in d for d in descs) == 1


def test_a_request_that_pastes_a_log_is_said_by_its_words_and_the_first_error_line():
    values = ", ".join(f"col_{i}" for i in range(40))
    prompt = ("I'm getting this error. why? [2025-10-22 17:21:25] [23505]\n"
              f"[2025-10-22 17:21:25] Batch entry 10 INSERT INTO invoices ({values}) VALUES (2279) was aborted: "
              'ERROR: duplicate key value violates unique constraint "IX_invoices_invoice_number"\n'
              "[2025-10-22 17:21:25] Detail: Key (invoice_number)=(2164) already exists.")
    state = unfinished.last_session([_prompt(1, prompt)])
    assert state["asked"] == ["I'm getting this error. why? [2025-10-22 17:21:25] [23505] … ERROR: duplicate key "
                              'value violates unique constraint "IX_invoices_invoice_number"']
    plan = "Implement the following plan:\n# Plan: errors\n" + "Collect all errors in one prompt and retry. " * 8
    state = unfinished.last_session([_prompt(1, plan)])
    assert " … " not in state["asked"][0]  # prose about errors is no pasted log


def test_a_short_reply_that_only_announces_its_next_step_is_not_kept_as_a_passage():
    from engram.consolidate.knowledge import replies

    said = ["Perfect! Now let me run the seed script with the fixed columns:",
            "Let me check if the migration already exists:",
            "Let me know: the seed script failed because created_at was missing, fixed in seed.sql.",
            "The seed script failed because `created_at` was missing; seed.sql now sets both columns.",
            "Let me explain what changed: " + "the seed now sets created_at and updated_at on every row " * 3]
    events = [{"type": "turn_complete", "seq": i, "ts": "2026-01-01T00:00:00Z", "agent_summary": s}
              for i, s in enumerate(said)]
    assert [seq for seq, _, _ in replies.passages(events)] == [2, 3, 4]


@pytest.mark.parametrize("text,kept", [
    ("Entendido, aguardando suas instruções.", False),
    ("Now I have a complete picture. Let me write the plan.", False),
    ("Excellent research complete. Let me check the remaining two tests before writing it up.", False),
    ("Done. The ECOG scale maps to OMOP concept 4178962, and Karnofsky has no standard concept.", True),
])
def test_a_reply_of_acknowledgements_and_next_steps_says_nothing(text, kept):
    from engram.consolidate.knowledge import replies

    assert replies.says_something(text) is kept


def test_the_last_reply_is_the_last_that_says_something():
    from engram.consolidate.knowledge.unfinished import last_session

    events = [{"type": "user_prompt", "seq": 1, "prompt": "Fix the admin routes after the split"},
              {"type": "turn_complete", "seq": 2, "agent_summary": "The admin links now use the /admin prefix."},
              {"type": "turn_complete", "seq": 4, "agent_summary": "```"}]
    assert last_session(events)["ended"] == "The admin links now use the /admin prefix."
    assert last_session(events[:1] + [dict(events[1], agent_summary="Done.")])["ended"] == "Done."


def test_a_plan_handed_over_gives_no_rules():
    plan = ("Implement the following plan:\n\n# Plan: Move the completion prompt\n\n## Keep shared helpers in place\n"
            "Keep `promptShellCompletion` where it is. Make sure to call it from the new command only.")
    assert user_words.instructions([_prompt(1, plan)]) == []
    rule = "Make sure to run the tests before you say a change is done."
    assert [i["name"] for i in user_words.instructions([_prompt(2, rule)])] == [rule]


def test_a_pull_request_or_issue_the_tool_printed_merged_or_closed_is_not_open():
    created = "https://github.com/o/r/pull/{n}\n"
    events = [_shell(1, 'gh pr create -t "A"', 0, created.format(n=1)),
              _shell(2, 'gh pr create -t "B"', 0, created.format(n=2)),
              _shell(3, 'gh pr create -t "C"', 0, created.format(n=3)),
              _shell(4, "gh pr view 1 --repo o/r --json title,state", 0, '{"state":"MERGED","title":"A"}'),
              _shell(5, "gh pr list --state all", 0, "2\tB\tfix/b\tCLOSED\t2026-02-24T22:55:33Z\n"
                                                     "3\tC\tfix/c\tOPEN\t2026-02-24T22:56:00Z\n"),
              _shell(6, "gh pr view 3", 1, "state:\tMERGED")]  # a failed call says nothing
    opened, closed = unfinished.pull_requests(events)
    assert [p["number"] for p in opened] == ["3"] and closed == ["pr:1", "pr:2"]
    issued = [_shell(1, "gh issue create -t X", 0, "https://github.com/o/r/issues/12\n"),
              _shell(2, "gh issue view 12", 0, "title:\tX\nstate:\tCLOSED\n")]
    assert unfinished.issues(issued) == ([], ["issue:12"])


def test_a_pull_request_opened_in_another_repository_is_named_by_it():
    """`cd ~/other && gh pr create` or `gh pr create --repo o/other` opens another repository's PR:
    its number is not this one's, nor is the branch checked out here its branch."""
    events = [_shell(1, "git checkout -b fix/a"),
              _shell(2, 'cd ~/Development/shared && gh pr create --title "Add a check"', 0,
                     "https://github.com/o/shared/pull/2\n"),
              _shell(3, 'gh pr create -R o/tools -t "Tools"', 0, "https://github.com/o/tools/pull/5\n"),
              _shell(4, 'gh pr create -t "Fix A"', 0, "https://github.com/o/r/pull/2\n"),
              _shell(5, "gh pr merge 5 --repo o/tools")]
    opened, closed = unfinished.pull_requests(events)
    assert [(p["number"], p["branch"], p["title"]) for p in opened] == [("o/shared#2", "", "Add a check"),
                                                                        ("2", "fix/a", "Fix A")]
    assert closed == ["pr:o/tools#5"]
    opened, _ = unfinished.pull_requests(events + [_shell(6, "cd /src/shared && gh pr merge 2")])
    assert [p["number"] for p in opened] == ["2"]
    worktree = [_shell(1, "git checkout -b fix/w"),
                _shell(2, 'cd /src/app/.git/wt/fix-w && gh pr create -t "W"', 0, "https://github.com/o/app/pull/3\n"),
                _shell(3, 'cd ~/src/app/web && gh pr create -t "V"', 0, "https://github.com/o/app/pull/4\n")]
    opened, _ = unfinished.pull_requests(worktree, "/src/app")
    assert [p["number"] for p in opened] == ["3", "4"]  # a worktree of the project, the project from home
    assert [p["number"] for p in unfinished.pull_requests(worktree, "/home/me/src/site")[0]] == ["o/app#3", "o/app#4"]
    sibling = [_shell(1, 'cd /home/me/src/worktrees/core && gh pr create -t "C"', 0, "https://github.com/o/app/pull/5\n"),
               _shell(2, "cd /home/me/src/worktrees/core && gh pr merge 5")]
    assert unfinished.pull_requests(sibling[:1], "/home/me/src/app")[0][0]["number"] == "5"  # the repository's name
    assert unfinished.pull_requests(sibling, "/home/me/src/app") == ([], ["pr:5"])
    filed = [_shell(1, "cd ../shared && gh issue create -t Y", 0, "https://github.com/o/shared/issues/4\n"),
             _shell(2, "gh issue close 4")]
    assert unfinished.issues(filed) == ([{"key": "issue:o/shared#4", "number": "o/shared#4", "title": "Y",
                                          "evidence": [1]}], ["issue:4"])  # this repository's #4


def test_files_written_after_the_last_commit_are_the_projects_only():
    """A PR body written to /tmp or a plan under the home folder after the commit is no work left uncommitted."""
    events = [_shell(1, 'git commit -m "fix: links"'),
              {"seq": 2, "type": "file_write", "path": "/tmp/pr-body.md"},
              {"seq": 3, "type": "file_write", "path": "/Users/me/.claude/plans/plan.md"},
              {"seq": 4, "type": "file_write", "path": "../shared/skills/commit/SKILL.md"},
              {"seq": 5, "type": "file_write", "path": "C:/Users/me/notes.md"}]
    assert unfinished.uncommitted(events) == (None, True)
    pending, _ = unfinished.uncommitted(events + [{"seq": 6, "type": "file_write", "path": "App/Paywall.swift"}])
    assert pending["files"] == ["App/Paywall.swift"]


def test_a_branch_committed_on_and_not_seen_pushed_is_left_open():
    def run(seq: int, command: str, output: str = "", code: int = 0) -> dict:
        return {"seq": seq, "type": "command", "command": command, "exit_code": code, "output": output}

    events = [run(1, 'git commit -m "fix: the banner"', "[fix/issue-179 9a25469] fix: the banner\n 2 files changed"),
              run(2, 'git commit -m "chore: y"', "[main 1111111] chore: y"),
              run(3, "git push", "To github.com:o/r.git\n   0000000..1111111  main -> main"),
              run(4, 'git commit -m "feat: a"', "[feat/a 2222222] feat: a"),
              run(5, "git push -u origin feat/a", "! [rejected] feat/a -> feat/a (fetch first)", 1)]
    waiting, pushed = unfinished.unpushed(events)
    assert [(b["branch"], b["sha"], b["message"]) for b in waiting] == [
        ("fix/issue-179", "9a25469", "fix: the banner"), ("feat/a", "2222222", "feat: a")]
    assert pushed == ["unpushed:main"]
    waiting, pushed = unfinished.unpushed(events + [run(6, "git push -u origin feat/a")])
    assert [b["branch"] for b in waiting] == ["fix/issue-179"] and pushed[-1] == "unpushed:feat/a"
    forced = run(6, "git push --force-with-lease", "To github.com:o/r.git\n + 1a2b3c4...2222222 feat/a -> feat/a (forced update)")
    assert unfinished.unpushed(events + [forced])[1][-1] == "unpushed:feat/a"
    new = run(6, "git push -u", " * [new branch]      feat/a -> feat/a\nbranch 'feat/a' set up to track 'origin/feat/a'.")
    assert unfinished.unpushed(events + [new])[1][-1] == "unpushed:feat/a"
    opened = run(6, 'gh pr create --title "fix" --body "x" --head fix/issue-179', "https://github.com/o/r/pull/186")
    assert [b["branch"] for b in unfinished.unpushed(events + [opened])[0]] == ["feat/a"]



@pytest.mark.parametrize("command,output", [
    ("rm -f data/bbs.db* && ./sshbbs -addr=:2222", "(eval):1: no matches found: data/bbs.db*"),  # nothing to remove
    ("rm old.log", "rm: old.log: No such file or directory"),
    ("rm -f out.txt && go test ./...", "--- FAIL: TestX (0.01s)\nFAIL"),  # the tests failed, not the rm
])
def test_an_rm_with_nothing_to_remove_or_whose_line_failed_elsewhere_leaves_nothing(command, output):
    assert unfinished.leftovers([_shell(1, command, 1, output)]) == ([], [])
