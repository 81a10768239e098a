"""`engram decide` end to end (issue 14): the findings as a new user met them, through the CLI.

1. a valid decision silently retired by one about another subject sharing a technology;
2. decisions never decaying;
3. `engram maintain` retiring a decision about a file not written yet;
7. a decision not in the graph when saved, then ranked 10th for a question on its topic.
"""

from __future__ import annotations

import json
import math

import pytest

from engram.cli import main
from engram.config import Project
from engram.graph import store
from engram.graph.connect import connect
from engram.mcp.query_knowledge import query_knowledge
from testing.consolidation import Session, cfg, consolidate
from testing.helpers import events, payload, run_hook


@pytest.fixture
def root(proj, monkeypatch):
    for var in ("CLAUDECODE", "GEMINI_CLI"):  # a person's shell, not an agent's
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")  # the test consolidates each session itself
    monkeypatch.chdir(proj)
    return proj


def decide(text: str, *extra: str) -> None:
    assert main(["decide", text, *extra]) == 0


def nodes(project: Project, name: str) -> list[dict]:
    conn = connect(project.db_path)
    try:
        return store.find_by_name(conn, name, type="decision")
    finally:
        conn.close()


def query(question: str, capsys) -> list[dict]:
    capsys.readouterr()
    assert main(["query", question, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_decision_is_in_the_graph_at_once_and_first_for_its_subject(root, capsys):
    """Finding 7, with a graph that already knows the job queue from a session."""
    s = Session(root, "s1").start()
    s.prompt("Add a retry to the job queue worker.")
    s.write("src/job_queue.py", "class JobQueue:\n    retries = 3\n")
    s.stop("The job queue worker retries 3 times.")
    consolidate(s.project, "s1", cfg(s.project))
    decide("Use SQLite for the job queue", "--rationale", "one file, no server")
    (node,) = nodes(s.project, "Use SQLite for the job queue")  # no consolidation ran
    assert node["status"] == "active" and node["data"]["explicit"] is True
    assert node["data"]["statement"]["subject"] == ["job", "queu"]
    hits = query("what do we use for the job queue?", capsys)
    assert hits[0]["name"] == "Use SQLite for the job queue" and hits[0]["tier"] == "full"
    # its consolidation attaches the episode to the same node, and counts no second statement
    consolidate(s.project, "cli", cfg(s.project))
    (after,) = nodes(s.project, "Use SQLite for the job queue")
    assert after["id"] == node["id"] and len(after["source_episodes"]) == 1 and after["episode_count"] == 0
    assert after["strength"] == pytest.approx(0.85)


def test_a_decision_about_another_subject_keeps_the_first_active_and_linked(root, capsys):
    """Finding 1: a shared technology alone does not retire a decision."""
    decide("Use Redis for the HTTP response cache")
    decide("Use SQLite instead of Redis for the job queue")
    project = Project.from_cwd(str(root))
    (cache,) = nodes(project, "Use Redis for the HTTP response cache")
    (queue,) = nodes(project, "Use SQLite instead of Redis for the job queue")
    assert cache["status"] == "active" and cache["strength"] == pytest.approx(0.85)
    assert main(["show", cache["id"]]) == 0
    shown = capsys.readouterr().out
    assert "similar_to" in shown and "related decision: both name redis" in shown
    decide("Switch the HTTP response cache to Memcached")  # the same subject, another choice
    (cache,) = nodes(project, "Use Redis for the HTTP response cache")
    assert cache["status"] == "superseded" and nodes(project, queue["name"])[0]["status"] == "active"
    assert main(["show", cache["id"]]) == 0
    history = capsys.readouterr().out
    assert "superseded: chooses memcached instead of redis: Switch the HTTP response cache" in history


def test_decisions_decay_by_the_formula(root):
    """Finding 2: ten sessions that do not touch a decision lower it (at half the spec's rate)."""
    decide("Use SQLite for the job queue")
    project = Project.from_cwd(str(root))
    consolidate(project, "cli", cfg(project))
    s = Session(root, "s0").start()
    s.prompt("Tidy the calculator.")
    s.write("src/calc.py", "def add(a, b):\n    return b + a\n")
    s.stop("Done.")
    consolidate(project, "s0", cfg(project))
    for i in range(1, 11):
        s = Session(root, f"s{i}").start()
        s.prompt(f"Write notes number {i}.")
        s.write(f"notes/n{i}.md", f"note {i}\n")
        s.stop("Done.")
        consolidate(project, f"s{i}", cfg(project))
    (decision,) = nodes(project, "Use SQLite for the job queue")
    conn = connect(project.db_path)
    concept = store.find_by_name(conn, "src/calc.py")[0]
    conn.close()
    assert decision["sessions_without_reinforcement"] == 11 and concept["sessions_without_reinforcement"] == 10
    assert decision["strength"] == pytest.approx(0.85 * math.exp(-0.05 * 11))  # 0.49
    assert concept["strength"] == pytest.approx(math.exp(-0.1 * 10))  # 0.37


def test_maintain_keeps_a_decision_about_a_file_not_written_yet(root, capsys):
    """Finding 3: the nightly `engram maintain` must not retire it."""
    decide("Use SQLite for the job queue", "--files", "jobs/queue.py")
    project = Project.from_cwd(str(root))
    consolidate(project, "cli", cfg(project))
    assert main(["maintain"]) == 0
    assert "1 kept (their files were never seen in this project)" in capsys.readouterr().out
    assert nodes(project, "Use SQLite for the job queue")[0]["status"] == "active"
    s = Session(root, "s1").start()  # the file is written, then deleted: now it is gone
    s.write("jobs/queue.py", "QUEUE = 'sqlite'\n")
    s.stop("Done.")
    consolidate(project, "s1", cfg(project))
    (root / "jobs" / "queue.py").unlink()
    assert main(["maintain"]) == 0
    (node,) = nodes(project, "Use SQLite for the job queue")
    assert node["status"] == "superseded"
    assert "affected files no longer exist: jobs/queue.py" in node["data"]["history"][-1]["reason"]


def test_a_secret_in_a_decision_never_reaches_the_graph(root):
    key = "sk-ant-api03-" + "x" * 40
    decide(f"Use the staging key {key} for smoke tests", "--rationale", f"token={key}")
    conn = connect(Project.from_cwd(str(root)).db_path)
    try:
        rows = conn.execute("SELECT name, description, summary, data FROM nodes").fetchall()
    finally:
        conn.close()
    dump = repr(rows)
    assert key not in dump and "Use the staging key [REDACTED]" in dump


def test_a_decision_stated_in_a_prompt_is_queried_before_its_consolidation(root, capsys):
    """Finding 7 for a decision recognised in the stream: the query reads it from the events."""
    s = Session(root, "s1").start()
    s.prompt("Let's use SQLite for the job queue. Then add the worker.")
    hits = query("what do we use for the job queue?", capsys)
    assert (hits[0]["name"], hits[0]["why"]) == ("Let's use SQLite for the job queue.", "pending")
    assert "not consolidated yet" in hits[0]["line"]
    s.stop("Done.")
    consolidate(s.project, "s1", cfg(s.project))
    hits = query("what do we use for the job queue?", capsys)
    assert hits[0]["name"] == "Let's use SQLite for the job queue." and hits[0]["why"] != "pending"
    assert [h["why"] for h in hits].count("pending") == 0


# -- a replacement survives its consolidation (audit of issue 14, defect A) ---------------------

QUEUE_OLD, QUEUE_NEW = "Use RabbitMQ for the job queue", "Use Redis instead of RabbitMQ for the job queue"


def _replaced(project: Project) -> None:
    """The older decision ends superseded by the newer, which ends active and answers the query."""
    (old,) = nodes(project, QUEUE_OLD)
    (new,) = nodes(project, QUEUE_NEW)
    assert (old["status"], new["status"]) == ("superseded", "active")
    assert old["superseded_by"] == new["id"]
    assert not [h for h in old["data"]["history"] if h["event"] == "unsuperseded"]


def test_a_replacement_stays_after_engram_consolidate(root, capsys):
    decide(QUEUE_OLD)
    decide(QUEUE_NEW)
    assert main(["consolidate"]) == 0
    project = Project.from_cwd(str(root))
    _replaced(project)
    (old,) = nodes(project, QUEUE_OLD)
    assert len(old["source_episodes"]) == 1  # its statement's episode is attached all the same
    hits = query("what do we use for the job queue?", capsys)
    assert hits[0]["name"] == QUEUE_NEW
    assert QUEUE_OLD not in [h["name"] for h in hits]


def _cli(root, *args: str, **env: str) -> None:
    import os
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "engram", *args], cwd=str(root), capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=60)
    assert done.returncode == 0, done.stderr


def _hook(root, session: str, event: str, **fields) -> None:
    done = run_hook(event, payload(event, session, root, **fields), "--harness", "claude-code")
    assert done.returncode == 0 and not done.stderr, done.stderr


def _agent_decides(root, session: str, *texts: str) -> None:
    """An agent session running `engram decide` through its Bash tool (CLAUDECODE=1 in its
    shell), each call seen by the PostToolUse hook, then the end of the turn."""
    import shlex

    _hook(root, session, "SessionStart", source="startup")
    _hook(root, session, "UserPromptSubmit", prompt="Record our job queue decisions in engram.")
    for text in texts:
        cmd = "engram decide " + shlex.quote(text)
        _cli(root, "decide", text, CLAUDECODE="1")
        _hook(root, session, "PostToolUse", tool_name="Bash", tool_input={"command": cmd},
              tool_response={"stdout": f"Decision recorded: {text}", "stderr": "", "interrupted": False})
    _hook(root, session, "Stop", stop_hook_active=False, last_assistant_message="Recorded both.")


def test_a_replacement_stays_after_an_agent_session_decides_twice(root, capsys):
    """Both `engram decide` calls in one agent session, consolidated by the worker its Stop queued."""
    _agent_decides(root, "agent-1", QUEUE_OLD, QUEUE_NEW)
    project = Project.from_cwd(str(root))
    assert [e["content"] for e in events(root, "agent-1") if e["type"] == "decision"] == [QUEUE_OLD, QUEUE_NEW]
    _cli(root, "worker", "--project", str(root))
    _replaced(project)
    assert query("what do we use for the job queue?", capsys)[0]["name"] == QUEUE_NEW


def test_a_replacement_stays_when_a_later_agent_session_consolidates_the_cli_session(root, capsys):
    """A person decides twice; the next agent session's SessionStart queues the `cli` session."""
    decide(QUEUE_OLD)
    decide(QUEUE_NEW)
    _hook(root, "agent-2", "SessionStart", source="startup")
    _cli(root, "worker", "--project", str(root))
    project = Project.from_cwd(str(root))
    (old,) = nodes(project, QUEUE_OLD)
    assert old["source_episodes"], "the worker consolidated the cli session"
    _replaced(project)
    assert query("what do we use for the job queue?", capsys)[0]["name"] == QUEUE_NEW


def test_the_later_of_two_statements_in_one_session_wins(root, capsys):
    """Supersession in evidence order: the first statement of the range does not retire the second."""
    s = Session(root, "s1").start()
    s.prompt("Let's use RabbitMQ for the job queue.")
    s.stop("Noted.")
    s.prompt(QUEUE_NEW + ".")
    s.stop("Switched.")
    consolidate(s.project, "s1", cfg(s.project))
    (old,) = nodes(s.project, "Let's use RabbitMQ for the job queue.")
    (new,) = nodes(s.project, QUEUE_NEW + ".")
    assert (old["status"], new["status"], old["superseded_by"]) == ("superseded", "active", new["id"])


def test_a_session_consolidated_after_a_later_decide_does_not_retire_it(root, capsys):
    """Ordered by when each was stated: a prompt made before `engram decide` is the older one,
    however late its session is consolidated."""
    s = Session(root, "s1").start()
    s.prompt("Let's use RabbitMQ for the job queue.")
    decide(QUEUE_NEW)
    s.stop("Noted.")
    consolidate(s.project, "s1", cfg(s.project))
    (old,) = nodes(s.project, "Let's use RabbitMQ for the job queue.")
    (new,) = nodes(s.project, QUEUE_NEW)
    assert (old["status"], new["status"], old["superseded_by"]) == ("superseded", "active", new["id"])
    assert query("what do we use for the job queue?", capsys)[0]["name"] == QUEUE_NEW


# -- the query before consolidation (defect B) ----------------------------------------------------


def test_a_replaced_decision_is_not_queried_from_the_stream(root, capsys):
    """decide A, decide B (B replaces A): A is in the graph, superseded, and its event still
    waits for consolidation; the query must not show it as pending."""
    decide(QUEUE_OLD)
    decide(QUEUE_NEW)
    hits = query("what do we use for the job queue?", capsys)
    assert hits[0]["name"] == QUEUE_NEW
    assert QUEUE_OLD not in [h["name"] for h in hits]
    assert not [h for h in hits if "not consolidated yet" in h["line"]]
    text = query_knowledge(  # the MCP tool, on the same project (the working directory)
        "what do we use for the job queue?")
    assert QUEUE_NEW in text and QUEUE_OLD not in text and "not consolidated yet" not in text


def test_among_pending_and_live_decisions_the_newer_wins(root, capsys):
    """Two statements in a session not consolidated yet, and a live decision a newer pending one replaces."""
    decide("Use Celery for the job queue")
    s = Session(root, "s1").start()
    s.prompt("Let's use RabbitMQ for the job queue.")
    s.prompt(QUEUE_NEW + ".")
    names = [h["name"] for h in query("what do we use for the job queue?", capsys)]
    assert names[0] == QUEUE_NEW + "."
    assert "Let's use RabbitMQ for the job queue." not in names and "Use Celery for the job queue" not in names


# -- related decisions in the query's answer (F) ---------------------------------------------------


def test_the_query_says_when_a_decision_it_returns_is_related_to_another(root, capsys):
    """Two decisions linked as related (both kept) are said to be so by `engram query`,
    its --json lines and query_knowledge, not only by `engram show`."""
    decide("Use Redis for the HTTP response cache")
    decide("Use SQLite instead of Redis for the job queue")
    hits = {h["name"]: h for h in query("what do we use for the job queue?", capsys)}
    queue = hits["Use SQLite instead of Redis for the job queue"]
    assert "(related decision: Use Redis for the HTTP response cache)" in queue["line"]
    assert queue["related"] == ["Use Redis for the HTTP response cache"]
    capsys.readouterr()
    assert main(["query", "what do we use for the job queue?"]) == 0
    assert "(related decision: Use Redis for the HTTP response cache)" in capsys.readouterr().out
    text = query_knowledge("what do we use for the HTTP response cache?")
    assert "(related decision: Use SQLite instead of Redis for the job queue)" in text


# -- one answer when two current decisions may conflict (issue 30) ---------------------------------

DB_OLD, DB_NEW = "Use Postgres for the database", "Use SQLite for the test database"


def test_two_decisions_that_may_conflict_are_served_as_one_answer(root, capsys):
    """Supersession keeps both (the newer's concern is narrower: unsure), links the newer to the
    older as possibly replacing it; `engram query`, query_knowledge and the prompt's context
    show the newer, naming the older as possibly replaced, never the two as equal answers."""
    decide(DB_OLD)
    decide(DB_NEW)
    project = Project.from_cwd(str(root))
    assert [n["status"] for n in nodes(project, DB_OLD) + nodes(project, DB_NEW)] == ["active", "active"]
    said = f"(possibly replaces: {DB_OLD})"
    hits = query("what do we use for the database?", capsys)
    names = [h["name"] for h in hits]
    assert DB_NEW in names and DB_OLD not in names
    assert said in hits[names.index(DB_NEW)]["line"]
    capsys.readouterr()
    assert main(["query", "what do we use for the database?"]) == 0
    out = capsys.readouterr().out
    assert said in out and f"- {DB_OLD}" not in out
    text = query_knowledge("what do we use for the database?")  # the MCP tool
    assert DB_NEW in text and said in text and text.count(DB_OLD) == 1
    _hook(root, "agent-1", "SessionStart", source="startup")
    done = run_hook("UserPromptSubmit", payload("UserPromptSubmit", "agent-1", root,
                                                prompt="Which database should the new report read from?"),
                    "--harness", "claude-code")
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert DB_NEW in context and said in context and context.count(DB_OLD) == 1


def test_session_start_serves_one_answer_when_two_decisions_may_conflict(root):
    """SessionStart's context (here seeded by the branch's name) shows the newer of two
    decisions that may conflict, naming the older, never the two as equal answers."""
    (root / ".git" / "HEAD").write_text("ref: refs/heads/test-database\n")
    decide(DB_OLD)
    decide(DB_NEW)
    done = run_hook("SessionStart", payload("SessionStart", "agent-2", root, source="startup"),
                    "--harness", "claude-code")
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert DB_NEW in context and f"(possibly replaces: {DB_OLD})" in context and context.count(DB_OLD) == 1


def test_a_pinned_decision_that_may_be_replaced_is_served_as_its_replacement(root, capsys):
    decide(DB_OLD)
    project = Project.from_cwd(str(root))
    (old,) = nodes(project, DB_OLD)
    assert main(["memory", "pin", old["id"]]) == 0
    decide(DB_NEW)
    done = run_hook("SessionStart", payload("SessionStart", "agent-3", root, source="startup"),
                    "--harness", "claude-code")
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert DB_NEW in context and f"(possibly replaces: {DB_OLD})" in context and context.count(DB_OLD) == 1
    assert context.count(DB_NEW) == 1
