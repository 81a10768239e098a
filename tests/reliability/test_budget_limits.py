"""Issue 29, items 4 and 5: the daily budget, its ledger and its reservations under hostile
input, through `engram consolidate`, `status` and `doctor` subprocesses over the fake
harness CLIs (tests/testing/fake_cli.py).

Before the fix: after one ledger row of negative usage 40 of 40 calls were admitted (40,000
tokens against a budget of 20,000); one row dated a year ahead refused every call until
then; usage of 10**30 failed the session with OverflowError; `dailyTokenBudget` NaN,
Infinity or 1e400 passed validation and then `status` and `consolidate` exited 3; and a
reservation key `../../../victim:1` or `<project>/.git/index:1` made engram delete that lock
file (a git operation in progress would lose its lock).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time

import pytest
from testing.consolidation import Session, make_root, rows
from testing.helpers import engram

from engram.clock import utc_iso
from engram.config import Project
from engram.graph.ledger import MAX_CALL_TOKENS

SESSIONS = 12  # talk-only sessions: one model call each, admitted call by call


@pytest.fixture
def clis(tmp_path, monkeypatch):
    """The fake `claude` / `codex` / `gemini` first on PATH; the calls they log (real tokens)."""
    from testing.fake_cli import install

    log = tmp_path / "fake-cli.jsonl"
    monkeypatch.setenv("PATH", f"{install(tmp_path / 'fake-bin')}:{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_CLI_LOG", str(log))
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    monkeypatch.delenv("ENGRAM_OFFLINE", raising=False)
    return lambda: [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture
def talk(tmp_path) -> Project:
    """A project with SESSIONS sessions waiting, each one question and its answer."""
    root = make_root(tmp_path)
    for i in range(SESSIONS):
        s = Session(root, f"talk-{i}").start().prompt(f"Should the queue stay in SQLite? Question {i}.")
        s.stop(f"Yes: SQLite keeps it in one file (answer {i}).")
        t = 1_700_000_000 + 60 * i
        os.utime(s.project.events_path(f"talk-{i}"), (t, t))
    return s.project


def _configure(project: Project, **settings) -> None:
    with open(os.path.join(project.home, "config.json"), "w") as f:
        json.dump(settings, f)


def _consolidate(project: Project, provider: str, budget: int, **env: str):
    _configure(project, llmProvider=provider, dailyTokenBudget=budget)
    res = engram("consolidate", "--all", "--project", project.root, env={**os.environ, **env}, timeout=240)
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr[-2000:]
    return res


def _plant_row(project: Project, at: str, tokens: int, provider: str = "claude-code") -> None:
    """A ledger row as an older engram (or one under a clock set ahead) wrote it."""
    from engram.graph.connect import connect

    connect(project.db_path).close()  # the schema, as the first consolidation makes it
    with sqlite3.connect(project.db_path) as conn:
        conn.execute("INSERT INTO model_calls (at, provider, purpose, input_tokens) VALUES (?, ?, 'planted', ?)",
                     (at, provider, tokens))


def _ledger(project: Project, provider: str) -> list[int]:
    return [t for (t,) in rows(project, "SELECT input_tokens + output_tokens + cache_read_tokens + "
                                        "cache_write_tokens FROM model_calls WHERE provider = ? AND purpose != "
                                        "'planted' ORDER BY at", provider)]


def _within_budget(calls: list[dict], budget: int) -> None:
    """What the CLIs really processed stopped at the budget, crossed by at most the one call
    admitted just under it; and the budget did stop it (not every session had its call)."""
    spent = [c["tokens"] for c in calls]
    assert spent and sum(spent) <= budget + max(spent), (sum(spent), budget, spent)
    assert len(spent) < SESSIONS


def test_a_negative_ledger_row_admits_nothing_past_the_budget(clis, talk):
    _plant_row(talk, utc_iso(6), -10**9)  # before: the day's sum started a billion below zero
    budget = 1_500
    _consolidate(talk, "claude-code", budget)
    _within_budget(clis(), budget)
    assert sum(_ledger(talk, "claude-code")) >= budget  # stopped by the calls' own tokens: the row counts 0


@pytest.mark.parametrize("provider", ["claude-code", "codex", "gemini-cli"])
def test_a_cli_reporting_negative_usage_is_charged_its_estimate(provider, clis, talk):
    budget = 1_500
    _consolidate(talk, provider, budget, FAKE_CLI_REPORT="-1000000")
    calls = clis()
    _within_budget(calls, budget)
    charged = _ledger(talk, provider)
    assert len(charged) == len(calls) and all(c >= r["tokens"] for c, r in zip(charged, calls))
    with open(talk.log_path) as f:
        assert "reported token counts out of range" in f.read()


@pytest.mark.parametrize("report", ["1" + "0" * 30, "1e400"])
def test_usage_of_10_to_the_30_is_capped_never_an_overflow(report, clis, talk):
    _consolidate(talk, "claude-code", 50_000, FAKE_CLI_REPORT=report)
    (row,) = _ledger(talk, "claude-code")  # the first call spends the day, the rest go offline
    assert row == 4 * MAX_CALL_TOKENS and len(clis()) == 1
    status = engram("status", "--json")
    assert status.returncode == 0 and "Traceback" not in status.stderr


def test_a_row_dated_a_year_ahead_is_left_out_of_today_and_doctor_names_it(clis, talk):
    ahead = utc_iso(6, time.time() + 365 * 86400)
    _plant_row(talk, ahead, 5_000_000)  # before: every call refused until that date
    _consolidate(talk, "claude-code", 5_000)
    assert clis() and len(_ledger(talk, "claude-code")) == len(clis())  # calls were admitted today
    doctor = engram("doctor")
    line = next(x for x in doctor.stdout.splitlines() if "model ledger" in x)
    assert "WARN" in line and "1 model call(s)" in line and "dated after now" in line and ahead in line
    assert "DELETE FROM model_calls" in doctor.stdout


BAD = [("dailyTokenBudget", "NaN"), ("dailyTokenBudget", "Infinity"), ("dailyTokenBudget", "1e400"),
       ("dailyTokenBudget", "-1"), ("dailyTokenBudget", "2.5"), ("cliTimeoutMs", "NaN"), ("windowSize", "1e400"),
       ("decayFactor", "0"), ("probeTimeoutMs", "-Infinity"), ("logMaxBytes", "1e30")]


@pytest.mark.parametrize("key,raw", BAD)
def test_a_config_number_out_of_range_is_one_line_never_exit_3(key, raw, talk):
    with open(os.path.join(talk.home, "config.json"), "w") as f:
        f.write(f'{{"llmProvider": "claude-code", "{key}": {raw}}}')
    for args in (("status",), ("consolidate", "--all", "--project", talk.root)):
        res = engram(*args)
        assert res.returncode == 1, (args, res.returncode, res.stderr)
        assert res.stderr.startswith("Error: ") and res.stderr.count("\n") == 1, res.stderr
        assert key in res.stderr and "Traceback" not in res.stderr


def test_reservation_keys_that_name_paths_delete_nothing(clis, talk, tmp_path):
    """`../../../victim:1` resolves from ENGRAM_HOME/budget/live/ to tmp_path/victim.lock."""
    victims = [tmp_path / "victim.lock", tmp_path / "proj" / ".git" / "index.lock", tmp_path / "elsewhere.lock"]
    for v in victims:
        v.write_text("held by git\n")
    budget_dir = os.path.join(talk.home, "budget")
    os.makedirs(os.path.join(budget_dir, "live"), mode=0o700)
    os.symlink(victims[2], os.path.join(budget_dir, "live", "4242-deadbeef.lock"))  # a well-shaped name, planted
    keys = {"../../../victim:1": 500, f"{tmp_path / 'proj' / '.git' / 'index'}:1": 500, "4242-deadbeef:1": 5}
    with open(os.path.join(budget_dir, "claude-code.json"), "w") as f:
        json.dump(keys, f)
    _consolidate(talk, "claude-code", 100_000)
    assert [v.read_text() for v in victims] == ["held by git\n"] * 3
    assert len(clis()) == SESSIONS  # the planted keys held nothing back
    with open(os.path.join(budget_dir, "claude-code.json")) as f:
        assert json.load(f) == {}
