"""A write's check runs detached; its warning arrives one hook late, exactly once (real hook processes)."""

from __future__ import annotations

import os

from testing.monitor import answer, checker_running, context, edit, env, pending, prompt, read, REDIS, run_checks, wait_for
from engram.monitor import trigger, worker
from testing.helpers import events, run_hook


def _warning_queued(project, session: str = "s1"):
    cs = project.state(session).get("contradiction") or {}
    return cs.get("queue")


def _types(project, session: str = "s1") -> list[str]:
    return [e["type"] for e in events(project.root, session)]


def test_warning_is_delivered_on_the_next_tool_call_exactly_once(project):
    project.decision(REDIS, ["jobs/queue.py"])
    project.write("jobs/queue.py", "import json\n")
    r = run_hook("PostToolUse", edit(project.root, "jobs/queue.py", "import json", "import json\nimport redis"))
    assert r.returncode == 0 and context(r.stdout) == ""  # never on the write's own hook
    wait_for(lambda: _warning_queued(project), what="the detached checker's warning")
    warning = next(e for e in events(project.root, "s1") if e["type"] == "contradiction_warning")
    assert warning["verdict"] == "DIRECT_CONTRADICTION" and warning["ref"] == 1
    assert warning["matches"][0]["text"] == "import redis" and warning["checker"] == "offline"

    second = context(run_hook("PostToolUse", read(project.root, "jobs/queue.py")).stdout)
    assert "may contradict a recorded decision" in second
    assert f'Decision: "{REDIS}"' in second and "`import redis`" in second
    assert "advisory and you may override it, but acknowledge it" in second
    third = context(run_hook("PostToolUse", read(project.root, "jobs/queue.py")).stdout)
    assert "contradict" not in third
    delivered = [e for e in events(project.root, "s1") if e["type"] == "contradiction_delivered"]
    assert [(d["ref"], d["via"]) for d in delivered] == [(warning["seq"], "tool_calls")]


def test_warning_waits_for_the_next_prompt_when_the_turn_ended(project):
    project.decision(REDIS, ["jobs/queue.py"])
    run_hook("PostToolUse", edit(project.root, "jobs/queue.py", "", "import redis"))
    wait_for(lambda: _warning_queued(project), what="the warning")
    out = context(run_hook("UserPromptSubmit", prompt(project.root, "continue")).stdout)
    assert "may contradict a recorded decision" in out
    assert [e["via"] for e in events(project.root, "s1") if e["type"] == "contradiction_delivered"] == ["prompt"]
    assert "contradict" not in context(run_hook("PostToolUse", read(project.root, "jobs/queue.py")).stdout)


def test_the_hook_returns_while_the_checker_is_still_working(llm, project, monkeypatch):
    """The API answers after a second; the write's hook has long returned, the checker holds its lock."""
    project.decision(REDIS, ["jobs/queue.py"])
    llm.script("contradiction", dict(answer("INDIRECT_CONTRADICTION", "medium", "pika is another queue"), stall=1.5))
    api_env = env(ENGRAM_OFFLINE="", **llm.env("anthropic"))
    run_hook("PostToolUse", edit(project.root, "jobs/queue.py", "", "import pika"), env=api_env)
    wait_for(lambda: llm.counts["contradiction"] == 1, what="the checker's request")
    assert checker_running(project.p)  # detached and still waiting for the model
    assert "contradiction_warning" not in _types(project)
    wait_for(lambda: _warning_queued(project), what="the verdict")
    out = context(run_hook("PostToolUse", read(project.root, "jobs/queue.py"), env=api_env).stdout)
    assert "pika is another queue" in out and "checked by anthropic:claude-haiku-4-5" in out


def test_no_linked_decision_means_no_job_and_no_process(project):
    project.decision(REDIS, ["jobs/queue.py"])
    project.decision("Never use print for logging.", ["app/cli.py"], strength=0.2)  # below the threshold
    for rel in ("app/views.py", "app/cli.py"):
        run_hook("PostToolUse", edit(project.root, rel, "", 'import redis\nprint("x")'))
    assert os.path.exists(os.path.join(project.p.dir, trigger.CACHE))  # the lookup ran
    assert pending(project.p, "s1") == []
    assert not os.path.exists(trigger.pool(project.p).slot_path(0))  # no checker was ever started
    assert "checked" not in project.log()


def test_no_graph_means_nothing_at_all(project):
    os.unlink(project.p.db_path) if os.path.exists(project.p.db_path) else None
    run_hook("PostToolUse", edit(project.root, "jobs/queue.py", "", "import redis"))
    assert not os.path.exists(os.path.join(project.p.dir, trigger.CACHE))
    assert not os.path.exists(os.path.join(project.p.dir, trigger.CHECKS))


def test_a_changed_graph_is_seen_by_the_next_write(project):
    run_hook("PostToolUse", edit(project.root, "jobs/queue.py", "", "import json"))
    project.decision(REDIS, ["jobs/queue.py"])  # a consolidation adds the decision
    run_hook("PostToolUse", edit(project.root, "jobs/queue.py", "", "import redis"))
    wait_for(lambda: _warning_queued(project), what="a warning after the graph changed")


def test_a_compliant_write_is_checked_and_passes_silently(project):
    project.decision(REDIS, ["jobs/queue.py"])
    run_hook("PostToolUse", edit(project.root, "jobs/queue.py", "", "# not Redis: see the decision"))
    wait_for(lambda: "NO_CONTRADICTION" in project.log(), what="the check's log line")
    assert "contradiction_warning" not in _types(project)
    assert "contradict" not in context(run_hook("PostToolUse", read(project.root, "jobs/queue.py")).stdout)
