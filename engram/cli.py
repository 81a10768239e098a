"""`engram <command>`: parses arguments and dispatches; each command lives in its own module.

A command module under engram/commands/ exposes `add_parser(subparsers)`, which registers
its verb(s) with `set_defaults(func=...)`; heavy imports stay inside those functions.
"""

from __future__ import annotations

import argparse
import os
import sys

from engram import __version__
from engram.errors import EngramError

TYPE_CHECKING = False  # `typing` costs ~3 ms of import (engram query, the hooks); annotations only
if TYPE_CHECKING:
    from typing import Sequence

# {verb: its module under engram/commands/}, in the order of `engram --help`. Only the
# chosen verb's module is imported and its parser built: importing every command module
# and building every parser cost ~45 ms of each `engram query` (`python -X importtime`).
VERBS = {"demo": "demo", "decide": "decide", "status": "status", "show": "show", "maintain": "maintain",
         "consolidate": "consolidate", "query": "query", "mcp": "mcp", "install": "install_uninstall",
         "uninstall": "install_uninstall", "doctor": "doctor", "forget": "forget", "memory": "show", "view": "export_import", "export": "export_import",
         "import": "export_import", "eval": "eval_", "backfill": "backfill", "worker": "worker"}


def _verb(argv: Sequence[str]) -> str | None:
    """The verb `argv` names: its first word that is not an option (None: `engram --help` and the like)."""
    return next((a for a in argv if not a.startswith("-")), None)


def terminal_width() -> int:
    """The columns `shutil.get_terminal_size` gives (COLUMNS when a positive number, else the
    terminal of stdout, else 80), without importing `shutil`: argparse's help formatter does,
    for its width, at every `add_argument` (shutil brings zlib, bz2, lzma, fnmatch: ~2 ms of
    each `engram query`)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


class Parser(argparse.ArgumentParser):
    """argparse's parser (its subparsers are of its class) whose help formatter is given the
    width its default would measure (`terminal_width`): the same help, no `shutil` import."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        return self.formatter_class(prog=self.prog, width=terminal_width() - 2)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of `engram`, with the subparser of `argv`'s verb only when it is a known
    one; every verb's otherwise (no argv, `engram --help`, a mistyped verb)."""
    from importlib import import_module

    parser = Parser(
        prog="engram", description="Persistent memory for AI coding agents."
    )
    parser.add_argument("--version", action="version", version=f"engram {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    verb = _verb(argv) if argv is not None else None
    for name in [VERBS[verb]] if verb in VERBS else dict.fromkeys(VERBS.values()):
        import_module(f"engram.commands.{name}").add_parser(sub)
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
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        _check_project(args)
        return int(args.func(args) or 0)
    except EngramError as exc:
        return _error(f"Error: {exc}")
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a full disk, a read-only home, a permission: the user's to fix, in one line
        if os.environ.get("ENGRAM_RAISE_ERRORS"):
            raise
        return _error(f"Error: {os_error(exc)}")
    except Exception as exc:
        if os.environ.get("ENGRAM_RAISE_ERRORS"):
            raise
        from engram.graph.connect import db_errors

        if isinstance(exc, db_errors()):
            return _error(f"Error: the database: {exc}; if it is locked, a worker or another engram command holds it "
                          "(try again in a moment); otherwise `engram doctor` checks it")
        import traceback

        from engram.config import engram_home
        from engram.log import log

        path = os.path.join(engram_home(), "logs", "cli.log")
        log(path, "cli", f"{type(exc).__name__}: {exc} | " + traceback.format_exc())
        print(f"An unexpected error has occurred: {type(exc).__name__}: {exc}", file=sys.stderr)
        print(f"Check the log at {path}", file=sys.stderr)
        return 3


def _error(line: str) -> int:
    """Print one error line on stderr, each `engram ...` in it written the way this shell runs
    engram (commands.runnable); the exit code 1."""
    from engram.commands import runnable

    print(runnable(line), file=sys.stderr)
    return 1


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
