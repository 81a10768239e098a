"""Every transcript of a labelled corpus converted to hook payloads: what each project gives a replay.

    python bench/corpus_convert.py DIR

DIR holds one folder per project, each with its sessions as `NN-*` files in any format
engram.history.formats reads (engram.history.corpus.load_project; other files are not opened).
Per project: its sessions and their formats, the payloads by event, and the shell calls and file
writes as the harness's own adapter reads them (engram.harnesses), with a known or an unknown
status. Nothing is replayed. A project that does not convert is reported; the exit status is
then 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engram.harnesses import registry  # noqa: E402
from engram.history import corpus  # noqa: E402

EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd")
ROOT = os.path.join(os.sep, "corpus-replay")  # a root no file is read from (a patch's hunks read the file)


def count(project: corpus.Project) -> tuple[Counter, Counter]:
    """(payloads by event, {(action, "known" | "unknown"): calls}) over the project's sessions."""
    events: Counter = Counter()
    calls: Counter = Counter()
    for session in project.sessions:
        adapter = registry.get(session.harness)
        for event, payload in session.payloads():
            events[event] += 1
            kind, data = adapter.request(event, payload)
            for call in data.get("calls", []) if kind == "tool" else []:
                if call.get("action") in ("shell", "write"):
                    calls[(call["action"], "unknown" if call.get("ok") is None else "known")] += 1
    return events, calls


def report(name: str, project: corpus.Project) -> str:
    events, calls = count(project)
    kinds = Counter(s.harness for s in project.sessions)
    shell = f"shell {calls['shell', 'known']} known / {calls['shell', 'unknown']} unknown"
    writes = f"writes {calls['write', 'known']} known / {calls['write', 'unknown']} unknown"
    by_event = ", ".join(f"{e} {events[e]}" for e in EVENTS if events[e])
    harnesses = ", ".join(f"{h} {n}" for h, n in sorted(kinds.items()))
    return f"{name}: {len(project.sessions)} sessions ({harnesses}); {by_event}; {shell}; {writes}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="a folder of project folders of NN-* transcripts")
    args = ap.parse_args(argv)
    failed = 0
    for name in sorted(os.listdir(args.dir)):
        folder = os.path.join(args.dir, name)
        if not os.path.isdir(folder):
            continue
        try:
            project = corpus.load_project(folder, os.path.join(ROOT, name))
        except (OSError, ValueError) as exc:
            failed += 1
            print(f"{name}: does not convert: {exc}")
            continue
        if project.sessions:
            print(report(name, project))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
