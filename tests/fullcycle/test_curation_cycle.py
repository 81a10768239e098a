"""Issue 27's independent check, end to end through subprocesses: the real hooks, `engram
consolidate`, `engram status --json`, `engram memory`, `engram view` (docs/curation.md).

Session 1 runs `make test` and `make lint` in a project whose Makefile has both targets.
Session 2 is shown both at SessionStart and runs `make test`: its payoff counts the use.
The `lint` target is then removed from the Makefile: session 3 is not served `make lint`.
"""

from __future__ import annotations

import json

from testing.helpers import context, engram, send

MAKEFILE = "test:\n\tpython -m unittest\n\nlint:\n\truff check .\n"


def bash(root, command: str, output: str, session: str) -> None:
    send("PostToolUse", root, session=session, tool_name="Bash", tool_input={"command": command},
         tool_response={"stdout": output, "stderr": "", "interrupted": False})


def consolidated(root, session: str) -> None:
    """The session through `engram consolidate` (the Stop hook's worker may have done it already)."""
    res = engram("consolidate", "--session", session, "--project", str(root), "--provider", "offline", "--json")
    assert res.returncode == 0, res.stderr


def session(root, sid: str, *commands: str) -> str:
    """One session: its SessionStart context, the commands, a Stop; consolidated."""
    shown = context(send("SessionStart", root, session=sid, source="startup"))
    send("UserPromptSubmit", root, session=sid, prompt="Run the checks before the release.")
    for command in commands:
        bash(root, command, "Ran 3 tests in 0.01s\n\nOK" if "test" in command else "All checks passed!", sid)
    send("Stop", root, session=sid, stop_hook_active=False, last_assistant_message="The checks pass.")
    consolidated(root, sid)
    return shown


def status(root) -> dict:
    res = engram("status", "--json", "--project", str(root))
    assert res.returncode == 0, res.stderr
    (p,) = json.loads(res.stdout)["projects"]
    return p


def test_a_served_command_run_is_used_and_a_removed_target_is_no_longer_served(tmp_path):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "Makefile").write_text(MAKEFILE)
    session(root, "s1", "make test", "make lint")
    shown = session(root, "s2", "make test")
    assert "`make test`" in shown and "`make lint`" in shown
    payoff = status(root)["payoff"]
    assert payoff["sessions"] >= 1 and payoff["injected"] >= 2 and payoff["used"] >= 1 and payoff["words"] > 0
    line = engram("status", "--project", str(root)).stdout
    assert "payoff: last" in line and "used" in line

    (root / "Makefile").write_text("test:\n\tpython -m unittest\n")  # the lint target is gone
    shown = context(send("SessionStart", root, session="s3", source="startup"))
    assert "`make test`" in shown and "make lint" not in shown
    listed = json.loads(engram("memory", "list", "--json", "--project", str(root)).stdout)
    (lint,) = [r for r in listed if r["name"] == "make lint"]
    assert lint["evidence"]["holds"] is False and "lint" in lint["evidence"]["broken"]
    (test,) = [r for r in listed if r["name"] == "make test"]
    assert test["used"] >= 1 and test["injected"] >= 1 and test["last_used"]


def test_memory_list_ids_are_accepted_by_pin_and_show_and_the_page_shows_the_items(tmp_path):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "Makefile").write_text(MAKEFILE)
    session(root, "s1", "make test", "make lint")
    res = engram("memory", "list", "--json", "--project", str(root))
    assert res.returncode == 0, res.stderr
    items = json.loads(res.stdout)
    assert items and all(r["id"].startswith("n_") for r in items)
    target = next(r for r in items if r["name"] == "make lint")
    assert engram("memory", "pin", target["id"], "--project", str(root)).returncode == 0
    shown = engram("memory", "show", target["id"], "--json", "--project", str(root))
    assert shown.returncode == 0 and json.loads(shown.stdout)["pinned"] is True
    assert [c["action"] for c in json.loads(shown.stdout)["changes"]] == ["pin"]
    bad = engram("memory", "show", "n_nosuchitem", "--project", str(root))
    assert bad.returncode == 1 and len(bad.stderr.strip().splitlines()) == 1 and "n_nosuchitem" in bad.stderr

    out = tmp_path / "memory.html"
    res = engram("view", "--out", str(out), "--project", str(root))
    assert res.returncode == 0 and res.stdout.strip() == str(out)
    page = out.read_text()
    assert "make lint" in page and "make test" in page and target["id"] in page
    for loads in ("<script", "<link", "src=", "href=", "@import", "url("):
        assert loads not in page  # self-contained: nothing is fetched
