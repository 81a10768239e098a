"""embeddings.py: the vec0 index, staleness, model switches, and the python fallback."""

from __future__ import annotations

import math

import pytest

from engram.graph import embeddings, store
from engram.providers.offline import LocalEmbedder

E = LocalEmbedder()


def vec(text):
    return E.embed([text])[0]


def cos(a, b):
    return sum(x * y for x, y in zip(vec(a), vec(b)))


def test_local_embedder_is_deterministic_unit_length_384():
    a, b = LocalEmbedder().embed(["SQLite WAL mode"] * 2)
    assert a == b and len(a) == 384
    assert math.isclose(math.fsum(x * x for x in a), 1.0, rel_tol=1e-9)
    assert LocalEmbedder().embed([""])[0] == [0.0] * 384


@pytest.mark.parametrize("a, b, low, high", [
    ("SQLite 3.53.0", "SQLite", 0.95, 1.01),       # spec: merge
    ("SQLite v3.45", "sqlite", 0.95, 1.01),
    ("Use WAL mode for SQLite", "SQLite WAL mode", 0.95, 1.01),  # word order, stop words
    ("SQLite migration", "SQLite", 0.5, 0.95),
    ("Redis cache", "JWT authentication", -0.3, 0.3),  # unrelated
    ("The quick brown fox", "A database index", -0.3, 0.3),
])
def test_local_embedder_similarities(a, b, low, high):
    assert low <= cos(a, b) <= high


def test_sync_embeds_new_and_changed_nodes_only(conn):
    ids = [store.create_node(conn, name=n, type="concept") for n in ("SQLite", "Redis", "JWT")]
    assert embeddings.sync(conn, E) == 3
    assert embeddings.sync(conn, E) == 0
    store.update_node(conn, ids[1], description="in-memory cache")
    store.update_node(conn, ids[2], strength=0.5)  # not a text change
    assert embeddings.stale_nodes(conn) == [(ids[1], "Redis. in-memory cache")]
    assert embeddings.sync(conn, E) == 1
    assert store.get_meta(conn, "embedding_model") == "engram-hash-v1"
    assert store.get_meta(conn, "embedding_dim") == "384"


def test_knn_returns_cosine_similarity_nearest_first(conn):
    ids = {n: store.create_node(conn, name=n, type="concept") for n in ("SQLite", "SQLite migration", "Redis cache")}
    embeddings.sync(conn, E)
    hits = embeddings.knn(conn, vec("SQLite 3.53.0"), k=2)
    assert [h[0] for h in hits] == [ids["SQLite"], ids["SQLite migration"]]
    assert hits[0][1] == pytest.approx(1.0, abs=1e-5)
    # int8 storage: similarities within 0.005 of the float32 cosine
    assert hits[1][1] == pytest.approx(cos("SQLite", "SQLite migration"), abs=5e-3)
    assert embeddings.knn(conn, vec("x"), k=0) == []


def test_knn_includes_superseded_unless_asked_not_to(conn):
    old = store.create_node(conn, name="Redis cache", type="concept")
    new = store.create_node(conn, name="Memcached", type="concept")
    embeddings.sync(conn, E)
    store.update_node(conn, old, status="superseded", strength=0.0)
    assert embeddings.knn(conn, vec("Redis cache"), k=1) == [(old, pytest.approx(1.0, abs=1e-5))]
    assert [h[0] for h in embeddings.knn(conn, vec("Redis cache"), k=1, include_superseded=False)] == [new]


def test_model_switch_reembeds_everything_instead_of_mixing(conn):
    class Tiny:
        name, model, dim = "tiny", "tiny-v1", 8

        def embed(self, texts):
            return [[float(len(t) % 7 + 1)] + [1.0] * 7 for t in texts]

    for n in ("alpha", "beta", "gamma"):
        store.create_node(conn, name=n, type="concept")
    assert embeddings.sync(conn, E) == 3
    assert embeddings.sync(conn, Tiny()) == 3
    assert store.get_meta(conn, "embedding_dim") == "8"
    assert len(embeddings.get_embedding(conn, store.find_by_name(conn, "alpha")[0]["id"])) == 8
    assert embeddings.sync(conn, E) == 3  # and back
    assert len(embeddings.knn(conn, vec("alpha"), k=5)) == 3
    assert embeddings.knn(conn, vec("the"), k=5) == []  # only stop words: an empty vector


def test_fallback_path_stores_blobs_and_brute_forces(plain_conn):
    ids = {n: store.create_node(plain_conn, name=n, type="concept") for n in ("SQLite", "SQLite migration", "Redis")}
    assert embeddings.vector_path(plain_conn).startswith("python-fallback (")
    assert embeddings.sync(plain_conn, E) == 3
    assert plain_conn.execute("SELECT count(*) FROM node_vectors").fetchone()[0] == 3
    hits = embeddings.knn(plain_conn, vec("SQLite 3.53.0"), k=2)
    assert [h[0] for h in hits] == [ids["SQLite"], ids["SQLite migration"]]
    store.delete_node(plain_conn, ids["Redis"])  # the trigger drops its vector
    assert plain_conn.execute("SELECT count(*) FROM node_vectors").fetchone()[0] == 2


def test_both_paths_agree_and_hand_vectors_over(db_path):
    from engram.graph.connect import connect
    from engram.graph.readonly import open_ro

    vec_conn = connect(db_path)
    names = ["SQLite", "SQLite WAL", "Redis cache", "JWT auth", "Flask routes"]
    for n in names:
        store.create_node(vec_conn, name=n, type="concept")
    embeddings.sync(vec_conn, E)
    q = vec("sqlite write-ahead log")
    expected = embeddings.knn(vec_conn, q, k=5)
    # stdlib (no extension) reads vec0's own storage
    for other in (connect(db_path, vectors=False), open_ro(db_path)):
        got = embeddings.knn(other, q, k=5)
        assert [h[0] for h in got] == [h[0] for h in expected]
        assert [h[1] for h in got] == pytest.approx([h[1] for h in expected], abs=1e-5)
    # a fallback writer's vectors move into vec0 on the next vec-capable sync
    plain = connect(db_path, vectors=False)
    nid = store.create_node(plain, name="Postgres", type="concept")
    embeddings.sync(plain, E)
    assert embeddings.get_embedding(plain, nid) is not None
    assert embeddings.sync(vec_conn, E) == 0
    assert vec_conn.execute("SELECT count(*) FROM node_vectors").fetchone()[0] == 0
    assert embeddings.knn(vec_conn, vec("Postgres"), k=1)[0][0] == nid


def test_switching_models_without_sqlite_vec_is_refused_loudly(db_path):
    from engram.graph.connect import connect

    c = connect(db_path)
    store.create_node(c, name="x", type="concept")
    embeddings.sync(c, E)
    plain = connect(db_path, vectors=False)
    with pytest.raises(embeddings.VectorsUnavailable, match="needs sqlite-vec"):
        embeddings.ensure_index(plain, "other-model", 16)


def test_purge_orphans_and_upsert_delete(conn):
    a = store.create_node(conn, name="alpha", type="concept")
    b = store.create_node(conn, name="beta", type="concept")
    embeddings.sync(conn, E)
    store.delete_node(conn, a)
    assert [h[0] for h in embeddings.knn(conn, vec("alpha"), k=5)] == [b]  # never a deleted id
    assert embeddings.purge_orphans(conn) == 1
    assert embeddings.purge_orphans(conn) == 0
    embeddings.upsert_embedding(conn, b, vec("zzz"))
    assert embeddings.knn(conn, vec("zzz"), k=1)[0][1] == pytest.approx(1.0, abs=1e-5)
    embeddings.delete_embedding(conn, b)
    assert embeddings.get_embedding(conn, b) is None and embeddings.stale_nodes(conn) == [(b, "beta")]


def test_vector_path_names_the_extension_version(conn):
    assert embeddings.vector_path(conn) == f"sqlite-vec {conn.vec_version}"
    assert conn.vec_version.startswith("v0.")
