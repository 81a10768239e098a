"""A home directory holding realistic settings of other tools: fixtures for the install and doctor tests."""

from __future__ import annotations

from pathlib import Path

import pytest

CLAUDE = """{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Bash(npm run lint)", "Read(~/.zshrc)"],
    "deny": ["Read(./.env)"]
  },
  "env": {"CLAUDE_CODE_ENABLE_TELEMETRY": "0"},
  "hooks": {
    "PostToolUse": [
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "npx prettier --write \\"$CLAUDE_PROJECT_DIR\\""}]}
    ],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send Claude"}]}]
  },
  "enabledPlugins": {"formatter@acme": true}
}
"""

CODEX_HOOKS = """{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "~/.codex/guard.sh", "timeout": 5}]
      }
    ]
  }
}
"""

CODEX_TOML = """# Codex configuration
model = "gpt-5.5"  # the default model
approval_policy = "on-request"

[mcp_servers.docs]
# an unrelated MCP server
command = "npx"
args = ["-y", "docs-mcp"]
"""

GEMINI = """{
  // Gemini CLI allows comments here
  "theme": "GitHub",
  "mcpServers": {
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "timeout": 30000}
  },
  /* another tool's hook */
  "hooks": {
    "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"name": "guard", "type": "command", "command": "guard.sh", "timeout": 2000}]}]
  }
}
"""

GSD = """{
  "defaultModel": "claude-sonnet-4-6",
  "hooks": {
    "PostToolUse": [{"match": {"tool": ["edit", "write"]}, "command": "prettier --write .", "blocking": false}],
    "Stop": [{"command": "notify-send 'GSD is done'"}]
  }
}
"""

FILES = {  # harness: {path relative to HOME: content}
    "claude-code": {".claude/settings.json": CLAUDE},
    "codex": {".codex/hooks.json": CODEX_HOOKS, ".codex/config.toml": CODEX_TOML},
    "gemini": {".gemini/settings.json": GEMINI},
    "gsd": {".gsd/agent/settings.json": GSD},
}
SETTINGS = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json",
            "gemini": ".gemini/settings.json", "gsd": ".gsd/agent/settings.json"}


@pytest.fixture
def home(engram_home, monkeypatch) -> Path:
    """$HOME (a tmp dir, set by tests/conftest.py) filled with every harness's settings."""
    import os

    root = Path(os.environ["HOME"])
    monkeypatch.delenv("CODEX_HOME", raising=False)
    for files in FILES.values():
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
    return root


def _snapshot(root: Path) -> dict[str, bytes]:
    return {rel: (root / rel).read_bytes() for files in FILES.values() for rel in files if (root / rel).exists()}


@pytest.fixture
def snapshot():
    """snapshot(home) -> {relative path: bytes} of every realistic settings file present."""
    return _snapshot


@pytest.fixture
def files():
    return FILES


@pytest.fixture
def settings():
    return SETTINGS
