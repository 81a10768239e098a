"""Helpers the tests share (not fixtures), in one place; `tests/` is on sys.path.

helpers       run the real hook as a subprocess, read what it wrote, the shared fixtures
consolidation sessions driven through the hooks, for the consolidation tests
monitor       projects with decisions and a recording model server, for the checker tests
reliability   projects, scripted sessions and graph checks, for the reliability tests
evaluation    synthetic Claude Code transcripts, for `engram eval` and backfill
servers/      local HTTP servers speaking the vendors' wire formats (messages, chat, embeddings)
"""
