"""Gotchas from the agent's own tools: a Read, Edit, Skill or search that the harness refused.

Shell commands have their gotchas (knowledge/commands.py); the harness's other tools fail too,
and some of their failures are facts about the project or the machine that the next session
meets again: a file that is not where it is looked for ("File does not exist. Did you mean
.golangci.yaml?"), a skill that is not installed ("Unknown skill: commit"), an edit whose text
keeps not matching a file indented with tabs ("String to replace not found in file", its text
indented with tabs). Such a failure is a gotcha when the harness named what to do instead, or
named a missing thing, or when the same error came back in the session. The harness's own
rules of play ("File has not been read yet", "Sibling tool call errored", the user's refusal)
are not facts about the project and are left out.

A search can fail without an error: the same pattern found nothing in a folder and something in
a folder inside it ("Grep for `swagger-theme` in `.`: No files found; in `go/cmd/mcp-server`: 1"),
so a search of the wider folder skips some of its files (a search tool that honours the
project's ignore files skips a folder named like a built binary). That is a gotcha too.
"""

from __future__ import annotations

import re
from typing import Any

from engram.consolidate.knowledge.commands import harness_refused
from engram.text import clip_words

WINDOW = 8
MAX_GOTCHAS = 4
_WRAPPER = re.compile(r"</?tool_use_error>")
# An error that names what to do instead, or a missing thing: worth knowing after one meeting.
_NAMED = re.compile(r"did you mean|unknown (?:skill|tool|agent|command)|not installed|does not exist|no such file",
                    re.I)
_ABSENT = re.compile(r"does not exist|no such file", re.I)
_MISMATCH = re.compile(r"^(.*?not found in (?:the )?file)\.?\s*String:\s?", re.I | re.S)


def _error(ev: dict[str, Any]) -> tuple[str, str]:
    """(the error's first line, the text an Edit tried to replace: "" for any other error)."""
    text = _WRAPPER.sub("", str(ev.get("error") or "")).strip()
    m = _MISMATCH.match(text)
    if m:
        return " ".join(m.group(1).split()), text[m.end():]
    return clip_words(" ".join(text.split("\n", 1)[0].split()), 160), ""


def _indent(text: str) -> str:
    """How the lines of an edit's text that did not match were indented ("tabs", "spaces", "")."""
    lead = [ln[0] for ln in text.split("\n") if ln[:1] in ("\t", " ")]
    if not lead:
        return ""
    return "tabs" if lead.count("\t") * 2 > len(lead) else "spaces"


def _target(ev: dict[str, Any]) -> str:
    return str(ev.get("path") or ev.get("pattern") or "")


def gotchas(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """[{"tool", "error", "target", "worked", "indent", "times", "evidence"}], one per tool and error."""
    calls = [e for e in events if isinstance(e.get("tool"), str) and not isinstance(e.get("command"), str)]
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for i, ev in enumerate(calls):
        if ev.get("ok") is not False or not ev.get("error") or harness_refused(ev):
            continue
        error, replaced = _error(ev)
        if not error:
            continue
        rec = found.setdefault((ev["tool"], re.sub(r"\d+", "N", error)), {
            "tool": ev["tool"], "error": error, "target": _target(ev), "worked": "", "indent": "", "times": 0,
            "evidence": []})
        rec["times"] += 1
        rec["evidence"] = (rec["evidence"] + [ev["seq"]])[-10:]
        rec["indent"] = rec["indent"] or _indent(replaced)
        if rec["worked"] or not _NAMED.search(error):
            continue  # another target is a way round only when the error said the target was wrong
        nxt = next((n for n in calls[i + 1: i + 1 + WINDOW] if n["tool"] == ev["tool"] and n.get("ok") is True), None)
        if nxt is not None and _instead(error, rec["target"], _target(nxt)):
            rec["worked"] = _target(nxt)
            rec["evidence"] = (rec["evidence"] + [nxt["seq"]])[-10:]
    written = [str(e["path"]) for e in events if e.get("type") == "file_write" and e.get("path")]
    keep = [r for r in found.values() if (r["times"] > 1 or _NAMED.search(r["error"]))
            and not (not r["worked"] and _ABSENT.search(r["error"]) and _made_later(r["target"], written))]
    return sorted(keep, key=lambda r: -r["times"])[:MAX_GOTCHAS]


def _made_later(target: str, written: list[str]) -> bool:
    """The session wrote the file a call did not find: it was yet to be made, not a wrong path."""
    t = target.replace("\\", "/")
    return bool(t) and any(w == t or w.endswith("/" + t) or t.endswith("/" + w) for w in written)


def _instead(error: str, target: str, other: str) -> bool:
    """`other` is what the failed call meant: the error named it ("Did you mean …?"), or it is
    the same name in another folder; a call on some other file is the agent's next step."""
    if not other or other == target:
        return False
    base = other.replace("\\", "/").rsplit("/", 1)[-1]
    return (base in error and "did you mean" in error.lower()) or base == target.replace("\\", "/").rsplit("/", 1)[-1]


def describe(g: dict[str, Any]) -> tuple[str, str]:
    """(name, description) of a tool gotcha, in the words the harness used."""
    on = f" on `{g['target']}`" if g["target"] else ""
    desc = f"{g['tool']}{on} failed: {g['error'].rstrip('.')}"
    if g["indent"]:
        desc += f" (the text to replace was indented with {g['indent']})"
    desc += f"; {g['tool']} of `{g['worked']}` worked next." if g["worked"] else (
        f" (seen {g['times']} times)." if g["times"] > 1 else ".")
    return clip_words(f"{g['tool']} fails: {g['error']}", 80), desc


def _folder(path: str) -> str:
    p = path.replace("\\", "/").strip()
    p = p[2:] if p.startswith("./") else p
    return "" if p in ("", ".") else p.rstrip("/")


def _inside(inner: str, outer: str) -> bool:
    return inner != outer and (inner.startswith(outer + "/") if outer else not inner.startswith("/"))


def search_gaps(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """[{"tool", "pattern", "wide", "narrow", "found", "evidence"}]: a pattern a search found
    nothing for in a folder, and something for in a folder inside it, in this session."""
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for e in events:
        if e.get("type") == "search" and isinstance(e.get("pattern"), str) and isinstance(e.get("results_count"), int):
            seen.setdefault((e.get("tool") or "", e["pattern"]), {}).setdefault(_folder(str(e.get("path") or "")), e)
    out = []
    for (tool, pattern), by_folder in seen.items():
        for wide, w in by_folder.items():
            hit = next((n for f, n in by_folder.items() if _inside(f, wide) and n["results_count"] > 0), None)
            if w["results_count"] == 0 and hit is not None:
                out.append({"tool": tool, "pattern": pattern, "wide": wide or ".", "narrow": _folder(hit["path"]),
                            "found": hit["results_count"], "evidence": sorted([w["seq"], hit["seq"]])})
                break
    return out[:MAX_GOTCHAS]


def describe_gap(g: dict[str, Any]) -> tuple[str, str]:
    """(name, description) of a search that skipped files of its folder."""
    desc = (f"{g['tool']} for `{clip_words(g['pattern'], 60)}` in `{g['wide']}`: No files found; in `{g['narrow']}`: "
            f"{g['found']} found. A {g['tool']} of `{g['wide']}` skips files in `{g['narrow']}`.")
    return clip_words(f"{g['tool']} in {g['wide']} skips {g['narrow']}", 80), desc
