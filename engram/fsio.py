"""Files, safely: bounded reads that never block, and atomic replacement.

`read_regular`: a payload can name any path (a transcript, a file the agent wrote). `open()` on a FIFO
blocks until a writer appears and `read()` on /dev/zero never ends, so a hook that
trusted such a path would hang the agent. Here the file is opened non-blocking, refused
unless it is a regular file, and read up to a byte limit.

`write_atomic`: readers see the old content or the new, never a mix (temp file + rename).
Standard library only: the hook imports this.
"""

from __future__ import annotations

import os
import stat

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def read_regular(path: str, limit: int, *, tail: bool = False) -> bytes | None:
    """Up to `limit` bytes of a regular file (its last `limit` bytes with `tail`); None otherwise."""
    try:
        fd = os.open(path, _FLAGS)
    except (OSError, ValueError, TypeError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if tail and info.st_size > limit:
            os.lseek(fd, info.st_size - limit, os.SEEK_SET)
        chunks, left = [], limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def write_atomic(path: str, data: bytes, mode: int = 0o600, durable: bool = True) -> None:
    """Write a file so that readers see the old or the new content, never a mix.

    `durable=False` skips the fsync, for small state the next run can rebuild.
    """
    tmp = f"{path}.tmp.{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
