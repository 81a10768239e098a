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


def claude_plugin(home: Path, folder: Path, *, pid: str = "engram@engram", scope: str = "user",
                  project: Path | None = None, enabled: bool = True) -> None:
    """Record a Claude Code plugin as `claude plugin install` does (2.1.197; the real CLI's
    records are checked by tests/realclis/test_plugin.py): the install in
    ~/.claude/plugins/installed_plugins.json, the switch in its scope's settings file."""
    import json

    record = home / ".claude" / "plugins" / "installed_plugins.json"
    data = json.loads(record.read_text()) if record.exists() else {"version": 2, "plugins": {}}
    install = {"scope": scope, "installPath": str(folder), "version": "0.1.0",
               "installedAt": "2026-01-01T00:00:00.000Z", "lastUpdated": "2026-01-01T00:00:00.000Z"}
    if project is not None:
        install["projectPath"] = str(project)
    data["plugins"].setdefault(pid, []).append(install)
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps(data, indent=2))
    base = home if scope == "user" else project
    settings = base / ".claude" / ("settings.local.json" if scope == "local" else "settings.json")
    doc = json.loads(settings.read_text()) if settings.exists() else {}
    doc.setdefault("enabledPlugins", {})[pid] = enabled
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(doc, indent=2))
