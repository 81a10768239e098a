"""Provider tests: real clients against local servers that speak the vendors' wire formats,
and fake harness CLIs on PATH that follow the CLIs' documented headless output."""

from __future__ import annotations

import json
import os

import pytest


@pytest.fixture
def server():
    from testing.servers.embedding_server import EmbeddingServer

    with EmbeddingServer(api_key="test-key") as srv:
        yield srv


class FakeCLIs:
    """The fake `claude` / `codex` / `gemini` on PATH (testing/fake_cli.py) and what they logged."""

    def __init__(self, log):
        self.log = log

    def calls(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]


@pytest.fixture
def clis(tmp_path, monkeypatch):
    from testing.fake_cli import install

    bin_dir = install(tmp_path / "fake-bin")
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_CLI_LOG", str(tmp_path / "fake-cli.jsonl"))
    monkeypatch.delenv("ENGRAM_OFFLINE", raising=False)
    return FakeCLIs(tmp_path / "fake-cli.jsonl")


@pytest.fixture
def root(tmp_path, monkeypatch):
    from testing.consolidation import make_root

    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    monkeypatch.setenv("ENGRAM_LLM_BACKOFF", "0.01")
    return make_root(tmp_path)
