"""`detect_harness`: the fallback when a registration lacks --harness (harness-contracts §0)."""

from __future__ import annotations

import pytest

from engram.hook import ADAPTERS, _adapter, detect_harness


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
    assert detect_harness(payload) == want


def test_every_adapter_has_the_interface():
    for name in ADAPTERS:
        mod = _adapter(name)
        assert mod.NAME and callable(mod.request) and callable(mod.render)
        assert mod.request("NoSuchEvent", {}) == ("ignore", {})
