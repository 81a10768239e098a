"""Provider tests: real clients against local servers that speak the vendors' wire formats."""

from __future__ import annotations

import pytest

from engram.graph.connect import connect


@pytest.fixture
def conn(tmp_path):
    c = connect(str(tmp_path / "proj" / "engram.db"))
    yield c
    c.close()


@pytest.fixture
def server():
    from testing.servers.embedding_server import EmbeddingServer

    with EmbeddingServer(api_key="test-key") as srv:
        yield srv
