"""The budget's tokens in flight, seen by every process, and one admission at a time.

A call is admitted before it is made and written to the ledger after; between the two its
estimate must count for every other process deciding whether it may call too (two
consolidation slots and a checker per project, four Pass 1 threads each), or each sees the
day as it was before any of them started and all of them cross the budget together. Under
`ENGRAM_HOME/budget/`:

* `<provider>.lock`: the flock held for one decision (read the ledgers and the
  reservations, admit or refuse, write them back) and for one settlement (the ledger row
  written, the reservation dropped), so no two processes decide on the same figures;
* `<provider>.json`: `{key: tokens}` reserved now, a call in flight or a session's hold;
  a key is `<owner>:<n>` (`<n>`: digits and dots, budget.Meter's `<meter>.<call>`);
* `live/<owner>.lock`: held by the owning process for its whole life. An owner whose lock
  can be taken has died (killed mid-call): its reservations are dropped by the next reader,
  and its lock file removed.

An owner is `<pid>-<8 hex digits>`, and only a key of exactly that shape is read
(`valid_key`): the owner part becomes a file name under `live/`, so a key in a damaged or
planted file (`../../../victim:1`, `/project/.git/index:1`) would otherwise make engram
lock and delete that file. Such a key is dropped, and nothing outside `live/` is touched.
"""

from __future__ import annotations

import os
import secrets
from contextlib import contextmanager
from typing import Iterator

from engram import jsonio, workers
from engram.errors import LLMError
from engram.fsio import private_dir, write_atomic

DIR = "budget"
LOCK_WAIT = 60.0  # seconds: a holder only reads the ledgers and writes one row
_owners: dict[str, tuple[str, int]] = {}  # ENGRAM_HOME -> (this process's owner name, its live lock)


def _dir(home: str) -> str:
    return os.path.join(home, DIR)


def valid_owner(name: str) -> bool:
    """Whether `name` has the shape `owner()` gives it: `<pid>-<8 lowercase hex digits>`."""
    pid, dash, tag = name.partition("-")
    return (dash == "-" and pid.isascii() and pid.isdigit() and len(pid) <= 10 and len(tag) == 8
            and all(c in "0123456789abcdef" for c in tag))


def valid_key(key: object) -> bool:
    """Whether `key` is a reservation's: `<owner>:<n>`, `<n>` at most 40 digits and dots."""
    if not isinstance(key, str):
        return False
    name, colon, n = key.partition(":")
    return colon == ":" and valid_owner(name) and 0 < len(n) <= 40 and all(c in "0123456789." for c in n)


def owner(home: str) -> str:
    """This process's owner name under `home`, its live lock taken on first use (and kept);
    the first use also removes the live locks of owners that have ended."""
    if home not in _owners:
        live = private_dir(os.path.join(_dir(home), "live"))
        for name in os.listdir(live):
            if name.endswith(".lock") and valid_owner(name[: -len(".lock")]):
                _alive(home, name[: -len(".lock")])
        while home not in _owners:
            name = f"{os.getpid()}-{secrets.token_hex(4)}"
            path = os.path.join(live, name + ".lock")
            fd = workers.try_lock(path)
            if fd is None:
                continue
            if _same_file(fd, path):  # not removed by a sweep between its creation and the lock
                _owners[home] = (name, fd)
            else:
                os.close(fd)
    return _owners[home][0]


def _same_file(fd: int, path: str) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except OSError:
        return False


def _alive(home: str, name: str) -> bool:
    """Whether owner `name` (of valid_owner's shape: a file name, never a path) still runs: its
    live lock is held (a dead owner's file is removed)."""
    if name == _owners.get(home, ("",))[0]:
        return True
    if not valid_owner(name):
        return False
    path = os.path.join(_dir(home), "live", name + ".lock")
    if not os.path.exists(path):
        return False
    fd = workers.try_lock(path)
    if fd is None:
        return True
    try:
        os.unlink(path)
    except FileNotFoundError:  # another reader removed it first
        pass
    os.close(fd)
    return False


def _read(home: str, provider: str) -> dict[str, int]:
    """The live reservations (a dead owner's and a malformed key's dropped, a damaged file read
    as none)."""
    book = jsonio.read_object(os.path.join(_dir(home), provider + ".json"), 1 << 20)
    book = {k: v for k, v in book.items() if valid_key(k) and isinstance(v, int) and not isinstance(v, bool) and v > 0}
    seen: dict[str, bool] = {}
    for key in book:
        name = key.split(":")[0]
        if name not in seen:
            seen[name] = _alive(home, name)
    return {k: v for k, v in book.items() if seen[k.split(":")[0]]}


def reserved(home: str, provider: str) -> int:
    """Tokens `provider` holds in reserve now, every process's (read without the lock)."""
    return sum(_read(home, provider).values())


@contextmanager
def locked(home: str, provider: str) -> Iterator[dict[str, int]]:
    """`provider`'s live reservations under its lock; what the caller changes is written back."""
    folder = private_dir(_dir(home))
    fd = workers.lock(os.path.join(folder, provider + ".lock"), LOCK_WAIT)
    if fd is None:
        raise LLMError("timeout", f"{provider}: the budget's lock ({folder}) was held for over {LOCK_WAIT:.0f} s")
    try:
        book = _read(home, provider)
        before = dict(book)
        yield book
        if book != before:
            write_atomic(os.path.join(folder, provider + ".json"), jsonio.dumps(book).encode(), durable=False)
    finally:
        os.close(fd)
