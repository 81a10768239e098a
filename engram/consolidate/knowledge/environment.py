"""Facts about the machine a session ran on: programs its shell could not find, and options
its programs refused.

A program the shell reports missing ("bash: psql: command not found", PowerShell's "The term
'psql' is not recognized ...", cmd.exe's "'psql' is not recognized as an internal or external
command", zsh's "command not found: timeout") is a fact about the machine, worth knowing the
first time: the next session would try it again. Only a program the failed command line
itself ran counts (not one a script it started looked for), and the fact is dropped when a
later command of the range ran that program without the error; a later session that runs it
retires it (nodes.py: the key `missing:<program>`). A failure a gotcha already explains (a
variant that worked, the same error again) is left to that gotcha.

An option a program refused ("cat: illegal option -- A" from BSD cat, GNU's "invalid option --
'P'", "unrecognized option '--foo'") says which version of the program this machine has (macOS
tools take BSD flags): the same rules, keyed `refused:<program> <option>`, retired when a later
command runs the program with that option and no such error.
"""

from __future__ import annotations

import re
from typing import Any

from engram.capture import commandline as cl
from engram.capture import shellcmd
from engram.consolidate.knowledge.commands import failed, quiet, ran, shell_events
from engram.text import clip_words

MAX_MISSING = 4
_REFUSED_OPTION = re.compile(r"^(?:\S*/)?([\w.+-]+): (?:illegal option -- (\w)|invalid option -- '?(\w)'?|"
                             r"unrecognized option '?(--?[\w-]+))", re.M)


def _segment(command: str, program: str) -> str:
    """The part of a command line that ran `program` (not the variables set before it)."""
    seg = next((s for s in cl.segments(command) if (shellcmd.stripped(cl.split_words(s)) or [""])[0] == program),
               command)
    return clip_words(seg, 80)


def _said(ev: dict[str, Any], program: str) -> str:
    """The shell's line about the missing program, to its first sentence's end."""
    lines = _text(ev).split("\n")
    line = next((ln.strip() for ln in lines if cl.missing_program(str(ev["command"]), ln) == program), "")
    return clip_words(line.split(". ")[0].rstrip("."), 120)


def _text(ev: dict[str, Any]) -> str:
    return str(ev.get("error_summary") or "") + "\n" + str(ev.get("output") or ev.get("error") or "")[:4000]


def not_found(ev: dict[str, Any]) -> str:
    """The program the command line ran that its shell could not find, or ""."""
    return cl.missing_program(str(ev.get("command") or ""), _text(ev))


def missing_programs(events: list[dict[str, Any]], explained: set[int] = frozenset()) -> list[dict[str, Any]]:
    """[{"program", "command", "error", "times", "evidence"}]: programs not found in this range
    and not run after; `explained`: the seqs of failures a gotcha already tells."""
    found: dict[str, dict[str, Any]] = {}
    for ev in shell_events(events):
        name = not_found(ev) if failed(ev) else ""
        if name:
            rec = found.setdefault(name, {"program": name, "command": _segment(ev["command"], name), "times": 0,
                                          "evidence": [], "error": _said(ev, name)})
            rec["times"] += 1
            rec["evidence"] = (rec["evidence"] + [ev["seq"]])[-10:]
        elif ran(ev) or quiet(ev):
            for prog in cl.programs(str(ev["command"])) & set(found):
                del found[prog]  # it runs now: a PATH fixed, a tool installed
    keep = [r for r in found.values() if not set(r["evidence"]) <= set(explained)]
    return keep[:MAX_MISSING]


# A program's or an option's name as a fact can be keyed by: one shell word, no quotes, no
# metacharacters. A line the parser cannot split into commands (a heredoc's body, a quoted
# multi-line script) yields "programs" such as `ba}' > "$file"\n  printf …`: none names one.
_NAME = re.compile(r"[\w.+@/:,%=~-]{1,100}")


def found_programs(events: list[dict[str, Any]]) -> set[str]:
    """Programs that ran without their shell missing them: a `missing:` fact of theirs is over."""
    return {p for ev in shell_events(events) if ran(ev) for p in cl.programs(str(ev["command"]))
            if p != not_found(ev) and _NAME.fullmatch(p)}


def refused_option(ev: dict[str, Any]) -> tuple[str, str] | None:
    """(program, option) when a program the command line ran refused one of its options."""
    runs = cl.programs(str(ev.get("command") or ""))
    for m in _REFUSED_OPTION.finditer(_text(ev)):
        letter = m.group(2) or m.group(3)
        if m.group(1) in runs:
            return m.group(1), "-" + letter if letter else m.group(4)
    return None


def refused_options(events: list[dict[str, Any]], explained: set[int] = frozenset()) -> list[dict[str, Any]]:
    """[{"program", "option", "command", "error", "times", "evidence"}]: options refused in this
    range and not run after without the error; `explained`: the seqs a gotcha already tells."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for ev in shell_events(events):
        hit = refused_option(ev) if failed(ev) else None
        if hit:
            line = next(ln.strip() for ln in _text(ev).split("\n") if _REFUSED_OPTION.match(ln.strip()))
            rec = found.setdefault(hit, {"program": hit[0], "option": hit[1], "command": _segment(ev["command"], hit[0]),
                                         "error": clip_words(line, 120), "times": 0, "evidence": []})
            rec["times"] += 1
            rec["evidence"] = (rec["evidence"] + [ev["seq"]])[-10:]
        elif ran(ev) or quiet(ev):
            for key in set(found) & options_run(ev):
                del found[key]
    return [r for r in found.values() if not set(r["evidence"]) <= set(explained)][:MAX_MISSING]


def options_run(ev: dict[str, Any]) -> set[tuple[str, str]]:
    """(program, option) for each option a part of the command line gave its program."""
    out = set()
    for seg in cl.segments(str(ev.get("command") or "")):
        words = shellcmd.stripped(cl.split_words(seg))
        out |= {(words[0], w.split("=", 1)[0]) for w in words[1:] if w.startswith("-")} if words else set()
    return {(p, o) for p, o in out if _NAME.fullmatch(p) and _NAME.fullmatch(o)}


def options_that_ran(events: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """Options that ran without being refused: a `refused:` fact of theirs is over."""
    return {o for ev in shell_events(events) if ran(ev) and not refused_option(ev) for o in options_run(ev)}
