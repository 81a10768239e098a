"""`engram backfill` with a model: the day's budget goes to the oldest sessions of every
project, in one worker, whether it runs in the foreground (--wait) or in the background."""

from __future__ import annotations

import json
import os
import time
from datetime import timedelta

import pytest
from testing.consolidation import rows, wait_for
from testing.evaluation import T0, Transcript

from engram import config
from engram.cli import main

# (session, project, days after T0): the two projects' sessions interleave in time
HISTORY = [("a-first", "alpha", 0), ("b-first", "beta", 1), ("a-second", "alpha", 2), ("b-second", "beta", 3)]


@pytest.fixture
def llm(monkeypatch):
    from testing.servers.llm_server import LLMServer

    with LLMServer() as srv:
        monkeypatch.delenv("ENGRAM_OFFLINE", raising=False)
        for k, v in srv.env("anthropic").items():
            monkeypatch.setenv(k, v)
        yield srv


def _history(tmp_path) -> tuple[str, dict[str, config.Project]]:
    """Talk-only transcripts (one model call each) of two projects, in one folder."""
    folder, projects = str(tmp_path / "history"), {}
    for sid, name, day in HISTORY:
        root = tmp_path / name
        (root / ".git").mkdir(parents=True, exist_ok=True)
        projects[sid] = config.Project.from_cwd(str(root))
        (Transcript(sid, str(root), T0 + timedelta(days=day))
         .prompt(f"Should {name} keep its job queue in SQLite? This is {sid}.")
         .reply(f"Yes: SQLite keeps {name}'s queue in one file, no server to run.")
         .write(folder))
    return folder, projects


def _providers(projects: dict[str, config.Project]) -> dict[str, str]:
    out = {}
    for sid, project in projects.items():
        path = project.episode_path(sid)
        episodes = json.load(open(path))["episodes"] if os.path.exists(path) else []
        out[sid] = episodes[0]["provider"] if episodes else ""
    return out


TOKENS = "SELECT input_tokens + output_tokens + cache_read_tokens + cache_write_tokens FROM model_calls"


def _calls(projects: dict[str, config.Project]) -> list[int]:
    return [t for p in {p.dir: p for p in projects.values()}.values() for (t,) in rows(p, TOKENS)]


def _cost_of_each(tmp_path, monkeypatch) -> list[int]:
    """What each session's one call costs, from a run with budget to spare (another ENGRAM_HOME)."""
    monkeypatch.setenv("ENGRAM_HOME", str(tmp_path / "calibration-home"))
    folder, projects = _history(tmp_path / "calibration")
    assert main(["backfill", folder, "--wait"]) == 0
    assert set(_providers(projects).values()) == {"anthropic"}
    per_project = {p.dir: [t for (t,) in rows(p, TOKENS + " ORDER BY rowid")] for p in projects.values()}
    costs = {sid: per_project[p.dir].pop(0) for sid, p in projects.items()}  # HISTORY is in each project's order
    monkeypatch.setenv("ENGRAM_HOME", str(tmp_path / "engram-home"))
    return [costs[sid] for sid, _, _ in HISTORY]


@pytest.mark.parametrize("wait", [True, False], ids=["wait", "background"])
def test_the_two_globally_oldest_sessions_get_the_model(wait, llm, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ENGRAM_LLM_BACKOFF", "0.01")
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")  # the calibration run and the import start no worker
    first = _cost_of_each(tmp_path, monkeypatch)
    folder, projects = _history(tmp_path)
    n = first[0] + first[1]  # the budget of the two oldest sessions' calls: a third is refused
    home = os.environ["ENGRAM_HOME"]
    with open(os.path.join(home, "config.json"), "w") as f:
        json.dump({"llmProvider": "anthropic", "dailyTokenBudget": n}, f)
    if not wait:
        monkeypatch.delenv("ENGRAM_NO_WORKER")
    assert main(["backfill", folder] + (["--wait"] if wait else [])) == 0
    if not wait:
        assert "oldest first, one at a time" in capsys.readouterr().err
        assert wait_for(lambda: all(_providers(projects).values()), timeout=60)
        time.sleep(0.2)
    assert _providers(projects) == {"a-first": "anthropic", "b-first": "anthropic", "a-second": "offline",
                                    "b-second": "offline"}
    assert sum(_calls(projects)) == n
