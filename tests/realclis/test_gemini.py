"""Gemini CLI (pinned in tests/testing/real_clis.py), headless, against a fake generateContent API."""

from __future__ import annotations

from testing import real_clis


def trusted(sandbox):
    sb = sandbox("gemini")
    sb.write_json(sb.home / ".gemini" / "trustedFolders.json", {str(sb.proj): "TRUST_FOLDER"})
    sb.install()
    return sb


def test_a_session_end_to_end_and_its_own_context_never_becomes_a_prompt(sandbox):
    sb = trusted(sandbox)
    first = sb.run("fix the build please", real_clis.first_session(sb.proj))
    _, events = real_clis.assert_first_session(sb, first)
    # PreCompress fired before each of the six model calls; none was a compaction
    assert not [e for e in events if e["type"] == "compact"]

    second = sb.run("add a feature", [{"shell": "make test"}, {"say": "ok"}])
    assert second.returncode == 0, second.stderr[-2000:]
    assert "<hook_context>Project memory from earlier sessions" in second.bodies()  # Gemini fed it back
    sessions = sb.sessions()
    prompts = [e["prompt"] for evs in sessions.values() for e in evs if e["type"] == "user_prompt"]
    assert prompts == ["fix the build please", "add a feature"]
    assert real_clis.working_commands(second.bodies()) == []
    sb.wait_idle()
    goals = " ".join(e["goal"] for e in sb.episodes())
    assert "Project memory" not in goals and "hook_context" not in goals


def test_an_untrusted_folder_is_named_by_install_and_doctor_as_gemini_shows_it(sandbox):
    """Gemini CLI disables engram's MCP server in a folder it does not trust; engram says so."""
    sb = sandbox("gemini")
    assert "Gemini CLI does not trust" in sb.install()
    listed = sb.cli("mcp", "list")
    assert "Disabled" in listed.stdout + listed.stderr  # what Gemini itself shows for the server
    doc = sb.engram("doctor", check=False).stdout
    assert "Gemini CLI does not trust" in doc, doc
    sb.write_json(sb.home / ".gemini" / "trustedFolders.json", {str(sb.proj): "TRUST_FOLDER"})
    listed = sb.cli("mcp", "list")
    assert "Disabled" not in listed.stdout + listed.stderr and "engram" in listed.stdout + listed.stderr
    assert "does not trust" not in sb.engram("doctor", check=False).stdout
