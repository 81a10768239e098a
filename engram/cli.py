"""`engram <command>`: parses arguments and dispatches; each command lives in its own module.

A command module under engram/commands/ exposes `add_parser(subparsers)`, which registers
its verb(s) with `set_defaults(func=...)`; heavy imports stay inside those functions.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from engram import __version__
from engram.commands import (backfill, consolidate, decide, demo, doctor, eval_, export_import, forget,
                             install_uninstall, maintain, mcp, query, show, status, worker)
from engram.errors import EngramError

# The order is the order of `engram --help`.
COMMANDS = (demo, decide, status, show, maintain, consolidate, query, mcp, install_uninstall, doctor, forget,
            export_import, eval_, backfill, worker)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="engram", description="Persistent memory for AI coding agents."
    )
    parser.add_argument("--version", action="version", version=f"engram {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS:
        module.add_parser(sub)
    return parser


def _check_project(args: argparse.Namespace) -> None:
    """Every verb's --project names an existing directory, or one engram has memory of (a
    checkout since moved, history imported from another machine); made absolute here, so
    no verb files memory under a mistyped path."""
    if getattr(args, "project", None):
        from engram.config import Project

        path = os.path.abspath(os.path.expanduser(args.project))
        if not os.path.isdir(path) and not os.path.isdir(Project.from_cwd(path).dir):
            raise EngramError(f"--project {args.project}: no such directory, and engram has no memory of it")
        args.project = path


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        _check_project(args)
        return int(args.func(args) or 0)
    except EngramError as exc:
        from engram.commands import runnable

        print(runnable(f"Error: {exc}"), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a full disk, a read-only home, a permission: the user's to fix, in one line
        if os.environ.get("ENGRAM_RAISE_ERRORS"):
            raise
        print(f"Error: {os_error(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:
        if os.environ.get("ENGRAM_RAISE_ERRORS"):
            raise
        from engram.graph.connect import db_errors

        if isinstance(exc, db_errors()):
            print(f"Error: the database: {exc}; if it is locked, a worker or another engram command holds it (try "
                  "again in a moment); otherwise `engram doctor` checks it", file=sys.stderr)
            return 1
        import traceback

        from engram.config import engram_home
        from engram.log import log

        path = os.path.join(engram_home(), "logs", "cli.log")
        log(path, "cli", f"{type(exc).__name__}: {exc} | " + traceback.format_exc())
        print(f"An unexpected error has occurred: {type(exc).__name__}: {exc}", file=sys.stderr)
        print(f"Check the log at {path}", file=sys.stderr)
        return 3


def os_error(exc: OSError) -> str:
    """One line for an OSError: what failed, on which file, and what to do."""
    import errno

    where = f" ({exc.filename})" if exc.filename else ""
    hint = {errno.ENOSPC: "free some disk space and run it again",
            errno.EDQUOT: "free some disk space and run it again",
            errno.EFBIG: "the file hit a size limit; free space or raise the limit",
            errno.EROFS: "the file system is read-only; run engram where ENGRAM_HOME is writable",
            errno.EACCES: "you cannot write there; fix its permissions (`engram doctor` checks them)",
            errno.EPERM: "you cannot write there; fix its permissions (`engram doctor` checks them)"}.get(exc.errno or 0,
                                                                                                   "see `engram doctor`")
    return f"{exc.strerror or exc}{where}; {hint}"


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
