"""Real history: agent transcripts (Claude Code, Codex CLI, SpecStory exports) replayed through the
real hooks (`engram backfill`, `engram eval`)."""
