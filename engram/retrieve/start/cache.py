"""SessionStart's context, kept per project and served again while nothing it came from changed.

A new session's context depends only on what this module keys it by, so when all of it is
as it was, the text is the one retrieval would render again, and the hook skips the graph
(opening it, spreading, rendering: ~15 ms at 5,000 nodes; docs/retrieval.md, "Retrieval at
interpreter speed"). The key, compared whole (`key`, `load`):

* the graph's stamp (`graph.signature`: size and mtime of engram.db and its WAL);
* the entry points' inputs, as values (`project_context.session_start_inputs`: the last
  sessions' written files, the working tree's changed files from `git status`, the branch,
  the GSD plan's text);
* every setting (`config.json` as loaded), the names-only line's opening, the project root;
* the files the curation screen checked (evidence.Reader's log: each one's
  `fsio.fingerprint`, taken before it was read);
* the code: size and mtime of every engram module the uncached run had loaded, and of the
  alias table's text.

Only a session that has been shown nothing yet (a new one, or one cleared or compacted,
whose shown items are reset) is served from it or stored: a resumed session's context also
depends on what it already saw. It is stored by the first such SessionStart that misses,
and by `engram worker --warm` (commands/worker.py), which a drain that changed the graph
starts once the graph is out of the racy window: every turn's consolidation changes the
graph, so without it the next session would always miss. The entry holds the text and what it marks as shown, so the
session's bookkeeping (`shown`, the `injected` event) is the uncached run's.

Stored only when nothing it depends on changed within RACY_NS of the store (git's "racy"
rule): a file written in the same clock tick as the stat before it, at the same size, would
otherwise look unchanged. One file per project (`session_start.cache` in its folder),
replaced atomically; a missing, corrupt or foreign entry is a miss. `engram forget` deletes
it when it mentions what is forgotten (consolidate/purge.py), and the graph it changes is
a miss anyway. Standard library only (the hook).
"""

from __future__ import annotations

import os
import sys

from engram import jsonio
from engram.fsio import fingerprint, read_regular, write_atomic

NAME = "session_start.cache"
FORMAT = 1
MAX_BYTES = 4 * 1024 * 1024
RACY_NS = 2_000_000_000


def path_of(project_dir: str) -> str:
    return os.path.join(project_dir, NAME)


def key(sig: list[int], inputs: dict, cfg: dict, low_prefix: str | None, root: str) -> str:
    """The values the context is made from, as one string."""
    return jsonio.dumps([FORMAT, root, sig, inputs, cfg, low_prefix], sort_keys=True)


def load(project_dir: str, want: str) -> tuple[str | None, list[list]] | None:
    """(the context, [[node id, updated_at, tier]] it shows) stored under `want`, when the
    code and the files its screen checked are still as they were; else None."""
    raw = read_regular(path_of(project_dir), MAX_BYTES + 1, follow=False)
    if raw is None or len(raw) > MAX_BYTES:
        return None
    try:
        entry = jsonio.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return None
    if not isinstance(entry, dict) or entry.get("key") != want:
        return None
    code, files, text, shown = entry.get("code"), entry.get("files"), entry.get("text"), entry.get("shown")
    if not (isinstance(code, list) and isinstance(files, dict) and isinstance(shown, list)
            and (text is None or isinstance(text, str))):
        return None
    if any(not isinstance(c, list) or len(c) != 3 or _stamp(c[0]) != c[1:] for c in code):
        return None
    if any(fingerprint(p) != fp for p, fp in files.items()):
        return None
    return text, [s for s in shown if isinstance(s, list) and len(s) == 3]


def store(project_dir: str, want: str, sigs: tuple[list[int], list[int]], files: dict, text: str | None,
          injected: dict) -> bool:
    """Keep the context made under `want`, unless something it depends on changed within
    RACY_NS or the graph changed while it was made (`sigs`: its stamps before and after).
    Never raises: a failed write only costs the next session a miss."""
    import time

    code = [[f, *_stamp(f)] for f in _code_files()]
    sig, sig_now = sigs
    recent = time.time_ns() - RACY_NS
    times = [t for fp in files.values() if fp for t in (fp[3], fp[4], fp[-2], fp[-1])]
    times += [c[2] for c in code] + sig[1::2]
    if sig_now != sig or any(t > recent for t in times) or any(c[1] < 0 for c in code):
        return False
    shown = [[nid, v[0], v[1]] for nid, v in injected.items() if isinstance(v, list) and len(v) == 2]
    entry = {"key": want, "code": code, "files": files, "text": text, "shown": shown}
    try:
        write_atomic(path_of(project_dir), jsonio.dumps(entry).encode(), durable=False)
    except OSError:
        return False
    return True


def _code_files() -> list[str]:
    """engram's modules loaded in this process, and the alias table's text."""
    files = sorted({m.__file__ for name, m in list(sys.modules.items())
                    if (name == "engram" or name.startswith("engram.")) and getattr(m, "__file__", None)})
    aliases = sys.modules.get("engram.language.aliases")
    return files + ([aliases.TABLE_PATH] if aliases is not None else [])


def _stamp(path: object) -> list[int]:
    try:
        st = os.stat(path)  # type: ignore[arg-type]
    except (OSError, TypeError, ValueError):
        return [-1, -1]
    return [st.st_size, st.st_mtime_ns]
