"""`engram doctor`'s checks: each returns Check lines (OK / WARN / FAIL, with the fix).

Read-only: nothing here writes a file, opens a database for writing or prints a key.
FAIL means engram cannot work as installed (a hook command points at nothing, a corrupt
database, a settings file the harness cannot parse); WARN means it works with less
(no sqlite-vec, a consolidation backlog, recent hook faults).
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import sys
import time

OK, WARN, FAIL = "OK", "WARN", "FAIL"
STALE_SECONDS = 600  # a session idle this long with unconsolidated events missed its worker
FAULT_WINDOW_S = 24 * 3600
KEYS = ("ENGRAM_ANTHROPIC_API_KEY", "ENGRAM_OPENAI_API_KEY", "ENGRAM_VOYAGE_API_KEY", "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY", "VOYAGE_API_KEY")


@dataclasses.dataclass
class Check:
    level: str
    name: str
    message: str
    fix: str = ""


def home() -> str:
    from engram.config import engram_home

    return engram_home()


# -- interpreter -------------------------------------------------------------------------


def interpreter(plugin: bool = False) -> list[Check]:
    """This interpreter, and the one the hooks run (recorded by `engram install`; a `plugin`
    finds it only there, or in the checkout it runs from)."""
    from engram import __version__
    from engram.install import plugin_dir, setup

    v = sys.version_info
    out = [Check(OK if v >= (3, 11) else FAIL, "interpreter",
                 f"Python {v.major}.{v.minor}.{v.micro} at {sys.executable}, engram {__version__}",
                 "" if v >= (3, 11) else "install engram with Python 3.11 or newer")]
    recorded = setup.recorded_interpreter(home())
    checkout = os.path.dirname(plugin_dir()) if plugin_dir() else None
    if recorded is None:
        level = WARN if checkout or plugin else OK
        fix = "run `engram install --plugin`" if plugin else "run `engram install`" if level != OK else ""
        out.append(Check(level, "hook interpreter", f"none recorded in {home()}/python"
                         + (f"; plugin/bin/engram-hook falls back to {checkout}/.venv" if checkout else
                            "; the plugin's hooks find no engram to run" if plugin else ""), fix))
        return out
    if not os.access(recorded, os.X_OK):
        return out + [Check(FAIL, "hook interpreter", f"{recorded} (recorded in {home()}/python) is gone, "
                            "so hooks run nothing", "run `engram install` with the Python engram is installed in")]
    from engram import workers

    env = dict(os.environ, PYTHONPATH=checkout or "")
    try:
        done = workers.run_child([recorded, "-P", "-c", "import engram.hook"], env=env, timeout=30)
        err = done.text()[1] if not done.timed_out else "no answer within 30 s"
    except OSError as exc:
        done, err = None, exc.strerror or str(exc)
    if done is None or done.code != 0:
        last = (err.strip().splitlines() or ["?"])[-1]
        return out + [Check(FAIL, "hook interpreter", f"{recorded} cannot import engram ({last})",
                            f"`{recorded} -m pip install engram-hooks`, or run `engram install` from the right venv")]
    return out + [Check(OK, "hook interpreter", f"{recorded} imports engram")]


# -- registrations -----------------------------------------------------------------------


def registration(name: str, project: str | None, plugin: str | None = None) -> list[Check]:
    """The harness's hooks in its settings (the user's, or `project`'s), next to engram's
    `plugin` when the harness has it enabled."""
    from engram.errors import EngramError
    from engram.harnesses.registry import get
    from engram.install import hook_command, merge, plan

    mod = get(name)
    path = mod.settings_path(project)
    label = f"{mod.LABEL}" + (" (project)" if project else "")
    try:
        text, doc = plan.load(path, mod.ALLOW_COMMENTS)
    except EngramError as exc:
        return [Check(FAIL, label, str(exc), f"fix {path}; {mod.LABEL} cannot read it either")]
    hooks = doc.get("hooks")
    commands = merge.commands(hooks, mod.NESTED)
    if not commands:
        return _unregistered(mod, path, project, plugin)
    good, bad = merge.coverage(hooks, mod.wanted(hook_command), mod.NESTED)
    out = []
    for cmd in sorted(set(commands)):
        target = (merge.command_words(cmd) or [None])[0]
        if target and os.path.isabs(target) and not os.access(target, os.X_OK):
            out.append(Check(FAIL, label, f"a hook runs {target}, which does not exist",
                             f"`engram install --harness {name}" + (f" --project {project}`" if project else "`")))
            break
    if plugin:
        out.append(Check(WARN, label, f"engram's plugin {plugin} is enabled and engram's hooks are in {path} too: "
                         "each hook runs twice", f"`engram uninstall --harness {name}" + (f" --project {project}`"
                                                                                           if project else "`")
                         + " (the plugin keeps working)"))
    if bad:
        out.append(Check(WARN, label, f"{path}: engram hooks missing or out of date for {', '.join(bad)}",
                         f"`engram install --harness {name}" + (f" --project {project}`" if project else "`")))
    else:
        out.append(Check(OK, label, f"{len(good)} hooks registered in {path}" + mod.doctor_caveat(doc, project)))
    return out


def trust(names: list[str], project: str | None) -> list[Check]:
    """Harnesses that run engram's hooks or server only where the user trusted them: Codex's
    record of trusted hooks (in its config file), Gemini CLI's trusted folders (this folder)."""
    from engram.config import project_root
    from engram.harnesses.registry import get
    from engram.install import plan

    here = project or project_root(os.getcwd())
    out = []
    for name in names:
        mod = get(name)
        problem = mod.folder_trust(here)
        if problem:
            out.append(Check(WARN, mod.LABEL, problem[0], problem[1]))
        for scope in ([None, project] if project else [None]):
            tables = plan.trust_tables(mod, scope)
            config = plan.mcp_file_path(mod, scope)
            text = plan.read_text_or_empty(config) if config else ""
            if tables and not any(f"[{t}]" in text for t in tables):
                out.append(Check(WARN, mod.LABEL, f"{mod.LABEL} has not trusted engram's hooks yet: it skips them",
                                 mod.next_step(scope)))
    return out


def _unregistered(mod, path: str, project: str | None, plugin: str | None) -> list[Check]:
    """No hook of engram's in the settings file: the plugin has them, or engram is not set up
    for this harness (said only for a harness this user has: the others are none of doctor's business)."""
    if project:
        return []
    if plugin:
        return [Check(OK, mod.LABEL, f"engram runs as the {mod.LABEL} plugin {plugin}: its hooks and MCP server "
                      "come with the plugin")]
    if not found(mod):
        return []
    return [Check(OK, mod.LABEL, f"found; engram is not registered in {path} "
                  f"(`engram install --harness {mod.NAME}` adds it)")]


def found(mod) -> bool:
    """Whether this user has the harness: its command on PATH, or its settings folder."""
    import shutil

    return shutil.which(mod.COMMAND) is not None or os.path.isdir(os.path.dirname(mod.settings_path(None)))


# -- the MCP server ------------------------------------------------------------------------

MCP_TOOLS = ("query_knowledge", "save_decision")


async def _list_tools(argv: list[str], env: dict[str, str], errlog) -> list[str]:
    """The tools a stdio MCP server started as `argv` lists (the SDK's own client)."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=argv[0], args=argv[1:], env={**os.environ, **env})
    with anyio.fail_after(60):
        async with stdio_client(params, errlog=errlog) as streams:
            read, write = streams if isinstance(streams, tuple) else (streams.read_stream, streams.write_stream)
            async with ClientSession(read, write) as session:
                await session.initialize()
                return sorted(t.name for t in (await session.list_tools()).tools)


def mcp_server() -> list[Check]:
    """Start `engram mcp` the way the harnesses are told to and list its tools."""
    import tempfile

    from engram.install import mcp

    argv, env = mcp.server()
    try:
        import anyio
        import mcp as _sdk  # noqa: F401  (only to say so when it is missing)
    except ImportError as exc:
        return [Check(FAIL, "MCP server", f"the MCP SDK is not installed in {sys.executable} ({exc}), so "
                      "`engram mcp` cannot start", f"`{sys.executable} -m pip install 'mcp>=1.10,<3'` "
                      "(engram-hooks depends on it: reinstalling engram also brings it)")]
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            tools = anyio.run(_list_tools, argv, env, errlog)
        except Exception as exc:  # the server did not start or answer: say what it printed
            errlog.seek(0)
            last = (errlog.read().strip().splitlines() or [f"{type(exc).__name__}: {exc}"])[-1]
            return [Check(FAIL, "MCP server", f"`{' '.join(argv)}` did not answer: {last[:200]}",
                          "run `engram mcp` by hand to see the error")]
    missing = [t for t in MCP_TOOLS if t not in tools]
    if missing:
        return [Check(FAIL, "MCP server", f"`engram mcp` lists {', '.join(tools) or 'no tools'}, not {', '.join(missing)}",
                      "reinstall engram")]
    return [Check(OK, "MCP server", f"`engram mcp` starts and lists {', '.join(tools)}")]


def mcp_registrations(names: list[str], plugins: dict[str, str | None]) -> list[Check]:
    """Per harness with engram's hooks: does its agent have the query_knowledge tool? (engram's
    plugin, where enabled, declares the server itself)."""
    from engram.config import MCP_SERVER, mcp_server_name
    from engram.harnesses.registry import get
    from engram.install import mcp

    out = []
    argv, env = mcp.server()
    for name in names:
        mod = get(name)
        servers = mod.mcp_servers(None)
        if servers is None and mod.mcp_entry(None, argv, env) is None:
            continue  # no way to register it is known for this harness
        registered = mcp_server_name(name)
        if plugins.get(name):
            out.append(Check(OK, f"MCP {mod.LABEL}", f"the plugin {plugins[name]} declares engram's MCP server "
                             "(query_knowledge)"))
        elif registered:
            out.append(Check(OK, f"MCP {mod.LABEL}", "engram's MCP server is registered"
                             + (f" as '{registered}'" if registered != MCP_SERVER else "") + " (query_knowledge)"))
        elif servers is not None:
            out.append(Check(WARN, f"MCP {mod.LABEL}", "engram's MCP server is not registered (or engram does not "
                             "know it is), so the agent has no query_knowledge tool", _mcp_fix(mod, servers)))
        else:
            out.append(Check(WARN, f"MCP {mod.LABEL}", "engram's MCP server is not registered",
                             f"`engram install --harness {name}`"))
    return out


def _mcp_fix(mod, servers: dict) -> str:
    """The command that registers engram's server with a harness whose CLI does, under the name
    install would give it."""
    from engram.config import MCP_SERVERS
    from engram.install import mcp

    name = mcp.choose(servers)[0]
    if name is None:
        return f"other tools' MCP servers hold {' and '.join(MCP_SERVERS)}: rename one of them, then `engram install`"
    return f"`{shlex.join(mod.mcp_command(None, name, *mcp.server()))}`, then `engram install` again"


# -- data ----------------------------------------------------------------------------------


def command() -> list[Check]:
    """Whether `engram` typed in a shell runs this installation: other memory tools ship a
    command called engram too, and the first on PATH wins."""
    import shutil

    from engram.install import setup

    found, own = shutil.which("engram"), setup.own_command()
    mine = own or f"{setup.interpreter()} -m engram"
    if found is None:
        return [Check(OK, "command", f"`engram` is not on PATH; engram's hints name {mine}")]
    if setup.runs_this(found):
        return [Check(OK, "command", f"`engram` on PATH is this installation ({found})")]
    words = setup.shebang(found)
    what = f"a script run by {' '.join(words)}" if words else "a program, not a script of engram's (another tool's?)"
    return [Check(WARN, "command", f"the `engram` first on PATH, {found}, is {what}, not this installation ({mine}): "
                  "typing `engram` runs that one", f"run this one as {mine} (engram's own hints do), or put "
                  f"{os.path.dirname(own or setup.interpreter())} first on PATH")]


def data_dir() -> list[Check]:
    h = home()
    if not os.path.isdir(h):
        return [Check(WARN, "data dir", f"{h} does not exist yet", "`engram install` (`--plugin` with engram's "
                      "Claude Code plugin) creates it")]
    return _data_dir_access(h) + shared_data_dir(h)


def _data_dir_access(h: str) -> list[Check]:
    mode = os.stat(h).st_mode & 0o777
    if not os.access(h, os.W_OK | os.X_OK):
        return [Check(FAIL, "data dir", f"{h} is not writable by you, so hooks capture nothing",
                      f"chown -R $USER {h}")]
    if mode & 0o077:
        return [Check(WARN, "data dir", f"{h} has mode {mode:o}: other users can read your sessions",
                      f"chmod 700 {h}")]
    return [Check(OK, "data dir", f"{h} (mode 700)")]


def shared_data_dir(h: str) -> list[Check]:
    """A file engram never writes where another memory tool keeps its data: engram's databases
    are per project (projects/<id>/engram.db), and a Go tool also called engram keeps its own
    in ~/.engram/engram.db, the default ENGRAM_HOME."""
    foreign = os.path.join(h, "engram.db")
    if not os.path.lexists(foreign):
        return []
    return [Check(WARN, "data dir", f"{foreign} is not engram's (its databases are {h}/projects/*/engram.db): "
                  "another tool called engram keeps its data in the same folder",
                  "both work while each keeps to its own files; to part them, set ENGRAM_HOME to another "
                  "folder where your harness starts and run `engram install` again (it pins ENGRAM_HOME in the hooks)")]


def _kind(mode: int) -> str:
    import stat

    return ("a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a symlink" if stat.S_ISLNK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a file")


def _listed(top: str, subs: tuple[str, ...]) -> list[str]:
    """Every entry of the folders `subs` of `top` (those that exist)."""
    out = []
    for sub in subs:
        try:
            out += [os.path.join(top, sub, n) for n in sorted(os.listdir(os.path.join(top, sub)))]
        except OSError:
            continue
    return out


def special_files() -> list[Check]:
    """engram's files that are not regular files: engram refuses them (nothing hangs), so
    whatever they hold is not captured or not read until they are replaced."""
    import stat

    from engram.config import all_projects

    found = []
    candidates = [os.path.join(home(), n) for n in ("config.json", "python")] + _listed(home(), ("notices",))
    for p in all_projects():
        candidates += [os.path.join(p.dir, n) for n in ("project.json", "engram.db", "engram.db-wal", "engram.db-shm")]
        candidates += _listed(p.dir, ("events", "episodes", "sessions", "queue", "checks", "workers", "faults", "logs"))
    for path in candidates:
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            found.append((path, _kind(mode)))
    if not found:
        return [Check(OK, "data files", "every data file is a regular file")]
    path, what = found[0]
    more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
    return [Check(FAIL, "data files", f"{path} is not a regular file ({what}){more}: engram refuses to read it",
                  f"rm {path}  # engram writes a new one; for engram.db, `engram consolidate --all` rebuilds it")]


def _integrity(path: str) -> str:
    from engram.graph.readonly import integrity

    return integrity(path)


def _database(p) -> Check | None:
    """One project's database: readable, engram's schema, holding what its episode files claim."""
    from engram.consolidate.trigger import lost_in_graph
    from engram.graph import readonly

    if not os.access(p.dir, os.W_OK):  # read-only is not damage: no advice to move a healthy file
        return Check(WARN, "database", f"{p.dir} is read-only ({p.root}): hooks capture nothing and the graph is "
                     "not updated; the database was not checked", f"chmod u+w {p.dir}  # or fix the mount")
    try:
        result = _integrity(p.db_path) if os.path.exists(p.db_path) else "ok"
        result = result if result == "ok" else f"integrity_check says {result}"
        if result == "ok" and os.path.exists(p.db_path):
            conn = readonly.open_ro(p.db_path)
            try:
                missing = readonly.missing_tables(conn)
            finally:
                conn.close()
            if missing:
                result = f"not an engram database: tables {', '.join(missing)} are missing"
    except Exception as exc:  # the driver's DatabaseError: not a database, locked, unreadable
        if _busy(exc):  # healthy, and written by someone: moving it aside now would lose what they write
            return Check(WARN, "database", f"{p.db_path} ({p.root}) is held by another process (a worker, "
                         "`engram maintain`, an import); it was not checked", "run `engram doctor` again in a minute")
        result = f"integrity_check says cannot open: {exc}"
    if result != "ok":
        return Check(FAIL, "database", f"{p.db_path} ({p.root}): {result[:200]}",
                     f"mkdir -p {p.dir}/damaged && mv {p.db_path}* {p.dir}/damaged/  # events/ stay: the next "
                     "SessionStart (or `engram consolidate --all`) rebuilds the graph from them")
    lost = lost_in_graph(p)
    if lost:
        return Check(FAIL, "database", f"{p.db_path} ({p.root}) is missing, empty or replaced: {len(lost)} "
                     f"consolidated session(s) are not in it (e.g. {lost[0]})",
                     f"engram consolidate --all --project {p.root}  # rebuilds them from the event streams")
    return None


def _busy(exc: Exception) -> bool:
    """SQLite's "database is locked" / "database table is locked" / SQLITE_BUSY: another
    process holds the file, which says nothing about its health."""
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def databases() -> list[Check]:
    from engram.config import all_projects

    projects = [p for p in all_projects() if os.path.exists(p.db_path) or os.path.isdir(os.path.join(p.dir, "episodes"))]
    bad = [c for c in (_database(p) for p in projects) if c is not None]
    with_db = [p for p in projects if os.path.exists(p.db_path)]
    if not projects or (not with_db and not bad):
        return [Check(OK, "database", "no project database yet (created at the first consolidation)")]
    return bad or [Check(OK, "database", f"{len(with_db)} project database(s) pass PRAGMA integrity_check, "
                         "hold engram's tables and every consolidated session")]


def vectors() -> list[Check]:
    from engram.graph.connect import vector_status

    version, reason = vector_status()
    if version:
        return [Check(OK, "vectors", f"sqlite-vec {version} loads here (KNN in SQLite)")]
    return [Check(WARN, "vectors", f"python fallback: {reason} (exact KNN in Python, slower on big graphs)",
                  "pip install sqlean.py sqlite-vec (into engram's venv)")]


# -- providers -----------------------------------------------------------------------------


def providers() -> list[Check]:
    """Which model and embedding providers a worker would use here and why (the variable or
    config key that decided), what the worker last used in the harness's environment; keys by
    presence only. What the user never configured (a default provider without its key) is no
    warning."""
    from engram.config import load_config, user_keys
    from engram.errors import ConfigError

    try:
        cfg, warnings = load_config()
    except ConfigError as exc:
        return [Check(FAIL, "config", str(exc))]
    explicit = user_keys()
    out = [Check(WARN, "config", w, "remove or rename the key") for w in warnings]
    keys = [k for k in KEYS if os.environ.get(k)]
    from engram.providers import registry

    try:
        provider, why = registry.choose(cfg)
    except ConfigError as exc:
        return out + [Check(FAIL, "providers", str(exc))]
    name, wanted = provider.NAME, registry.CHAT.get(str(cfg.get("llmProvider")))
    if name == "offline" and "llmProvider" in explicit and wanted and wanted.NAME != "offline" \
            and "ENGRAM_OFFLINE" not in why:
        out.append(Check(WARN, "providers", f"{why}: consolidating offline", _fix(wanted, why)))
    elif name == "offline" and "llmProvider" not in explicit:
        out.append(Check(OK, "providers", f"consolidation and write checks: offline ({why}); a key you give engram "
                                          "upgrades it (ENGRAM_ANTHROPIC_API_KEY, or llmProvider in config.json)"))
    else:
        out.append(Check(OK, "providers", f"consolidation and write checks: {name} ({why})"))
    out += _worker(name)
    if keys:
        out.append(Check(OK, "keys", ", ".join(f"{k} set" for k in keys)))
    budget = model_budget(cfg) if name != "offline" or "budget" in why else []  # quiet when nothing is metered
    return out + budget + _embedding(cfg, explicit)


def _fix(wanted: object, why: str) -> str:
    """How to get the provider config.json asks for."""
    if "budget" in why:
        return "wait until midnight, or raise dailyTokenBudget in config.json"
    key = getattr(wanted, "KEY_ENV", None)
    if key:
        return f"export ENGRAM_{key}=... (or {key}) in the environment your harness starts from"
    return f"install {getattr(wanted, 'COMMAND', 'the CLI')} and log in to it, or set llmProvider to auto"


def _worker(here: str) -> list[Check]:
    """What the worker last used (it runs in the harness's environment, this in the shell's)."""
    from engram import worker_use

    rec = worker_use.read(home())
    if rec is None:
        return []
    said = f"worker last used {worker_use.text(rec)}"
    if rec["provider"] != here:
        said += f"; this shell would choose {here} (the harness's environment differs, or the worker fell back)"
    return [Check(OK, "providers", said)]


def model_budget(cfg: dict) -> list[Check]:
    """Today's model tokens per provider (every project) against dailyTokenBudget."""
    from engram.config import all_projects
    from engram.providers.budget import limit
    from engram.report.inventory import model_use

    cap = limit(cfg)
    today = model_use(all_projects())["today"]
    if not today:
        return [Check(OK, "model budget", f"no model calls today; {cap:,} tokens a day per provider")]
    out = []
    for provider, use in sorted(today.items()):
        said = f"{provider}: {use['tokens']:,} of {cap:,} tokens today ({use['calls']} call{'s' * (use['calls'] != 1)})"
        if use["tokens"] >= cap:
            out.append(Check(WARN, "model budget", said + ": spent, offline until midnight",
                             "raise dailyTokenBudget in config.json to allow more today"))
        else:
            out.append(Check(OK, "model budget", said))
    return out


def ledger_dates() -> list[Check]:
    """Ledger rows dated after now (written under a clock set ahead): no budget counts them
    today (graph/ledger.py), and each will count on the day it names."""
    from engram.clock import utc_iso
    from engram.config import all_projects
    from engram.graph import ledger
    from engram.graph.readonly import open_ro

    now, found = utc_iso(6), []
    for p in all_projects():
        conn = open_ro(p.db_path)
        if conn is None:
            continue
        try:
            n, latest = ledger.future_rows(conn, now)
        except Exception:  # locked, corrupt or foreign: `databases` reports it
            continue
        finally:
            conn.close()
        if n:
            found.append((p, n, latest))
    if not found:
        return []
    p, n, latest = found[0]
    more = f" (+{len(found) - 1} projects)" if len(found) > 1 else ""
    return [Check(WARN, "model ledger", f"{n} model call(s) in {p.db_path} are dated after now (the latest "
                  f"{latest}){more}: written under a clock set ahead; today's budget leaves them out, and each "
                  "counts on the day it names",
                  f"check the system clock; to drop them: sqlite3 {shlex.quote(p.db_path)} "
                  f"\"DELETE FROM model_calls WHERE at > '{now}'\"")]


def _embedding(cfg: dict, explicit: set[str]) -> list[Check]:
    from engram.providers import registry

    try:
        emb = registry.embedder(cfg)
    except Exception as exc:  # ConfigError for an unknown provider
        return [Check(FAIL, "embeddings", str(exc))]
    reason = getattr(emb, "fallback_reason", None)
    name = type(emb).__name__.replace("Embedder", "").lower() or "local"
    if reason and "embeddingProvider" in explicit and "ENGRAM_OFFLINE" not in reason:
        return [Check(WARN, "embeddings", f"local embedder: {reason}", "set the key, or embeddingProvider: local")]
    if reason and "embeddingProvider" not in explicit:
        return [Check(OK, "embeddings", f"{name} (offline)")]
    return [Check(OK, "embeddings", f"{name}" + (f" ({reason})" if reason else ""))]


# -- activity ------------------------------------------------------------------------------


def backlog() -> list[Check]:
    """Sessions with events past their consolidation mark that have been idle a while."""
    from engram.config import all_projects
    from engram.consolidate import trigger

    stale, waiting, failed = [], 0, []
    now = time.time()
    for p in all_projects():
        for s in trigger.pending_sessions(p):
            waiting += 1
            try:
                idle = now - os.stat(p.events_path(s)).st_mtime
            except OSError:
                continue
            if idle > STALE_SECONDS:
                stale.append((p, s))
        notice = trigger.consolidation_notice(p)
        if notice:
            failed.append(f"{p.root}: {notice}")
    out = []
    if failed:
        out.append(Check(WARN, "consolidation", failed[0] + (f" (+{len(failed) - 1} projects)" if len(failed) > 1 else ""),
                         "see the project's logs/engram.log; `engram consolidate --all` retries"))
    if stale:
        p, s = stale[0]
        out.append(Check(WARN, "backlog", f"{len(stale)} idle session(s) wait for consolidation (e.g. {s} in {p.root})",
                         f"`engram consolidate --all --project {p.root}`"))
    elif not failed:
        out.append(Check(OK, "backlog", f"{waiting} session(s) with new events, none idle for over "
                     f"{STALE_SECONDS // 60} min" if waiting else "every session is consolidated"))
    return out


def _recent_errors(path: str, since: float) -> tuple[int, str]:
    """(ERROR lines of hook components since `since`, the last one) from one log file."""
    from engram.fsio import read_regular

    data = read_regular(path, 262144, tail=True, follow=False)
    if data is None:
        return 0, ""
    lines = data.decode("utf-8", "replace").splitlines()
    count, last = 0, ""
    for line in lines:
        parts = line.split(" ", 4)
        if len(parts) < 5 or parts[3] != "ERROR" or not parts[2].startswith(("hook", "generic")):
            continue
        try:
            at = time.mktime(time.strptime(parts[0], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
        except ValueError:
            continue
        if at >= since:
            count, last = count + 1, parts[4]
    return count, last


def faults() -> list[Check]:
    from engram.config import all_projects

    since = time.time() - FAULT_WINDOW_S
    total, last, where = 0, "", ""
    for p in all_projects():
        n, line = _recent_errors(p.log_path, since)
        if n:
            total, last, where = total + n, line, p.log_path
    if not total:
        return [Check(OK, "hook faults", "none in the last 24 h")]
    return [Check(WARN, "hook faults", f"{total} in the last 24 h; last: {last[:200]}",
                  f"see {where}; the agent was not affected (hooks exit 0)")]


def run_all(project: str | None = None) -> list[Check]:
    """Every check, in the order `engram doctor` prints them."""
    from engram.harnesses.registry import HARNESSES

    plugins = {name: load().plugin_enabled(project) for name, load in HARNESSES.items()}
    checks = interpreter(any(plugins.values()))
    hooked = []
    for name in HARNESSES:
        mine = registration(name, None, plugins[name]) + (registration(name, project, plugins[name]) if project else [])
        checks += mine
        if plugins[name] or any(c.level != OK or "hooks registered" in c.message for c in mine):
            hooked.append(name)
    if hooked:
        checks += mcp_server() + mcp_registrations(hooked, plugins) + trust(hooked, project)
    for fn in (command, data_dir, special_files, databases, vectors, providers, ledger_dates, backlog, faults):
        try:
            checks += fn()
        except Exception as exc:  # a broken check is reported, never a traceback
            checks.append(Check(FAIL, fn.__name__, f"check failed: {type(exc).__name__}: {exc}"))
    return checks
