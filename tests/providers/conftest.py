"""Provider tests: real clients against local servers that speak the vendors' wire formats."""

from __future__ import annotations

import pytest


@pytest.fixture
def server():
    from testing.servers.embedding_server import EmbeddingServer

    with EmbeddingServer(api_key="test-key") as srv:
        yield srv
