"""Embedding providers through their real clients (urllib, the openai SDK) against a
local server that speaks Voyage's and OpenAI's wire formats; the cache; provider choice."""

from __future__ import annotations

import math

import pytest
from testing.servers.embedding_server import fake_vector

from engram.graph import embeddings, store
from engram.errors import ConfigError
from engram.graph.vectors import CachedEmbedder
from engram.providers.base import EmbeddingError
from engram.providers.offline import LocalEmbedder
from engram.providers.openai import OpenAIEmbedder
from engram.providers.registry import embedder as get_embedder
from engram.providers.voyage import VoyageEmbedder

FAST = {"backoff": 0.001, "retries": 2}


def voyage(server, **kw):
    return VoyageEmbedder(base_url=server.url, api_key="test-key", **{**FAST, **kw})


def openai_(server, **kw):
    return OpenAIEmbedder(base_url=server.url + "/v1", api_key="test-key", **{**FAST, **kw})


def test_voyage_wire_format(server):
    vectors = voyage(server).embed(["alpha", "beta"])
    assert len(vectors) == 2 and len(vectors[0]) == 512
    assert vectors[0] == pytest.approx(fake_vector("alpha", 512), abs=1e-9)
    req = server.requests[0]
    assert req["path"] == "/v1/embeddings"
    assert req["body"] == {"input": ["alpha", "beta"], "model": "voyage-3-lite"}
    assert req["headers"]["Authorization"] == "Bearer test-key"


def test_voyage_base_url_from_environment(server, monkeypatch):
    monkeypatch.setenv("VOYAGE_BASE_URL", server.url)
    monkeypatch.setenv("VOYAGE_API_KEY", "test-key")
    assert len(VoyageEmbedder().embed(["x"])[0]) == 512


def test_openai_through_the_sdk(server):
    vectors = openai_(server).embed(["alpha", "beta", "gamma"])
    assert [len(v) for v in vectors] == [1536] * 3
    # the SDK asks for base64 float32; values survive the round trip
    assert vectors[2] == pytest.approx(fake_vector("gamma", 1536), abs=1e-6)
    assert server.requests[0]["body"]["model"] == "text-embedding-3-small"


def test_openai_base_url_from_environment(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    assert len(OpenAIEmbedder(**FAST).embed(["x"])[0]) == 1536


@pytest.mark.parametrize("make", [voyage, openai_], ids=["voyage", "openai"])
@pytest.mark.parametrize("status", [429, 500, 503])
def test_retries_with_backoff_then_succeeds(server, make, status):
    server.fail_next(status, times=2)
    emb = make(server)
    assert len(emb.embed(["x"])) == 1
    assert len(server.requests) == 3 and emb.requests == 3


@pytest.mark.parametrize("make", [voyage, openai_], ids=["voyage", "openai"])
def test_gives_up_after_the_configured_retries(server, make):
    server.fail_next(500, times=5)
    with pytest.raises(EmbeddingError, match="gave up after 3 attempts"):
        make(server).embed(["x"])
    assert len(server.requests) == 3


@pytest.mark.parametrize("make, env", [(voyage, "VOYAGE_API_KEY"), (openai_, "OPENAI_API_KEY")],
                         ids=["voyage", "openai"])
def test_bad_key_fails_at_once_naming_the_variable(server, make, env):
    emb = make(server)
    emb.api_key = "wrong"
    if hasattr(emb, "_client"):
        emb._client = None
    with pytest.raises(EmbeddingError, match=env):
        emb.embed(["x"])
    assert len(server.requests) == 1


def test_retry_after_header_is_honoured(server, monkeypatch):
    import time as time_mod

    slept = []
    monkeypatch.setattr(time_mod, "sleep", slept.append)
    server.fail_next(429, times=1, retry_after=0.25)
    voyage(server).embed(["x"])
    assert slept == [0.25]


def test_unreachable_server_is_retried_then_reported():
    emb = VoyageEmbedder(base_url="http://127.0.0.1:9", api_key="k", **FAST)
    with pytest.raises(EmbeddingError, match="cannot reach"):
        emb.embed(["x"])


def test_batching(server):
    emb = voyage(server, batch_size=2)
    assert len(emb.embed([f"t{i}" for i in range(5)])) == 5
    assert [len(r["body"]["input"]) for r in server.requests] == [2, 2, 1]


def test_cache_never_requests_the_same_text_twice(server, conn):
    emb = CachedEmbedder(voyage(server), conn)
    first = emb.embed(["alpha", "beta", "alpha"])
    assert server.texts == ["alpha", "beta"]  # duplicates within a call are sent once
    again = emb.embed(["beta", "alpha", "gamma"])
    assert server.texts == ["alpha", "beta", "gamma"]
    assert again[0] == pytest.approx(first[1]) and again[1] == pytest.approx(first[0])
    assert (emb.hits, emb.misses) == (2, 3)
    # another model is another cache key
    CachedEmbedder(openai_(server), conn).embed(["alpha"])
    assert server.texts[-1] == "alpha" and len(server.texts) == 4


def test_model_switch_and_back_costs_no_requests(server, conn):
    for n in ("SQLite", "Redis", "JWT"):
        store.create_node(conn, name=n, type="concept")
    remote = CachedEmbedder(voyage(server), conn)
    assert embeddings.sync(conn, remote) == 3 and store.get_meta(conn, "embedding_dim") == "512"
    assert embeddings.sync(conn, LocalEmbedder()) == 3 and store.get_meta(conn, "embedding_dim") == "384"
    sent = len(server.texts)
    assert embeddings.sync(conn, remote) == 3 and len(server.texts) == sent
    hit = embeddings.knn(conn, fake_vector("SQLite", 512), k=1)[0]
    assert store.get_node(conn, hit[0])["name"] == "SQLite" and math.isclose(hit[1], 1.0, abs_tol=1e-5)


# -- choosing a provider ----------------------------------------------------------


@pytest.fixture
def online(monkeypatch):
    monkeypatch.delenv("ENGRAM_OFFLINE", raising=False)


def test_default_without_keys_is_local_and_says_why(online):
    emb = get_embedder({"embeddingProvider": "anthropic", "embeddingModel": "voyage-3-lite"})
    assert isinstance(emb, LocalEmbedder) and emb.dim == 384
    assert emb.fallback_reason == "embeddingProvider 'anthropic': ENGRAM_VOYAGE_API_KEY is not set"


def test_the_default_provider_never_spends_a_key_the_harness_passed(online, monkeypatch, engram_home):
    """Issue 24: VOYAGE_API_KEY inherited from the harness is not consent; the spec's default
    (`anthropic` = Voyage) embeds remotely on engram's own key, or once config.json names it."""
    monkeypatch.setenv("VOYAGE_API_KEY", "k")
    emb = get_embedder({"embeddingProvider": "anthropic", "embeddingModel": "voyage-3-lite"})
    assert isinstance(emb, LocalEmbedder)
    assert emb.fallback_reason == ("embeddingProvider 'anthropic': ENGRAM_VOYAGE_API_KEY is not set; "
                                   "VOYAGE_API_KEY ignored: not chosen")
    (engram_home / "config.json").write_text('{"embeddingProvider": "anthropic"}')
    assert isinstance(get_embedder({"embeddingProvider": "anthropic"}), VoyageEmbedder)  # named: theirs to spend
    (engram_home / "config.json").unlink()
    monkeypatch.delenv("VOYAGE_API_KEY")
    monkeypatch.setenv("ENGRAM_VOYAGE_API_KEY", "engram-k")
    emb = get_embedder({"embeddingProvider": "anthropic"})
    assert isinstance(emb, VoyageEmbedder) and emb.api_key == "engram-k"


def test_configured_provider_with_its_key(online, monkeypatch, conn):
    monkeypatch.setenv("VOYAGE_API_KEY", "k")
    emb = get_embedder({"embeddingProvider": "voyage", "embeddingModel": "voyage-3-lite"})
    assert isinstance(emb, VoyageEmbedder) and (emb.model, emb.dim) == ("voyage-3-lite", 512)
    cached = get_embedder({"embeddingProvider": "voyage"}, conn)
    assert isinstance(cached, CachedEmbedder) and cached.dim == 512
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    emb = get_embedder({"embeddingProvider": "openai", "embeddingModel": "voyage-3-lite"})
    assert isinstance(emb, OpenAIEmbedder) and (emb.model, emb.dim) == ("text-embedding-3-small", 1536)
    assert isinstance(get_embedder({"embeddingProvider": "local"}), LocalEmbedder)


def test_engram_offline_forces_local(monkeypatch):
    monkeypatch.setenv("ENGRAM_OFFLINE", "1")
    monkeypatch.setenv("VOYAGE_API_KEY", "k")
    emb = get_embedder({"embeddingProvider": "anthropic"})
    assert isinstance(emb, LocalEmbedder) and emb.fallback_reason == "ENGRAM_OFFLINE is set"


def test_unknown_provider_is_a_config_error(online):
    with pytest.raises(ConfigError, match="embeddingProvider 'cohere'"):
        get_embedder({"embeddingProvider": "cohere"})
