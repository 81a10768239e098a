"""The harness-CLI providers (claude-code, codex, gemini-cli) through fake CLIs on PATH.

Each fake follows its CLI's documented headless output (testing/fake_cli.py); the worker
runs as `engram worker` would, in process, with real SQLite files.
"""

from __future__ import annotations

import os
import subprocess
import time

import pytest
from testing.consolidation import cfg, consolidate, episode_file, fix_session, make_root, rows

from engram import notices
from engram.consolidate import trigger
from engram.errors import ConfigError
from engram.providers import registry

CLIS = ["claude-code", "codex", "gemini-cli"]
DECISIONS = [{"id": "n_1", "name": "Use SQLite instead of Redis for the job queue.", "description": "",
              "data": {"rationale": "one box"}}]
DIFF = "--- a/jobs/queue.py\n+++ b/jobs/queue.py\n@@ -1,1 +1,2 @@\n import json\n+import redis\n"


def _shape(project) -> dict:
    """What a consolidation made, independent of ids and times."""
    edges = ("SELECT e.type, a.name, b.name FROM edges e JOIN nodes a ON a.id = e.from_node "
             "JOIN nodes b ON b.id = e.to_node")
    return {"nodes": sorted(rows(project, "SELECT type, name, status FROM nodes")), "edges": sorted(rows(project, edges)),
            "episodes": rows(project, "SELECT outcome, goal FROM episodes")}


def _ledger(project) -> list[tuple]:
    return rows(project, "SELECT provider, purpose, input_tokens + output_tokens + cache_read_tokens + "
                         "cache_write_tokens, cost_usd, ok FROM model_calls ORDER BY at")


@pytest.mark.parametrize("name", CLIS)
def test_each_cli_consolidates_a_session_into_the_api_providers_shapes(name, clis, root, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDECODE", "1")  # the worker runs under a hook Claude Code started
    monkeypatch.setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
    s = fix_session(root)
    o = consolidate(s.project, "s1", cfg(s.project, llmProvider=name))
    assert o.status == "consolidated" and o.provider == name and o.kind == "full"
    calls = clis.calls()
    assert {c["task"] for c in calls} == {"pass1", "pass2"} and all(c["exit"] == 0 for c in calls)
    ep = episode_file(s.project, "s1")["episodes"][0]
    assert ep["provider"] == name and ep["usage"]["input_tokens"] > 0 and len(ep["usage"]["calls"]) == len(calls)

    from testing.servers.llm_server import LLMServer

    with LLMServer() as srv:  # the same session through the Anthropic API provider
        for k, v in srv.env("anthropic").items():
            monkeypatch.setenv(k, v)
        api = fix_session(make_root(tmp_path, "api"))
        assert consolidate(api.project, "s1", cfg(api.project, llmProvider="anthropic")).provider == "anthropic"
    assert _shape(s.project) == _shape(api.project) and _shape(s.project)["nodes"]


@pytest.mark.parametrize("name", CLIS)
def test_the_ledger_sums_match_what_the_cli_reported(name, clis, root):
    s = fix_session(root)
    consolidate(s.project, "s1", cfg(s.project, llmProvider=name))
    ledger, reported = _ledger(s.project), clis.calls()
    assert [(p, ok) for p, _, _, _, ok in ledger] == [(name, 1)] * len(reported)
    assert {purpose for _, purpose, _, _, _ in ledger} >= {"pass1[1]", "pass2"}
    assert sum(t for _, _, t, _, _ in ledger) == sum(c["tokens"] for c in reported) > 0
    costs = [c for _, _, _, c, _ in ledger]
    if name == "claude-code":  # the only one of the three that reports a cost
        assert sum(costs) == pytest.approx(sum(c["cost"] for c in reported)) and sum(costs) > 0
    else:
        assert costs == [None] * len(costs)


@pytest.mark.parametrize("name", CLIS)
def test_the_child_runs_disabled_in_an_empty_directory_and_engram_records_nothing_of_it(name, clis, root,
                                                                                        monkeypatch):
    monkeypatch.setenv("FAKE_CLI_HOOKS", "1")  # the fake fires engram's hooks, as the harness would
    s = fix_session(root)
    before = sorted(p for p in os.listdir(os.path.join(s.project.home, "projects")))
    assert consolidate(s.project, "s1", cfg(s.project, llmProvider=name)).status == "consolidated"
    for call in clis.calls():
        assert call["engram_disable"] == "1"
        assert not call["cwd"].startswith(str(root)) and not os.path.exists(call["cwd"])  # removed afterwards
        assert set(call["cwd_files"]) <= {"system.md"}  # gemini's system prompt file, nothing else
    assert sorted(os.listdir(os.path.join(s.project.home, "projects"))) == before  # no project for the child's dir
    streams = [n for _, _, names in os.walk(s.project.home) for n in names if n.startswith("fakecli-")]
    assert streams == []


def test_without_engram_disable_the_fake_harness_hooks_do_record(clis, tmp_path, monkeypatch):
    """The control for the test above: the fake's hooks reach engram when it is not disabled."""
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "ENGRAM_DISABLE"}
    env.update(FAKE_CLI_HOOKS="1", ENGRAM_NO_WORKER="1")
    proc = subprocess.run(["claude", "-p", "--output-format", "json", "--system-prompt", "engram-task: pass1",
                           "--tools", ""], input=b"[seq 1] user_prompt: hi", cwd=str(work), env=env,
                          capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    pid = clis.calls()[-1]["pid"]
    streams = [n for _, _, names in os.walk(os.environ["ENGRAM_HOME"]) for n in names
               if n == f"fakecli-{pid}.jsonl"]
    assert streams


@pytest.mark.parametrize("name", CLIS)
def test_an_error_result_fails_cleanly_and_stays_queued(name, clis, root, monkeypatch):
    monkeypatch.setenv("FAKE_CLI_MODE", "error")
    s = fix_session(root)
    o = consolidate(s.project, "s1", cfg(s.project, llmProvider=name))
    assert o.status == "failed" and o.error.startswith("client"), o.error
    assert rows(s.project, "SELECT count(*) FROM nodes") == [(0,)]
    assert trigger.needs_consolidation(s.project, "s1")
    assert name in (trigger.consolidation_notice(s.project) or "")
    assert all(ok == 0 for *_, ok in _ledger(s.project))  # failed calls are in the ledger too


@pytest.mark.parametrize("name", CLIS)
def test_malformed_output_is_consolidated_offline_and_the_cli_not_asked_again(name, clis, root, monkeypatch):
    monkeypatch.setenv("FAKE_CLI_MODE", "malformed")
    s = fix_session(root)
    o = consolidate(s.project, "s1", cfg(s.project, llmProvider=name))
    assert (o.status, o.provider) == ("consolidated", "offline") and "unusable" in o.why, o
    assert rows(s.project, "SELECT count(*) FROM nodes") != [(0,)] and not trigger.needs_consolidation(s.project, "s1")
    asked = len(clis.calls())
    assert asked and all(ok == 0 for *_, ok in _ledger(s.project))  # failed calls are in the ledger too
    s.prompt("more").stop()
    assert consolidate(s.project, "s1", cfg(s.project, llmProvider=name)).provider == "offline"
    assert len(clis.calls()) == asked


@pytest.mark.parametrize("name", CLIS)
def test_a_hung_cli_is_killed_at_the_timeout(name, clis, root, monkeypatch):
    monkeypatch.setenv("FAKE_CLI_MODE", "hang")
    s = fix_session(root)
    t0 = time.monotonic()
    o = consolidate(s.project, "s1", cfg(s.project, llmProvider=name, cliTimeoutMs=1500))
    assert o.status == "failed" and o.error.startswith("timeout") and "cliTimeoutMs" in o.error
    assert time.monotonic() - t0 < 20
    for call in clis.calls():
        with pytest.raises(ProcessLookupError):
            os.kill(call["pid"], 0)  # the child and its process group are gone


@pytest.mark.parametrize("name", CLIS)
def test_a_logged_out_cli_is_a_clear_fault_and_consolidation_goes_offline(name, clis, root, monkeypatch):
    monkeypatch.setenv("FAKE_CLI_MODE", "logged_out")
    s = fix_session(root)
    o = consolidate(s.project, "s1", cfg(s.project, llmProvider=name))
    assert o.status == "consolidated" and o.provider == "offline"
    assert episode_file(s.project, "s1")["episodes"][0]["provider"] == "offline"
    said = notices.take(s.project.home)
    assert len(said) == 1 and name in said[0] and "offline" in said[0]
    assert f"{name} unusable (auth)" in open(s.project.log_path).read()
    s.prompt("more").stop()
    consolidate(s.project, "s1", cfg(s.project, llmProvider=name))
    assert notices.take(s.project.home) == []  # said once a day


def test_a_cli_not_on_path_falls_back_to_offline_and_says_why(root, monkeypatch, tmp_path):
    monkeypatch.delenv("ENGRAM_OFFLINE", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    provider, why = registry.choose({"llmProvider": "codex"})
    assert provider.NAME == "offline" and why == "llmProvider is codex, but codex is not on PATH"
    with pytest.raises(ConfigError, match="--provider gemini-cli: gemini is not on PATH"):
        registry.choose({}, "gemini-cli")


def test_a_configured_cli_not_on_path_is_said_once_at_the_next_session_start(root, tmp_path):
    import json
    import sys

    from testing.helpers import payload, run_hook
    from testing.monitor import context, env, notice

    s = fix_session(root)
    with open(os.path.join(s.project.home, "config.json"), "w") as f:
        json.dump({"llmProvider": "codex"}, f)
    empty = env(PATH=str(tmp_path / "empty"), ENGRAM_OFFLINE="")
    for _ in range(2):  # two workers the same day: one notice
        done = subprocess.run([sys.executable, "-m", "engram", "consolidate", "--project", str(root)], env=empty,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        s.prompt("more").stop()
    starts = [run_hook("SessionStart", payload("SessionStart", sid, root, source="startup"), env=empty)
              for sid in ("next-1", "next-2")]
    said = [line for h in starts for line in notice(h.stdout).splitlines() if "codex" in line]
    assert len(said) == 1 and "codex is not on PATH" in said[0] and "offline" in said[0]
    assert not any("codex" in context(h.stdout) for h in starts)  # the user's, not the agent's
    assert open(s.project.log_path).read().count("codex unusable (unavailable)") == 1


@pytest.mark.parametrize("name", CLIS)
def test_the_contradiction_check_through_each_cli_sends_the_diff_and_decisions_only(name, clis, root):
    from engram.config import Project

    project = Project.from_cwd(str(root)).ensure()
    checker = registry.checker(cfg(project, llmProvider=name), project=project)
    v = checker.check(DECISIONS, "jobs/queue.py", DIFF)
    assert v.verdict == "NO_CONTRADICTION" and checker.name.startswith(f"{name}:")
    (call,) = clis.calls()
    assert call["task"] == "contradiction" and "Does this change contradict" in call["system"]
    (row,) = _ledger(project)
    assert row[:2] == (name, "contradiction") and row[2] == call["tokens"]


def test_auto_never_picks_a_cli_nor_a_key_the_harness_passed(clis, monkeypatch):
    provider, why = registry.choose({"llmProvider": "auto"})
    assert provider.NAME == "offline" and why == "auto: no ENGRAM_* key"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    provider, why = registry.choose({})
    assert provider.NAME == "offline"
    assert why == "auto: no ENGRAM_* key; ANTHROPIC_API_KEY ignored: not chosen; OPENAI_API_KEY ignored: not chosen"
    monkeypatch.setenv("ENGRAM_OPENAI_API_KEY", "k")
    assert (registry.choose({})[0].NAME, registry.choose({})[1]) == ("openai", "auto: ENGRAM_OPENAI_API_KEY is set")
    monkeypatch.setenv("ENGRAM_ANTHROPIC_API_KEY", "k")
    provider, why = registry.choose({})
    assert provider.NAME == "anthropic" and why == "auto: ENGRAM_ANTHROPIC_API_KEY is set"
