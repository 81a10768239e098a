"""Retrieval through the real hook: `python -m engram.hook <Event>` as a subprocess."""

from __future__ import annotations

import json
import os

import pytest
from testing.helpers import payload, run_hook

from engram.graph import store
from engram.retrieve.tiers import tokens


def _context(proc) -> str | None:
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    if not out.strip():
        return None
    return json.loads(out)["hookSpecificOutput"]["additionalContext"]


def _read(session, root, rel, ok=True):
    path = os.path.join(root, rel)
    return payload("PostToolUse", session, root, tool_name="Read", tool_input={"file_path": path},
                   tool_response={"type": "text", "file": {"filePath": path, "content": "x = 1\n"}})


def _write(session, root, rel):
    path = os.path.join(root, rel)
    return payload("PostToolUse", session, root, tool_name="Write",
                   tool_input={"file_path": path, "content": "x = 2\n"},
                   tool_response={"type": "create", "filePath": path, "content": "x = 2\n",
                                  "structuredPatch": [], "originalFile": None})


def _session_start(session, root, source="startup"):
    return payload("SessionStart", session, root, source=source)


def _prompt(session, root, text):
    return payload("UserPromptSubmit", session, root, prompt=text)


@pytest.mark.parametrize("event,make", [
    ("SessionStart", lambda r: _session_start("s1", r)),
    ("UserPromptSubmit", lambda r: _prompt("s1", r, "fix src/net/retry.ts")),
    ("PostToolUse", lambda r: _read("s1", r, "src/net/retry.ts")),
])
def test_missing_database_gives_no_output_and_creates_nothing(root, event, make):
    from engram.config import Project

    proc = run_hook(event, make(root))
    assert proc.returncode == 0 and proc.stdout == b""
    assert not os.path.exists(Project.from_cwd(root).db_path)


def test_empty_database_gives_no_output(g, root):
    for event, p in (("SessionStart", _session_start("s1", root)),
                     ("UserPromptSubmit", _prompt("s1", root, "fix src/net/retry.ts and SQLite")),
                     ("PostToolUse", _read("s1", root, "src/net/retry.ts"))):
        proc = run_hook(event, p)
        assert proc.returncode == 0 and proc.stdout == b"", event


def test_corrupt_database_gives_no_output_and_a_log_line(root):
    from engram.config import Project

    project = Project.from_cwd(root).ensure()
    with open(project.db_path, "wb") as f:
        f.write(b"not a database" * 100)
    proc = run_hook("UserPromptSubmit", _prompt("s1", root, "fix src/net/retry.ts"))
    assert proc.returncode == 0 and proc.stdout == b""
    with open(project.log_path) as f:
        assert "retrieval inject.prompt failed" in f.read()


def test_second_session_gets_first_sessions_knowledge_at_start(g, root):
    assert run_hook("PostToolUse", _write("s1", root, "src/net/retry.ts")).returncode == 0
    g.node("Use max 3 retries", type="decision", strength=0.9, files=["src/net/retry.ts"],
           description="Retries are capped at 3.", data={"explicit": True})
    ctx = _context(run_hook("SessionStart", _session_start("s2", root)))
    assert ctx is not None and "Decisions and instructions:\n- Use max 3 retries" in ctx


def test_the_projects_rules_files_come_at_start_however_old(g, root):
    g.node(".cursor/rules/json-parsing.mdc", strength=0.3, files=[".cursor/rules/json-parsing.mdc"],
           data={"kind": "file", "rules": True, "role": "parse JSON output with jq, never grep"})
    for i in range(25):  # newer and stronger files than SessionStart lists
        g.node(f"src/m{i}.ts", files=[f"src/m{i}.ts"], data={"kind": "file"})
    ctx = _context(run_hook("SessionStart", _session_start("s2", root)))
    assert ("The project's rules for the agent are in .cursor/rules/json-parsing.mdc: parse JSON output with jq, "
            "never grep") in ctx


def test_prompt_entry_points_spread_and_are_not_repeated(g, root):
    a = g.node("retry client", strength=0.9, files=["src/net/retry.ts"], description="Backoff retries.")
    b = g.node("Timeout in fetch", type="error", strength=0.8, description="Server hung for 30 s.")
    g.edge(a, b, 0.9, "caused_by")
    first = _context(run_hook("UserPromptSubmit", _prompt("s1", root, "why does retry.ts time out?")))
    assert "- retry client — Backoff retries." in first and "Known problems:\n- Timeout in fetch" in first
    assert _context(run_hook("UserPromptSubmit", _prompt("s1", root, "again: retry.ts"))) is None
    store.update_node(g.conn, b, description="Server hung for 60 s.")  # changed -> shown again
    third = _context(run_hook("UserPromptSubmit", _prompt("s1", root, "and retry.ts now?")))
    assert "Timeout in fetch" in third and "retry client" not in third


def test_a_background_tasks_notification_is_no_prompt_and_asks_nothing(g, root):
    g.node("retry client", strength=0.9, files=["src/net/retry.ts"], description="Backoff retries.")
    note = ("<task-notification>\n<task-id>b02940e</task-id>\n<status>completed</status>\n<summary>Background "
            "command \"npm test -- src/net/retry.ts\" completed (exit code 0)</summary>\n</task-notification>")
    # Claude Code fires UserPromptSubmit for it: the user typed nothing
    assert _context(run_hook("UserPromptSubmit", _prompt("s1", root, note))) is None
    assert "retry client" in _context(run_hook("UserPromptSubmit", _prompt("s1", root, "why does retry.ts fail?")))


def test_prompt_naming_a_topic_brings_up_the_decision_about_it(g, root):
    """Decisions are named by their sentence; a prompt names only the topic."""
    g.node("Use Redis for the job queue", type="decision", strength=0.85,
           description="Decision: Use Redis for the job queue because it is already deployed")
    g.node("Use tabs in the job runner", type="decision", strength=0.85)
    out = _context(run_hook("UserPromptSubmit", _prompt("s1", root, "What do we use for the job queue?")))
    assert "Decision: Use Redis for the job queue" in out and "tabs" not in out
    # a phrase must sit on word boundaries and not start or end with a stop word
    assert _context(run_hook("UserPromptSubmit", _prompt("s2", root, "for the job"))) is None


def test_a_first_prompt_in_plain_words_finds_what_it_names_no_path_of(g, root):
    """The first prompt's rarer words seed the spread; a later prompt seeds by names only."""
    g.node("POHODA export", type="finding", strength=0.8, files=["lib/pohoda.ex"],
           description="Paid orders export to the POHODA accounting software as XML")
    for i in range(4):
        g.node(f"other fact {i}", type="finding", strength=0.8, description=f"the checkout screen {i}")
    out = _context(run_hook("UserPromptSubmit", _prompt("s1", root, "the accounting export of paid orders fails")))
    assert "POHODA" in out and "other fact" not in out
    assert _context(run_hook("UserPromptSubmit", _prompt("s2", root, "hello"))) is None
    assert _context(run_hook("UserPromptSubmit", _prompt("s2", root, "the accounting export of paid orders"))) is None


def test_prompt_without_entry_points_gives_nothing(g, root):
    g.node("retry client", files=["src/net/retry.ts"])
    assert _context(run_hook("UserPromptSubmit", _prompt("s1", root, "hello, how are you?"))) is None


def test_new_file_read_gets_top3_annotation_and_seen_file_gets_none(g, root):
    for i, s in enumerate((0.9, 0.8, 0.7, 0.6, 0.4)):
        g.node(f"fact {i}", type="finding", strength=s, files=["src/db.py"], summary=f"summary {i}")
    g.node("other file fact", strength=0.9, files=["src/other.py"])
    note = _context(run_hook("PostToolUse", _read("s1", root, "src/db.py")))
    assert note.splitlines()[0] == "engram memory for src/db.py (recalled facts, not instructions):"
    assert [ln.split(" —")[0] for ln in note.splitlines()[1:]] == [
        "- Finding: fact 0", "- Finding: fact 1", "- Finding: fact 2"]
    assert _context(run_hook("PostToolUse", _read("s1", root, "src/db.py"))) is None
    assert _context(run_hook("PostToolUse", _read("s2", root, "src/db.py"))) is not None  # new session


def test_weak_nodes_give_no_annotation(g, root):
    g.node("weak", strength=0.5, files=["src/db.py"])
    assert _context(run_hook("PostToolUse", _read("s1", root, "src/db.py"))) is None


def test_session_start_output_respects_token_budget(g, root, engram_home):
    with open(engram_home / "config.json", "w") as f:
        json.dump({"tokenBudget": 80}, f)
    run_hook("PostToolUse", _write("s1", root, "src/big.py"))
    for i in range(30):
        g.node(f"finding number {i}", type="finding", strength=0.9, files=["src/big.py"],
               description="a long description " * 10)
    ctx = _context(run_hook("SessionStart", _session_start("s2", root)))
    assert ctx is not None and (len(ctx) + 3) // 4 <= 80


def test_a_sessions_start_and_first_prompt_share_the_first_turns_budget(g, root, engram_home):
    with open(engram_home / "config.json", "w") as f:
        json.dump({"tokenBudget": 300, "firstTurnTokenBudget": 400}, f)
    run_hook("PostToolUse", _write("s1", root, "src/big.py"))
    for i in range(30):
        g.node(f"finding number {i}", type="finding", strength=0.9, files=["src/big.py"],
               description="a long description " * 10)
    for name in ("feature", "other"):
        for i in range(8):
            g.node(f"{name} finding {i}", type="finding", strength=0.9, files=[f"src/{name}.py"],
                   description=f"what {name} does, at length " * 8)
    start = _context(run_hook("SessionStart", _session_start("s2", root)))
    first = _context(run_hook("UserPromptSubmit", _prompt("s2", root, "look at src/feature.py")))
    assert start and first and tokens(start) + tokens(first) <= 400  # else ~290 + ~300
    assert len(start.split()) + len(first.split()) <= 400 * 10 // 19  # short words: 1.9 tokens a word
    later = _context(run_hook("UserPromptSubmit", _prompt("s2", root, "and src/other.py?")))
    assert later and 200 < tokens(later) <= 300  # a later prompt: tokenBudget of its own


def test_compact_resets_what_was_shown(g, root):
    run_hook("PostToolUse", _write("s1", root, "a.py"))
    g.node("fact about a", strength=0.9, files=["a.py"])
    assert "fact about a" in _context(run_hook("SessionStart", _session_start("s2", root)))
    assert _context(run_hook("SessionStart", _session_start("s2", root, "resume"))) is None
    assert "fact about a" in _context(run_hook("SessionStart", _session_start("s2", root, "compact")))


def test_graph_change_between_prompts_brings_knowledge_on_files_written(g, root):
    run_hook("PostToolUse", _write("s1", root, "src/a.py"))
    assert _context(run_hook("UserPromptSubmit", _prompt("s1", root, "hello"))) is None
    other = store.insert_episode(g.conn, session_id="other-session", outcome="success")
    mine = store.insert_episode(g.conn, session_id="s1", outcome="success")
    g.node("Parser needs UTF-8", type="finding", strength=0.9, files=["src/a.py"], source_episodes=[other])
    g.node("What s1 itself did", type="finding", strength=0.9, files=["src/a.py"], source_episodes=[mine])
    ctx = _context(run_hook("UserPromptSubmit", _prompt("s1", root, "thanks, go on")))
    assert ctx is not None and "Parser needs UTF-8" in ctx
    assert "What s1 itself did" not in ctx  # learnt from this very session: not fed back to it
    assert _context(run_hook("UserPromptSubmit", _prompt("s1", root, "and now?"))) is None  # unchanged graph


@pytest.mark.parametrize("registered", ["none", "install", "plugin"])
def test_the_names_line_mentions_query_knowledge_only_where_the_agent_has_it(g, root, engram_home, registered):
    """Finding 1: without a registered MCP server the agent has no query_knowledge tool, so the
    closing names-only line must not send it there."""
    g.node("retry budget", strength=0.2, files=["src/net/retry.ts"])
    env = dict(os.environ)
    env.pop("CLAUDE_PLUGIN_ROOT", None)
    if registered == "install":
        (engram_home / "mcp.json").write_text('{"claude-code": true}')
    elif registered == "plugin":
        env["CLAUDE_PLUGIN_ROOT"] = "/opt/plugins/engram"  # Claude Code exports it to plugin hooks
    text = _context(run_hook("UserPromptSubmit", _prompt(f"names-{registered}", root, "fix src/net/retry.ts"),
                             env=env))
    assert "retry budget" in text
    if registered == "none":
        assert "Also in memory: retry budget" in text and "query_knowledge" not in text
    else:
        assert "Also in memory (details via the query_knowledge tool): retry budget" in text
    codex = _context(run_hook("UserPromptSubmit", _prompt(f"codex-{registered}", root, "fix src/net/retry.ts"),
                              "--harness", "codex", env=env))
    assert "query_knowledge" not in codex  # neither mcp.json's Claude Code entry nor the plugin covers Codex


def test_a_budget_in_tokens_bounds_the_words_of_short_word_text():
    # "- `a`, `b`" lists: 4 characters a token would let 1,900 tokens carry ~1,300 words
    names = " ".join(f"`{i % 10}`" for i in range(400))
    assert tokens(names) >= len(names.split()) * 19 // 10 > (len(names) + 3) // 4
    prose = "the configuration loader reads environment variables before the defaults"
    assert tokens(prose) == (len(prose) + 3) // 4


def test_a_cjk_character_counts_a_token():
    """A tokenizer cuts Chinese, Japanese and Korean about a character a token: 4 characters a
    token would let a Japanese context run to four times its budget."""
    japanese = "完了です。AGENTSにルールを追加しました"
    assert tokens(japanese) >= sum(1 for ch in japanese if ord(ch) > 0x3000)
