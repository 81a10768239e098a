"""Each hand-written sample (tests/history/data/shop) replayed through the real hook, in process,
into the test's ENGRAM_HOME: what engram records. A failed command is failed with its exit code
where the format shows it, unknown (ok and exit_code null) where it does not, never a success by
default; edits are file_write, prompts user_prompt."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.helpers import events

from engram.history import corpus
from engram.history.replay import replay

SHOP = Path(__file__).parent / "data" / "shop"
ROOT = "/home/u/shop"
DIRECT = ("user_prompt", "file_read", "file_write", "test_run", "build", "command", "search", "todos", "tool_call")


@pytest.fixture
def replayed(monkeypatch):
    """name -> the direct events of that sample's session, replayed with its harness named."""
    monkeypatch.setenv("ENGRAM_NO_WORKER", "1")
    project = corpus.load_project(str(SHOP), ROOT)

    def run(name: str) -> list[tuple]:
        (session,) = [s for s in project.sessions if s.id == name]
        replay(session.payloads(ROOT), ROOT, harness=session.harness)
        evs = events(ROOT, name)
        assert evs[0]["type"] == "session_start" and evs[0]["harness"] == session.harness
        assert evs[-1]["type"] == "session_end"
        return [(e["type"], e.get("ok"), e.get("exit_code"), e.get("path") or e.get("command"))
                for e in evs if e["type"] in DIRECT]

    return run


def test_claude_code_jsonl(replayed):
    assert replayed("01-claude-code") == [
        ("user_prompt", None, None, None), ("test_run", False, 1, "pytest -q tests/test_cart.py"),
        ("file_write", True, None, "src/cart.py")]


def test_codex_rollout(replayed):
    assert replayed("02-codex-rollout") == [
        ("user_prompt", None, None, None), ("test_run", False, 1, "pytest -q"), ("build", True, 0, "npm run build"),
        ("file_write", True, None, "src/cart.py"), ("todos", True, None, None),
        ("tool_call", True, None, None), ("user_prompt", None, None, None),
        ("command", None, None, "npm run dev")]  # still running when its turn ended: unknown


def test_specstory_codex(replayed):
    evs = replayed("03-specstory-codex")
    assert evs[:3] == [("user_prompt", None, None, None), ("build", False, 2, "npm run build"),
                       ("file_write", None, None, "src/cart.js")]  # the patch's result was not kept: unknown


def test_specstory_claude_code(replayed):
    """The first run printed "Exit code 1"; the second printed no "Exit code" line: it ended with 0."""
    assert replayed("04-specstory-claude-code") == [
        ("user_prompt", None, None, None), ("todos", True, None, None),
        ("search", None, None, "rg --files -g '**/*cart*.py'"), ("search", None, None, "rg -n 'def total'"),
        ("file_read", True, 0, "src/cart.py"),
        ("test_run", False, 1, "pytest -q tests/test_cart.py"), ("file_write", True, None, "src/cart.py"),
        ("test_run", True, 0, "pytest -q tests/test_cart.py")]
    (second,) = [e for e in events(ROOT, "04-specstory-claude-code") if e["type"] == "test_run" and e["ok"]]
    assert second["outcome"] == "pass"


def test_specstory_gemini(replayed):
    assert replayed("05-specstory-gemini") == [
        ("user_prompt", None, None, None), ("file_write", True, None, "README.md"), ("build", False, 2, "make build"),
        ("search", None, None, "ls ."), ("file_read", True, 0, "Makefile"), ("search", None, None, "rg -n build"),
        ("file_write", False, None, "Makefile")]
    (failed,) = [e for e in events(ROOT, "05-specstory-gemini") if e["type"] == "file_write" and e["ok"] is False]
    assert failed["error"].startswith("Failed to edit")


def test_specstory_cursor(replayed):
    assert replayed("06-specstory-cursor") == [
        ("user_prompt", None, None, None), ("file_read", None, None, "src/cart.ts"), ("file_write", None, None, "src/cart.ts"),
        ("test_run", None, None, "npm test && echo ok"), ("search", None, None, "rg -n total src")]


def test_specstory_copilot(replayed):
    assert replayed("07-specstory-copilot") == [
        ("user_prompt", None, None, None), ("file_read", None, None, "lib/shop/guest.ex"),
        ("search", None, None, "rg -n 'field :name' -g 'lib/**/*.ex'"),
        ("search", None, None, "rg --files -g '**/migrations/*.exs'"), ("file_write", None, None, "priv/repo/migrations/001_create_guests.exs"),
        ("file_write", None, None, "lib/shop/guest.ex"), ("command", None, None, "mix ecto.migrate"),
        ("todos", True, None, None)]


def test_specstory_legacy(replayed):
    assert replayed("08-specstory-legacy") == [
        ("user_prompt", None, None, None), ("file_read", None, None, "src/commands/session/cd.ts"),
        ("search", None, None, "ls src/commands/session"), ("search", None, None, "rg -n sessionCd"),
        ("test_run", None, None, "bun test"), ("user_prompt", None, None, None)]
