"""The daily token budget, the ledger and prompt caching, through the real SDK and the local
scripted server (and the fake CLIs where the provider is a harness CLI)."""

from __future__ import annotations

import json
import os

import pytest
from testing.consolidation import Session, cfg, consolidate, episode_file, fix_session, make_root, rows

from engram import notices
from engram.consolidate import passes, trigger, worker
from engram.errors import ConfigError
from engram.providers import budget, registry
from engram.providers.base import estimate_tokens

DECISIONS = [{"id": "n_1", "name": "Use SQLite instead of Redis for the job queue.", "description": "",
              "data": {}}]
DIFF = "--- a/jobs/queue.py\n+++ b/jobs/queue.py\n@@ -1,1 +1,2 @@\n import json\n+import redis\n"


@pytest.fixture
def llm(monkeypatch):
    from testing.servers.llm_server import LLMServer

    with LLMServer() as srv:
        monkeypatch.delenv("ENGRAM_OFFLINE", raising=False)
        for k, v in srv.env("anthropic").items():
            monkeypatch.setenv(k, v)
        yield srv


def _calls(project) -> list[tuple]:
    """(tokens, ok) of every ledger row, in order."""
    return rows(project, "SELECT input_tokens + output_tokens + cache_read_tokens + cache_write_tokens, ok "
                         "FROM model_calls ORDER BY at")


def _backlog(root, names: list[str]) -> list[str]:
    """Sessions captured in the order given (oldest first), their streams dated a minute apart."""
    for i, sid in enumerate(names):
        s = fix_session(root, sid)
        t = 1_700_000_000 + 60 * i
        os.utime(s.project.events_path(sid), (t, t))
    return names


def _need(project, line: str = "needing ~") -> list[int]:
    """The whole-session estimates the meter could not hold, as its log says them."""
    return [int(x.split(line)[1].split(" ")[0].replace(",", "")) for x in open(project.log_path) if line in x]


def test_a_backlog_is_consolidated_oldest_first_and_the_budget_stops_the_model_before_n(llm, root):
    order = _backlog(root, ["s-zeta", "s-alpha", "s-mid", "s-beta"])  # names do not sort by age
    project = Session(root, "s-zeta").project
    n = 10_000  # each session holds its whole estimate (~7K) before its first call and spends ~2K
    c = cfg(project, dailyTokenBudget=n, windowSize=50)
    trigger.enqueue(project, trigger.pending_sessions(project))
    outcomes = worker.drain(project, c, registry.consolidation(c, project=project))
    assert [o.session for o in outcomes] == order  # oldest first, not by name
    providers = [o.provider for o in outcomes]
    assert providers[0] == "anthropic" and providers[-1] == "offline" and all(o.status == "consolidated"
                                                                               for o in outcomes)
    assert providers == sorted(providers, key=lambda p: p == "offline")  # the model had the oldest
    calls = _calls(project)
    total = sum(t for t, _ in calls)
    assert total <= n < total + _need(project)[0]  # stopped at N: the next session did not fit in what was left
    assert all(ok for _, ok in calls) and llm.counts["pass1"] + llm.counts["pass2"] == len(calls)
    for o in outcomes[providers.index("offline"):]:
        assert episode_file(project, o.session)["episodes"][0]["provider"] == "offline"


def test_the_fallback_note_is_delivered_once_at_the_next_session_start(llm, root, tmp_path):
    from testing.helpers import payload, run_hook
    from testing.monitor import context, notice

    s = fix_session(root)
    consolidate(s.project, "s1", cfg(s.project, dailyTokenBudget=100))  # the first call crosses it
    other = make_root(tmp_path, "other")  # the budget and its note are the user's, not one project's
    hooks = [run_hook("SessionStart", payload("SessionStart", sid, where, source="startup"))
             for sid, where in (("next-1", other), ("next-2", root))]
    assert all(h.returncode == 0 for h in hooks)
    assert not any("token budget" in context(h.stdout) for h in hooks)  # the user's, not the agent's
    first, second = (notice(h.stdout) for h in hooks)
    line = [x for x in first.splitlines() if "token budget" in x]
    assert len(line) == 1 and "anthropic" in line[0] and "offline until midnight" in line[0]
    assert "dailyTokenBudget" in line[0] and "token budget" not in second
    assert open(s.project.log_path).read().count("daily token budget") == 1


def test_a_spent_budget_sends_every_later_worker_offline_with_the_reason(llm, root, tmp_path):
    s = fix_session(root)
    consolidate(s.project, "s1", cfg(s.project))  # ~2K tokens: a budget of 100 is spent
    provider, why = registry.choose(cfg(s.project, dailyTokenBudget=100))
    assert provider.NAME == "offline" and "today's token budget for anthropic is spent" in why
    assert registry.choose(cfg(s.project, dailyTokenBudget=10**9))[0].NAME == "anthropic"  # more budget: back
    with pytest.raises(ConfigError, match="--provider anthropic: today's token budget"):
        registry.choose(cfg(s.project, dailyTokenBudget=100), "anthropic")
    before = llm.counts["pass1"]
    s.prompt("again").stop()
    o = consolidate(s.project, "s1", cfg(s.project, dailyTokenBudget=100))
    assert o.provider == "offline" and llm.counts["pass1"] == before


def _big(root, names: list[str], files: int = 12) -> None:
    """Sessions of several Pass 1 windows each (at windowSize 4), captured oldest first."""
    for i, sid in enumerate(names):
        s = Session(root, sid).start().prompt(f"Refactor the parser, part {i}")
        for k in range(files):
            s.read(f"src/m{k}.py").write(f"src/m{k}.py", f"x = {i * 100 + k}\n")
        s.stop()
        t = 1_700_000_000 + 60 * i
        os.utime(s.project.events_path(sid), (t, t))


def test_a_session_that_does_not_fit_goes_offline_from_its_start_and_spends_nothing(llm, root):
    names = ["b1", "b2", "b3", "b4"]
    _big(root, names)
    project = Session(root, "b1").project
    c = cfg(project, windowSize=4, windowOverlap=1, dailyTokenBudget=10**9)
    events, _ = worker.read_stream(project.events_path("b1"))
    need = sum(estimate_tokens(chars, out) for chars, out in passes.call_sizes(events, c))
    c["dailyTokenBudget"] = n = need * 3 // 2  # ~1.5 sessions' estimates
    trigger.enqueue(project, names)
    models = registry.consolidation(c, project=project)
    outcomes = worker.drain(project, c, models)
    assert all(o.status == "consolidated" for o in outcomes)
    on_model = [o.session for o in outcomes if o.provider == "anthropic"]
    offline = [o.session for o in outcomes if o.provider == "offline"]
    assert on_model and offline and on_model == names[: len(on_model)]
    usage = {sid: episode_file(project, sid)["episodes"][0]["usage"] for sid in names}
    assert all(usage[sid]["calls"] == [] for sid in offline)  # no partial model work thrown away
    calls = _calls(project)
    assert len(calls) == sum(len(usage[sid]["calls"]) for sid in on_model) > passes.MAX_PARALLEL
    assert all(ok for _, ok in calls) and sum(t for t, _ in calls) <= n
    Session(root, "talk").start().prompt("Is SQLite enough for the queue?").stop("Yes, for one box.")
    o = worker.consolidate_session(project, "talk", c, models)  # one call still fits: the model is back
    assert o.kind == "discussion" and o.provider == "anthropic"


def test_the_checker_goes_offline_when_the_budget_is_spent(llm, root):
    from engram.config import Project

    project = Project.from_cwd(str(root)).ensure()
    llm.script("contradiction", {"text": '{"verdict": "NO_CONTRADICTION", "severity": "none", '
                                         '"decision_ids": [], "explanation": "ok", "recommendation": ""}'})
    checker = registry.checker(cfg(project, dailyTokenBudget=100), project=project)
    assert checker.check(DECISIONS, "jobs/queue.py", DIFF).checker.startswith("anthropic:")
    verdict = checker.check(DECISIONS, "jobs/queue.py", DIFF)  # refused by the meter: the offline rules answer
    assert verdict.checker == "offline" and checker.name == "offline"
    assert [ok for _, ok in _calls(project)] == [1]  # the refused call never reached the model
    assert llm.counts["contradiction"] == 1


def test_the_budget_counts_every_project_under_engram_home(llm, root, tmp_path):
    s = fix_session(root)
    consolidate(s.project, "s1", cfg(s.project))
    spent = sum(t for t, _ in _calls(s.project))
    assert budget.spent_today(s.project.home, "anthropic") == spent > 0
    other = fix_session(make_root(tmp_path, "other"))
    o = consolidate(other.project, "s1", cfg(other.project, dailyTokenBudget=spent))
    assert o.provider == "offline"


def test_prompt_caching_marks_the_system_prompt_and_the_ledger_keeps_cache_tokens(llm, root, monkeypatch):
    from testing.servers import llm_server

    s = fix_session(root)
    consolidate(s.project, "s1", cfg(s.project, windowSize=4, windowOverlap=1))
    assert rows(s.project, "SELECT sum(cache_read_tokens + cache_write_tokens) FROM model_calls") == [(0,)]
    # engram's prompts are shorter than any current model's minimum cacheable length; with
    # a lower minimum the same requests are cached, and the ledger shows it
    monkeypatch.setattr(llm_server, "CACHE_MIN", {})
    monkeypatch.setattr(llm_server, "CACHE_MIN_DEFAULT", 100)
    s.prompt("next turn").read("src/a.py").read("src/b.py").read("src/c.py").read("src/d.py").stop()
    consolidate(s.project, "s1", cfg(s.project, windowSize=4, windowOverlap=1))
    written, read = rows(s.project, "SELECT sum(cache_write_tokens), sum(cache_read_tokens) FROM model_calls "
                                    "WHERE purpose LIKE 'pass1%'")[0]
    assert written > 0 and read > 0
    usage = episode_file(s.project, "s1")["episodes"][-1]["usage"]
    assert usage["cache_read_tokens"] + usage["cache_write_tokens"] > 0


def test_status_shows_todays_and_the_weeks_tokens_and_cost_per_provider(clis, root, capsys, monkeypatch):
    from engram.cli import main

    s = fix_session(root)
    consolidate(s.project, "s1", cfg(s.project, llmProvider="claude-code"))
    consolidate(fix_session(root, "s2").project, "s2", cfg(s.project, llmProvider="codex"))
    tokens = dict(rows(s.project, "SELECT provider, sum(input_tokens + output_tokens + cache_read_tokens + "
                                  "cache_write_tokens) FROM model_calls GROUP BY provider"))
    (cost,) = rows(s.project, "SELECT sum(cost_usd) FROM model_calls")[0]
    assert main(["status", "--json"]) == 0
    m = json.loads(capsys.readouterr().out)["models"]
    for window in ("today", "last_7_days"):
        assert {p: u["tokens"] for p, u in m["use"][window].items()} == tokens
    assert m["use"]["today"]["claude-code"]["cost_usd"] == pytest.approx(cost)
    assert m["use"]["today"]["codex"]["cost_usd"] is None and m["daily_token_budget"] == 500_000
    monkeypatch.setenv("ENGRAM_OFFLINE", "1")
    assert main(["status"]) == 0
    text = capsys.readouterr().out
    assert f"claude-code: 2 calls, {tokens['claude-code']:,} tokens" in text and f"${cost:.4f} reported" in text
    assert f"codex: 2 calls, {tokens['codex']:,} tokens" in text and "last 7 days" in text


def test_doctor_says_which_provider_why_and_when_the_budget_is_spent(llm, root, capsys):
    from engram.cli import main

    s = fix_session(root)
    consolidate(s.project, "s1", cfg(s.project))
    with open(os.path.join(s.project.home, "config.json"), "w") as f:
        f.write('{"dailyTokenBudget": 100, "llmProvider": "anthropic"}')
    main(["doctor"])
    out = capsys.readouterr().out
    assert "WARN  model budget" in out and "anthropic:" in out and "spent, offline until midnight" in out
    assert "llmProvider is anthropic, but today's token budget for anthropic is spent" in out


def test_every_model_input_is_bounded_whatever_the_session(llm, root):
    from engram.monitor.model_checker import MAX_DIFF_CHARS, user_prompt

    s = Session(root, "wide").start().prompt("Rewrite every module " + "in detail " * 300)
    for i in range(40):
        s.write(f"src/m{i}.py", "".join(f"value_{j} = {'x' * 200}\n" for j in range(60)))
    s.stop()
    o = consolidate(s.project, "wide", cfg(s.project, windowSize=200))  # one window of every event
    assert o.status == "consolidated"
    (p1,) = [c for c in llm.calls if c["kind"] == "pass1"]
    last = s.events()[-1]["seq"]
    assert len(p1["user"]) <= passes.WINDOW_MAX_CHARS + 200 and f"[seq {last}]" in p1["user"]  # all there, clipped
    many = [{"window": i, "intent": "x", "what_happened": "y" * 1100, "files_modified": [], "decisions": [],
             "outcome": "progress", "evidence": [i]} for i in range(200)]
    body = "\n".join(json.dumps(x, ensure_ascii=False) for x in passes.bounded(many, passes.PASS2_MAX_CHARS))
    assert len(body) <= passes.PASS2_MAX_CHARS
    prompt = user_prompt(DECISIONS * 20, "a.py", "+" + "z" * 100_000)
    assert len(prompt) < MAX_DIFF_CHARS + 8 * 600


@pytest.mark.parametrize("name", ["claude-code", "codex", "gemini-cli"])
def test_a_harness_cli_is_held_to_the_same_budget(name, clis, root):
    s = fix_session(root)
    o = consolidate(s.project, "s1", cfg(s.project, llmProvider=name, dailyTokenBudget=300))
    assert o.status == "consolidated" and o.provider == "offline"  # the session's ~7K do not fit in 300
    assert clis.calls() == [] and _calls(s.project) == []
    (said,) = notices.take(s.project.home)
    assert name in said and "token budget" in said and "dailyTokenBudget" in said


def test_a_negative_budget_is_a_one_line_config_error(root, capsys):
    from engram.cli import main
    from engram.config import Project, load_config

    project = Project.from_cwd(str(root)).ensure()
    with open(os.path.join(project.home, "config.json"), "w") as f:
        f.write('{"dailyTokenBudget": -5}')
    with pytest.raises(ConfigError, match="dailyTokenBudget' must be a whole number from 0 .*got -5"):
        load_config(project.home)
    assert main(["status"]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "dailyTokenBudget" in err and "-5" in err


def test_status_says_one_call_not_one_calls(llm, root, capsys, monkeypatch):
    from engram.cli import main
    from engram.config import Project

    project = Project.from_cwd(str(root)).ensure()
    llm.script("contradiction", {"text": '{"verdict": "NO_CONTRADICTION", "severity": "none", '
                                         '"decision_ids": [], "explanation": "ok", "recommendation": ""}'})
    registry.checker(cfg(project), project=project).check(DECISIONS, "jobs/queue.py", DIFF)
    monkeypatch.setenv("ENGRAM_OFFLINE", "1")
    assert main(["status"]) == 0
    assert "anthropic: 1 call, " in capsys.readouterr().out
