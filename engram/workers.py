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
* `run_child` runs a child whose output engram reads (a harness CLI, git, `claude mcp`,
  an interpreter doctor checks) with one deadline that covers the reading.
  `subprocess.run(timeout=)` and `communicate(timeout=)` kill the child at the timeout and
  then wait for end of output, which never comes while anything else holds the pipes: a
  grandchild the child started in its own session (`setsid`) outlives the kill and kept
  consolidation waiting forever. So the child starts in its own process group, its pipes
  are read (and its stdin written) with `selectors` against the deadline, what is left in
  them once it has exited is read for `CHILD_GRACE` seconds at most, and then, or at the
  deadline, its whole process group is killed, the pipes closed (a grandchild writing
  later gets SIGPIPE) and the child reaped. Each stream keeps its first `limit` bytes; the
  rest is read and dropped. `subprocess` and `selectors` are imported inside it.

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


# -- children whose output engram reads ----------------------------------------------------


CHILD_GRACE = 0.5  # seconds of reading after the child exits, for output still in the pipes
CHILD_LIMIT = 32 << 20  # bytes kept of each stream
_CHILD_SLICE = 0.05  # seconds between looks at whether the child has exited


class Child:
    """What a child did: its exit code (None when it was killed at the deadline), its output."""

    __slots__ = ("code", "out", "err", "timed_out")

    def __init__(self, code: int | None, out: bytes, err: bytes, timed_out: bool):
        self.code, self.out, self.err, self.timed_out = code, out, err, timed_out

    def text(self) -> tuple[str, str]:
        """(stdout, stderr) decoded as UTF-8, undecodable bytes replaced."""
        return self.out.decode("utf-8", "replace"), self.err.decode("utf-8", "replace")


def run_child(argv: list[str], *, timeout: float, input: bytes = b"", cwd: str | None = None,
              env: dict[str, str] | None = None, limit: int = CHILD_LIMIT) -> Child:
    """Run `argv` to its end or to `timeout` seconds, whichever comes first (the module
    docstring says how). Raises OSError when it cannot be started (not found, not executable)."""
    import subprocess
    import time

    proc = subprocess.Popen(argv, stdin=subprocess.PIPE if input else subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=cwd, env=env, start_new_session=True, close_fds=True)
    try:
        out, err, finished = _pump(proc, input, time.monotonic() + timeout, limit)
    finally:
        _end(proc)
    return Child(proc.returncode if finished else None, out, err, not finished)


def _pump(proc, data: bytes, deadline: float, limit: int) -> tuple[bytes, bytes, bool]:
    """Feed stdin and read stdout and stderr until both are at EOF and the child has exited,
    or the deadline passes: (stdout, stderr, whether the child exited in time)."""
    import selectors
    import subprocess
    import time

    bufs = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    sel = selectors.DefaultSelector()
    try:
        for stream in bufs:
            os.set_blocking(stream.fileno(), False)
            sel.register(stream, selectors.EVENT_READ)
        view = memoryview(data)
        if proc.stdin is not None:
            os.set_blocking(proc.stdin.fileno(), False)
            sel.register(proc.stdin, selectors.EVENT_WRITE)
        exited_at = None
        while sel.get_map():
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if now >= deadline or (exited_at is not None and now - exited_at >= CHILD_GRACE):
                break
            for key, _ in sel.select(min(_CHILD_SLICE, deadline - now)):
                if key.fileobj is proc.stdin:
                    view = _feed(sel, proc.stdin, view)
                else:
                    _drain(sel, key.fileobj, bufs[key.fileobj], limit)
        if not sel.get_map():  # every pipe at EOF: the child only has to exit
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        return bytes(bufs[proc.stdout]), bytes(bufs[proc.stderr]), proc.poll() is not None
    finally:
        sel.close()


def _feed(sel, stdin, view):
    """Write what stdin takes now; close it when all is written or the child stopped reading."""
    try:
        view = view[os.write(stdin.fileno(), view[:65536]):]
    except BlockingIOError:
        return view
    except OSError:  # BrokenPipeError: the child closed its stdin
        view = view[:0]
    if not view:
        sel.unregister(stdin)
        stdin.close()
    return view


def _drain(sel, stream, buf, limit: int) -> None:
    """Read what the pipe holds now; at EOF stop watching it. Bytes past `limit` are dropped."""
    try:
        chunk = os.read(stream.fileno(), 65536)
    except BlockingIOError:
        return
    if not chunk:
        sel.unregister(stream)
        return
    if len(buf) < limit:
        buf += chunk[: limit - len(buf)]


def _end(proc) -> None:
    """Kill whatever is left of the child's process group, close the pipes, reap the child."""
    import signal
    import subprocess

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:  # in uninterruptible sleep: the next reap gets it
        pass
