"""Text heuristics several jobs share, below them all: which sentences are decisions and what
they settle (`decision_text`), the curated table of technology names (`aliases`), and the name
rules entity resolution asks first (`names`). Standard library only: the hooks read decisions
out of prompts with them."""
