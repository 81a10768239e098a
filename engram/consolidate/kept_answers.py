"""A model's answers for a session, kept until the session is consolidated.

A worker killed after paying for a session's calls (SIGKILL, a full disk, a fault while
applying the answer) kept nothing of them, and the next run asked, and paid, again. Each
answer of a consolidation call (passes.call_json) is written to `answers/<session>/`, named
by a digest of what was asked (model, output cap, system and user prompt), before it is
used; a later run that asks the same (the same events, the same graph) reads it back
instead of calling, and asks anything else. The folder goes once the session is
consolidated, by whichever consolidator. An answer read back is the model's text, parsed
and validated as it was the first time: the file is data, not trusted. `engram forget`
scrubs these files like the others.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

from engram import jsonio
from engram.config import safe_name
from engram.fsio import private_dir, write_atomic
from engram.hashing import sha256_hex

FOLDER = "answers"
MAX_BYTES = 4 * 1024 * 1024  # far above any answer's output cap


def ask(provider: Any, system: str, user: str, *, model: str, max_tokens: int, usage: Any, step: str,
        folder: str) -> Any:
    """The provider's reply to this call, read back from `folder` when it was asked before."""
    from engram.providers.base import Reply

    path = os.path.join(folder, sha256_hex(jsonio.dumps([model, max_tokens, system, user]))[:32] + ".json")
    kept = jsonio.read_object(path, MAX_BYTES)
    if isinstance(kept.get("text"), str) and kept.get("model") == model:
        usage.add({"step": step, "model": model, "attempts": 0, "ok": True, "kept": True})
        return Reply(kept["text"], 0, 0, model)
    reply = provider.complete(system, user, model=model, max_tokens=max_tokens, usage=usage, step=step)
    try:
        private_dir(folder)
        write_atomic(path, jsonio.dumps({"model": model, "step": step, "text": reply.text}).encode(), durable=False)
    except OSError:
        pass  # not kept: a rerun pays again, as it did before
    return reply


def folder(project: Any, session: str) -> str:
    return os.path.join(project.dir, FOLDER, safe_name(session))


def clear(project: Any, session: str) -> None:
    """The session is consolidated: its kept answers are no longer needed."""
    shutil.rmtree(folder(project, session), ignore_errors=True)
