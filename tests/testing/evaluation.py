"""Synthetic Claude Code transcripts (native JSONL, harness-contracts §1.8) for the evaluation tests.

`shop_history(folder, root)` writes three sessions of one project, a day apart:

1. the cart total test fails, src/cart.py is fixed, the test passes; the user decides
   to use Decimal for money (the planted knowledge);
2. the cart total is wrong again: the session reads and edits src/cart.py and runs the
   same test, so memory of session 1 is what it needs (and what recall must find);
3. a session on another file (docs), so not everything is a revisit.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


class Transcript:
    """Records of one session, in Claude Code's native transcript format."""

    def __init__(self, sid: str, cwd: str, start: datetime):
        self.sid, self.cwd, self.t = sid, cwd, start
        self.records: list[dict] = []
        self.n = 0

    def _rec(self, type_: str, content, **extra) -> dict:
        self.n += 1
        self.t += timedelta(seconds=5)
        rec = {"type": type_, "uuid": f"{self.sid}-{self.n}", "parentUuid": f"{self.sid}-{self.n - 1}" if self.n > 1
               else None, "sessionId": self.sid, "timestamp": self.t.isoformat().replace("+00:00", "Z"),
               "cwd": self.cwd, "version": "2.1.14", "isSidechain": False, "userType": "external",
               "message": {"role": "user" if type_ == "user" else "assistant", "content": content}, **extra}
        self.records.append(rec)
        return rec

    def prompt(self, text: str) -> "Transcript":
        self._rec("user", text)
        return self

    def reply(self, text: str) -> "Transcript":
        self._rec("assistant", [{"type": "text", "text": text}])
        return self

    def tool(self, name: str, tool_input: dict, result, error: str | None = None) -> "Transcript":
        tid = f"toolu_{self.sid}_{self.n}"
        self._rec("assistant", [{"type": "tool_use", "id": tid, "name": name, "input": tool_input}])
        block = {"type": "tool_result", "tool_use_id": tid, "content": error or "ok"}
        if error:
            block["is_error"] = True
        self._rec("user", [block], toolUseResult=result)
        return self

    def read(self, rel: str, content: str) -> "Transcript":
        path = os.path.join(self.cwd, rel)
        return self.tool("Read", {"file_path": path}, {"type": "text", "file": {
            "filePath": path, "content": content, "numLines": content.count("\n") + 1, "startLine": 1,
            "totalLines": content.count("\n") + 1}})

    def edit(self, rel: str, old: str, new: str) -> "Transcript":
        path = os.path.join(self.cwd, rel)
        return self.tool("Edit", {"file_path": path, "old_string": old, "new_string": new},
                         {"filePath": path, "oldString": old, "newString": new})

    def bash(self, command: str, stdout: str, exit_code: int = 0) -> "Transcript":
        if exit_code:
            return self.tool("Bash", {"command": command}, f"Error: Exit code {exit_code}\n{stdout}",
                             error=f"Exit code {exit_code}\n{stdout}")
        return self.tool("Bash", {"command": command}, {"stdout": stdout, "stderr": "", "interrupted": False})

    def write(self, folder: str) -> str:
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"{self.sid}.jsonl")
        with open(path, "w") as f:
            f.write("\n".join(json.dumps(r) for r in self.records) + "\n")
        return path


CART = "def total(items):\n    return sum(i.price * i.qty for i in items)\n"
FAIL = ("F\n=== FAILURES ===\nFAILED tests/test_cart.py::test_total - assert 0.30000000000000004 == 0.3\n"
        "1 failed in 0.02s")
PASS = ".\n1 passed in 0.01s"


def shop_history(folder: str, root: str) -> list[str]:
    """Write the three sessions (see the module docstring); their session ids."""
    s1 = (Transcript("sess-one", root, T0)
          .prompt("The cart total test fails, please fix it. Let's use Decimal for money amounts because floats "
                  "round wrong.")
          .read("src/cart.py", CART)
          .bash("python -m pytest tests/test_cart.py", FAIL, exit_code=1)
          .edit("src/cart.py", "return sum(i.price * i.qty for i in items)",
                "return sum(Decimal(i.price) * i.qty for i in items)")
          .bash("python -m pytest tests/test_cart.py", PASS)
          .reply("Fixed: the cart total now sums Decimal amounts, and tests/test_cart.py passes."))
    s2 = (Transcript("sess-two", root, T0 + timedelta(days=1))
          .prompt("The cart total is wrong again when a discount applies.")
          .read("src/cart.py", CART)
          .bash("python -m pytest tests/test_cart.py", FAIL, exit_code=1)
          .edit("src/cart.py", "* i.qty", "* i.qty - i.discount")
          .bash("python -m pytest tests/test_cart.py", PASS)
          .reply("Discounts are subtracted per line now."))
    s3 = (Transcript("sess-three", root, T0 + timedelta(days=2))
          .prompt("Write a short README section about running the tests.")
          .read("README.md", "# shop\n")
          .edit("README.md", "# shop\n", "# shop\n\nRun `pytest`.\n")
          .reply("Added a Tests section to README.md."))
    for t in (s1, s2, s3):
        t.write(folder)
    return [s1.sid, s2.sid, s3.sid]
