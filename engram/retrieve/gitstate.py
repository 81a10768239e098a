"""The git branch and the working-tree changes, read from `.git` without spawning git.

A SessionStart hook that runs `git status` pays a process start (5-20 ms here, more in a
big repository) on every session. What retrieval needs is cheaper: the branch name from
`.git/HEAD`, and which tracked files differ from the index. For the latter we do git's
own first pass: parse `.git/index` (versions 2-4) and compare each entry's recorded size
and mtime with `os.stat` of the file. A file whose stat differs is reported as changed
(git would go on to hash it; a touched-but-identical file is a harmless false positive).
Untracked files are not reported. A stat costs ~3 µs here, so past FILTER_ABOVE tracked
files only the paths the graph links to are checked (one indexed query picks them); if
more than MAX_STATS remain, or the index holds more than MAX_ENTRIES files, the pass is
skipped (SessionStart then relies on the last sessions' files).
"""

from __future__ import annotations

import os

from engram.fsio import read_regular

MAX_ENTRIES = 4000  # bigger indexes are not even parsed (~1 µs per entry)
FILTER_ABOVE = 1500  # past this many tracked files, stat only those the graph links to
MAX_STATS = 1500  # ~3 µs each; more candidates than this and the pass is skipped
MAX_INDEX_BYTES = 8 * 1024 * 1024
GITLINK = 0o160000


def git_dir(root: str) -> str | None:
    """The repository's git directory (follows a worktree's `.git` file)."""
    dot = os.path.join(root, ".git")
    if os.path.isdir(dot):
        return dot
    data = read_regular(dot, 4096)  # a FIFO or a device in its place: None, never a hang
    if data is None:
        return None
    line = data.decode("utf-8", "replace").strip()
    if line.startswith("gitdir:"):
        path = line[7:].strip()
        return path if os.path.isabs(path) else os.path.normpath(os.path.join(root, path))
    return None


def branch(root: str) -> str | None:
    """The checked-out branch ("feature/retry"), or None when detached or not a repo."""
    gd = git_dir(root)
    if gd is None:
        return None
    data = read_regular(os.path.join(gd, "HEAD"), 1024)
    if data is None:
        return None
    head = data.decode("utf-8", "replace").strip()
    prefix = "ref: refs/heads/"
    return head[len(prefix):] if head.startswith(prefix) else None


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """git's offset varint (index v4 path compression)."""
    c = data[pos]
    pos += 1
    val = c & 127
    while c & 128:
        c = data[pos]
        pos += 1
        val = ((val + 1) << 7) | (c & 127)
    return val, pos


def index_entries(data: bytes, hash_len: int = 20) -> list[tuple[str, int, int, int, int]]:
    """[(path, mtime_s, mtime_ns, size, mode)] of a `.git/index` image; [] if unreadable."""
    import struct

    if len(data) < 12 or data[:4] != b"DIRC":
        return []
    version, count = struct.unpack_from(">II", data, 4)
    if version not in (2, 3, 4) or count > MAX_ENTRIES:
        return []
    # ctime s/ns, mtime s/ns, dev, ino, mode, uid, gid, size, object id, flags
    head = struct.Struct(f">10I{hash_len}sH")
    out = []
    pos, prev = 12, b""
    find = data.index
    for _ in range(count):
        start = pos
        _, _, mtime_s, mtime_ns, _, _, mode, _, _, size, _, flags = head.unpack_from(data, pos)
        pos += head.size
        if version >= 3 and flags & 0x4000:
            pos += 2
        if version == 4:
            strip, pos = _varint(data, pos)
            end = find(b"\0", pos)
            name = prev[: len(prev) - strip] + data[pos:end]
            pos = end + 1
        else:
            end = find(b"\0", pos)
            name = data[pos:end]
            pos = start + ((end - start) // 8 + 1) * 8  # 1-8 NULs pad to a multiple of 8
        prev = name
        if flags & 0x3000 == 0:  # stage 0 only (skip merge conflict stages)
            out.append((name.decode("utf-8", "replace"), mtime_s, mtime_ns, size, mode))
    return out


def _hash_len(gd: str) -> int:
    return 32 if b"sha256" in (read_regular(os.path.join(gd, "config"), 65536) or b"") else 20


def changed_files(root: str, keep=None) -> list[str]:
    """Tracked files whose size or mtime differs from the index (deleted ones included).

    `keep(paths) -> set` narrows a big index to the paths worth a stat (those the graph
    links to: a changed file nothing is known about is no entry point).
    """
    gd = git_dir(root)
    if gd is None:
        return []
    data = read_regular(os.path.join(gd, "index"), MAX_INDEX_BYTES + 1)
    if data is None or len(data) > MAX_INDEX_BYTES:
        return []
    try:
        entries = index_entries(data, _hash_len(gd))
    except (ValueError, IndexError):
        return []
    if keep is not None and len(entries) > FILTER_ABOVE:
        wanted = keep([e[0] for e in entries])
        entries = [e for e in entries if e[0] in wanted]
    if len(entries) > MAX_STATS:
        return []
    out = []
    lstat = os.lstat
    base = root.rstrip("/") + "/"
    for path, m_s, m_ns, size, mode in entries:
        if mode & 0o170000 == GITLINK:
            continue
        try:
            st = lstat(base + path)
        except OSError:
            out.append(path)
            continue
        if st.st_size & 0xFFFFFFFF != size or int(st.st_mtime) != m_s or (
            m_ns and st.st_mtime_ns % 1_000_000_000 != m_ns
        ):
            out.append(path)
    return out
