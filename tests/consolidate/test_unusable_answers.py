"""Bad answers fall back (issue 24): a session whose model answers are unusable after one repair
is consolidated offline at once and the model is not asked for it again; a provider that
fails `maxProviderFailures` times in a row is paused until midnight, said once. Through the
real SDK against the local scripted server, `engram consolidate` as a user runs it."""

from __future__ import annotations

import json

import pytest
from testing.consolidation import Session, episode_file, fix_session, rows
from testing.helpers import payload, run_hook
from testing.monitor import context, notice

from engram import notices
from engram.cli import main
from engram.consolidate import trigger
from engram.consolidate.worker import unusable_mark
from engram.errors import ConfigError
from engram.providers import health, registry


def _consolidate(root, *args: str) -> int:
    return main(["consolidate", "--project", str(root), *args])


def _nodes(project) -> int:
    return rows(project, "SELECT count(*) FROM nodes WHERE type != 'episode'")[0][0]


def test_garbage_answers_cost_one_call_and_one_repair_then_the_session_is_consolidated_offline(root, llm, capsys):
    s = fix_session(root)  # one Pass 1 window
    llm.script("pass1", {"text": "garbage"}, {"text": "garbage"})
    assert _consolidate(root) == 0
    assert [c["repair"] for c in llm.calls] == [False, True]  # the first call and its one repair, nothing else
    (episode,) = episode_file(s.project, "s1")["episodes"]
    assert episode["provider"] == "offline" and episode["usage"]["requests"] == 2  # what the model cost is kept
    assert _nodes(s.project) > 0 and not trigger.needs_consolidation(s.project, "s1")
    assert rows(s.project, "SELECT count(*) FROM model_calls") == [(2,)]  # both calls in the ledger
    assert unusable_mark(s.project, "s1")["provider"] == "anthropic"
    assert "answers were unusable" in open(s.project.log_path).read()
    assert "consolidated" in capsys.readouterr().out

    s.prompt("Now handle whitespace-only input too.").test(5, 0).stop("Done.")
    assert _consolidate(root) == 0
    assert len(llm.calls) == 2  # the second run asks the model nothing for this session
    assert [e["provider"] for e in episode_file(s.project, "s1")["episodes"]] == ["offline", "offline"]

    s.prompt("And trailing newlines.").test(6, 0).stop("Done.")
    assert _consolidate(root, "--redo", "s1") == 0  # the user asks the model again
    assert "the model is asked again" in capsys.readouterr().err
    assert len(llm.calls) > 2 and unusable_mark(s.project, "s1") is None
    assert episode_file(s.project, "s1")["episodes"][-1]["provider"] == "anthropic"


def test_a_failing_window_stops_the_windows_not_yet_started(root, llm):
    s = Session(root, "wide").start().prompt("Refactor every module")
    for i in range(40):
        s.write(f"src/m{i}.py", f"x = {i}\n")
    s.stop()
    llm.script("pass1", *[{"text": "garbage"}] * 8)  # the four windows in flight, and their repairs
    assert _consolidate(root, "--session", "wide") == 0
    assert episode_file(s.project, "wide")["episodes"][0]["provider"] == "offline"
    assert llm.counts["pass1"] == 8  # the later windows (six at windowSize 10, overlap 3) were never asked


def _fail(llm, n: int) -> None:
    llm.script("pass1", *[{"status": 400}] * n)
    llm.script("discussion", *[{"status": 400}] * n)


def test_failures_in_a_row_pause_the_provider_until_midnight_with_one_notice(root, llm, engram_home):
    (engram_home / "config.json").write_text(json.dumps({"maxProviderFailures": 2}))
    for sid in ("a", "b", "c"):
        fix_session(root, sid)
    _fail(llm, 2)
    assert _consolidate(root, "--session", "a") == 1 and _consolidate(root, "--session", "b") == 1
    asked = len(llm.calls)
    project = Session(root, "a").project
    provider, why = registry.choose(registry_cfg(engram_home))
    assert provider.NAME == "offline" and why.startswith("auto: anthropic is paused until midnight after 2 failures")
    assert _consolidate(root) == 0  # every pending session, the two that failed included: offline, no call
    assert len(llm.calls) == asked
    assert all(episode_file(project, sid)["episodes"][-1]["provider"] == "offline" for sid in ("a", "b", "c"))

    starts = [run_hook("SessionStart", payload("SessionStart", sid, root, source="startup")) for sid in ("n1", "n2")]
    said = [line for h in starts for line in notice(h.stdout).splitlines() if "paused" in line]
    assert len(said) == 1 and "anthropic failed 2 times in a row" in said[0], said
    assert not any("paused" in context(h.stdout) for h in starts)  # the user's, not the agent's
    assert open(project.log_path).read().count("paused until midnight") == 1
    assert notices.take(str(engram_home)) == []


def test_a_success_clears_the_count(root, llm, engram_home):
    (engram_home / "config.json").write_text(json.dumps({"maxProviderFailures": 2}))
    for sid in ("a", "b", "c"):
        fix_session(root, sid)
    _fail(llm, 1)
    assert _consolidate(root, "--session", "a") == 1
    assert _consolidate(root, "--session", "b") == 0  # the model answered: the count starts again
    _fail(llm, 1)
    assert _consolidate(root, "--session", "c") == 1
    assert health.paused(str(engram_home), "anthropic", registry_cfg(engram_home)) is None


@pytest.mark.parametrize("value", [0, -1, 1.5, "3", True])
def test_max_provider_failures_is_validated(engram_home, value):
    from engram.config import load_config

    (engram_home / "config.json").write_text(json.dumps({"maxProviderFailures": value}))
    with pytest.raises(ConfigError, match="maxProviderFailures"):
        load_config(str(engram_home))


def registry_cfg(home) -> dict:
    from engram.config import load_config

    return load_config(str(home))[0]
