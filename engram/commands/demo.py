"""`engram demo`: the README's main job end to end, offline: a sample project and real
sessions through real hooks.

Everything happens in a temporary ENGRAM_HOME and a sample project it creates; each
step prints a heading and what engram did. The agent's tool calls are simulated by
doing the real work (files are really edited, tests really run with `unittest`) and
sending Claude Code's payloads to the hook, started as `engram install` starts it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

# json is the one module imported here (argparse already pulls in re, which json needs);
# subprocess, tempfile and time are imported where used: `engram --help` and every other
# verb import this module, and those cost ~15 ms.


def add_parser(sub) -> None:
    p = sub.add_parser("demo", help="run a sample project through engram, offline (no API key needed)",
                       description="Run a sample project through engram end to end: five sessions through the "
                                   "real hooks, four of them consolidated, then what the fifth is given at its start, "
                                   "on a prompt, on a first read and by `engram query`, and a contradiction warning. "
                                   "Offline; everything happens in a temporary home.\n\nexample:\n  engram demo --dir "
                                   "/tmp/demo",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", default=None, help="keep the demo's files in this (new or empty) directory")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return main(args.dir)


RATES = '''"""VAT rates by country code, one entry per country; the EU figures, updated every January."""

RATES = {"DE": "0.19", "FR": "0.20", "NL": "0.21"}
'''
INVOICE = '''"""Invoice totals: the lines summed with calc.add, then VAT at the customer's country rate."""

from calc import add
from rates import RATES
'''
CALC = '''"""Money arithmetic for the invoicing service."""

from decimal import Decimal


def add(a: Decimal, b: Decimal) -> Decimal:
    return a + b
'''
# A release script that needs a variable: the non-build gotcha of the demo (a failure, then
# the variant that worked), which comes back the moment the same failure does.
PUBLISH = '''#!/bin/sh
if [ -z "$INVOICE_ENV" ]; then echo "error: INVOICE_ENV must be set (staging or production)" >&2; exit 2; fi
echo "published invoices to $INVOICE_ENV"
'''
TEST_CALC = '''import unittest
from decimal import Decimal

from calc import add, multiply


class CalcTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(Decimal("1.10"), Decimal("2.20")), Decimal("3.30"))

    def test_multiply(self):
        self.assertEqual(multiply(Decimal("1.10"), 3), Decimal("3.30"))


if __name__ == "__main__":
    unittest.main()
'''


class Session:
    """Sends one simulated agent session's payloads through the real hook subprocess."""

    def __init__(self, demo: "Demo", session_id: str):
        self.demo, self.id = demo, session_id
        self.last = ""  # what the hook printed for the last shell command

    def hook(self, event: str, **fields) -> str:
        from engram import workers
        from engram.config import HOOK_ARGS

        payload = {"session_id": self.id, "transcript_path": "", "cwd": self.demo.project,
                   "hook_event_name": event, **fields}
        return workers.run_child([sys.executable, *HOOK_ARGS, event, "--harness", "claude-code"],
                            input=json.dumps(payload).encode(), env=self.demo.env, timeout=60).text()[0]

    def read(self, name: str) -> str:
        path = os.path.join(self.demo.project, name)
        with open(path) as f:
            content = f.read()
        return self.hook("PostToolUse", tool_name="Read", tool_input={"file_path": path},
                         tool_response={"type": "text", "file": {"filePath": path, "content": content}})

    def write(self, name: str, new: str) -> str:
        from engram.capture.diffs import hunks_from_content

        path = os.path.join(self.demo.project, name)
        old = open(path).read() if os.path.exists(path) else None
        with open(path, "w") as f:
            f.write(new)
        patch = [{"oldStart": h["old_start"], "oldLines": h["old_lines"], "newStart": h["new_start"],
                  "newLines": h["new_lines"], "lines": h["lines"]} for h in hunks_from_content(old, new)]
        if old is None:
            return self.hook("PostToolUse", tool_name="Write", tool_input={"file_path": path, "content": new},
                             tool_response={"type": "create", "filePath": path, "content": new,
                                            "structuredPatch": [], "originalFile": None})
        return self.hook("PostToolUse", tool_name="Edit",
                         tool_input={"file_path": path, "old_string": old, "new_string": new},
                         tool_response={"filePath": path, "originalFile": old, "structuredPatch": patch})

    def todos(self, items: list[tuple[str, str]]) -> str:
        todos = [{"content": text, "status": status, "activeForm": text} for text, status in items]
        return self.hook("PostToolUse", tool_name="TodoWrite", tool_input={"todos": todos},
                         tool_response={"oldTodos": [], "newTodos": todos})

    def bash(self, command: str) -> tuple[int, str]:
        """Run it in the project; the hook's output is kept in `last`."""
        from engram import workers

        # CLAUDECODE=1 is what Claude Code sets in its shell tool's environment
        res = workers.run_child(["/bin/sh", "-c", command], cwd=self.demo.project, env=dict(self.demo.env, CLAUDECODE="1"),
                           timeout=120)
        output, code = "".join(res.text()).strip(), 124 if res.code is None else res.code  # 124: timeout(1)'s
        if code == 0:
            self.last = self.hook("PostToolUse", tool_name="Bash", tool_input={"command": command},
                                  tool_response={"stdout": output, "stderr": "", "interrupted": False})
        else:
            self.last = self.hook("PostToolUseFailure", tool_name="Bash", tool_input={"command": command},
                                  error=f"Exit code {code}\n{output}")
        return code, output


class Demo:
    def __init__(self, base: str):
        self.base = base
        self.home = os.path.join(base, "engram-home")
        self.project = os.path.join(base, "invoicing")
        os.makedirs(self.project)
        os.makedirs(os.path.join(self.project, ".git"))  # a project root, as `git init` would mark it
        # `python` and `engram` resolve to this interpreter's, as in the venv the agent would use
        path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
        self.env = dict(os.environ, ENGRAM_HOME=self.home, ENGRAM_OFFLINE="1", PATH=path)
        for key in [k for k in self.env if k.endswith(("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "VOYAGE_API_KEY"))]:
            self.env.pop(key)  # the ENGRAM_ ones too
        has_cli = os.path.exists(os.path.join(os.path.dirname(sys.executable), "engram"))
        self.engram = "engram" if has_cli else "python -m engram"  # in the agent's shell (PATH above)
        with open(os.path.join(self.project, "calc.py"), "w") as f:
            f.write(CALC)
        os.makedirs(os.path.join(self.project, "tools"))
        with open(os.path.join(self.project, "tools", "publish.sh"), "w") as f:
            f.write(PUBLISH)
        os.chmod(os.path.join(self.project, "tools", "publish.sh"), 0o755)

    def project_dir(self) -> str:
        from engram.config import Project

        return Project.from_cwd(self.project, self.home).dir

    def events(self, session: str) -> list[dict]:
        from engram.capture.event_stream import read_events

        return read_events(os.path.join(self.project_dir(), "events", f"{session}.jsonl"))[0]


def heading(text: str) -> None:
    print(f"\n== {text}")


def earlier_history(demo: Demo) -> None:
    """Weeks before: the VAT work, consolidated. Three sessions with writes follow it, so
    the next SessionStart no longer starts from its files (retrieve/start/project_context.py)."""
    heading("Session 1: the agent moves the VAT rates into rates.py (consolidated; three sessions follow it)")
    s = Session(demo, "demo-session-1")
    s.hook("SessionStart", source="startup")
    s.hook("UserPromptSubmit", prompt="Move the VAT rates out of invoice.py into rates.py.")
    s.write("rates.py", RATES)
    s.write("invoice.py", INVOICE)
    s.bash(f'{demo.engram} decide "Keep VAT rates in rates.py, one entry per country code" '
           f'--rationale "the yearly update touches one file" --files rates.py,invoice.py')
    s.hook("Stop", stop_hook_active=False, last_assistant_message="rates.py now holds the VAT rates.")
    consolidate(demo, s.id, quiet=True)
    print("  rates.py and invoice.py written, a decision recorded, consolidated")


def chores(demo: Demo) -> None:
    """Two small sessions after the multiply() one: more sessions with writes."""
    for n, (name, text) in enumerate((("README.md", "# invoicing\n\nMoney arithmetic and invoices.\n"),
                                      ("CHANGELOG.md", "## 0.2\n\n- multiply()\n")), 3):
        s = Session(demo, f"demo-session-{n}")
        s.hook("SessionStart", source="startup")
        s.hook("UserPromptSubmit", prompt=f"Write {name}.")
        s.write(name, text)
        s.hook("Stop", stop_hook_active=False, last_assistant_message=f"Wrote {name}.")
        consolidate(demo, s.id, quiet=True)
    heading("Sessions 3 and 4 write README.md and CHANGELOG.md (consolidated the same way): rates.py is no "
            "longer among the files of the last three sessions, which SessionStart starts from")


INSTRUCTION = "Make sure to run the unit tests before you say a change is done."  # the user's words, kept


def first_session(demo: Demo) -> Session:
    heading("Session 2: the agent adds multiply() to calc.py (real hooks, real files, real tests)")
    s = Session(demo, "demo-session-2")
    s.hook("SessionStart", source="startup")
    s.hook("UserPromptSubmit", prompt="Add multiply() to calc.py with a unit test. Money is Decimal: "
                                      "never use float for money. " + INSTRUCTION)
    s.todos([("Add multiply() with a unit test", "in_progress"), ("Add apply_discount() to calc.py", "pending")])
    s.read("calc.py")
    code, _ = s.bash("make test")
    print(f"  tried `make test`: exit {code} (this project has no Makefile)")
    s.write("test_calc.py", TEST_CALC)
    s.write("calc.py", CALC + "\n\ndef multiply(a, n):\n    return float(a) * n\n")
    code, _ = s.bash("python -m unittest test_calc")
    print(f"  ran the tests: exit {code} (multiply used float)")
    s.write("calc.py", CALC + "\n\ndef multiply(a: Decimal, n: int) -> Decimal:\n    return a * n\n")
    code, _ = s.bash("python -m unittest test_calc")
    print(f"  fixed multiply() to stay in Decimal; tests: exit {code}")
    s.bash(f'{demo.engram} decide "Use Decimal for all money arithmetic, never float" '
           f'--rationale "float rounding broke invoice totals" --files calc.py')
    code, _ = s.bash("./tools/publish.sh")
    print(f"  published: `./tools/publish.sh` exit {code} (INVOICE_ENV not set)")
    code, _ = s.bash("INVOICE_ENV=staging ./tools/publish.sh")
    print(f"  `INVOICE_ENV=staging ./tools/publish.sh`: exit {code}")
    s.todos([("Add multiply() with a unit test", "completed"), ("Add apply_discount() to calc.py", "pending")])
    print("  the agent's task list ends with apply_discount() still pending")
    s.hook("Stop", stop_hook_active=False,
           last_assistant_message="Added multiply() in Decimal; tests pass. Recorded the decision "
                                  "to keep money in Decimal.")
    from collections import Counter

    evs = demo.events(s.id)
    counts = Counter(e["type"] for e in evs)
    print(f"  captured {len(evs)} events: " + ", ".join(f"{t} {n}" for t, n in sorted(counts.items())))
    for e in evs:
        if e["type"] in ("test_run", "fix_attempt", "decision"):
            detail = {k: e[k] for k in ("outcome", "failing_tests", "path", "after_test", "content") if k in e}
            print(f"    seq {e['seq']:>2} {e['type']:<12} {json.dumps(detail)}")
    return s


def context_of(stdout: str) -> str:
    """The additionalContext a hook printed (empty when it printed nothing)."""
    if not stdout.strip():
        return ""
    return json.loads(stdout).get("hookSpecificOutput", {}).get("additionalContext", "")


def show(text: str, empty: str = "(nothing)", indent: str = "  | ") -> None:
    if not text:
        print("  " + empty)
    for line in (text or "").splitlines():
        print(indent + line)


def wait_for(predicate, seconds: float = 30.0) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def consolidate(demo: Demo, session: str, quiet: bool = False) -> None:
    if not quiet:
        heading("Consolidation: the Stop hook started a detached worker; waiting for it")
    from engram.config import Project, load_config
    from engram.consolidate import worker, trigger

    project = Project.from_cwd(demo.project, demo.home)
    if wait_for(lambda: not trigger.needs_consolidation(project, session)):
        said = "the background worker consolidated the session"
    else:  # a slow machine: do in the foreground what the worker would have done
        from engram.providers import registry

        cfg, _ = load_config(demo.home)
        out = worker.consolidate_session(project, session, cfg, registry.consolidation(cfg, project=project))
        said = f"consolidated in the foreground: {out.status}"
    if quiet:
        return
    print("  " + said)
    with open(project.episode_path(session)) as f:
        episode = json.load(f)["episodes"][-1]
    data = episode.get("episode_data") or episode
    print(f"  episode: goal={data.get('goal', '')[:70]!r} outcome={data.get('outcome')}")
    from engram.graph import connect, store

    conn = connect.connect(project.db_path)
    try:
        nodes = sorted(store.list_nodes(conn), key=lambda n: (-n["strength"], n["name"]))
    finally:
        conn.close()
    print(f"  knowledge graph: {len(nodes)} nodes; the knowledge kinds (docs/knowledge.md):")
    kinds = ("unfinished", "command", "gotcha", "instruction", "file")
    for n in sorted(nodes, key=lambda n: kinds.index(_kind(n)) if _kind(n) in kinds else len(kinds)):
        if _kind(n) in kinds or n["type"] in ("decision", "error"):
            print(f"    {_kind(n) or n['type']:<11} {n['strength']:.2f}  {n['name'][:70]}")


def _kind(node: dict) -> str:
    return str((node.get("data") or {}).get("kind") or "")


PROMPT = "Add VAT to the invoice totals, with the rates in rates.py"
QUESTION = "how do we handle money amounts in calc.py?"


def second_session(demo: Demo) -> Session:
    from engram import workers

    heading("Session 5 starts: what engram injects at SessionStart")
    s = Session(demo, "demo-session-5")
    show(context_of(s.hook("SessionStart", source="startup")))
    heading("The agent's first read of invoice.py: what is linked to that file, not shown yet")
    show(context_of(s.read("invoice.py")), "(nothing new)")
    heading(f"The user asks {PROMPT!r}: the prompt brings up what was not shown yet")
    show(context_of(s.hook("UserPromptSubmit", prompt=PROMPT)), "(nothing new)")
    heading("The agent runs ./tools/publish.sh and it fails as in session 2: the way round comes back at once")
    code, _ = s.bash("./tools/publish.sh")
    show(context_of(s.last), "(nothing)")
    heading(f"On demand: engram query {QUESTION!r}")
    out, err = workers.run_child([*demo.engram.split(), "query", QUESTION, "--project", demo.project], env=demo.env,
                            timeout=60).text()
    show(out.strip() or err.strip())
    heading("The agent writes code that contradicts the stored decision")
    s.write("calc.py", open(os.path.join(demo.project, "calc.py")).read()
            + "\n\ndef apply_discount(amount, percent):\n    return float(amount) * (1 - percent / 100)\n")
    print("  wrote: return float(amount) * (1 - percent / 100)")
    warned = wait_for(lambda: any(e["type"] == "contradiction_warning" for e in demo.events(s.id)), 30)
    print("  the detached checker " + ("queued a warning" if warned else "found nothing within 30 s"))
    heading("The next tool call: the warning arrives, one turn late")
    show(context_of(s.read("test_calc.py")))
    heading("And the one after: nothing (each warning is delivered exactly once)")
    show(context_of(s.read("calc.py")))
    return s


def used(demo: Demo, s: Session) -> None:
    """The session runs the test command it was shown at SessionStart and ends: the worker
    finds that use in its events (docs/curation.md, "Payoff per item")."""
    heading("The agent runs the tests as SessionStart said (`python -m unittest test_calc`); the session ends")
    code, _ = s.bash("python -m unittest test_calc")
    s.hook("Stop", stop_hook_active=False, last_assistant_message="apply_discount() added; tests pass.")
    consolidate(demo, s.id, quiet=True)
    print(f"  tests: exit {code}; consolidated: what session 5 used of what it was shown is counted")


def payoff_and_page(demo: Demo, base: str, kept: bool) -> None:
    """The demo's last two lines: the payoff line of `engram status` and the page `engram view` wrote."""
    import tempfile

    from engram.commands.export_import import build_page as build
    from engram.config import Project
    from engram.fsio import write_atomic
    from engram.graph.readonly import open_ro
    from engram.report.inventory import payoff, payoff_line

    project = Project.from_cwd(demo.project, demo.home)
    conn = open_ro(project.db_path)
    try:
        line = payoff_line(payoff(conn))
    finally:
        conn.close()
    # a temporary demo's folder is removed at the end: its page is kept beside it
    if kept:
        page = os.path.join(base, "memory.html")
    else:
        fd, page = tempfile.mkstemp(prefix="engram-view-", suffix=".html")
        os.close(fd)
    write_atomic(page, build(project).encode("utf-8"), mode=0o644, durable=False)
    heading("What the memory earned, and a page to look at (`engram status`, `engram view`)")
    print(f"  {line}")
    print(f"  page: {page}")


def main(keep: str | None = None) -> int:
    import shutil
    import tempfile

    base = keep or tempfile.mkdtemp(prefix="engram-demo-")
    if keep:
        os.makedirs(base, exist_ok=True)
    try:
        demo = Demo(base)
        print(f"engram demo: offline (no API key), in {base}")
        earlier_history(demo)
        first = first_session(demo)
        consolidate(demo, first.id)
        chores(demo)
        used(demo, second_session(demo))
        where(demo, keep is not None)
        payoff_and_page(demo, base, keep is not None)
    finally:
        if not keep:
            idle(base)
            shutil.rmtree(base, ignore_errors=True)
    return 0


def idle(base: str) -> None:
    """Wait for the detached workers the demo's hooks started (their slots are flocks) to exit."""
    import glob

    from engram.workers import is_locked

    wait_for(lambda: not any(is_locked(p) for p in glob.glob(os.path.join(base, "engram-home", "projects", "*",
                                                                        "workers", "*.lock"))), 30)


def where(demo: Demo, kept: bool) -> None:
    from engram.commands import engram_command, runnable

    if not kept:
        heading("Done: the demo's temporary folder is removed")
        print(runnable("  `engram demo --dir DIR` keeps it, to grep the events, episodes and graph"))
        return
    heading("Where everything is (plain files: grep them)")
    events_dir = os.path.join(demo.project_dir(), "events")
    print(f"  events:   {events_dir}/*.jsonl")
    print(f"  episodes: {os.path.join(demo.project_dir(), 'episodes')}/*.episode.json")
    print(f"  graph:    {os.path.join(demo.project_dir(), 'engram.db')}")
    print(f"  try:      grep -h '\"type\":\"contradiction' {events_dir}/*.jsonl")
    print(f"            ENGRAM_HOME={demo.home} {engram_command()} status")
