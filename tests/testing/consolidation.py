"""Building sessions through the real lifecycle code (in process: fast) and reading results."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from testing.helpers import wait_for  # noqa: F401  (the tests import it from here)

from engram import lifecycle
from engram.config import Project, load_config


def consolidate(project: Project, session: str, cfg: dict, provider: str | None = None, **kw: Any):
    """One session through the consolidation worker, with the providers the config (or
    `provider`) chooses, as `engram worker` runs it."""
    from engram.consolidate import worker
    from engram.providers import registry

    return worker.consolidate_session(project, session, cfg, registry.consolidation(cfg, provider, project=project),
                                      **kw)


def make_root(tmp_path: Path, name: str = "proj") -> Path:
    root = tmp_path / name
    (root / ".git").mkdir(parents=True)
    return root


class Session:
    """Drive one session through engram.lifecycle as a harness adapter would."""

    def __init__(self, root: Path, sid: str):
        self.root = root
        self.ctx = lifecycle.Ctx(sid, str(root))
        self.project: Project = self.ctx.project

    def start(self) -> "Session":
        lifecycle.session_start(self.ctx)
        return self

    def prompt(self, text: str) -> "Session":
        lifecycle.prompt(self.ctx, text)
        return self

    def write(self, rel: str, content: str) -> "Session":
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        old = path.read_text() if path.exists() else None
        path.write_text(content)
        lifecycle.tool_calls(self.ctx, [{"action": "write", "tool": "Write", "path": str(path), "content": content,
                                         "old_content": old, "op": "update" if old is not None else "create"}])
        return self

    def read(self, rel: str) -> "Session":
        path = self.root / rel
        lifecycle.tool_calls(self.ctx, [{"action": "read", "tool": "Read", "path": str(path),
                                         "content": path.read_text() if path.exists() else ""}])
        return self

    def test(self, passed: int, failed: int, failing: tuple[str, ...] = ()) -> "Session":
        out = "\n".join(f"FAILED {t} - AssertionError" for t in failing)
        out += f"\n{failed} failed, {passed} passed in 0.10s" if failed else f"\n{passed} passed in 0.10s"
        lifecycle.tool_calls(self.ctx, [{"action": "shell", "tool": "Bash", "command": "pytest -q",
                                         "output": out, "exit_code": 1 if failed else 0}])
        return self

    def command(self, cmd: str, code: int = 0, output: str = "") -> "Session":
        lifecycle.tool_calls(self.ctx, [{"action": "shell", "tool": "Bash", "command": cmd, "output": output,
                                         "exit_code": code, "ok": code == 0}])
        return self

    def stop(self, text: str = "Done.") -> "Session":
        lifecycle.stop(self.ctx, text)
        return self

    def end(self) -> "Session":
        lifecycle.session_end(self.ctx, "exit")
        return self

    def events(self) -> list[dict[str, Any]]:
        path = self.project.events_path(self.ctx.session)
        return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def cfg(project: Project, **overrides: Any) -> dict[str, Any]:
    c, _ = load_config(project.home)
    c.update(overrides)
    return c


def db(project: Project) -> sqlite3.Connection:
    return sqlite3.connect(project.db_path)


def rows(project: Project, sql: str, *args: Any) -> list[tuple]:
    conn = db(project)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def episode_file(project: Project, sid: str) -> dict[str, Any] | None:
    path = project.episode_path(sid)
    return json.loads(Path(path).read_text()) if os.path.exists(path) else None


def fix_session(root: Path, sid: str = "s1") -> Session:
    """One turn: prompt with a decision, a failing test, a fix, a passing test."""
    s = Session(root, sid).start()
    s.prompt("Make the parser handle empty input. Let's use orjson instead of json in the parser.")
    s.read("src/parser.py")
    s.write("src/parser.py", "import orjson\n\ndef parse(s):\n    return orjson.loads(s)\n")
    s.test(3, 1, ("tests/test_parser.py::test_empty",))
    s.write("src/parser.py", "import orjson\n\ndef parse(s):\n    return orjson.loads(s) if s else None\n")
    s.test(4, 0)
    return s.stop("Fixed: parse('') returns None now. I used a guard clause instead of a try/except.")
