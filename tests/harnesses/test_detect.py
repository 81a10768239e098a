"""The harness registry: `detect` is the fallback when a registration lacks --harness
(docs/harness-contracts.md §0); every harness satisfies the one interface."""

from __future__ import annotations

import pytest

from engram.harnesses import registry


@pytest.mark.parametrize("payload, want", [
    ({"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Read"}, "claude-code"),
    ({"session_id": "s", "hook_event_name": "PostToolUse", "turn_id": "t"}, "codex"),
    ({"session_id": "s", "hook_event_name": "SessionStart", "transcript_path": "/h/.codex/sessions/r.jsonl"}, "codex"),
    ({"session_id": "s", "hook_event_name": "AfterTool", "timestamp": "2026-01-01T00:00:00Z"}, "gemini"),
    ({"session_id": "s", "hook_event_name": "SessionStart", "timestamp": "2026-01-01T00:00:00Z"}, "gemini"),
    ({"toolCallId": "a", "toolName": "read", "input": {}}, "gsd"),
    ({"reason": "idle"}, "gsd"),
])
def test_detect(payload, want, monkeypatch):
    monkeypatch.delenv("GSD_HOOK_EVENT", raising=False)
    assert registry.detect(payload).NAME == want


HOOK_SIDE = ("NAME", "LABEL", "HANDLERS", "request", "session_id", "prepare", "render")
INSTALL_SIDE = ("NESTED", "ALLOW_COMMENTS", "settings_path", "wanted", "next_step")


@pytest.mark.parametrize("name", sorted(registry.HARNESSES))
def test_every_harness_has_the_whole_interface(name):
    mod = registry.get(name)
    assert mod.NAME == name
    assert all(hasattr(mod, attr) for attr in HOOK_SIDE + INSTALL_SIDE), name
    assert mod.request("NoSuchEvent", {}) == ("ignore", {})
    assert isinstance(mod.wanted(lambda event, harness: f"hook {event} --harness {harness}"), dict)


def test_aliases_and_unknown_names():
    assert registry.get("claude").NAME == "claude-code" and registry.get("gemini-cli").NAME == "gemini"
    with pytest.raises(Exception, match="unknown harness 'nope'"):
        registry.get("nope")
