"""Files, safely: bounded reads that never block, appends and atomic replacement.

A payload can name any path (a transcript, a file the agent wrote), a project can commit a
symlink where engram expects a plan file, and anything under ENGRAM_HOME can be replaced
by something that is not a file. `open()` on a FIFO blocks until a writer appears,
`read()` on /dev/zero never ends, and a symlink can point out of the project. So every
file engram reads or appends to is opened non-blocking, checked with `fstat` to be a
regular file, and read up to a byte limit:

* `read_file`: engram's own files (config, state, episode, events, jobs): a symlink is
  refused (O_NOFOLLOW), a special file raises `NotRegular`, a missing one
  FileNotFoundError. `read_regular` is the same, None for anything but a readable file.
* `read_regular(..., within=root)`: a file named by the project or a payload, read only
  when its real path is inside `root` (the project), never following a link out of it.
* `open_append`: the descriptor of a regular file to append to (created 0600).
* `open_marker`: a lock file or a job marker, whose content nobody reads: anything else in
  its place (a FIFO, a device, a symlink) is removed and the file made anew.
* `write_atomic`: readers see the old content or the new, never a mix (temp file + rename);
  a failed write leaves no temp file behind.
* `fingerprint`: what a file is now, from its stats, to tell later whether it changed.
* `private_dir`: a directory made 0700 with every parent it creates (os.makedirs gives the
  parents the default mode: `backups/` and export folders were 0755).

Standard library only: the hook imports this.
"""

from __future__ import annotations

import errno
import os
import stat

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class NotRegular(OSError):
    """A path that is a FIFO, a device, a directory or a symlink where a file was expected."""


# The system's scratch folders: what an agent writes or runs there (a PR body, a one-off check
# script, a background task's output) belongs to no project.
SCRATCH_DIRS = ("/tmp/", "/private/tmp/", "/var/tmp/", "/var/folders/", "/private/var/folders/")


def scratch(path: str) -> bool:
    """Whether `path` lies in one of the system's scratch folders."""
    return path.replace("\\", "/").startswith(SCRATCH_DIRS)


def inside(path: str, root: str) -> bool:
    """Whether `path` resolves (symlinks followed) to `root` or below it."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip("/") + "/")


def regular_or_missing(path: str) -> bool:
    """Whether `path` is absent or a regular file (not a symlink, FIFO, device or directory)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return True


def _open_checked(path: str, flags: int, mode: int = 0o600) -> int:
    """A descriptor of a regular file; raises NotRegular (closing it) for anything else."""
    try:
        fd = os.open(path, flags, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink
            raise NotRegular(errno.ELOOP, "a symlink, not a file", path) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotRegular(errno.EINVAL, "not a regular file", path)
    return fd


def read_file(path: str, limit: int, *, tail: bool = False, follow: bool = False) -> bytes:
    """Up to `limit` bytes of a regular file (its last `limit` with `tail`).

    Raises FileNotFoundError, NotRegular (a FIFO, a device, a directory; a symlink unless
    `follow`), or another OSError."""
    fd = _open_checked(path, _FLAGS | (0 if follow else _NOFOLLOW))
    try:
        size = os.fstat(fd).st_size
        if tail and size > limit:
            os.lseek(fd, size - limit, os.SEEK_SET)
        chunks, left = [], limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_regular(path: str, limit: int, *, tail: bool = False, within: str | None = None,
                 follow: bool = True) -> bytes | None:
    """Up to `limit` bytes of a regular file; None for anything else (missing, special, a
    symlink without `follow`, outside `within`, unreadable)."""
    if not isinstance(path, str) or not path:
        return None
    try:
        if within is not None and not inside(path, within):
            return None
        return read_file(path, limit, tail=tail, follow=follow)
    except (OSError, ValueError):
        return None


def fingerprint(path: str) -> list[int] | None:
    """What a file is now, from stats: its own and, for a symlink, its target's (type, size,
    inode, mtime, ctime); None when it is missing. Equal fingerprints, taken before a read:
    the same content (a cache trusts it only for files older than its racy window)."""
    out: list[int] = []
    try:
        for st in (os.lstat(path), os.stat(path)):
            out += [st.st_mode, st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns]
    except OSError:
        return out or None  # a dangling symlink: its own stats
    return out


def open_append(path: str) -> int:
    """A descriptor for appending to a regular file (created 0600); NotRegular otherwise."""
    return _open_checked(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | _NOFOLLOW
                         | getattr(os, "O_CLOEXEC", 0))


def open_marker(path: str) -> int:
    """A read-write descriptor of a file that holds no data (a lock, a queued job's marker),
    opened without blocking; something else in its place is removed and the file made anew."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    for _ in range(2):
        try:
            fd = os.open(path, flags, 0o600)
        except OSError as exc:
            if not os.path.islink(path):
                raise
            fd, bad = -1, exc
        else:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                return fd
            os.close(fd)
            bad = NotRegular(errno.EINVAL, "not a regular file", path)
        os.unlink(path)
    raise bad


def private_dir(path: str) -> str:
    """Create `path` and any missing parent, each 0700; return `path`."""
    missing, p = [], os.path.abspath(path)
    while not os.path.isdir(p):
        missing.append(p)
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    for d in reversed(missing):
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:
            pass
    return path


def write_atomic(path: str, data: bytes, mode: int = 0o600, durable: bool = True) -> None:
    """Write a file so that readers see the old or the new content, never a mix.

    `durable=False` skips the fsync, for small state the next run can rebuild. On any
    failure (a full disk) the temp file is removed and the error raised.
    """
    tmp = f"{path}.tmp.{os.getpid()}"
    fd = _open_checked(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | _NOFOLLOW, mode)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
