"""The spec's three metacognitive metrics, kept incrementally in the session state.

Mechanical, from the events the hook has just captured (never by re-reading the
JSONL): `observe(st, batch)` folds one tool call's events into `st["metacog"]` and
returns the notes and `metacog_flag` events of any condition that has just begun.

* Progress velocity: unique files with meaningful writes (a changed line that is not
  blank) per VELOCITY_WINDOW tool calls, one figure per completed window, and its trend.
  Flagged as thrashing only late in the task (progress > 50%), when the last window's
  velocity fell below half the earlier average while writes kept coming (>= 4 in the
  window, all to few files): slowing down to run tests is not thrashing.
* Search-to-act ratio: reads, searches and research per write over the last
  SEARCH_WINDOW tool calls. Flagged only when ALL three hold: ratio > SEARCH_RATIO,
  task progress > 50%, and the recent reads are expanding (an `expanding_search` among
  the last 5 reads, i.e. directory distance > 2 from every read before it).
* Error repetition: signature = file + error type (from failing tests, builds and
  commands). It counts again only when it comes back after a fix attempt (a write
  since it was last seen): 2 is normal debugging, 3+ is flagged. A passing test run
  ends every test streak; a clean build ends build streaks.

Task progress, honestly defined: there is no ground truth for "how far along" a task
is, so progress = this session's tool calls / the typical session's (the median of the
project's recent sessions, TYPICAL_CALLS when there is no history), capped at 1.

No nagging: each flag is injected once per condition episode; an episode ends after the
condition has been false for EPISODE_QUIET tool calls (for error repetition: when the
signature's streak ends). Hot path: standard library only, no `re`.
"""

from __future__ import annotations

import os

from engram import jsonio
from engram.text import inert

VELOCITY_WINDOW = 20
SEARCH_WINDOW = 20
SEARCH_RATIO = 4.0
PROGRESS_LATE = 0.5
EXPANSION_DISTANCE = 2
RECENT_READS = 5
ERROR_REPEAT_FLAG = 3
THRASH_WRITES = 4
EPISODE_QUIET = 10
TYPICAL_CALLS = 60
MIN_TYPICAL = 20
SESSIONS_FILE = "metacog_sessions.json"
MAX_SESSIONS = 50
_READS = ("file_read", "search", "research")
_ERROR_SOURCES = ("test_run", "build", "command")


def fresh() -> dict:
    return {"calls": 0, "win_start": 0, "win_files": [], "win_writes": 0, "velocities": [], "recent": [],
            "reads": [], "errors": {}, "typical": None, "flags": {}}


def state(st: dict) -> dict:
    m = st.get("metacog")
    if not isinstance(m, dict):
        m = st["metacog"] = fresh()
    for k, v in fresh().items():
        m.setdefault(k, v)
    return m


def observe(st: dict, batch: list[dict], project_dir: str | None = None) -> tuple[list[str], list[dict]]:
    """Fold one tool call's events into the metrics; (notes to inject, metacog_flag events)."""
    m = state(st)
    if m["typical"] is None:
        m["typical"] = typical_calls(project_dir, st) if project_dir else TYPICAL_CALLS
    for ev in batch:
        _fold(m, ev)
    return _flags(m)


# -- folding events ------------------------------------------------------------------------------


def _fold(m: dict, ev: dict) -> None:
    kind = ev.get("type")
    if kind == "expanding_search" and m["reads"]:
        m["reads"][-1] = max(m["reads"][-1], int(ev.get("distance") or 0))
        return
    if "ref" in ev:
        return  # other derived events add nothing the direct event did not
    m["calls"] += 1
    m["recent"].append("r" if kind in _READS else "w" if kind == "file_write" else "o")
    del m["recent"][:-SEARCH_WINDOW]
    if kind == "file_read":
        m["reads"].append(0)
        del m["reads"][:-RECENT_READS]
    elif kind == "file_write" and ev.get("ok"):
        _wrote(m, ev)
    elif kind in _ERROR_SOURCES:
        _outcome(m, ev)
    if m["calls"] - m["win_start"] >= VELOCITY_WINDOW:
        m["velocities"] = (m["velocities"] + [len(m["win_files"])])[-20:]
        m["last_win_writes"] = m["win_writes"]
        m["win_start"], m["win_files"], m["win_writes"] = m["calls"], [], 0


def _wrote(m: dict, ev: dict) -> None:
    for rec in m["errors"].values():
        rec["fixed"] = True  # a write after an error is an attempt to fix it
    if not meaningful(ev):
        return
    m["win_writes"] += 1
    if ev.get("path") not in m["win_files"]:
        m["win_files"].append(ev.get("path"))


def meaningful(ev: dict) -> bool:
    """A write that changes at least one non-blank line (not just whitespace)."""
    for line in str(ev.get("diff") or "").split("\n"):
        if line[:1] in "+-" and not line.startswith(("+++", "---")) and line[1:].strip():
            return True
    return False


def _outcome(m: dict, ev: dict) -> None:
    kind = ev.get("type")
    failed = ev.get("outcome") == "fail" if kind == "test_run" else int(ev.get("exit_code") or 0) != 0
    if not failed:
        prefix = "test:" if kind == "test_run" else "build:" if kind == "build" else None
        for sig in [s for s in m["errors"] if prefix and s.startswith(prefix)]:
            del m["errors"][sig]
            m["flags"].pop("error_repetition:" + sig, None)
        return
    for sig in signatures(ev):
        rec = m["errors"].get(sig)
        if rec is None:
            m["errors"][sig] = {"count": 1, "fixed": False}
        elif rec["fixed"]:
            rec["count"], rec["fixed"] = rec["count"] + 1, False
    if len(m["errors"]) > 30:
        for sig in list(m["errors"])[:-30]:
            del m["errors"][sig]


# -- error signatures (string operations only) ---------------------------------------------------


def signatures(ev: dict) -> list[str]:
    """`<source>:<file>:<error type>` for a failed test run, build or command."""
    kind = ev.get("type")
    text = str(ev.get("error_summary") or ev.get("output") or ev.get("error") or "")
    etype = error_type(text)
    if kind == "test_run":
        files = list(dict.fromkeys(str(t).split("::")[0] for t in ev.get("failing_tests") or []))
        return [f"test:{f}:{etype}" for f in files[:5]] or [f"test:{first_path(text) or '(tests)'}:{etype}"]
    source = "build" if kind == "build" else "cmd"
    return [f"{source}:{first_path(text) or '(unknown file)'}:{etype}"]


def error_type(text: str) -> str:
    """AssertionError, TypeError, error[E0308], TS2345, undefined, ... or 'error'."""
    for raw in text.replace("(", " ").replace(")", " ").split():
        w = raw.strip(":,.;'\"`[]")
        if w.endswith(("Error", "Exception")) and w[:1].isupper() and w not in ("Error", "Exception"):
            return w.rsplit(".", 1)[-1]
        if raw.startswith("error[E") and "]" in raw:
            return raw[: raw.index("]") + 1]
        if w.startswith("TS") and w[2:].isdigit() and len(w) >= 6:
            return w
    for marker in ("undefined:", "cannot find", "not found", "syntax error", "panic:", "segmentation fault"):
        if marker in text.lower():
            return marker.rstrip(":")
    return "error"


def first_path(text: str) -> str | None:
    """The first `file.ext:LINE` in a text (src/app.py:12, main.go:10:5), without the line."""
    for raw in text.split():
        w = raw.strip("\"'(),[]")
        if w.startswith("File"):
            continue
        head, sep, tail = w.partition(":")
        if sep and tail[:1].isdigit() and "." in head.rsplit("/", 1)[-1] and "://" not in w:
            return head
    return None


# -- progress ------------------------------------------------------------------------------------


def progress(m: dict) -> float:
    return min(1.0, m["calls"] / max(MIN_TYPICAL, int(m["typical"] or TYPICAL_CALLS)))


def typical_calls(project_dir: str, st: dict) -> int:
    """Median tool calls of the project's recent sessions (recorded by `record_session`)."""
    sizes = sorted(v for v in _sessions(project_dir).values() if isinstance(v, int) and v >= MIN_TYPICAL)
    return sizes[len(sizes) // 2] if sizes else TYPICAL_CALLS


def record_session(project_dir: str, session: str, st: dict) -> None:
    """Remember this session's tool-call count (at each prompt) so later sessions know "typical"."""
    calls = state(st)["calls"]
    if calls < MIN_TYPICAL:
        return
    from engram.fsio import write_atomic

    data = _sessions(project_dir)
    data.pop(session, None)
    data[session] = calls
    keep = dict(list(data.items())[-MAX_SESSIONS:])
    write_atomic(os.path.join(project_dir, SESSIONS_FILE), jsonio.dumps(keep).encode(), durable=False)


def _sessions(project_dir: str) -> dict:
    return jsonio.read_object(os.path.join(project_dir, SESSIONS_FILE))


# -- flags -----------------------------------------------------------------------------------------


def conditions(m: dict) -> dict[str, dict]:
    """Each metric whose flag condition holds now, with the figures that make it hold."""
    out: dict[str, dict] = {}
    prog = progress(m)
    reads, writes = m["recent"].count("r"), m["recent"].count("w")
    ratio = reads / max(1, writes)
    expansion = max(m["reads"] or [0])
    if ratio > SEARCH_RATIO and prog > PROGRESS_LATE and expansion > EXPANSION_DISTANCE:
        out["search_to_act"] = {"ratio": round(ratio, 2), "reads": reads, "writes": writes,
                                "progress": round(prog, 2), "distance": expansion}
    v = m["velocities"]
    if len(v) >= 3 and prog > PROGRESS_LATE:
        earlier = sum(v[:-1]) / len(v[:-1])
        if earlier >= 1 and v[-1] < earlier / 2 and m.get("last_win_writes", 0) >= THRASH_WRITES:
            out["velocity"] = {"velocity": v[-1], "earlier": round(earlier, 2), "writes": m["last_win_writes"],
                               "progress": round(prog, 2)}
    for sig, rec in m["errors"].items():
        if rec["count"] >= ERROR_REPEAT_FLAG:
            out["error_repetition:" + sig] = {"signature": sig, "count": rec["count"]}
    return out


def _flags(m: dict) -> tuple[list[str], list[dict]]:
    now = conditions(m)
    notes, events = [], []
    for key, ep in list(m["flags"].items()):
        if key in now:
            ep["quiet"] = 0
        elif ep["on"]:
            ep["quiet"] += 1
            if ep["quiet"] >= EPISODE_QUIET:
                del m["flags"][key]
    for key, figures in now.items():
        if key in m["flags"]:
            continue  # this episode was flagged already
        m["flags"][key] = {"on": True, "quiet": 0, "at": m["calls"]}
        metric = key.split(":", 1)[0]
        note = _note(metric, figures)
        notes.append(note)
        events.append({"type": "metacog_flag", "metric": metric, **figures, "at_call": m["calls"], "note": note})
    return notes, events


def _note(metric: str, f: dict) -> str:
    if metric == "search_to_act":
        return (f"engram (metacognition): {f['reads']} reads/searches to {f['writes']} writes over the last "
                f"{SEARCH_WINDOW} tool calls, late in the task (~{int(f['progress'] * 100)}% of a typical session), and "
                f"recent reads keep moving away from the earlier ones (directory distance {f['distance']}). If the "
                f"search is not converging, commit to an approach or ask the user.")
    if metric == "velocity":
        return (f"engram (metacognition): progress has slowed: {f['velocity']} file(s) changed in the last "
                f"{VELOCITY_WINDOW} tool calls against {f['earlier']} earlier, while {f['writes']} writes went to the "
                f"same places. If this is thrashing, step back and re-plan before the next edit.")
    _, file, etype = f["signature"].split(":", 2)  # from tool output: shown inert
    return (f"engram (metacognition): the same error ({inert(etype, 80)} in {inert(file, 200)}) has come back "
            f"{f['count']} times after "
            f"attempted fixes. Two repeats are normal debugging; three suggest the working theory of the cause may "
            f"be wrong: re-read the failing code and test before the next edit.")


def summary_lines(st: dict) -> list[str]:
    """The current figures, for `engram status --session ID`."""
    m = state(st)
    v = m["velocities"]
    trend = "n/a"
    if len(v) >= 2:
        earlier = sum(v[:-1]) / len(v[:-1])
        trend = "rising" if v[-1] > earlier * 1.25 else "falling" if v[-1] < earlier * 0.75 else "steady"
    reads, writes = m["recent"].count("r"), m["recent"].count("w")
    errs = sorted(m["errors"].items(), key=lambda kv: -kv[1]["count"])[:3]
    return [
        f"tool calls        {m['calls']} (progress {int(progress(m) * 100)}% of a typical {m['typical']}-call session)",
        f"velocity          {v[-5:] or '-'} files per {VELOCITY_WINDOW} calls (current window {len(m['win_files'])}); "
        f"trend {trend}",
        f"search-to-act     {reads}:{writes} over the last {len(m['recent'])} calls (ratio {reads / max(1, writes):.1f}, "
        f"flag above {SEARCH_RATIO}); max recent read distance {max(m['reads'] or [0])}",
        "error repetition  " + (", ".join(f"{s} x{r['count']}" for s, r in errs) or "none"),
        "active flags      " + (", ".join(sorted(m["flags"])) or "none"),
    ]


def metrics_summary(project, session: str) -> str:
    """`engram status --session ID`: the session's metrics and its contradiction checker, from its state file."""
    from engram.capture import session_state

    st = session_state.read(project.state_path(session))
    lines = [f"session {session}  ({project.root})"] + ["  " + x for x in summary_lines(st)]
    cs = st.get("contradiction") if isinstance(st.get("contradiction"), dict) else {}
    off = cs.get("disabled")
    checker = (f"off for this session after {off.get('failures')} failures (last: {off.get('last')})"
               if isinstance(off, dict) else f"on; {int(cs.get('failures') or 0)} consecutive failure(s)")
    lines.append(f"  contradiction     {checker}; {len(cs.get('queue') or [])} warning(s) waiting for the next hook")
    return "\n".join(lines)


def session_status(project_arg: str | None, session: str, as_json: bool = False) -> str:
    """What `engram status --session ID [--project DIR] [--json]` prints; an unknown or unsafe
    session id raises EngramError, which the CLI prints as one line on stderr."""
    from engram import config
    from engram.errors import EngramError

    where = os.path.abspath(project_arg or os.getcwd())
    if os.path.exists(os.path.join(where, "project.json")):
        project = config.Project.from_dir(where)
    else:
        project = config.Project.from_cwd(where)
    config.safe_name(session)  # UnsafeIdentifier is an EngramError
    if not os.path.exists(project.state_path(session)):
        raise EngramError(f"no session {session!r} in {project.root} ({project.state_path(session)} does not exist); "
                          "`engram status` lists the projects engram knows, `--project DIR` picks one")
    if not as_json:
        return metrics_summary(project, session)
    from engram.capture import session_state

    st = session_state.read(project.state_path(session))
    return jsonio.dumps({"session": session, "project": project.root, "metacog": state(st),
                         "contradiction": st.get("contradiction") or {}})
