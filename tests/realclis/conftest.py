"""The real harness CLIs (tests/testing/real_clis.py): one sandboxed HOME and project per test."""

from __future__ import annotations

import pytest

from testing import real_clis


@pytest.fixture
def sandbox(tmp_path, request):
    """`sandbox(harness)` -> a Sandbox with engram not yet installed."""

    def make(harness: str, **env: str) -> real_clis.Sandbox:
        return real_clis.Sandbox(tmp_path / harness, harness, real_clis.install(harness), dict(env))

    return make
