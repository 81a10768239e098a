"""The project log: one greppable line per fault or worker run, bounded in size.

Format: `<UTC time> <pid> <component> <LEVEL> <message>`. When the file passes
`logMaxBytes` it is moved to engram.log.1 (one generation kept).
"""

from __future__ import annotations

import os
import sys

from engram.clock import utc_iso
from engram.fsio import open_append, private_dir
from engram.redact import clip_then_redact

MAX_BYTES = 1_000_000
MAX_MESSAGE = 2000


def log(path: str | None, component: str, message: str, level: str = "ERROR") -> None:
    """Append one line; never raises (a hook must not fail because logging did).

    The message is cut, then redacted: a fault's text can quote the payload (a session id,
    a path), and a huge one must not cost the hook a long scan.
    """
    try:
        message = clip_then_redact(str(message), MAX_MESSAGE)[0]
    except Exception:
        message = "(unprintable message)"
    line = "%s %d %s %s %s\n" % (
        utc_iso(0),
        os.getpid(),
        component,
        level,
        " ".join(str(message).split())[:MAX_MESSAGE + 8],
    )
    if path is None:
        try:
            sys.stderr.write(line)
        except Exception:
            pass
        return
    try:
        private_dir(os.path.dirname(path))
        try:
            if os.stat(path).st_size > MAX_BYTES:
                os.replace(path, path + ".1")
        except FileNotFoundError:
            pass
        fd = open_append(path)  # a FIFO in the log's place raises; it never blocks
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:
        try:
            sys.stderr.write(line)
        except Exception:
            pass
