"""Codex-shaped hook payloads, in a session's order: what a live Codex CLI session sends its
hooks (docs/harness-contracts.md §2.2, §2.3), for the converters of transcripts that are not
Claude Code's (history/rollout.py, history/specstory.py), so they reach the Codex adapter.

One builder per session. `prompt` opens a turn (closing the open one with its Stop), tool calls
and replies fall in the current turn, `end` closes the last turn and the session. Every payload
carries `turn_id` (the session events an empty one), so `registry.detect` reads them as Codex's,
and, once `at` dated it, the time of the record it came from under engram.hook.REPLAY_TS.

A shell call's `tool_response` is Codex's text, "Exit code: N\\nWall time: W seconds\\nOutput:\\n...",
only when the transcript shows the exit code; otherwise the output alone, which the Codex
adapter records as unknown (ok None), never as a success. The same holds for apply_patch.
"""

from __future__ import annotations

from dataclasses import dataclass

from engram.hook import REPLAY_TS

_EXITED = "Process exited with code "
_RUNNING = "Process running with session ID "


@dataclass
class ExecResult:
    """What a Codex exec output says: its exit code (None while running), wall time, output."""

    code: int | None
    wall: str | None
    output: str
    running: str | None  # the exec session id of a command still running when the call returned


def exec_result(text: str) -> ExecResult:
    """Read Codex's exec_command / write_stdin output: header lines ("Chunk ID", "Wall time: W
    seconds", "Process exited with code N" or "Process running with session ID N", "Original
    token count"), then "Output:" and the output; a text without that header is all output."""
    lines = text.split("\n")
    cut = next((i for i, line in enumerate(lines[:8]) if line.rstrip() == "Output:"), None)
    head, body = (lines[:cut], "\n".join(lines[cut + 1:])) if cut is not None else ([], text)
    code = wall = running = None
    for line in head:
        if line.startswith(_EXITED) and line[len(_EXITED):].strip().lstrip("-").isdigit():
            code = int(line[len(_EXITED):])
        elif line.startswith(_RUNNING):
            running = line[len(_RUNNING):].strip()
        elif line.startswith("Wall time: "):
            wall = line[len("Wall time: "):].removesuffix(" seconds").strip()
    return ExecResult(code, wall, body, running)


def response(output: str, exit_code: int | None, wall: str | None = None) -> str:
    """Codex's tool_response text: headed by the exit code when it is known, else the output alone."""
    if exit_code is None:
        return output
    return f"Exit code: {exit_code}\n" + (f"Wall time: {wall} seconds\n" if wall else "") + "Output:\n" + output


class CodexPayloads:
    """The payloads of one session, in order (`items`, or `end()`)."""

    def __init__(self, session_id: str, cwd: str = "") -> None:
        self.items: list[tuple[str, dict]] = []
        self._common: dict = {"session_id": session_id, "transcript_path": "", "cwd": cwd, "turn_id": ""}
        self._turns = self._calls = 0
        self._open = False
        self._last = ""

    def at(self, when: str | None) -> None:
        """Date the payloads that follow; None keeps the last date (the hook validates it)."""
        if when:
            self._common[REPLAY_TS] = when

    def _add(self, event: str, **fields) -> None:
        self.items.append((event, dict(self._common, hook_event_name=event, **fields)))

    def start(self) -> None:
        self._add("SessionStart", source="startup")

    def prompt(self, text: str, turn_id: str | None = None) -> None:
        """A typed prompt: the open turn stops, a new one starts."""
        self.stop()
        self._turns += 1
        self._common["turn_id"] = turn_id or f"turn-{self._turns}"
        self._open, self._last = True, ""
        self._add("UserPromptSubmit", prompt=text)

    def reply(self, text: str) -> None:
        """The agent's text: the latest one is the turn's last message."""
        if text.strip():
            self._last = text.strip()

    def tool(self, name: str, tool_input: dict, tool_response, call_id: str = "") -> None:
        self._calls += 1
        self._add("PostToolUse", tool_name=name, tool_use_id=call_id or f"call-{self._calls}",
                  tool_input=tool_input, tool_response=tool_response)

    def shell(self, command: str, output: str, exit_code: int | None = None, wall: str | None = None,
              call_id: str = "") -> None:
        self.tool("Bash", {"command": command}, response(output, exit_code, wall), call_id)

    def patch(self, text: str, output: str, exit_code: int | None = None, call_id: str = "") -> None:
        self.tool("apply_patch", {"command": text}, response(output, exit_code), call_id)

    def stop(self, message: str | None = None) -> None:
        """The open turn's Stop, with its last message (the one given, else the latest reply)."""
        if self._open:
            self._open = False
            self._add("Stop", stop_hook_active=False, last_assistant_message=message or self._last)

    def end(self) -> list[tuple[str, dict]]:
        """Close the last turn and the session; all the payloads."""
        self.stop()
        self._common["turn_id"] = ""
        self._add("SessionEnd", reason="other")
        return self.items
