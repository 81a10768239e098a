"""`engram install` / `engram uninstall`: register engram's hooks with a harness, or take them out.

`engram install [--harness NAME]... [--gsd] [--project DIR] [--plugin] [--provider NAME] [--dry-run]`
registers engram's hooks with a harness (Claude Code by default; codex, gemini, gsd, or
all), at user level or, with --project, in that project, and its MCP server (the
query_knowledge tool) the harness's own way: Claude Code through `claude mcp add` (the
command is printed when `claude` is not on PATH), Codex in config.toml, Gemini CLI in
settings.json. Other tools' entries are left as they are, running it twice changes
nothing, the previous file is backed up under $ENGRAM_HOME/backups, and a malformed
settings file is reported and left alone. It also creates the data dir, records this
interpreter in $ENGRAM_HOME/python (plugin/bin/engram-hook runs it), writes
$ENGRAM_HOME/bin/engram-hook (what hooks.json runs outside a plugin) and, with
--project, creates the project's database. --provider records the model provider engram
may spend with as `llmProvider` in $ENGRAM_HOME/config.json: without one (or an
ENGRAM_*_API_KEY) engram consolidates offline, whatever keys your harness has. --dry-run
prints the diff of every file it would change and changes nothing.

examples:
  engram install                      Claude Code, user level
  engram install --harness all --dry-run
  engram install --harness codex --project ~/src/app
  engram install --provider anthropic   engram may call Anthropic (ANTHROPIC_API_KEY)

`engram uninstall [--harness NAME]... [--project DIR] [--dry-run]`
Removes exactly what `engram install` added: engram's hook entries and MCP server, and
nothing else. A file engram has not changed since is restored byte for byte from the
backup taken at install; a file engram created is deleted. Your memory ($ENGRAM_HOME,
including the interpreter record a Claude Code plugin install relies on) is kept.

example:
  engram uninstall --harness codex --dry-run
"""

from __future__ import annotations

import argparse
import os
import sys

from engram.commands import add_project_option

INSTALL_HELP = __doc__.split("`engram uninstall [")[0].split("\n\n", 1)[1].strip()
UNINSTALL_HELP = "`engram uninstall [" + __doc__.split("`engram uninstall [")[1].strip().rstrip('"')

def add_harness_options(p: argparse.ArgumentParser, default: str) -> None:
    from engram.harnesses.registry import HARNESSES

    p.add_argument("--harness", action="append", metavar="NAME", choices=(*HARNESSES, "all"),
                   help=f"claude-code, codex, gemini, gsd or all; repeatable (default: {default})")
    add_project_option(p, "project level: that project's settings instead of your user's")
    p.add_argument("--dry-run", action="store_true", help="show the changes as a diff; change nothing")


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("install", help="register engram's hooks with Claude Code, Codex, Gemini CLI or GSD",
                              description=INSTALL_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_harness_options(p, "claude-code")
    p.add_argument("--gsd", action="store_true", help="also register the GSD 2 hooks")
    p.add_argument("--plugin", action="store_true",
                   help="Claude Code runs engram as a plugin: record the interpreter, write no settings")
    p.add_argument("--provider", metavar="NAME", help="the model provider engram may spend with, recorded as "
                   "llmProvider in config.json (auto, anthropic, openai, offline, claude-code, codex, gemini-cli)")
    p.set_defaults(func=run)
    p = subparsers.add_parser("uninstall", help="remove engram's hooks from harness settings (memory is kept)",
                              description=UNINSTALL_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_harness_options(p, "all")
    p.set_defaults(func=uninstall)


def harnesses(args, default: tuple[str, ...]) -> list[str]:
    from engram.harnesses.registry import HARNESSES

    names = list(args.harness or default)
    if "all" in names:
        names = list(HARNESSES)
    if getattr(args, "gsd", False):
        names.append("gsd")
    return list(dict.fromkeys(names))


def project_dir(args) -> str | None:
    from engram.errors import EngramError

    if not args.project:
        return None
    path = os.path.abspath(os.path.expanduser(args.project))
    if not os.path.isdir(path):
        raise EngramError(f"--project {args.project}: no such directory")
    return path


def tilde(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if path.startswith(home + os.sep) else path


def planned(names: list[str], project: str | None) -> tuple[list, list[str]]:
    """([(harness module, Change)], errors): every settings file install changes, a TOML
    file of a harness's own that holds its MCP server (Codex's config.toml) included."""
    from engram.errors import EngramError
    from engram.harnesses.registry import get as harness
    from engram.install import plan

    changes, errors = [], []
    for name in names:
        mod = harness(name)
        try:
            changes.append((mod, plan.plan_install(mod, project)))
            server = plan.plan_mcp_file(mod, project)
            if server is not None:
                changes.append((mod, server))
        except EngramError as exc:
            errors.append(str(exc))
        except RecursionError:
            errors.append(_too_deep(mod, project))
    return changes, errors


def _too_deep(mod, project: str | None) -> str:
    """The one line for a settings file nested deeper than Python can walk (json and tomllib
    parse by recursion): malformed, as a user reads it, and left alone."""
    return (f"{mod.settings_path(project)}: malformed (nested too deeply to read); engram left it unchanged - "
            "fix it and run the command again")


def plugin_steps() -> dict:
    """{name: (harness, what to run)} for the harnesses that load engram as a plugin from this
    checkout (Claude Code): `--plugin` writes none of their settings."""
    from engram.harnesses.registry import HARNESSES
    from engram.install import plugin_dir

    found = plugin_dir()
    root = os.path.dirname(found) if found else "<the engram checkout>"
    steps = {}
    for name, load in HARNESSES.items():
        mod = load()
        step = mod.plugin_step(root)
        if step is not None:
            steps[name] = (mod, step)
    return steps


def plugins_enabled(names: list[str], project: str | None) -> dict:
    """{name: (harness, which plugin)} for the harnesses that have engram's plugin enabled
    (Claude Code): it brings engram's hooks and MCP server, and registering them again in
    settings would run each hook twice, so install writes none of their settings."""
    from engram.harnesses.registry import get as harness

    found = {name: (harness(name), harness(name).plugin_enabled(project)) for name in names}
    return {name: pair for name, pair in found.items() if pair[1]}


def run(args: argparse.Namespace) -> int:
    from engram.commands import runnable
    from engram.harnesses.registry import get as harness
    from engram.install import mcp, plan, setup

    project = project_dir(args)
    if args.provider:
        from engram.providers.registry import valid

        valid(args.provider)
    names = harnesses(args, ("claude-code",))
    plugins = plugin_steps() if args.plugin else {}
    enabled = plugins_enabled([n for n in names if n not in plugins], project)
    names = [n for n in names if n not in plugins and n not in enabled]
    changes, errors = planned(names, project)
    if args.dry_run:
        if args.provider:
            print(f"config.json: would set llmProvider to {args.provider}")
        return _dry_run(changes, errors, [harness(n) for n in names], project)
    home = setup.ensure_home()
    print(f"data dir     {tilde(home)} (0700)")
    if args.provider:
        _record_provider(home, args.provider)
    print(f"interpreter  {setup.interpreter()} (recorded in {tilde(setup.record_interpreter(home))})")
    print(f"hook         {tilde(setup.write_launcher(home))} (what hooks.json runs outside a plugin)")
    manifest = plan.read_manifest()
    for mod, change in changes:
        saved = plan.apply(change, manifest, installing=True)
        print(f"{mod.LABEL:<12} {tilde(change.path)}: {change.note}"
              + (f"; previous file saved as {tilde(saved)}" if saved else ""))
        if change.holds_server:
            mcp.record(mod.NAME, change.server)
    plan.write_manifest(manifest)
    for name in names:
        register_mcp(harness(name), project)
    if project:
        db, version = setup.init_database(project)
        print(f"database     {tilde(db)} (schema v{version})")
    for e in errors:
        print(f"Error: {e}", file=sys.stderr)
    for mod, plugin in enabled.values():
        print(f"{mod.LABEL:<12} engram's plugin {plugin} is enabled and brings engram's hooks and MCP server: "
              "nothing written (disable the plugin first to register engram in the settings instead)")
    from engram.config import project_root

    for mod in dict.fromkeys(mod for mod, _ in changes):
        print(runnable(f"Next ({mod.LABEL}): {mod.next_step(project)}"))
        untrusted = mod.folder_trust(project or project_root(os.getcwd()))
        if untrusted:  # e.g. Gemini CLI disables the server in a folder it does not trust
            print(f"Next ({mod.LABEL}): {untrusted[0]}; {untrusted[1]}")
    print(runnable("Next (history): run `engram backfill` in a project to import its existing Claude Code sessions"))
    for mod, step in plugins.values():
        on = mod.plugin_enabled(project)
        print(f"Next ({mod.LABEL} plugin): " + (f"{on} is enabled: start a new session" if on else step))
    return 1 if errors else 0


def register_mcp(mod, project: str | None) -> None:
    """The MCP server, with a harness whose own CLI registers it (Claude Code), under a name
    no other tool's server holds there (install/mcp.py); recorded in mcp.json."""
    from engram.install import mcp

    servers = mod.mcp_servers(project)
    if servers is None:
        return  # a file entry registers it (planned with the settings), or no way is known
    name, foreign = mcp.choose(servers)
    if foreign:
        print(f"{mod.LABEL:<12} {mcp.foreign_note(foreign)}")
    registered, said = mod.register_mcp(project, name, *mcp.server()) if name else (False, mcp.note(None, []))
    mcp.record(mod.NAME, name if registered else None)
    print(f"{mod.LABEL:<12} {said}")


def _record_provider(home: str, name: str) -> None:
    """llmProvider in config.json: the user's consent to spend with that provider (providers/consent.py)."""
    from engram.config import save_setting

    print(f"provider     llmProvider = {name} in {tilde(save_setting('llmProvider', name, home))}")


def _dry_run(changes, errors, mods: list, project: str | None) -> int:
    import shlex

    from engram.install import mcp, plan

    for mod, change in changes:
        print(plan.diff(change) if change.changed else f"{mod.LABEL}: {change.path}: no change ({change.note})",
              end="" if change.changed else "\n")
    for mod in mods:
        servers = mod.mcp_servers(project)
        name = mcp.choose(servers)[0] if servers is not None else None
        command = mod.mcp_command(project, name, *mcp.server()) if name else None
        if command:
            print(f"{mod.LABEL}: would run (when `{mod.COMMAND}` is on PATH): {shlex.join(command)}")
    for e in errors:
        print(f"Error: {e}", file=sys.stderr)
    print("(dry run: nothing written)")
    return 1 if errors else 0


def uninstall(args: argparse.Namespace) -> int:
    from engram.errors import EngramError
    from engram.harnesses.registry import HARNESSES
    from engram.harnesses.registry import get as harness
    from engram.install import mcp, plan

    project = project_dir(args)
    manifest = plan.read_manifest()
    changes, errors = [], []
    names = harnesses(args, tuple(HARNESSES))
    for name in names:
        mod = harness(name)
        try:
            server = plan.plan_mcp_file_removal(mod, project, manifest)
            if server is not None:  # first: the folder the hooks file goes with may then go too
                changes.append((mod, server))
            changes.append((mod, plan.plan_uninstall(mod, project, manifest)))
        except EngramError as exc:
            errors.append(str(exc))
        except RecursionError:
            errors.append(_too_deep(mod, project))
    for mod, change in changes:
        if args.dry_run:
            print(plan.diff(change) if change.changed else f"{mod.LABEL}: {change.note}", end="" if change.changed else "\n")
            continue
        plan.apply(change, manifest, installing=False)
        mcp.record(mod.NAME, None)
        if change.changed:
            print(f"{mod.LABEL:<12} {tilde(change.path)}: {change.note}")
    for name in names if not args.dry_run else ():  # a harness whose own CLI registered the server
        unregister_mcp(harness(name), project)
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


def unregister_mcp(mod, project: str | None) -> None:
    """Take engram's MCP server out of a harness whose own CLI registered it, by each name it
    may have (another tool's server by that name stays)."""
    from engram.config import MCP_SERVERS
    from engram.install import mcp

    for name in MCP_SERVERS:
        said = mod.unregister_mcp(project, name)
        if said is None:
            return  # a file entry held it: the settings change took it out
        if said:
            print(f"{mod.LABEL:<12} {said}")
    mcp.record(mod.NAME, None)
