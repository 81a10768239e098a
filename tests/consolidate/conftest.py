"""Consolidation tests: workers are not spawned unless a test asks (ENGRAM_NO_WORKER)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_background_workers(monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    monkeypatch.setenv("ENGRAM_LLM_BACKOFF", "0.01")
    monkeypatch.setenv("ENGRAM_RAISE_ERRORS", "")


@pytest.fixture
def root(tmp_path):
    from testing.consolidation import make_root

    return make_root(tmp_path)


@pytest.fixture
def llm(monkeypatch):
    """A scripted model server; the anthropic provider is pointed at it."""
    from testing.servers.llm_server import LLMServer

    with LLMServer() as srv:
        monkeypatch.delenv("ENGRAM_OFFLINE", raising=False)
        for k, v in srv.env("anthropic").items():
            monkeypatch.setenv(k, v)
        yield srv
