"""Spend only with consent (issue 24): the worker, started with the harness's environment,
calls a model only on a key the user gave engram or a provider they named; `status` and
`doctor` say the same thing the worker did, naming the variable that decided.

The worker runs as the hooks start it (`python -m engram worker`, a real subprocess, the real
SDK) against the local scripted server."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from testing.consolidation import episode_file, fix_session
from testing.monitor import env

from engram import worker_use
from engram.consolidate import trigger

IGNORED = "auto: no ENGRAM_* key; ANTHROPIC_API_KEY ignored: not chosen"
CASES = {  # name: (environment beyond the server's URL, config.json, provider used, why)
    "harness key only": ({"ANTHROPIC_API_KEY": "sk-harness"}, None, "offline", IGNORED),
    "engram key": ({"ENGRAM_ANTHROPIC_API_KEY": "sk-engram"}, None, "anthropic",
                   "auto: ENGRAM_ANTHROPIC_API_KEY is set"),
    "named in config.json": ({"ANTHROPIC_API_KEY": "sk-harness"}, {"llmProvider": "anthropic"}, "anthropic",
                             "llmProvider is anthropic; ANTHROPIC_API_KEY is set"),
}


@pytest.fixture
def llm():
    from testing.servers.llm_server import LLMServer

    with LLMServer() as srv:
        yield srv


def _worker_env(llm, extra: dict[str, str]) -> dict[str, str]:
    """The harness's environment as the hook hands it to the worker: no ENGRAM_OFFLINE."""
    return env(ENGRAM_OFFLINE="", ANTHROPIC_BASE_URL=llm.url, ENGRAM_LLM_BACKOFF="0.01", **extra)


def _engram(*args: str, environ: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-P", "-m", "engram", *args], env=environ, capture_output=True, text=True,
                          timeout=180)
    assert done.returncode in (0, 1), done.stderr
    return done


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_worker_spends_only_with_consent_and_status_and_doctor_agree(case, llm, root, engram_home):
    extra, config, used, why = CASES[case]
    if config:
        (engram_home / "config.json").write_text(json.dumps(config))
    s = fix_session(root)
    trigger.enqueue(s.project, ["s1"])
    environ = _worker_env(llm, extra)
    _engram("worker", "--project", s.project.dir, environ=environ)

    assert episode_file(s.project, "s1")["episodes"][0]["provider"] == used
    assert (sum(llm.counts.values()) > 0) == (used != "offline")  # the harness's key alone: not one request
    rec = worker_use.read(str(engram_home))
    assert (rec["provider"], rec["why"]) == (used, why)
    assert rec["model"] == ("" if used == "offline" else "claude-sonnet-4-6, claude-opus-4-6, claude-haiku-4-5")

    status = json.loads(_engram("status", "--json", environ=environ).stdout)["models"]
    assert (status["provider"], status["why"]) == (used, why) and status["worker"] == rec
    text = _engram("status", environ=environ).stdout
    assert f"models       {used} ({why})" in text and f"worker       last used {used}" in text
    doctor = _engram("doctor", environ=environ).stdout
    assert f"consolidation and write checks: {used} ({why})" in doctor
    assert f"worker last used {used}" in doctor and "this shell would choose" not in doctor


def test_the_users_shell_is_told_what_the_worker_used_in_the_harness_environment(llm, root, engram_home):
    s = fix_session(root)
    trigger.enqueue(s.project, ["s1"])
    _engram("worker", "--project", s.project.dir, environ=_worker_env(llm, {"ENGRAM_ANTHROPIC_API_KEY": "k"}))
    shell = env(ENGRAM_OFFLINE="")  # the user's shell has no key at all
    text = _engram("status", environ=shell).stdout
    assert "models       offline (auto: no ENGRAM_* key)" in text
    assert "worker       last used anthropic claude-sonnet-4-6" in text
    assert "auto: ENGRAM_ANTHROPIC_API_KEY is set" in text
    assert "this shell would choose offline" in _engram("doctor", environ=shell).stdout


@pytest.mark.parametrize("key, embedded", [("VOYAGE_API_KEY", False), ("ENGRAM_VOYAGE_API_KEY", True)])
def test_embeddings_spend_only_on_a_key_given_to_engram(llm, server, root, key, embedded):
    """The spec's default embeddingProvider (`anthropic` = Voyage) never embeds on the harness's
    VOYAGE_API_KEY: without engram's own key the worker's vectors are local."""
    s = fix_session(root)
    trigger.enqueue(s.project, ["s1"])
    _engram("worker", "--project", s.project.dir,
            environ=_worker_env(llm, {"ANTHROPIC_API_KEY": "sk-harness", key: "test-key", "VOYAGE_BASE_URL": server.url}))
    assert sum(llm.counts.values()) == 0
    assert bool(server.texts) == embedded  # the node names went to the embedding API only on engram's key


@pytest.mark.parametrize("damage", ["", "{", '{"provider": "x"}', '{"provider": 1, "model": "", "why": "", "at": "x"}',
                                    json.dumps({"provider": "a", "model": "", "why": "w" * 5000,
                                                "at": "2026-01-01T00:00:00Z"})])
def test_a_damaged_worker_record_reads_as_none(engram_home, damage):
    (engram_home / "worker.json").write_text(damage)
    assert worker_use.read(str(engram_home)) is None


def test_the_worker_record_is_bounded_and_read_back(engram_home):
    worker_use.record(str(engram_home), "anthropic", "m" * 500, "w" * 5000)
    rec = worker_use.read(str(engram_home))
    assert rec["provider"] == "anthropic" and len(rec["model"]) == 200 and len(rec["why"]) == 600
    assert os.stat(engram_home / "worker.json").st_mode & 0o777 == 0o600
