"""The real harness CLIs, pinned, installed from npm, driven headless against local fake model APIs.

`PINS` is the one place their versions live: bumping one is a one-line change that reruns
every test under tests/realclis/. `install(name)` puts the pinned package into a cache
folder (ENGRAM_CLI_CACHE, else ~/.cache/engram-tests/clis) once per version and returns
the directory of its executable; without node and npm the tests skip with one line (CI sets
ENGRAM_REQUIRE_REAL_CLIS=1, which turns that skip into a failure).

`Sandbox` is a user's machine in a temporary folder: a HOME, a git project with a failing
`make build` and a passing `make test`, engram installed into that HOME by `engram install`
exactly as a user runs it, and `run(prompt, steps)` which starts the CLI in the project
against `agent_api.AgentAPI` on 127.0.0.1. Nothing here mocks engram: the CLI runs engram's
hooks, its MCP server and its detached worker itself.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from testing.servers.agent_api import AgentAPI

# name: (npm package, version, executable). The versions issue 24 was reported against.
PINS = {
    "claude-code": ("@anthropic-ai/claude-code", "2.1.197", "claude"),
    "codex": ("@openai/codex", "0.171.0", "codex"),
    "gemini": ("@google/gemini-cli", "0.61.0", "gemini"),
}
# Codex 0.171.0's bundled models run tools in "code mode" or behind tool_search; a catalog of one
# model of our own (its documented `model_catalog_json` fields) gets direct calls: exec_command,
# apply_patch and the MCP servers' tools.
CODEX_MODEL = {"slug": "engram-scripted", "display_name": "Scripted test model", "description": "tests/realclis",
               "base_instructions": "You are a scripted test model.", "shell_type": "shell_command",
               "apply_patch_tool_type": "freeform", "supports_search_tool": False, "visibility": "list",
               "supported_in_api": True, "priority": 1, "context_window": 272000,
               "truncation_policy": {"mode": "tokens", "limit": 10000}, "input_modalities": ["text"],
               "supported_reasoning_levels": [{"effort": "low", "description": "low"}],
               "default_reasoning_level": "low", "supports_parallel_tool_calls": False, "support_verbosity": False,
               "experimental_supported_tools": []}
MAKEFILE = "build:\n\t@echo 'error: missing header config.h' >&2; exit 2\ntest:\n\t@echo '3 passed'\n"
APP = "VALUE = 1\n"


# Read at import, before the tests' own HOME replaces the user's: the cache outlives a test run.
CACHE = Path(os.environ.get("ENGRAM_CLI_CACHE") or Path("~/.cache/engram-tests/clis").expanduser())


def _skip_or_fail(why: str) -> None:
    if os.environ.get("ENGRAM_REQUIRE_REAL_CLIS"):
        pytest.fail(f"real-CLI tests required (ENGRAM_REQUIRE_REAL_CLIS) but {why}")
    pytest.skip(f"real-CLI tests skipped: {why}")


def install(name: str, cache: Path = CACHE) -> Path:
    """The bin directory of the pinned CLI `name`, installed into `cache` on first use."""
    package, version, exe = PINS[name]
    if not shutil.which("npm") or not shutil.which("node"):
        _skip_or_fail("node and npm are not on PATH (the pinned CLIs install from the npm registry)")
    where = cache / f"{package.replace('/', '+')}@{version}"
    binary = where / "node_modules" / ".bin" / exe
    where.mkdir(parents=True, exist_ok=True)
    with open(where / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not binary.exists():
            res = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", str(where),
                                  f"{package}@{version}"], capture_output=True, text=True, timeout=600)
            if res.returncode != 0 or not binary.exists():
                _skip_or_fail(f"npm install {package}@{version} failed: {res.stderr.strip()[-300:]}")
    return binary.parent


def _git(proj: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(proj), "-c", "user.email=dev@example.com", "-c", "user.name=dev", *args],
                   check=True, capture_output=True)


@dataclass
class Run:
    stdout: str
    stderr: str
    returncode: int
    requests: list[dict[str, Any]]

    def bodies(self) -> str:
        return "\n".join(json.dumps(r["body"]) for r in self.requests if r["body"] is not None)


@dataclass
class Sandbox:
    """A user's HOME and one project, with engram installed for `harness` by `engram install`."""

    root: Path
    harness: str
    cli_bin: Path
    extra_env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.home = self.root / "home"
        self.proj = self.root / "proj"
        self.home.mkdir(parents=True, exist_ok=True)
        self.proj.mkdir(parents=True, exist_ok=True)
        (self.proj / "Makefile").write_text(MAKEFILE)
        (self.proj / "app.py").write_text(APP)
        _git(self.proj, "init", "-q")
        _git(self.proj, "add", ".")
        _git(self.proj, "commit", "-qm", "init")
        if self.harness == "gemini":
            self.write_json(self.home / ".gemini" / "settings.json",
                            {"security": {"auth": {"selectedType": "gemini-api-key"}}})

    # -- the environment a harness runs in ---------------------------------------------

    def env(self, **more: str) -> dict[str, str]:
        """What the CLI (and so engram's hooks) see: this HOME, no ENGRAM_* of the test run."""
        venv_bin = str(Path(sys.executable).parent)
        base = {k: v for k, v in os.environ.items()
                if not k.startswith(("ENGRAM_", "ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_", "CODEX_", "CLAUDE"))}
        base.update(HOME=str(self.home), PATH=f"{self.cli_bin}:{venv_bin}:/usr/local/bin:/usr/bin:/bin",
                    DISABLE_AUTOUPDATER="1", DISABLE_TELEMETRY="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                    IS_SANDBOX="1", NO_BROWSER="1", GEMINI_CLI_NO_RELAUNCH="true", NO_COLOR="1")
        base.update(self.extra_env)
        base.update(more)
        return base

    @property
    def engram_home(self) -> Path:
        return self.home / ".engram"

    def write_json(self, path: Path, obj: Any) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(obj, indent=2) + "\n")

    # -- engram, as the user runs it ------------------------------------------------------

    def engram(self, *args: str, check: bool = True, **env: str) -> subprocess.CompletedProcess:
        res = subprocess.run([sys.executable, "-P", "-m", "engram", *args], capture_output=True, text=True,
                             cwd=str(self.proj), env=self.env(**env), timeout=180)
        if check:
            assert res.returncode == 0, (args, res.stdout, res.stderr)
        return res

    def install(self, *args: str) -> str:
        return self.engram("install", "--harness", self.harness, *args).stdout

    # -- the harness's own CLI, as the user runs it ------------------------------------------

    def cli(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        """A subcommand of the harness's CLI (`claude plugin install ...`, `codex mcp list`) in
        the project, stdin closed: the interactive ones (`claude doctor`) would wait for a TTY."""
        return subprocess.run([PINS[self.harness][2], *args], cwd=str(self.proj), env=self.env(), capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=timeout)

    # -- one headless run of the CLI -------------------------------------------------------

    def command(self, api: AgentAPI, prompt: str, resume: str | None = None) -> tuple[list[str], dict[str, str]]:
        if self.harness == "claude-code":
            cmd = ["claude", "-p", prompt, "--output-format", "json", "--dangerously-skip-permissions"]
            if resume:
                cmd += ["--resume", resume]
            return cmd, {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "sk-ant-test-harness-key"}
        if self.harness == "codex":
            catalog = self.root / "codex-models.json"
            self.write_json(catalog, {"models": [CODEX_MODEL]})
            provider = f'{{name="fake", base_url="{api.url}/v1", wire_api="responses", env_key="FAKE_OPENAI_KEY"}}'
            cmd = ["codex", "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
                   "--dangerously-bypass-hook-trust", "-c", "model_provider=fake", "-c", f"model={CODEX_MODEL['slug']}",
                   "-c", f"model_catalog_json={json.dumps(str(catalog))}", "-c", f"model_providers.fake={provider}", prompt]
            return cmd, {"FAKE_OPENAI_KEY": "sk-test-codex-key"}
        cmd = ["gemini", "-p", prompt, "--yolo", "--output-format", "json"]
        if resume:
            cmd += ["--resume", resume]
        return cmd, {"GOOGLE_GEMINI_BASE_URL": api.url, "GEMINI_API_KEY": "test-gemini-key"}

    def run(self, prompt: str, steps: list[dict[str, Any]], *, timeout: float = 120, **env: str) -> Run:
        with AgentAPI({"": steps}) as api:
            cmd, needed = self.command(api, prompt)
            res = subprocess.run(cmd, cwd=str(self.proj), env=self.env(**needed, **env), stdin=subprocess.DEVNULL,
                                 capture_output=True, text=True, timeout=timeout)
            self.wait_idle()
            return Run(res.stdout, res.stderr, res.returncode, list(api.requests))

    # -- what engram made of it ------------------------------------------------------------

    def project_dir(self) -> Path:
        found = [p for p in (self.engram_home / "projects").glob("*") if (p / "events").is_dir()]
        assert len(found) == 1, found
        return found[0]

    def sessions(self) -> dict[str, list[dict[str, Any]]]:
        out = {}
        events = self.engram_home / "projects"
        for f in sorted(events.glob("*/events/*.jsonl"), key=lambda p: p.stat().st_mtime):
            out[f.stem] = [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
        return out

    def rows(self, table: str) -> list[dict[str, Any]]:
        """Every row of a table of the project's database (`nodes`, `episodes`)."""
        import sqlite3

        conn = sqlite3.connect(self.project_dir() / "engram.db")
        try:
            conn.row_factory = sqlite3.Row
            return [dict(r) for r in conn.execute(f"SELECT * FROM {table}")]
        finally:
            conn.close()

    def graph(self) -> list[dict[str, Any]]:
        return self.rows("nodes")

    def episodes(self) -> list[dict[str, Any]]:
        return self.rows("episodes")

    def wait_idle(self, timeout: float = 60) -> None:
        """Until no consolidation is queued or running (the hooks started the worker detached)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            queued = list(self.engram_home.glob("projects/*/queue/*"))
            busy = False
            for slot in self.engram_home.glob("projects/*/workers/*.lock"):
                with open(slot) as fh:
                    try:
                        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        fcntl.flock(fh, fcntl.LOCK_UN)
                    except OSError:
                        busy = True
            if not queued and not busy:
                return
            time.sleep(0.2)
        raise AssertionError(f"consolidation still queued or running after {timeout} s")


# -- the scenario every harness runs ---------------------------------------------------------


def first_session(proj: Path) -> list[dict[str, Any]]:
    """A read, a failing build, a passing test run, an edit, a question to engram's MCP tool."""
    return [{"read": str(proj / "app.py")}, {"shell": "make build"}, {"shell": "make test"},
            {"edit": str(proj / "app.py"), "old": "VALUE = 1", "new": "VALUE = 2"},
            {"mcp": "query_knowledge", "args": {"question": "how is the project built?"}},
            {"say": "The build still fails: config.h is missing."}]


def by_command(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The last command event of each command line."""
    return {e["command"]: e for e in events if isinstance(e.get("command"), str)}


def assert_first_session(sb: Sandbox, run: Run) -> tuple[str, list[dict[str, Any]]]:
    """What every harness must have recorded of `first_session` (a failing build, a passing
    test run, an edit; the MCP answer reached the model), and its consolidation."""
    assert run.returncode == 0, run.stderr[-3000:]
    ((sid, events),) = sb.sessions().items()
    cmds = by_command(events)
    assert cmds["make build"]["ok"] is False and cmds["make build"]["exit_code"] == 2, cmds["make build"]
    assert cmds["make test"]["ok"] is True and cmds["make test"]["exit_code"] == 0, cmds["make test"]
    assert any(e["type"] == "file_write" and e["path"] == "app.py" and e["ok"] for e in events)
    assert "no stored knowledge matching" in run.bodies()  # engram's MCP tool answered the model
    assert [e["session_id"] for e in sb.episodes()] == [sid]  # consolidated once, not in slices
    return sid, events


def working_commands(text: str) -> list[str]:
    """The lines of an injected text that present a command as one that works."""
    return [ln for ln in text.split("\\n") if "make build" in ln and ("works" in ln or "builds" in ln)]


def engram_requests(run: Run) -> list[dict[str, Any]]:
    """Requests engram itself made to the model API (its prompts start with `engram-task:`)."""
    return [r for r in run.requests if r["body"] is not None and "engram-task" in json.dumps(r["body"])]
