"""`engram doctor [--project DIR]`: is engram installed and working? One line per check.

Each line is OK, WARN or FAIL, and every WARN / FAIL says how to fix it. Checks: the
interpreter and the one hooks run, the hook registration of each harness this user has
(user level, and the project's with --project), the MCP server (started, its tools
listed) and its registration with those harnesses, the data dir's permissions, each
database's PRAGMA integrity_check, the vector path, model providers (which one and why)
and which API keys are set (never their values), today's model tokens against the daily
budget, the consolidation backlog and hook faults of the last 24 hours. Exits 1 when any
check FAILs.

example:
  engram doctor --project .
"""

from __future__ import annotations

import argparse

from engram.commands import add_project_option


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("doctor", help="check the installation: hooks, interpreter, data, database, providers",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_project_option(p, "also check this project's harness settings")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engram.commands import runnable
    from engram.commands.install_uninstall import project_dir
    from engram.report.doctor import FAIL, run_all

    checks = run_all(project_dir(args))
    width = max(len(c.name) for c in checks)
    for c in checks:
        print(runnable(f"{c.level:<4}  {c.name:<{width}}  {c.message}"))
        if c.fix:
            print(runnable(f"{'':<4}  {'':<{width}}  fix: {c.fix}"))
    failed = sum(c.level == FAIL for c in checks)
    warned = sum(c.level == "WARN" for c in checks)
    print(f"\n{failed} failed, {warned} warning(s), {len(checks) - failed - warned} ok")
    return 1 if failed else 0
