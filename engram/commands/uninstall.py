"""`engram uninstall [--harness NAME]... [--project DIR] [--dry-run]`.

Removes exactly what `engram install` added: engram's hook entries and nothing else. A
file engram has not changed since is restored byte for byte from the backup taken at
install; a file engram created is deleted. Your memory ($ENGRAM_HOME, including the
interpreter record a Claude Code plugin install relies on) is kept.
"""

from __future__ import annotations

import argparse
import sys

from engram.commands.install import ALL, add_harness_options, harnesses, project_dir, tilde


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("uninstall", help="remove engram's hooks from harness settings (memory is kept)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_harness_options(p, "all")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engram.errors import EngramError
    from engram.install import harness, plan

    project = project_dir(args)
    manifest = plan.read_manifest()
    changes, errors = [], []
    for name in harnesses(args, ALL):
        try:
            changes.append((harness(name), plan.plan_uninstall(harness(name), project, manifest)))
        except EngramError as exc:
            errors.append(str(exc))
    for mod, change in changes:
        if args.dry_run:
            print(plan.diff(change) if change.changed else f"{mod.LABEL}: {change.note}", end="" if change.changed else "\n")
            continue
        plan.apply(change, manifest, installing=False)
        if change.changed:
            print(f"{mod.LABEL:<12} {tilde(change.path)}: {change.note}")
    for e in errors:
        print(f"Error: {e}", file=sys.stderr)
    if args.dry_run:
        print("(dry run: nothing written)")
        return 1 if errors else 0
    plan.write_manifest(manifest)
    home = plan.home()
    if not any(c.changed for _, c in changes) and not errors:
        print("engram's hooks were not installed in any of these settings files")
    print(f"Your memory stays in {tilde(home)}; delete that directory to forget everything.")
    return 1 if errors else 0
