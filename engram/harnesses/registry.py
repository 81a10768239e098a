"""The harnesses engram supports, in one place: used by the hook, install, uninstall, doctor.

Each is a module satisfying `base.Harness` (its payload adapter and its install plan),
listed here explicitly in the order `engram install --harness all` and `doctor` use (the
shape of pre-commit's `all_languages.py`). A hook registration always names its harness
(`--harness NAME`); `detect` serves hand-written registrations that do not.
"""

from __future__ import annotations

from engram.errors import EngramError
from engram.harnesses import claude_code, codex, gemini, gsd

TYPE_CHECKING = False  # `typing` costs every hook ~9 ms
if TYPE_CHECKING:
    from engram.harnesses.base import Harness

HARNESSES: dict[str, Harness] = {"claude-code": claude_code, "codex": codex, "gemini": gemini, "gsd": gsd}
ALIASES = {"claude": "claude-code", "gemini-cli": "gemini"}


def get(name: str) -> Harness:
    """The harness called `name` (or one of its aliases); an EngramError naming the choices otherwise."""
    harness = HARNESSES.get(ALIASES.get(name, name))
    if harness is None:
        raise EngramError(f"unknown harness {name!r}; choose one of {', '.join(HARNESSES)}")
    return harness


def detect(payload: dict) -> Harness:
    """The harness an unlabelled payload comes from (docs/harness-contracts.md §0: a heuristic,
    not a contract): the first whose `claims` holds, Claude Code (which claims all) last."""
    for harness in (codex, gemini, gsd, claude_code):
        if harness.claims(payload):
            return harness
    return claude_code
