"""Settings files that are not settings files, for `engram install` and `uninstall` (issue 29,
finding 2).

A FIFO in place of a harness's settings file blocked both commands forever (claude-code,
codex); a symlink to /dev/zero was killed by the kernel after 35-61 s; a 60 MB file took
54 s; deep nesting was an internal error (exit 3, RecursionError). Each now returns within
10 s with one line naming the file, a non-zero exit, and the file left as it was.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest
from testing.helpers import engram
from testing.monitor import env

FAST = 10.0
DEEP = 100_000  # levels: far past the parsers' recursion limit


def _settings(home: Path, harness: str, kind: str) -> Path:
    """Where `harness` keeps the file this case replaces, under the test's HOME."""
    path = {"claude-code": home / ".claude" / "settings.json", "gemini": home / ".gemini" / "settings.json",
            "codex": home / ".codex" / "hooks.json", "codex-toml": home / ".codex" / "config.toml"}[harness]
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "huge":
        with open(path, "w") as f:
            f.write('{"padding": "' + "x" * (60 << 20) + '"}\n')
    elif harness == "codex-toml":
        path.write_text("x = " + "[" * DEEP + "]" * DEEP + "\n")
    else:
        path.write_text("[" * DEEP + "]" * DEEP + "\n")
    return path


def _fingerprint(path: Path) -> tuple:
    st = os.lstat(path)
    if path.is_symlink() or not path.is_file():
        return st.st_mode, os.readlink(path) if path.is_symlink() else None
    return st.st_mode, hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("command", ["install", "uninstall"])
@pytest.mark.parametrize("kind", ["fifo", "zero", "huge", "deep"])
@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini", "codex-toml"])
def test_a_special_settings_file_is_one_line_and_left_unchanged(tmp_path, command, kind, harness):
    home = tmp_path / "user-home"
    path = _settings(home, harness, kind)
    before = _fingerprint(path)
    name = "codex" if harness == "codex-toml" else harness
    t0 = time.monotonic()
    done = engram(command, "--harness", name, env=env(HOME=str(home), ENGRAM_NO_WORKER="1"), cwd=tmp_path,
                  timeout=120)
    took = time.monotonic() - t0
    assert took < FAST, f"{command} with {kind} {path.name}: {took:.1f}s"
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    said = [line for line in done.stderr.splitlines() if line.strip()]
    if (command, kind, harness) == ("uninstall", "deep", "codex-toml"):
        # holds no table of engram's: uninstall has nothing to take out, so never parses it
        assert done.returncode == 0 and said == [], said
    else:
        assert done.returncode not in (0, 3), done.stderr
        assert len(said) == 1 and str(path) in said[0] and "left it unchanged" in said[0], said
    assert _fingerprint(path) == before
