"""The database: one SQLite file per project (graph, episodes, embeddings), and all of engram's SQL.

connect.py opens it, migrations.py builds and upgrades the schema from schema.sql, store.py
reads and writes nodes / edges / episodes, readonly.py holds every read-only query (the
hooks' first), embeddings.py the vector index. Importing this package imports nothing.
"""
