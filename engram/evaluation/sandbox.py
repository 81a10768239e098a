"""A temporary ENGRAM_HOME for replaying history, with the process restored afterwards.

The evaluation runs the real hooks in process, so the environment and a few module
attributes are what select the home, the settings and the behaviour:

* ENGRAM_HOME -> the sandbox; `config.json` there holds the variant's settings;
* ENGRAM_NO_WORKER=1: hooks queue consolidation but never spawn a detached worker
  (the evaluation consolidates synchronously, between sessions);
* ENGRAM_OFFLINE=1 unless a model provider was asked for;
* the git working tree and GSD plan of *today* are hidden from SessionStart: a replayed
  session happened in the past, and the checkout's current branch and modified files
  would leak the future into every replayed session's entry points.

Every change is undone on exit, so tests (and a long-lived process) see no trace.
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any, Iterator

ENV_KEYS = ("ENGRAM_HOME", "ENGRAM_NO_WORKER", "ENGRAM_OFFLINE")


@contextlib.contextmanager
def patched(obj: Any, name: str, value: Any) -> Iterator[None]:
    """Set `obj.name = value` for the duration of the block."""
    old = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        setattr(obj, name, old)


def write_config(home: str, settings: dict[str, Any]) -> None:
    os.makedirs(home, mode=0o700, exist_ok=True)
    with open(os.path.join(home, "config.json"), "w") as f:
        json.dump(settings, f)


_DRAWS: dict[str, Any] = {}  # a home entered again goes on with its ids (its graph holds the first ones)


@contextlib.contextmanager
def home(path: str, settings: dict[str, Any], *, offline: bool = True) -> Iterator[str]:
    """Point engram at `path` with `settings` as its config.json; restore everything after.
    SessionStart's context cache is off: a variant swaps retrieval's functions in this
    process, which the cache's key (the code on disk) cannot see. Node ids are drawn from a
    generator seeded by the home's name: ties in ranking fall back on ids, and two runs of one
    history give the same texts."""
    import random

    from engram.graph import store
    from engram.retrieve.start import cache, gitstate, project_context

    draw = _DRAWS.setdefault(path, random.Random(os.path.basename(os.path.normpath(path))).getrandbits)

    write_config(path, settings)
    saved = {k: os.environ.get(k) for k in ENV_KEYS}
    os.environ.update(ENGRAM_HOME=path, ENGRAM_NO_WORKER="1")
    if offline:
        os.environ["ENGRAM_OFFLINE"] = "1"
    else:
        os.environ.pop("ENGRAM_OFFLINE", None)
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(patched(gitstate, "changed_files", lambda *a, **k: []))
            stack.enter_context(patched(gitstate, "branch", lambda *a, **k: None))
            stack.enter_context(patched(project_context, "gsd_plan_text", lambda *a, **k: ""))
            stack.enter_context(patched(cache, "load", lambda *a, **k: None))
            stack.enter_context(patched(cache, "store", lambda *a, **k: False))
            stack.enter_context(patched(store, "new_id", lambda prefix: f"{prefix}_{draw(64):016x}"))
            yield path
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
