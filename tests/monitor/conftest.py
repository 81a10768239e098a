"""Fixtures for the contradiction tests: a project with decision nodes, a scripted model server."""

from __future__ import annotations

import pytest

from testing.monitor import Project, recording_server


@pytest.fixture
def llm():
    """A local Messages / Chat Completions server; script answers with `llm.script("contradiction", ...)`."""
    with recording_server() as srv:
        yield srv


@pytest.fixture
def project(tmp_path) -> Project:
    return Project(tmp_path / "proj")
