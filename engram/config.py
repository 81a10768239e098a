"""Configuration, data paths and project identity.

Everything lives under ENGRAM_HOME (default ~/.engram). config.json is optional and
every key in it is optional: the spec's (docs/spec.md) defaults apply, an unknown key is a warning,
a value of the wrong type is an error naming the key. Standard library only: the
hook imports this on every call.
"""

from __future__ import annotations

import os

from engram import jsonio
from engram.errors import ConfigError, UnsafeIdentifier
from engram.fsio import NotRegular, read_file, read_regular, write_atomic
from engram.hashing import sha256_hex

# The spec's config block, verbatim, then engram's own keys.
DEFAULTS: dict = {
    "embeddingProvider": "anthropic",
    "embeddingModel": "voyage-3-lite",
    "consolidationModel": "claude-sonnet-4-6",
    "episodeExtractionModel": "claude-opus-4-6",
    "contradictionModel": "claude-haiku-4-5",
    "decayFactor": 0.6,
    "activationThreshold": 0.1,
    "windowSize": 10,
    "windowOverlap": 3,
    "minEventsForFullConsolidation": 3,
    "contradictionStrengthThreshold": 0.3,
    "maxContradictionFailures": 3,
    "probeTimeoutMs": 30000,
    # engram's own keys
    # auto | anthropic | openai | offline | claude-code | codex | gemini-cli (engram/providers/registry.py)
    "llmProvider": "auto",
    "discussionModel": "claude-haiku-4-5",
    "openaiModel": "gpt-4.1-mini",
    "codexModel": "",  # codex exec -m; "" = the Codex CLI's own default model
    "geminiModel": "",  # gemini -m; "" = the Gemini CLI's own default model
    "cliTimeoutMs": 180000,  # one headless harness-CLI call (its start-up included)
    "dailyTokenBudget": 500000,  # per model provider and local day; then offline until midnight
    "maxProviderFailures": 3,  # model jobs failed in a row that pause a provider until midnight
    "fsync": False,  # fsync every JSONL append (slower; survives power loss, not just crashes)
    "tokenBudget": 1200,  # max tokens injected per SessionStart / UserPromptSubmit
    "firstTurnTokenBudget": 1900,  # max tokens SessionStart and the first prompt inject together (~1,000 words)
    "spreadingRule": "spec",  # spec | fan (ACT-R fan-normalised)
    "involuntaryMinStrength": 0.5,
    "involuntaryTopK": 3,
    # an item injected this many times and never used fades: no longer injected (0: never; docs/curation.md)
    "fadeAfterUnused": 5,
    "maxDiffChars": 4000,
    "maxOutputChars": 2000,
    "maxPromptChars": 2000,
    "maxConcurrentWorkers": 2,
    "logMaxBytes": 1_000_000,
    # {"Canonical": ["alias", ...]}: this project's names for things, added to the curated
    # table of engram/language/aliases.txt (entity resolution merges them; retrieval seeds them)
    "aliases": {},
}

_NUMBER = (int, float)
MAX_CONFIG_BYTES = 1024 * 1024
# Every number's range (least, most, whole number?): a value outside it, NaN, Infinity or
# 1e400 (read as infinity) is a one-line error naming the key, never a crash later in
# `int()` or a timeout. 0 is allowed only where it means something: no overlap, every
# session consolidated in full, every decision checked, no first-read notes, no model
# calls (dailyTokenBudget 0); the two keys of ABOVE_ZERO must be more than their least, 0.
RANGES: dict[str, tuple[float, float, bool]] = {
    "decayFactor": (0.0, 10.0, False),
    "activationThreshold": (0.0, 1.0, False),
    "windowSize": (2, 10_000, True),
    "windowOverlap": (0, 10_000, True),
    "minEventsForFullConsolidation": (0, 1_000_000, True),
    "contradictionStrengthThreshold": (0.0, 1.0, False),
    "maxContradictionFailures": (1, 1_000_000, True),
    "probeTimeoutMs": (1, 86_400_000, False),
    "cliTimeoutMs": (1, 86_400_000, False),
    "dailyTokenBudget": (0, 10**12, True),
    "maxProviderFailures": (1, 1_000_000, True),
    "tokenBudget": (1, 1_000_000, True),
    "firstTurnTokenBudget": (1, 1_000_000, True),
    "involuntaryMinStrength": (0.0, 1.0, False),
    "involuntaryTopK": (0, 100, True),
    "maxDiffChars": (1, 10_000_000, True),
    "maxOutputChars": (1, 10_000_000, True),
    "maxPromptChars": (1, 10_000_000, True),
    "maxConcurrentWorkers": (1, 64, True),
    "logMaxBytes": (1024, 10**10, True),
    "fadeAfterUnused": (0, 1_000_000, True),
}
ABOVE_ZERO = ("decayFactor", "activationThreshold")


def engram_home() -> str:
    return os.path.abspath(os.path.expanduser(os.environ.get("ENGRAM_HOME") or "~/.engram"))


MCP_STATE = "mcp.json"  # {harness: the name} where `engram install` registered the MCP server
# The name engram's MCP server is registered under, or, where another tool's server already
# holds that one (other memory tools call theirs `engram` too), the second: never overwritten.
MCP_SERVER = "engram"
MCP_SERVERS = (MCP_SERVER, "engram-memory")
# How an interpreter starts engram's processes (the hook, the worker, the MCP server).
# -P: no path is put before the standard library, so a project's own files (a `fcntl.py` or
# `json.py` at its root: the harness runs hooks in the project) are never imported instead
# of the standard library's. The hook is started with -c, not -m: `-m` imports runpy and
# what it needs (~4 ms of every tool call here). -S: no `site` (its path scan, the .pth files of
# every installed package: ~1-2 ms of every hook); the hook imports only the standard library and
# engram, so the code puts the folder engram's package sits in (site-packages, a user site, or an
# editable install's source folder: known here, written by `engram install`) after the standard
# library on sys.path; the folder is an argument, not code, and the hook reads the rest of argv.
# plugin/bin/engram-hook spells the same words for a checkout (LEGACY_HOOK_ARGS elsewhere).
HOOK_CODE = "import sys; sys.path.append(sys.argv.pop(1)); from engram.hook import entry; entry()"
HOOK_ARGS = ("-S", "-P", "-c", HOOK_CODE, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# What installs before -S wrote (and plugin/bin/engram-hook runs where it does not know the folder).
LEGACY_HOOK_ARGS = ("-P", "-c", "from engram.hook import entry; entry()")
MODULE_ARGS = ("-P", "-m", "engram")  # + a command: `worker ...`, `mcp`


def mcp_state(home: str | None = None) -> dict:
    """$ENGRAM_HOME/mcp.json: the harnesses `engram install` registered the MCP server with."""
    raw = read_regular(os.path.join(home or engram_home(), MCP_STATE), 65536)
    try:
        state = jsonio.loads(raw.decode("utf-8", "replace")) if raw else {}
    except ValueError:
        return {}
    return state if isinstance(state, dict) else {}


def mcp_server_name(harness: str, home: str | None = None) -> str | None:
    """The name `engram install` registered the MCP server under with `harness` (`true`, as
    installs before the second name wrote it, is the first); None when it did not."""
    value = mcp_state(home).get(harness)
    return MCP_SERVER if value is True else value if value in MCP_SERVERS else None


def mcp_registered(harness: str, home: str | None = None) -> bool:
    """Whether the agent of `harness` has the query_knowledge tool: `engram install`
    registered the server with it, or it runs engram as the Claude Code plugin, whose
    .mcp.json registers the server (Claude Code exports CLAUDE_PLUGIN_ROOT to plugin hooks)."""
    if harness == "claude-code" and os.environ.get("CLAUDE_PLUGIN_ROOT"):
        return True
    return mcp_server_name(harness, home) is not None


def is_own_mcp_server(entry) -> bool:
    """An MCP server entry engram wrote (any harness's shape): args `-P -m engram mcp`
    (MODULE_ARGS), or `-m engram mcp` as installs before -P wrote it."""
    return isinstance(entry, dict) and entry.get("args") in ([*MODULE_ARGS, "mcp"], ["-m", "engram", "mcp"])


def _user_settings(path: str) -> dict:
    """What config.json sets ({} without the file); ConfigError when it cannot be read as an object."""
    try:
        raw = read_file(path, MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        return {}
    except NotRegular:
        raise ConfigError(f"{path} is not a regular file (a FIFO, a device or a symlink); "
                          "replace it with a JSON file or delete it") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror}); fix its permissions") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path} is larger than {MAX_CONFIG_BYTES} bytes; it holds a few settings, fix or delete it")
    try:
        user = jsonio.loads(raw.decode("utf-8", "replace"))
    except ValueError as exc:
        raise ConfigError(f"{path}: not valid JSON ({exc}); fix or delete the file") from None
    if not isinstance(user, dict):
        raise ConfigError(f"{path}: must hold a JSON object of settings")
    return user


def user_keys(home: str | None = None) -> set[str]:
    """The keys config.json sets: what the user configured, as opposed to the defaults
    (`status` and `doctor` say nothing about a default the user never chose)."""
    try:
        return set(_user_settings(os.path.join(home or engram_home(), "config.json")))
    except ConfigError:
        return set()


def load_config(home: str | None = None) -> tuple[dict, list[str]]:
    """Return (config, warnings). Raises ConfigError for unreadable files or bad types."""
    path = os.path.join(home or engram_home(), "config.json")
    cfg = dict(DEFAULTS)
    user = _user_settings(path)
    warnings = []
    for key, value in user.items():
        if key not in DEFAULTS:
            warnings.append(f"{path}: unknown key {key!r} ignored")
            continue
        want = DEFAULTS[key]
        ok = (
            isinstance(value, bool)
            if isinstance(want, bool)
            else (isinstance(value, _NUMBER) and not isinstance(value, bool))
            if isinstance(want, _NUMBER)
            else isinstance(value, type(want))
        )
        if not ok:
            raise ConfigError(
                f"{path}: key {key!r} must be {type(want).__name__}, got {type(value).__name__} "
                f"({value!r}); the default is {want!r}"
            )
        cfg[key] = _in_range(path, key, value) if key in RANGES else value
    return cfg, warnings


def _in_range(path: str, key: str, value: int | float) -> int | float:
    """`value` of numeric `key` checked against RANGES (a whole number given as 5e5 is 500000);
    ConfigError, one line, when it is not a finite number in range."""
    least, most, whole = RANGES[key]
    above = key in ABOVE_ZERO
    if value == value and least <= value <= most and (not whole or value == int(value)) and not (above and value == 0):
        return int(value) if whole else value
    kind = "a whole number" if whole else "a number"
    span = f"more than {least:,} and at most {most:,}" if above else f"from {least:,} to {most:,}"
    zero = {"dailyTokenBudget": " (0 keeps every model call off)", "fadeAfterUnused": " (0: items never fade)"}.get(key, "")
    raise ConfigError(f"{path}: key {key!r} must be {kind} {span}{zero}, got {value!r}; "
                      f"the default is {DEFAULTS[key]!r}")


def save_setting(key: str, value: object, home: str | None = None) -> str:
    """Set one key of config.json, keeping the user's others (`engram install --provider`);
    the file's path. A file that cannot be read as settings raises ConfigError, untouched."""
    import json

    folder = home or engram_home()
    path = os.path.join(folder, "config.json")
    user = _user_settings(path)
    user[key] = value
    os.makedirs(folder, mode=0o700, exist_ok=True)
    write_atomic(path, (json.dumps(user, indent=2) + "\n").encode())
    return path


# -- project identity ---------------------------------------------------------


def project_root(cwd: str) -> str:
    """The git top-level of cwd (found by walking up to .git, no subprocess), else cwd."""
    cwd = os.path.realpath(cwd or ".")
    d = cwd
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return cwd
        d = parent


def project_id(root: str) -> str:
    return sha256_hex(root)[:16]


def safe_name(value: object, what: str = "session id") -> str:
    """Validate a harness-supplied id before it becomes part of a file name."""
    if not isinstance(value, str) or not value or len(value) > 128:
        raise UnsafeIdentifier(f"{what} must be a non-empty string of at most 128 characters")
    for ch in value:
        if not (ch.isascii() and (ch.isalnum() or ch in "-_.")):
            from engram.redact import redact  # redact whole, then cut: a cut URL hides its password

            raise UnsafeIdentifier(f"{what} {redact(value)[:40]!r} holds a character other than A-Z a-z 0-9 - _ .")
    if value.strip(".") == "":
        raise UnsafeIdentifier(f"{what} {value!r} is only dots")
    return value


class Project:
    """Paths of one project's data directory (created 0700 on first use)."""

    __slots__ = ("home", "root", "id", "dir")

    def __init__(self, root: str, home: str | None = None):
        self.home = home or engram_home()
        self.root = root
        self.id = project_id(root)
        self.dir = os.path.join(self.home, "projects", self.id)

    @classmethod
    def from_cwd(cls, cwd: str, home: str | None = None) -> "Project":
        return cls(project_root(cwd), home)

    @classmethod
    def from_dir(cls, project_dir: str) -> "Project":
        """Open an existing project directory by reading its project.json."""
        meta = jsonio.loads(read_file(os.path.join(project_dir, "project.json"), MAX_CONFIG_BYTES).decode(
            "utf-8", "replace"))
        home = os.path.dirname(os.path.dirname(os.path.abspath(project_dir)))
        return cls(meta["root"], home)

    @property
    def db_path(self) -> str:
        return os.path.join(self.dir, "engram.db")

    def events_path(self, session: str) -> str:
        return os.path.join(self.dir, "events", safe_name(session) + ".jsonl")

    def episode_path(self, session: str) -> str:
        return os.path.join(self.dir, "episodes", safe_name(session) + ".episode.json")

    def state_path(self, session: str) -> str:
        return os.path.join(self.dir, "sessions", safe_name(session) + ".state.json")

    @property
    def log_path(self) -> str:
        return os.path.join(self.dir, "logs", "engram.log")

    @property
    def gotcha_index_path(self) -> str:
        """The known gotchas the hook matches a failed command against (written by the worker)."""
        return os.path.join(self.dir, "gotchas.json")

    def ensure(self) -> "Project":
        """Create the directory tree and project.json if missing (0700 / 0600)."""
        # project.json is written last: testing for events/ let a concurrent first hook
        # of a new project go on before sessions/ existed, and lose its event.
        if os.path.exists(os.path.join(self.dir, "project.json")):
            return self
        for d in (self.home, os.path.join(self.home, "projects"), self.dir):
            os.makedirs(d, mode=0o700, exist_ok=True)  # mode applies to the leaf only
            os.chmod(d, 0o700)
        for sub in ("events", "episodes", "sessions", "logs"):
            os.makedirs(os.path.join(self.dir, sub), mode=0o700, exist_ok=True)
        meta = os.path.join(self.dir, "project.json")
        if not os.path.exists(meta):
            from engram.clock import utc_iso

            body = jsonio.dumps(
                {
                    "root": self.root,
                    "name": os.path.basename(self.root) or self.root,
                    "created_at": utc_iso(0),
                }
            )
            write_atomic(meta, body.encode())
        return self


def all_projects(home: str | None = None) -> list[Project]:
    base = os.path.join(home or engram_home(), "projects")
    out = []
    try:
        names = sorted(os.listdir(base))
    except FileNotFoundError:
        return out
    for name in names:
        try:
            out.append(Project.from_dir(os.path.join(base, name)))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return out
