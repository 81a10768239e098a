"""SessionStart's side of retrieval: what the project was doing when a session begins (the
last sessions' files, git, a GSD plan) and the per-project cache of the context made from it."""
