"""`engram demo`: the README's main job end to end, offline: a sample project and real
sessions through real hooks.

Everything happens in a temporary ENGRAM_HOME and a sample project it creates; each
step prints a heading and what engram did. The agent's tool calls are simulated by
doing the real work (files are really edited, tests really run with `unittest`) and
sending Claude Code's payloads for it to `python -m engram.hook`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter

from engram.capture.diffs import hunks_from_content



def add_parser(sub) -> None:
    p = sub.add_parser("demo", help="run a sample project through engram, offline (no API key needed)",
                       description="Run a sample project through engram end to end: two sessions through the "
                                   "real hooks, a consolidation, retrieval and a contradiction warning. Offline; "
                                   "everything happens in a temporary home.\n\nexample:\n  engram demo --dir /tmp/demo",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", default=None, help="keep the demo's files in this (new or empty) directory")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return main(args.dir)


CALC = '''"""Money arithmetic for the invoicing service."""

from decimal import Decimal


def add(a: Decimal, b: Decimal) -> Decimal:
    return a + b
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

    def hook(self, event: str, **fields) -> str:
        payload = {"session_id": self.id, "transcript_path": "", "cwd": self.demo.project,
                   "hook_event_name": event, **fields}
        out = subprocess.run([sys.executable, "-m", "engram.hook", event, "--harness", "claude-code"],
                             input=json.dumps(payload).encode(), capture_output=True,
                             env=self.demo.env, timeout=60)
        return out.stdout.decode()

    def read(self, name: str) -> str:
        path = os.path.join(self.demo.project, name)
        with open(path) as f:
            content = f.read()
        return self.hook("PostToolUse", tool_name="Read", tool_input={"file_path": path},
                         tool_response={"type": "text", "file": {"filePath": path, "content": content}})

    def write(self, name: str, new: str) -> str:
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
        # CLAUDECODE=1 is what Claude Code sets in its shell tool's environment
        res = subprocess.run(command, shell=True, cwd=self.demo.project, capture_output=True,
                             text=True, env=dict(self.demo.env, CLAUDECODE="1"), timeout=120)
        output = (res.stdout + res.stderr).strip()
        if res.returncode == 0:
            self.hook("PostToolUse", tool_name="Bash", tool_input={"command": command},
                      tool_response={"stdout": output, "stderr": "", "interrupted": False})
        else:
            self.hook("PostToolUseFailure", tool_name="Bash", tool_input={"command": command},
                      error=f"Exit code {res.returncode}\n{output}")
        return res.returncode, output


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
        for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "VOYAGE_API_KEY"):
            self.env.pop(key, None)
        has_cli = os.path.exists(os.path.join(os.path.dirname(sys.executable), "engram"))
        self.engram = "engram" if has_cli else "python -m engram"
        with open(os.path.join(self.project, "calc.py"), "w") as f:
            f.write(CALC)

    def project_dir(self) -> str:
        from engram.config import Project

        return Project.from_cwd(self.project, self.home).dir

    def events(self, session: str) -> list[dict]:
        path = os.path.join(self.project_dir(), "events", f"{session}.jsonl")
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]


def heading(text: str) -> None:
    print(f"\n== {text}")


def first_session(demo: Demo) -> Session:
    heading("Session 1: the agent adds multiply() to calc.py (real hooks, real files, real tests)")
    s = Session(demo, "demo-session-1")
    s.hook("SessionStart", source="startup")
    s.hook("UserPromptSubmit", prompt="Add multiply() to calc.py with a unit test. Money is Decimal: "
                                      "never use float for money.")
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
    s.todos([("Add multiply() with a unit test", "completed"), ("Add apply_discount() to calc.py", "pending")])
    print("  the agent's task list ends with apply_discount() still pending")
    s.hook("Stop", stop_hook_active=False,
           last_assistant_message="Added multiply() in Decimal; tests pass. Recorded the decision "
                                  "to keep money in Decimal.")
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
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def consolidate(demo: Demo, session: str) -> None:
    heading("Consolidation: the Stop hook started a detached worker; waiting for it")
    from engram.config import Project, load_config
    from engram.consolidate import worker, trigger

    project = Project.from_cwd(demo.project, demo.home)
    if wait_for(lambda: not trigger.needs_consolidation(project, session)):
        print("  the background worker consolidated the session")
    else:  # a slow machine: do in the foreground what the worker would have done
        from engram.providers import registry

        cfg, _ = load_config(demo.home)
        out = worker.consolidate_session(project, session, cfg, registry.consolidation(cfg, project=project))
        print(f"  consolidated in the foreground: {out.status}")
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


def second_session(demo: Demo) -> None:
    heading("Session 2 starts: what engram injects at SessionStart")
    s = Session(demo, "demo-session-2")
    show(context_of(s.hook("SessionStart", source="startup")))
    heading("The user asks for a discount function: context added to the prompt")
    show(context_of(s.hook("UserPromptSubmit", prompt="Add apply_discount(amount, percent) to calc.py")),
         "(nothing new: what calc.py and money bring up was already injected at SessionStart)")
    heading("First read of calc.py in this session: involuntary recall of what is linked to it")
    show(context_of(s.read("calc.py")), "(nothing new: already injected at SessionStart; "
         "no note repeats within a session)")
    heading("On demand: engram query \"how do we handle money amounts?\"")
    out = subprocess.run([*demo.engram.split(), "query", "how do we handle money amounts in calc.py?",
                          "--cwd", demo.project], capture_output=True, text=True, env=demo.env, timeout=60)
    show(out.stdout.strip() or out.stderr.strip())
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
    s.hook("Stop", stop_hook_active=False, last_assistant_message="Added apply_discount().")


def main(keep: str | None = None) -> int:
    base = keep or tempfile.mkdtemp(prefix="engram-demo-")
    if keep:
        os.makedirs(base, exist_ok=True)
    demo = Demo(base)
    print(f"engram demo: offline (no API key), in {base}")
    first = first_session(demo)
    consolidate(demo, first.id)
    second_session(demo)
    heading("Where everything is (plain files: grep them)")
    events_dir = os.path.join(demo.project_dir(), "events")
    print(f"  events:   {events_dir}/*.jsonl")
    print(f"  episodes: {os.path.join(demo.project_dir(), 'episodes')}/*.episode.json")
    print(f"  graph:    {os.path.join(demo.project_dir(), 'engram.db')}")
    print(f"  try:      grep -h '\"type\":\"contradiction' {events_dir}/*.jsonl")
    print(f"            ENGRAM_HOME={demo.home} {demo.engram} status")
    return 0
