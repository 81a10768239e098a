"""A session consolidated in slices (a compaction, then the turn's end): each slice's knowledge
may cite the session's earlier events, and no slice fails for it."""

from __future__ import annotations

from engram import lifecycle
from testing.consolidation import Session, cfg, consolidate, episode_file, make_root


def test_a_later_slice_may_cite_events_of_an_earlier_one(tmp_path, monkeypatch):
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    root = make_root(tmp_path)
    s = Session(root, "sliced").start()
    s.prompt("Make the build pass: config.h is missing. Always run make test before you commit.")
    s.command("make build", 2, "error: missing header config.h")
    lifecycle.compact(s.ctx, "auto")
    first = consolidate(s.project, "sliced", cfg(s.project))
    assert first.status == "consolidated", first.error
    s.command("make test", 0, "3 passed")
    s.stop("The build still fails: config.h is missing.")
    second = consolidate(s.project, "sliced", cfg(s.project))
    assert second.status == "consolidated", second.error
    assert episode_file(s.project, "sliced") is not None


def test_a_slice_after_a_prompt_alone(tmp_path, monkeypatch):
    """Gemini CLI's pattern: a compaction right after the prompt, the tool calls after it."""
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    root = make_root(tmp_path)
    (root / "app.py").write_text("VALUE = 1\n")
    s = Session(root, "g").start()
    s.prompt("fix the build please")
    lifecycle.compact(s.ctx, "auto")
    assert consolidate(s.project, "g", cfg(s.project)).status == "consolidated"
    s.read("app.py")
    s.stop("Done.")
    second = consolidate(s.project, "g", cfg(s.project))
    assert second.status == "consolidated", second.error
