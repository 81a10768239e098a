"""What install / uninstall change in one settings file, and doing it safely.

A `Change` is computed first (the file's text before and after), so `--dry-run` can show
it as a diff and a real run writes exactly that. Writing backs up the previous file to
`$ENGRAM_HOME/backups/`, replaces the file atomically and keeps its mode. The manifest
`$ENGRAM_HOME/install.json` remembers, per file, the backup taken before engram first
appeared in it; uninstall restores those bytes when what remains after taking engram out
is semantically that original, so the file ends byte-identical. Otherwise (the user
edited the file since) engram's entries are removed by a text splice that keeps the rest.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import time

from engram.clock import utc_iso
from engram.errors import EngramError
from engram.fsio import private_dir
from engram.install import hook_command, jsonedit, merge

MANIFEST = "install.json"
SETTINGS_LIMIT = 4 << 20  # bytes: a harness's settings file is a few KB; past this it is refused, not read


@dataclasses.dataclass
class Change:
    harness: str
    path: str
    before: str | None  # None: the file does not exist
    after: str | None  # None: delete the file
    note: str = ""
    holds_server: bool = False  # the file is where the harness keeps engram's MCP server
    server: str | None = None  # and the name the server has there after the change (None: it has none)

    @property
    def changed(self) -> bool:
        return self.before != self.after


# -- reading ---------------------------------------------------------------------------


def load(path: str, allow_comments: bool) -> tuple[str | None, dict]:
    """(text or None, parsed object); a malformed file is an EngramError naming it."""
    text = _read_text(path)
    if text is None:
        return None, {}
    if not text.strip():
        return text, {}
    try:
        doc = jsonedit.loads(text, allow_comments)
    except ValueError as exc:
        raise EngramError(f"{path}: not valid JSON ({exc}); engram left it unchanged - fix it and run "
                          "the command again") from None
    if not isinstance(doc, dict):
        raise EngramError(f"{path}: holds a JSON {type(doc).__name__}, not an object; engram left it unchanged")
    return text, doc


def _hooks_of(path: str, doc: dict, nested: bool, fn, *args) -> dict:
    try:
        return fn(doc.get("hooks"), *args, nested)
    except merge.Malformed as exc:
        raise EngramError(f"{path}: {exc}; engram left it unchanged - fix it and run the command again") from None


def home() -> str:
    from engram.config import engram_home

    return engram_home()


def read_manifest() -> dict:
    from engram.fsio import read_file

    try:
        data = json.loads(read_file(os.path.join(home(), MANIFEST), SETTINGS_LIMIT).decode("utf-8"))
        return data if isinstance(data, dict) and isinstance(data.get("files"), dict) else {"files": {}}
    except (OSError, ValueError, RecursionError):
        return {"files": {}}


def write_manifest(data: dict) -> None:
    from engram.fsio import write_atomic

    os.makedirs(home(), mode=0o700, exist_ok=True)
    write_atomic(os.path.join(home(), MANIFEST), (json.dumps(data, indent=2) + "\n").encode())


# -- planning --------------------------------------------------------------------------


def plan_install(mod, project: str | None) -> Change:
    path = mod.settings_path(project)
    text, doc = load(path, mod.ALLOW_COMMENTS)
    hooks = _hooks_of(path, doc, mod.NESTED, merge.add, mod.wanted(hook_command))
    after, note = text, "already installed"
    if not ("hooks" in doc and hooks == doc["hooks"]):
        note = f"{len(mod.wanted(hook_command))} hooks registered"
        after = _targeted(text, doc, hooks, mod)
        if after is None:
            after = jsonedit.set_member(text or "", "hooks", hooks)
    entry = _mcp_entry(mod, project)
    if entry is None or entry[0] != path:
        return Change(mod.NAME, path, text, after, note)
    after, said, name = _with_mcp_server(after or "", entry[1], mod.ALLOW_COMMENTS)  # the same file (Gemini CLI)
    return Change(mod.NAME, path, text, after, f"{note}; {said}", holds_server=True, server=name)


def _mcp_entry(mod, project: str | None) -> tuple[str, dict] | None:
    """(the file, the entry) where the harness keeps engram's MCP server, if a file does."""
    from engram.install import mcp

    return mod.mcp_entry(project, *mcp.server())


def _with_mcp_server(text: str, entry: dict, allow_comments: bool) -> tuple[str, str, str | None]:
    """(text with engram's `mcpServers` entry, note, its name): under `engram`, or `engram-memory`
    where another tool's server is called `engram` (install/mcp.py: never overwritten)."""
    from engram.install import mcp

    doc = jsonedit.loads(text, allow_comments) if text.strip() else {}
    servers = doc.get("mcpServers") if isinstance(doc.get("mcpServers"), dict) else {}
    name, foreign = mcp.choose(servers)
    if name is None:
        return text, mcp.note(None, foreign), None
    if servers.get(name) == entry:
        return text, mcp.note(name, foreign, already=True), name
    if isinstance(doc.get("mcpServers"), dict):
        return jsonedit.set_member(text, name, entry, ("mcpServers",)), mcp.note(name, foreign), name
    return jsonedit.set_member(text, "mcpServers", {name: entry}), mcp.note(name, foreign), name


def _without_mcp_server(doc: dict, drop_key: bool) -> dict:
    """The document without engram's `mcpServers` entries (and without `mcpServers` if it
    held only those and `drop_key`); other tools' servers stay, whatever their names."""
    from engram.config import MCP_SERVERS, is_own_mcp_server

    servers = doc.get("mcpServers")
    ours = [n for n in MCP_SERVERS if isinstance(servers, dict) and is_own_mcp_server(servers.get(n))]
    if not ours:
        return doc
    rest = {k: v for k, v in servers.items() if k not in ours}
    out = dict(doc)
    if rest or not drop_key:
        out["mcpServers"] = rest
    else:
        out.pop("mcpServers")
    return out


def _targeted(text: str | None, doc: dict, hooks: dict, mod) -> str | None:
    """Edit only the event lists that change, so the user's own entries keep their exact
    text; None when that cannot be done (the caller then rewrites the `hooks` value)."""
    old = doc.get("hooks")
    if not text or not isinstance(old, dict):
        return None
    out = text
    try:
        for event, items in hooks.items():
            cur = old.get(event)
            if cur == items:
                continue
            if cur is not None and items[: len(cur)] == cur and not merge.commands({event: cur}, mod.NESTED):
                for item in items[len(cur):]:
                    out = jsonedit.append_element(out, ("hooks", event), item)
            else:
                out = jsonedit.set_member(out, event, items, ("hooks",))
        for event in old:
            if event not in hooks:
                out = jsonedit.remove_member(out, event, ("hooks",))
        ok = jsonedit.loads(out, mod.ALLOW_COMMENTS) == dict(doc, hooks=hooks)
    except (KeyError, ValueError, IndexError):
        return None
    return out if ok else None


def recorded_original(entry: dict | None) -> tuple[bool, str | None]:
    """(known, original text or None when the file did not exist) from a manifest entry."""
    if not entry:
        return False, None
    if entry.get("created_file"):
        return True, None
    from engram.fsio import read_regular

    raw = read_regular(entry.get("backup"), SETTINGS_LIMIT + 1, follow=False)
    if raw is None:
        return False, None
    ok = hashlib.sha256(raw).hexdigest() == entry.get("sha256")
    return ok, raw.decode("utf-8", "replace") if ok else None


def plan_uninstall(mod, project: str | None, manifest: dict) -> Change:
    path = mod.settings_path(project)
    text, doc = load(path, mod.ALLOW_COMMENTS)
    entry = manifest["files"].get(path)
    no_server = _without_mcp_server(doc, entry is None or entry.get("created_mcp_key", False))
    if text is None or (not merge.commands(doc.get("hooks"), mod.NESTED) and no_server == doc):
        return Change(mod.NAME, path, text, text, "not installed")
    hooks = _hooks_of(path, doc, mod.NESTED, merge.remove)
    rest = dict(no_server)
    drop_key = not hooks and (entry is None or entry.get("created_hooks_key"))
    if drop_key:
        rest.pop("hooks", None)
    else:
        rest["hooks"] = hooks
    known, original = recorded_original(entry)
    if known and original is None and not rest:
        return Change(mod.NAME, path, text, None, "removed the file engram created")
    if known and original is not None and _same(original, rest, mod.ALLOW_COMMENTS):
        return Change(mod.NAME, path, text, original, "restored the file as it was before install")
    after = _removed_server(text, doc, no_server)
    after_doc = jsonedit.loads(after, mod.ALLOW_COMMENTS) if after.strip() else {}
    hooks_text = _targeted_removal(after, after_doc, hooks, drop_key, mod) if "hooks" in after_doc else after
    if hooks_text is None:
        hooks_text = jsonedit.remove_member(after, "hooks") if drop_key else jsonedit.set_member(after, "hooks", hooks)
    return Change(mod.NAME, path, text, hooks_text, "removed engram's hooks")


def _removed_server(text: str, doc: dict, no_server: dict) -> str:
    """`text` without engram's MCP server entries, when `no_server` says they go."""
    if no_server == doc:
        return text
    if "mcpServers" not in no_server:
        return jsonedit.remove_member(text, "mcpServers")
    for name in [n for n in doc["mcpServers"] if n not in no_server["mcpServers"]]:
        text = jsonedit.remove_member(text, name, ("mcpServers",))
    return text


def _targeted_removal(text: str, doc: dict, hooks: dict, drop_key: bool, mod) -> str | None:
    """Take out only engram's entries, leaving the text of everything else as it is."""
    if drop_key:
        try:
            return jsonedit.remove_member(text, "hooks")
        except (KeyError, ValueError, IndexError):
            return None
    out = text
    try:
        for event, cur in doc["hooks"].items():
            new = hooks.get(event)
            if new == cur:
                continue
            if not new:
                out = jsonedit.remove_member(out, event, ("hooks",))
                continue
            whole = [i for i, item in enumerate(cur) if item not in new]
            if len(cur) - len(whole) != len(new):
                out = jsonedit.set_member(out, event, new, ("hooks",))
                continue
            for i in reversed(whole):
                out = jsonedit.remove_element(out, ("hooks", event), i)
        ok = jsonedit.loads(out, mod.ALLOW_COMMENTS) == dict(doc, hooks=hooks)
    except (KeyError, ValueError, IndexError):
        return None
    return out if ok else None


def _same(original: str, doc: dict, allow_comments: bool) -> bool:
    try:
        return (jsonedit.loads(original, allow_comments) if original.strip() else {}) == doc
    except ValueError:
        return False


def diff(change: Change) -> str:
    import difflib

    a = (change.before or "").splitlines(keepends=True)
    b = (change.after or "").splitlines(keepends=True)
    old = change.path if change.before is not None else "/dev/null"
    new = change.path if change.after is not None else "/dev/null"
    return "".join(difflib.unified_diff(a, b, old, new))


# -- applying --------------------------------------------------------------------------


def backup(change: Change) -> str | None:
    """Copy the current file to $ENGRAM_HOME/backups/<harness>/ (0600); its path, or None."""
    if change.before is None:
        return None
    from engram.fsio import write_atomic

    folder = os.path.join(home(), "backups", change.harness)
    private_dir(folder)
    stem = os.path.join(folder, os.path.basename(change.path) + time.strftime(".%Y%m%dT%H%M%S"))
    path, n = stem + ".bak", 1
    while os.path.exists(path):
        n += 1
        path = f"{stem}.{n}.bak"
    write_atomic(path, change.before.encode("utf-8"))
    return path


def _makedirs(folder: str) -> list[str]:
    """Create `folder` and missing parents; the ones created, deepest last."""
    missing = []
    while folder and not os.path.isdir(folder):
        missing.append(folder)
        folder = os.path.dirname(folder)
    for d in reversed(missing):
        os.mkdir(d, 0o755)
    return list(reversed(missing))


def apply(change: Change, manifest: dict, installing: bool) -> str | None:
    """Write the change (backup first); update the manifest entry. Returns the backup path."""
    if not change.changed:
        return None
    from engram.fsio import write_atomic

    saved = backup(change)
    entry = manifest["files"].get(change.path)
    if change.after is None:
        os.remove(change.path)
        for d in reversed((entry or {}).get("created_dirs", [])):
            try:
                os.rmdir(d)
            except OSError:
                break
    else:
        created = _makedirs(os.path.dirname(change.path))
        target = os.path.realpath(change.path)  # a dotfiles symlink stays a symlink
        mode = os.stat(target).st_mode & 0o777 if change.before is not None else 0o600
        write_atomic(target, change.after.encode("utf-8"), mode=mode)
        if installing and (entry is None or not _had_engram(change)):
            manifest["files"][change.path] = {
                "harness": change.harness, "backup": saved, "created_file": change.before is None,
                "sha256": hashlib.sha256(change.before.encode("utf-8")).hexdigest() if change.before is not None else None,
                "created_dirs": created, "created_hooks_key": not _has_key(change.before, "hooks"),
                "created_mcp_key": not _has_key(change.before, "mcpServers"),
                "installed_at": utc_iso(0),
            }
    if not installing:
        manifest["files"].pop(change.path, None)
    return saved


def _has_key(text: str | None, key: str) -> bool:
    """Whether the JSON document `text` has a top-level `key` (False for other formats)."""
    if not text or not text.strip():
        return False
    try:
        return any(m[0] == key for m in jsonedit.members(text)[0])
    except (ValueError, KeyError, IndexError):
        return False


def _had_engram(change: Change) -> bool:
    """Whether the file held engram's entries before this change (its manifest entry then
    keeps the backup taken before engram first came): its hooks, or its marked TOML table."""
    from engram.install import mcp

    text = change.before or ""
    if mcp.TOML_MARK in text:
        return True
    try:
        doc = jsonedit.loads(text, allow_comments=True) if text.strip() else {}
    except ValueError:
        return False
    hooks = doc.get("hooks") if isinstance(doc, dict) else None
    return bool(merge.commands(hooks, True) or merge.commands(hooks, False))


# -- an MCP server in a TOML file of its own (Codex's config.toml; engram.install.mcp) ---------


def _mcp_file(mod, project: str | None) -> tuple[str, dict] | None:
    """(the TOML file, the entry) when the harness keeps the server outside its settings file."""
    entry = _mcp_entry(mod, project)
    return entry if entry is not None and entry[0] != mod.settings_path(project) else None


def plan_mcp_file(mod, project: str | None) -> Change | None:
    """The change to the harness's TOML file that registers the MCP server; None when the
    harness keeps it elsewhere (its settings file, its CLI) or nowhere."""
    from engram.install import mcp

    found = _mcp_file(mod, project)
    if found is None:
        return None
    path, entry = found
    text = _read_text(path)
    after, note, name = mcp.toml_with_server(text, entry, path)
    return Change(mod.NAME, path, text, after if after != (text or "") else text, note, holds_server=True, server=name)


def plan_mcp_file_removal(mod, project: str | None, manifest: dict) -> Change | None:
    """The change that takes engram's table out of that TOML file: the file as it was before
    install when nothing else changed (byte for byte), else the file minus that table."""
    from engram.install import mcp

    found = _mcp_file(mod, project)
    if found is None:
        return None
    path = found[0]
    text = _read_text(path)
    trusted = trust_tables(mod, project)
    if text is None or (mcp.TOML_MARK not in text and not any(f"[{t}]" in text for t in trusted)):
        return Change(mod.NAME, path, text, text, "no MCP server of engram's")
    after: str | None = mcp.toml_without_tables(mcp.toml_without_server(text), trusted)
    known, original = recorded_original(manifest["files"].get(path))
    if known and original is None and not mcp.parse_toml(after, path):
        return Change(mod.NAME, path, text, None, "removed the file engram created")
    if known and original is not None and mcp.parse_toml(original, path) == mcp.parse_toml(after, path):
        after = original
    return Change(mod.NAME, path, text, after, "removed engram's MCP server")


def trust_tables(mod, project: str | None) -> list[str]:
    """The config tables in which the harness recorded the user's trust in engram's hooks
    (Codex's `hooks.state."<key>"`): they go with the hooks."""
    path = mod.settings_path(project)
    try:
        _, doc = load(path, mod.ALLOW_COMMENTS)
    except EngramError:
        return []
    hooks = doc.get("hooks") if isinstance(doc.get("hooks"), dict) else {}
    out = []
    for event, groups in hooks.items():
        for gi, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for hi, handler in enumerate(handlers if isinstance(handlers, list) else []):
                key = mod.trust_key(path, event, gi, hi) if merge.is_ours(handler) else None
                if key:
                    out.append(f'hooks.state.{json.dumps(key)}')
    return out


def mcp_file_path(mod, project: str | None) -> str | None:
    """The harness's TOML config file beside its settings (Codex's config.toml), if it has one."""
    found = _mcp_file(mod, project)
    return found[0] if found else None


def read_text_or_empty(path: str) -> str:
    """A config file's text ("" when it is missing or unreadable: doctor only looks)."""
    try:
        return _read_text(path) or ""
    except EngramError:
        return ""


def _read_text(path: str) -> str | None:
    """A settings file's text, None when there is none. Read like a project's file
    (engram/fsio.py): a link is followed, but what it reaches must be a regular file, opened
    without blocking (a FIFO would wait for a writer, /dev/zero never end), and at most
    SETTINGS_LIMIT bytes of it; anything else is one line naming the file, left unchanged."""
    from engram.fsio import NotRegular, read_file

    left = "engram left it unchanged"
    try:
        raw = read_file(path, SETTINGS_LIMIT + 1, follow=True)
    except FileNotFoundError:
        return None
    except NotRegular:
        raise EngramError(f"{path}: not a regular file (a FIFO, a device, a folder or a link to one); {left} - "
                          "put a settings file there, or remove it") from None
    except OSError as exc:
        raise EngramError(f"{path}: cannot read it ({exc.strerror or exc}); {left}") from None
    if len(raw) > SETTINGS_LIMIT:
        raise EngramError(f"{path}: larger than {SETTINGS_LIMIT >> 20} MB, too large for a settings file; {left} - "
                          "check what wrote it") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EngramError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); {left}") from None
