"""One-line notices for the next SessionStart, each delivered exactly once.

A worker that changes how engram behaves for a while (the day's model budget is spent, a
harness CLI is logged out: offline until midnight) posts a notice under a key; the next
SessionStart of any project takes every pending notice and shows it. Files under
`ENGRAM_HOME/notices/`:

* `<key>`: the claim, created with O_EXCL, so a key is posted once however many workers
  reach the same state (it stays, so a notice taken is not posted again under that key);
* `<key>.pending`: the text, until a SessionStart renames it to `<key>.shown`. The rename
  is atomic, so two SessionStarts racing never both show it.

Keys carry the day (`budget-claude-code-2026-07-01`). Standard library only: the hook
imports this.
"""

from __future__ import annotations

import os

DIR = "notices"
KEEP_SECONDS = 14 * 86400  # older claims and shown notices are removed by the next post


def _dir(home: str) -> str:
    return os.path.join(home, DIR)


def post(home: str, key: str, text: str) -> bool:
    """Post `text` under `key` unless that key was posted before; True when this call posted it."""
    folder = _dir(home)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    try:
        os.close(os.open(os.path.join(folder, key), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return False
    from engram.fsio import write_atomic

    write_atomic(os.path.join(folder, key + ".pending"), text.encode("utf-8"), durable=False)
    _prune(folder)
    return True


def take(home: str) -> list[str]:
    """The pending notices, oldest first, each now marked shown (never returned again)."""
    folder = _dir(home)
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".pending")]
    except OSError:
        return []
    from engram.fsio import read_file

    found = []
    for name in names:
        path = os.path.join(folder, name)
        try:
            mtime = os.stat(path).st_mtime_ns
            text = read_file(path, 2000).decode("utf-8", "replace").strip()  # a FIFO: NotRegular, not a wait
            os.rename(path, path[: -len(".pending")] + ".shown")  # only one taker succeeds
        except OSError:
            continue
        if text:
            found.append((mtime, text))
    return [text for _, text in sorted(found)]


def text(home: str) -> str | None:
    """The pending notices as one block of lines (each one line), or None."""
    return "\n".join(take(home)) or None


def _prune(folder: str) -> None:
    import time

    cutoff = time.time() - KEEP_SECONDS
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        try:
            if not name.endswith(".pending") and os.stat(path).st_mtime < cutoff:
                os.unlink(path)
        except OSError:
            pass
