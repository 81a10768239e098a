"""The PostToolUse path with an annotation stays on the standard library's C driver:
no json, re, typing, sqlite3 package, functools (which `_sqlite3` would pull in, with
`collections`), or third-party module is imported. The hook starts as installed (HOOK_ARGS)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from testing.helpers import REPO, payload

from engram.config import HOOK_ARGS

FORBIDDEN = {"json", "re", "typing", "sqlite3", "datetime", "orjson", "filelock", "sqlean", "sqlite_vec",
             "anthropic", "openai", "mcp", "functools", "collections"}


def _imported(event: str, p: dict) -> tuple[set[str], str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", *HOOK_ARGS, event],
                          input=json.dumps(p).encode(), capture_output=True, cwd=str(REPO), env=dict(os.environ))
    mods = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines() if "|" in line}
    return mods, proc.stdout.decode()


def test_first_read_annotation_imports_nothing_heavy(g, root):
    g.node("fact", type="finding", strength=0.9, files=["src/db.py"], summary="WAL is on.")
    path = os.path.join(root, "src/db.py")
    mods, out = _imported("PostToolUse", payload(
        "PostToolUse", "s1", root, tool_name="Read", tool_input={"file_path": path},
        tool_response={"type": "text", "file": {"filePath": path, "content": "x"}}))
    assert "engram memory for src/db.py" in out  # the annotation really ran
    assert "engram.retrieve.involuntary" in mods and "_sqlite3" in mods
    assert not (mods & FORBIDDEN), mods & FORBIDDEN
    assert "site" not in mods  # -S: the command names engram's folder; nothing else installed is needed


def test_prompt_retrieval_imports_nothing_heavy(g, root):
    g.node("fact", type="finding", strength=0.9, files=["src/db.py"])
    mods, out = _imported("UserPromptSubmit", payload("UserPromptSubmit", "s1", root, prompt="look at src/db.py"))
    assert "fact" in out
    assert not (mods & FORBIDDEN), mods & FORBIDDEN
    assert "site" not in mods


def test_sqlite_without_functools_leaves_the_real_functools_to_the_next_importer():
    code = ("import sys; from engram.graph import readonly; d = readonly._driver(); "
            "assert 'functools' not in sys.modules and 'collections' not in sys.modules; "
            "c = d.connect(':memory:'); [c.execute('SELECT ?', (i,)).fetchall() for i in range(300)]; "
            "import functools; assert functools.reduce and functools.lru_cache(2)(abs)(-1) == 1; print('ok')")
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, cwd=str(REPO))
    assert proc.stdout.strip() == "ok", proc.stderr
