"""A known gotcha comes back the moment a command fails the same way (issue 25, point 5)."""

from __future__ import annotations

import json

from testing.consolidation import Session, cfg, consolidate, make_root
from testing.helpers import context, send

PUSH_ERR = ("fatal: The current branch feat/login has no upstream branch.\n"
            "To push the current branch and set the remote as upstream, use\n\n"
            "    git push --set-upstream origin feat/login\n")


def learnt(tmp_path):
    """Session 1: `git push` fails for want of an upstream; `git push -u origin feat/login` works."""
    root = make_root(tmp_path)
    s = Session(root, "first").start()
    s.prompt("push the login branch")
    s.command("git push", 128, PUSH_ERR)
    s.command("git push -u origin feat/login", 0, "branch 'feat/login' set up to track 'origin/feat/login'.")
    s.stop("Pushed.")
    assert consolidate(s.project, "first", cfg(s.project)).status == "consolidated"
    return root, s.project


def failure(proj, session, error=PUSH_ERR, command="git push"):
    return send("PostToolUseFailure", proj, session=session, tool_name="Bash",
                tool_input={"command": command}, error=f"Exit code 128\n{error}", tool_use_id="t1")


def test_the_worker_indexes_gotchas_with_a_way_round(tmp_path):
    _, project = learnt(tmp_path)
    (item,) = json.loads(open(project.gotcha_index_path).read())["items"]
    assert item["family"] == "git push" and "no upstream branch" in item["key"]
    assert "git push -u origin feat/login" in item["text"]


def test_the_same_failure_later_gets_its_way_round_once(tmp_path):
    root, _ = learnt(tmp_path)
    send("SessionStart", root, session="second", source="startup")
    note = context(failure(root, "second", PUSH_ERR.replace("feat/login", "fix/typo")))  # another branch: same key
    assert "git push -u origin feat/login" in note and "recalled facts" in note
    assert context(failure(root, "second")) == ""  # once per session


def test_another_failure_of_the_family_gets_nothing(tmp_path):
    root, _ = learnt(tmp_path)
    assert context(failure(root, "third", "error: failed to push some refs to 'origin'\n")) == ""
    assert context(failure(root, "third", PUSH_ERR, command="git pull")) == ""
