"""engram's storage: one SQLite file per project (graph, episodes, embeddings).

connect.py opens it (driver choice, WAL, busy timeout), migrations.py builds and upgrades
the schema from schema.sql, graph.py reads and writes nodes / edges / episodes, and
embeddings.py keeps the vector index. Importing this package imports nothing.
"""
