"""Real history: Claude Code transcripts replayed through the real hooks (`engram backfill`, `engram eval`)."""
