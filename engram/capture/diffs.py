"""Unified diffs, changed line ranges and evidence snippets for file writes.

A write arrives in one of three forms, best first: hunks with line numbers (Claude
Code's `structuredPatch`, parsed apply_patch), edits as (old, new) string pairs, or the
full new content. All three become the same record: a unified diff (never the full
file), lines added/removed, the changed line ranges in the new file, and an evidence
snippet of 5-10 lines of the region as it stands after the write.
"""

from __future__ import annotations

SNIPPET_MIN, SNIPPET_MAX = 5, 10
MAX_LINE = 240
MAX_READ_BYTES = 2_000_000
MAX_DIFF_CELLS = 4_000_000  # difflib is quadratic: beyond old x new lines, a whole-file rewrite


def hunk(old_start: int, old_lines: int, new_start: int, new_lines: int, lines: list[str]) -> dict:
    return {"old_start": old_start, "old_lines": old_lines, "new_start": new_start,
            "new_lines": new_lines, "lines": lines}


def hunks_from_edits(edits: list[tuple[str, str]], new_text: str | None) -> list[dict]:
    """One hunk per edit; line numbers come from finding `new` in the file after the write."""
    out = []
    for old, new in edits:
        old_l = old.split("\n") if old else []
        new_l = new.split("\n") if new else []
        start = 1
        if new_text is not None and new:
            pos = new_text.find(new)
            if pos >= 0:
                start = new_text.count("\n", 0, pos) + 1
        lines = ["-" + x for x in old_l] + ["+" + x for x in new_l]
        out.append(hunk(start, len(old_l), start, len(new_l), lines))
    return out


def hunks_from_content(old_text: str | None, new_text: str) -> list[dict]:
    """A whole-file write: difflib when the old text is known, else all lines added."""
    new_l = new_text.split("\n")
    if new_text.endswith("\n"):
        new_l.pop()
    if not old_text:
        return [hunk(0, 0, 1, len(new_l), ["+" + x for x in new_l])]
    old_l = old_text.split("\n")
    if old_text.endswith("\n"):
        old_l.pop()
    if len(old_l) * len(new_l) > MAX_DIFF_CELLS:  # bounded work: old removed, new added
        return [hunk(1, len(old_l), 1, len(new_l), ["-" + x for x in old_l] + ["+" + x for x in new_l])]
    import difflib  # only for whole-file rewrites of existing files (rare on the hot path)

    out = []
    for group in difflib.SequenceMatcher(None, old_l, new_l, autojunk=False).get_grouped_opcodes(3):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                lines += [" " + x for x in old_l[a1:a2]]
            else:
                lines += ["-" + x for x in old_l[a1:a2]] + ["+" + x for x in new_l[b1:b2]]
        out.append(hunk(i1 + 1, i2 - i1, j1 + 1, j2 - j1, lines))
    return out


def summarize(path: str, hunks: list[dict], max_chars: int) -> dict:
    """Diff text, counts and changed ranges; the diff is cut at max_chars and says so."""
    parts = [f"--- a/{path}\n+++ b/{path}\n"]
    size = len(parts[0])
    added = removed = 0
    ranges = []
    for h in hunks:
        parts.append(f"@@ -{h['old_start']},{h['old_lines']} +{h['new_start']},{h['new_lines']} @@\n")
        size += len(parts[-1])
        first = last = None
        line_no = h["new_start"]
        for ln in h["lines"]:
            tag = ln[:1]
            line = min(len(ln), MAX_LINE * 2) + 1
            if size <= max_chars:  # past the cut only the counts and ranges are still needed
                parts.append(ln[: MAX_LINE * 2] + "\n")
            size += line
            if tag == "+":
                added += 1
                first = line_no if first is None else first
                last = line_no
                line_no += 1
            elif tag == "-":
                removed += 1
                if first is None:
                    first = last = max(line_no, 1)
            else:
                line_no += 1
        if first is not None:
            ranges.append([first, max(first, last)])
    diff = "".join(parts)
    out = {"diff": diff, "lines_added": added, "lines_removed": removed,
           "lines_changed": max(added, removed), "ranges": ranges[:50]}
    if size > max_chars:
        out["diff"] = diff[:max_chars]
        out["truncated"] = {"diff": size}
    return out


def snippet(abs_path: str | None, root: str, hunks: list[dict], ranges: list) -> dict | None:
    """5-10 lines of the first changed region as it stands after the write.

    Read from the file on disk when possible (it has just been written; a regular file
    inside the project `root` only); otherwise rebuilt from the hunk's new-side lines.
    """
    if not ranges:
        return None
    lo, hi = ranges[0]
    text = None
    if abs_path:
        from engram.fsio import read_regular

        data = read_regular(abs_path, MAX_READ_BYTES + 1, within=root)  # never a FIFO, a device, a link out
        if data is not None and len(data) <= MAX_READ_BYTES and b"\x00" not in data[:8192]:
            text = data.decode("utf-8", "replace")
    if text is not None:
        lines = text.split("\n")
        span = hi - lo + 1
        pad = max(0, (SNIPPET_MIN - span + 1) // 2)
        start = max(1, lo - pad)
        end = min(len(lines), max(hi + pad, start + SNIPPET_MIN - 1), start + SNIPPET_MAX - 1)
        body = lines[start - 1 : end]
        if body and any(x.strip() for x in body):
            return {"start": start, "text": "\n".join(x[:MAX_LINE] for x in body)}
    h = hunks[0]
    new_side = [ln[1:] for ln in h["lines"] if ln[:1] != "-"]
    if not new_side:
        return None
    return {"start": h["new_start"], "text": "\n".join(x[:MAX_LINE] for x in new_side[:SNIPPET_MAX])}
