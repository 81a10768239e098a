"""Background work: a queue of jobs, a pool of worker slots, locks, and a detached start.

Consolidation and the contradiction check run the same way, so this is their one copy:

* A `Queue` is a directory with one file per job (`queue/<session>` to consolidate a
  session, `checks/<session>.<seq>.json` to check one write). Jobs are taken oldest first.
* A `Pool` has N slots, `workers/<name>-<i>.lock`; a worker holds one (an exclusive
  `flock`) for as long as it runs. The hook that queued a job claims a free slot itself
  and hands the descriptor to the worker it starts (`start(..., slot_fd=)`), so a burst
  of hooks cannot all see one slot free while the first worker is still starting; with
  every slot busy it starts nothing, because a running worker will see the job.
* `drain` is the worker's side of that protocol: handle jobs while holding a slot,
  release it, and look once more. A job queued meanwhile is seen either by that look or
  by the queuing hook, whose claim now succeeds: no job is stranded, and 300 queued jobs
  start at most N processes.
* `start` launches `python -m engram worker ...` in its own session (posix_spawn with
  setsid: `subprocess` costs the hook ~12 ms of import), stdin /dev/null, stdout and
  stderr appended to the project log, every other descriptor closed on exec (PEP 446).
  Finished children are reaped by the next `start` or `reap` of the same process, so a
  long-lived host (the Python API) keeps no zombies.
* `lock` takes an exclusive `flock` on a lock file (one consolidation per session): the
  same kernel lock whichever process takes it, hook, worker or `engram forget`.

ENGRAM_NO_WORKER=1 queues jobs without starting workers (tests of other parts use it;
the queue is drained by the next worker, or `engram consolidate --all`).
Standard library only: the hooks import this.
"""

from __future__ import annotations

import fcntl
import os
import sys

TYPE_CHECKING = False  # `typing` costs the hook ~20 ms; annotations only
if TYPE_CHECKING:
    from typing import Callable

SHELL = "/bin/sh"
# sh -c LAUNCH DELAY NICE ARGV...: wait, then run ARGV at a lower priority when `nice` exists.
_LAUNCH = 'd=$0; n=$1; shift; sleep "$d" 2>/dev/null; command -v nice >/dev/null 2>&1 && exec nice -n "$n" "$@"; exec "$@"'
_spawned: list[int] = []


def disabled() -> bool:
    """ENGRAM_NO_WORKER is set: queue, but start nothing."""
    return os.environ.get("ENGRAM_NO_WORKER", "") not in ("", "0")


def _mkdir(path: str) -> str:
    from engram.fsio import private_dir

    return private_dir(path)


class Queue:
    """A directory of job files, taken oldest first (by mtime, then name)."""

    def __init__(self, path: str, suffix: str = ""):
        self.dir = path
        self.suffix = suffix  # only names with it are jobs (a write_atomic temp file is not)

    def path(self, name: str) -> str:
        return os.path.join(self.dir, name)

    def put(self, name: str, data: bytes | None = None) -> None:
        """Queue a job (an empty marker file, or `data` written atomically)."""
        from engram.fsio import open_marker, write_atomic

        _mkdir(self.dir)
        if data is None:
            os.close(open_marker(self.path(name)))  # a FIFO in its place is replaced, never waited on
        else:
            write_atomic(self.path(name), data, durable=False)

    def done(self, name: str) -> None:
        try:
            os.unlink(self.path(name))
        except FileNotFoundError:
            pass

    def jobs(self) -> list[str]:
        try:
            entries = list(os.scandir(self.dir))
        except FileNotFoundError:
            return []
        found = []
        for e in entries:
            if e.name.startswith(".") or not e.name.endswith(self.suffix):
                continue
            try:  # a worker may take it meanwhile
                found.append((e.stat().st_mtime_ns, e.name))
            except FileNotFoundError:
                continue
        return [name for _, name in sorted(found)]


class Pool:
    """`size` worker slots of one kind: `<dir>/<name>-<i>.lock`, each held by flock."""

    def __init__(self, path: str, name: str, size: int = 1):
        self.dir = path
        self.name = name
        self.size = max(1, int(size))

    def slot_path(self, i: int) -> str:
        return os.path.join(self.dir, f"{self.name}-{i}.lock")

    def claim(self) -> int | None:
        """A descriptor holding a free slot's flock, or None when every slot is busy."""
        _mkdir(self.dir)
        for i in range(self.size):
            fd = try_lock(self.slot_path(i))
            if fd is not None:
                return fd
        return None


def drain(pool: Pool, todo: Callable[[], list[str]], handle: Callable[[str], None],
          slot_fd: int | None = None) -> None:
    """Handle `todo()[0]` until nothing is left, holding a slot; then release and look once more.

    `slot_fd` is a slot the starting hook already claimed for this worker. `handle` must
    take its job off `todo()` (done, or skipped by the caller), or the loop would not end.
    """
    held = slot_fd
    while True:
        held = held if held is not None else pool.claim()
        if held is None:
            return
        try:
            while jobs := todo():
                handle(jobs[0])
        finally:
            os.close(held)
            held = None
        if not todo():
            return


def try_lock(path: str) -> int | None:
    """An open descriptor holding an exclusive flock on `path`, or None if someone holds it."""
    from engram.fsio import open_marker

    fd = open_marker(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fd
    except OSError:
        os.close(fd)
        return None


def lock(path: str, timeout: float = 0.0) -> int | None:
    """Like `try_lock` (creating the lock's folder), waiting up to `timeout` seconds; release
    with `os.close`."""
    import time

    _mkdir(os.path.dirname(path))
    deadline = time.monotonic() + timeout
    while True:
        fd = try_lock(path)
        if fd is not None or time.monotonic() >= deadline:
            return fd
        time.sleep(0.02)


def is_locked(path: str) -> bool:
    """Whether someone holds `path`'s flock (probed without keeping it)."""
    fd = try_lock(path)
    if fd is None:
        return True
    os.close(fd)
    return False


def start(argv: list[str], log_path: str, *, slot_fd: int | None = None, delay: float = 0.0,
          nice: int = 0) -> int:
    """Start `python -P -m engram <argv>` detached (config.MODULE_ARGS); its pid. See the module docstring.

    `delay` and `nice` go through /bin/sh (`sleep`, `nice`) when there is one: a worker
    whose answer is only needed at a later hook should not compete with this hook's
    last milliseconds, nor with the agent's next tool call.
    """
    reap()
    from engram.config import MODULE_ARGS

    cmd = [sys.executable, *MODULE_ARGS, *argv]
    if (delay or nice) and os.path.exists(SHELL):
        cmd = [SHELL, "-c", _LAUNCH, str(delay), str(nice), *cmd]
    log_fd = _log_fd(log_path)
    try:
        if slot_fd is not None:
            os.set_inheritable(slot_fd, True)
        try:
            pid = os.posix_spawn(cmd[0], cmd, os.environ, setsid=True, file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, log_fd, 1), (os.POSIX_SPAWN_DUP2, log_fd, 2)])
        except (AttributeError, NotImplementedError):  # no posix_spawn, or no POSIX_SPAWN_SETSID
            import subprocess

            pid = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log_fd, stderr=log_fd,
                                   start_new_session=True, close_fds=True,
                                   pass_fds=(slot_fd,) if slot_fd is not None else ()).pid
    finally:
        os.close(log_fd)
    _spawned.append(pid)
    return pid


def _log_fd(log_path: str) -> int:
    """The worker's stdout and stderr: the project log, or /dev/null when something that is
    not a regular file is in its place (a FIFO would block this hook until a reader came)."""
    from engram.fsio import open_append

    _mkdir(os.path.dirname(log_path))
    try:
        return open_append(log_path)
    except OSError:
        return os.open(os.devnull, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))


def reap() -> None:
    """Collect this process's finished workers."""
    for pid in list(_spawned):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _spawned.remove(pid)
