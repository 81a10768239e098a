"""Figures for docs/reliability.md: each test adds its counts, the run prints them at the end.

`figures.add("fuzz", payloads=1200, crashed=0)` sums counts per topic across tests. The
totals are printed in pytest's terminal summary and, when ENGRAM_RELIABILITY_FIGURES names
a file, written there as JSON (that is how the README's table is regenerated).
"""

from __future__ import annotations

import json
import os

import pytest

_TOTALS: dict[str, dict[str, int]] = {}


class Figures:
    def add(self, topic: str, **counts: int) -> None:
        bucket = _TOTALS.setdefault(topic, {})
        for k, v in counts.items():
            bucket[k] = bucket.get(k, 0) + int(v)


@pytest.fixture
def figures() -> Figures:
    return Figures()


def pytest_terminal_summary(terminalreporter) -> None:
    if not _TOTALS:
        return
    terminalreporter.section("engram reliability figures")
    for topic in sorted(_TOTALS):
        counts = ", ".join(f"{k}={v}" for k, v in _TOTALS[topic].items())
        terminalreporter.write_line(f"{topic}: {counts}")
    path = os.environ.get("ENGRAM_RELIABILITY_FIGURES")
    if path:
        with open(path, "w") as f:
            json.dump(_TOTALS, f, indent=1, sort_keys=True)


@pytest.fixture
def proj(tmp_path, monkeypatch):
    """A git project with src/app.py; its hooks start no worker (a test consolidates when it says)."""
    from testing.reliability import make_project

    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    return make_project(tmp_path)


@pytest.fixture
def proj_s0(proj):
    """`proj` after one consolidated session, s0 (a decision linked to src/mod0.py)."""
    from testing.reliability import consolidate_all, replay_inproc, session_script

    replay_inproc(session_script(proj, "s0", 0))
    consolidate_all(proj)
    return proj
