"""Knowledge a next session can act on, end to end through the real hooks (subprocesses).

Session 1: a build command fails and a variant works, a failing test is fixed by an edit,
the user corrects the agent, and the agent's task list is left half done. After the
offline consolidation, session 2's SessionStart shows each of them, once, in its group.
"""

from __future__ import annotations

import re

from testing.consolidation import cfg, consolidate, rows
from testing.helpers import context, send

from engram.config import Project


def bash(root, command: str, output: str, code: int = 0) -> None:
    if code == 0:
        send("PostToolUse", root, tool_name="Bash", tool_input={"command": command},
             tool_response={"stdout": output, "stderr": "", "interrupted": False})
    else:
        send("PostToolUseFailure", root, tool_name="Bash", tool_input={"command": command},
             error=f"Exit code {code}\n{output}")


def edit(root, rel: str, old: str, new: str) -> None:
    path = root / rel
    path.write_text(path.read_text().replace(old, new))
    send("PostToolUse", root, tool_name="Edit", tool_input={"file_path": str(path), "old_string": old,
                                                             "new_string": new},
         tool_response={"filePath": str(path), "structuredPatch": [
             {"oldStart": 2, "oldLines": 1, "newStart": 2, "newLines": 1, "lines": ["-" + old, "+" + new]}]})


def todos(root, items: list[tuple[str, str]]) -> None:
    send("PostToolUse", root, tool_name="TodoWrite",
         tool_input={"todos": [{"content": c, "status": s, "activeForm": c} for c, s in items]},
         tool_response={"oldTodos": [], "newTodos": []})


def session_one(root) -> None:
    send("SessionStart", root, source="startup")
    send("UserPromptSubmit", root, prompt="Add a total() helper to src/calc.py and make the build pass.")
    todos(root, [("Add total() to src/calc.py", "in_progress"), ("Document total() in README.md", "pending"),
                 ("Read the calc module", "completed")])
    bash(root, f"cd {root} && make build", "make: *** No rule to make target 'build'.  Stop.", code=2)
    bash(root, "make all 2>&1 | tail -5", "cc -o calc calc.c")
    bash(root, "pytest -q", "FAILED tests/test_calc.py::test_total - AssertionError\n1 failed, 3 passed in 0.1s",
         code=1)
    edit(root, "src/calc.py", "    return a + b", "    return a + b  # total")
    bash(root, "pytest -q", "4 passed in 0.1s")
    send("UserPromptSubmit", root, prompt="Why are you editing tests/test_calc.py? Don't touch the tests, fix the code.")
    todos(root, [("Add total() to src/calc.py", "in_progress"), ("Document total() in README.md", "pending"),
                 ("Read the calc module", "completed")])
    send("Stop", root, stop_hook_active=False, last_assistant_message="I left the tests alone.")


def groups(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = ""
    for line in text.split("\n")[1:]:
        if line.endswith(":") and not line.startswith("- "):
            current = line[:-1]
            out[current] = []
        elif line.startswith("- "):
            out[current].append(line)
    return out


def test_next_session_starts_with_each_piece_of_knowledge_once_in_its_group(proj, monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")  # the test consolidates itself, in process
    session_one(proj)
    project = Project.from_cwd(str(proj))
    assert consolidate(project, "s1", cfg(project)).status == "consolidated"

    text = context(send("SessionStart", proj, session="s2", source="startup"))
    g = groups(text)
    expected = {
        "Where we left off": ["Add total() to src/calc.py (in progress)", "Document total() in README.md"],
        "Commands that work": ["`make all` builds the project", "`pytest -q` runs the tests"],
        "Known problems": ["`make build` fails: make: *** No rule to make target 'build'. Stop.; `make all` worked",
                           "`pytest -q`: 1 failing test(s) (tests/test_calc.py::test_total). Fixed by changing "
                           "src/calc.py; `pytest -q` then passed"],
        "Decisions and instructions": ["Don't touch the tests, fix the code.",
                                       "Why are you editing tests/test_calc.py?"],
    }
    for group, needles in expected.items():
        assert group in g, f"no {group!r} group in:\n{text}"
        body = "\n".join(g[group])
        for needle in needles:
            assert needle in body, f"{needle!r} not in {group!r}:\n{text}"
            assert text.count(needle) == 1, f"{needle!r} shown more than once:\n{text}"
    assert "Read the calc module" not in text  # a completed task is not unfinished
    assert "write(s)" not in text and "+1/-1" not in text  # no activity counts


def _cut_mid_word(clipped: str, source: str) -> bool:
    """`clipped` ends with an ellipsis where `source` goes on inside the same word."""
    if not clipped.endswith("…"):
        return False
    stem = clipped[:-1].rstrip()
    at = " ".join(source.split()).find(stem)
    rest = " ".join(source.split())[at + len(stem):] if at >= 0 else ""
    return bool(stem) and bool(rest) and stem[-1].isalnum() and rest[0].isalnum()


LONG_REPLY = ("The fixes have been pushed to https://github.com/acme/calc/pull/379 and the CI run at "
              "https://github.com/acme/calc/actions/runs/16795415969/job/47562 passes. " +
              "Parameterisation of totalisation internationalisation " * 40)


def test_long_replies_and_links_are_cut_at_words_and_named_not_pasted(proj, monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")  # the test consolidates itself, in process
    send("SessionStart", proj, source="startup")
    send("UserPromptSubmit", proj, prompt="Review https://github.com/acme/calc/pull/379#issuecomment-3161660588 "
         "and make the build pass with the totalisation fix " + "internationalisation " * 30)
    send("PostToolUse", proj, tool_name="WebFetch", tool_input={"url": "https://docs.example.com/calc/totals?x=1",
                                                                 "prompt": "how are totals rounded"},
         tool_response={"code": 200, "result": "Totals round half-even."})
    bash(proj, "npm run build 2>&1 | head -50", "built in 2s")
    send("Stop", proj, stop_hook_active=False, last_assistant_message=LONG_REPLY)
    project = Project.from_cwd(str(proj))
    assert consolidate(project, "s1", cfg(project)).status == "consolidated"

    for name, summary, desc in rows(project, "SELECT name, summary, description FROM nodes"):
        assert not _cut_mid_word(name, desc or ""), name
        assert not _cut_mid_word(summary or "", desc or ""), summary
        assert not (desc or "").endswith("…") or not _cut_mid_word(desc, LONG_REPLY), desc
    findings = [n for n, in rows(project, "SELECT name FROM nodes WHERE type = 'finding'")]
    assert [n for n in findings if n.startswith("After")] == ["After docs.example.com: The fixes have been pushed "
                                                               "to PR #379 and the CI run…"]
    # the reply after the build is the turn's closing report: the episode keeps it, the graph does not
    text = context(send("SessionStart", proj, session="s2", source="startup"))
    assert text and not re.search(r"https?://", text), text


def test_the_files_one_blocked_rm_left_are_one_line_and_not_also_a_known_problem(proj, monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    blocked = "Bash operation blocked by hook:\n- BLOCKED: Dangerous rm command detected and prevented"
    send("SessionStart", proj, source="startup")
    send("UserPromptSubmit", proj, prompt="Clean up the scratch files and run the tests.")
    bash(proj, "rm scratch.js scratch.mjs", blocked, code=2)
    bash(proj, "rm -f scratch.js scratch.mjs", blocked, code=2)  # the same error again: a gotcha, were it not carried
    bash(proj, "pytest -q", "4 passed in 0.1s")
    send("Stop", proj, stop_hook_active=False, last_assistant_message="The hook blocks rm; the files are still there.")
    project = Project.from_cwd(str(proj))
    assert consolidate(project, "s1", cfg(project)).status == "consolidated"
    assert len(rows(project, "SELECT id FROM nodes WHERE json_extract(data, '$.key') LIKE 'leftover:%'")) == 2

    text = context(send("SessionStart", proj, session="s2", source="startup"))
    lines = [ln for ln in text.split("\n") if "working tree" in ln]
    assert lines == ["- `scratch.js` and `scratch.mjs` are still in the working tree: `rm -f scratch.js scratch.mjs` "
                     "failed (Bash operation blocked by hook: - BLOCKED: Dangerous rm command detected and "
                     "prevented)."], text
    assert text.count("Dangerous rm command") == 1
