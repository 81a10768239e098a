"""The database: one SQLite file per project (graph, episodes, embeddings), and all of engram's SQL.

connect.py opens it, migrations.py builds and upgrades the schema from schema.sql, store.py
reads and writes nodes / edges / episodes, readonly.py holds every read-only query (the
hooks' first), embeddings.py the vector index. Importing this package imports nothing but
`os`: `signature`, the graph's version stamp, is here so that a reader that only compares
stamps (a cached SessionStart) loads no query module.
"""

from __future__ import annotations

import os


def signature(path: str) -> list[int]:
    """A cheap graph-version stamp: size and mtime of the database and its WAL.

    Any committed write (a consolidation) changes it; reading never does. Comparing
    it costs two stats, so an unchanged graph is detected without opening SQLite.
    An empty WAL stamps as a missing one: the first reader of a checkpointed graph
    creates it (and the last one to close deletes it), so its mtime says when someone
    read, not what the graph holds. A write grows it, and a checkpoint that empties it
    has written the main file first.
    """
    sig: list[int] = []
    for p in (path, path + "-wal"):
        try:
            st = os.stat(p)
        except OSError:
            st = None
        sig += [st.st_size, st.st_mtime_ns] if st is not None and st.st_size else [0, 0]
    return sig
