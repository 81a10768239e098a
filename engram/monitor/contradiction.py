"""Write-time contradiction checking: one interface, three checkers, failure counting.

A checker takes the decisions linked to a written file and the write's diff and returns
a `Verdict`: NO_CONTRADICTION, INDIRECT_CONTRADICTION or DIRECT_CONTRADICTION, with a
severity, an explanation and a recommendation. Three implementations:

* `offline` (the default: no key, or ENGRAM_OFFLINE=1): deterministic rules over what
  each decision forbids, requires and limits (`offline_checker`). Conservative by
  design - it says which decision and which line matched;
* `anthropic`: `contradictionModel` (Haiku) with extended thinking (`model_checker`);
* `openai`: the same prompt and schema through Chat Completions.

The configured provider supplies the checker (engram.providers.registry.checker).

Failures (timeouts after `probeTimeoutMs`, API errors, malformed answers) raise
`CheckFailed`. The worker counts consecutive failures in the session state; after
`maxContradictionFailures` the checker is off for the session (`note_failure`), and
any success resets the count (`note_success`). Nothing here ever blocks the agent: the
check runs in a detached worker and its verdict reaches the agent on a later hook.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from engram.text import AS_DATA, inert

NO = "NO_CONTRADICTION"
INDIRECT = "INDIRECT_CONTRADICTION"
DIRECT = "DIRECT_CONTRADICTION"
VERDICTS = (NO, INDIRECT, DIRECT)
SEVERITIES = ("none", "low", "medium", "high")


class CheckFailed(Exception):
    """A checker could not give a verdict; `kind` is timeout|rate_limit|server|connection|client|malformed
    (or one of LLMError's kinds the provider layer turns into an offline verdict)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@dataclass
class Verdict:
    """What a checker concluded about one write."""

    verdict: str
    severity: str
    explanation: str
    recommendation: str
    decisions: list[str] = field(default_factory=list)  # ids of the decisions it concerns
    matches: list[dict[str, Any]] = field(default_factory=list)  # offline: decision, side, line, text, rule
    checker: str = "offline"

    @property
    def warns(self) -> bool:
        return self.verdict != NO

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def no_contradiction(checker: str = "offline") -> Verdict:
    return Verdict(NO, "none", "The change is consistent with the linked decisions.", "", [], [], checker)


class Checker(Protocol):
    """One way of checking: `check` returns a Verdict or raises CheckFailed."""

    name: str

    def check(self, decisions: list[dict[str, Any]], path: str, diff: str) -> Verdict: ...


# -- failure counting (in the session state, under the session lock) -------------------


def _state(st: dict[str, Any]) -> dict[str, Any]:
    cs = st.get("contradiction")
    if not isinstance(cs, dict):
        cs = st["contradiction"] = {}
    cs.setdefault("failures", 0)
    cs.setdefault("disabled", None)
    cs.setdefault("queue", [])
    return cs


def disabled(st: dict[str, Any]) -> bool:
    cs = st.get("contradiction")
    return isinstance(cs, dict) and bool(cs.get("disabled"))


def note_success(st: dict[str, Any]) -> None:
    _state(st)["failures"] = 0


def note_failure(st: dict[str, Any], cfg: dict[str, Any], failure: CheckFailed, checker: str) -> bool:
    """Count one failure; True exactly when this failure disables the checker for the session."""
    cs = _state(st)
    if cs["disabled"]:
        return False
    cs["failures"] = int(cs["failures"]) + 1
    if cs["failures"] < max(1, int(cfg.get("maxContradictionFailures", 3))):
        return False
    cs["disabled"] = {"checker": checker, "failures": cs["failures"], "last": f"{failure.kind}: {failure}"[:300]}
    return True


# -- what the agent reads ---------------------------------------------------------------


def advisory(v: Verdict, path: str, decisions: dict[str, str], ref: int) -> str:
    """The warning injected on the next hook: advisory, specific, and asking for an answer.

    Injection point: the path, the decision and the checker's explanation (which quotes the
    diff) are shown through `inert`, under a line that says they are recalled facts."""
    kind = "direct" if v.verdict == DIRECT else "indirect"
    lines = [f"engram: your change to {inert(path, 200)} (event {ref}) may "
             f"{'contradict' if kind == 'direct' else 'undermine'} a recorded decision ({kind} contradiction, "
             f"severity {inert(v.severity, 20)}; checked by {inert(v.checker, 40)}; quoted below as {AS_DATA})."]
    for did in v.decisions or list(decisions)[:1]:
        if did in decisions:
            lines.append(f'- Decision: "{inert(decisions[did], 240)}"')
    lines.append(f"- Why: {inert(v.explanation, 600)}")
    if v.recommendation:
        lines.append(f"- Suggestion: {inert(v.recommendation, 400)}")
    lines.append("This is advisory and you may override it, but acknowledge it: either adjust the change, or say why "
                 'the decision no longer holds (and record the new one with `engram decide "..."`).')
    return "\n".join(lines)


def disabled_notice(checker: str, failures: int, last: str, log_path: str) -> str:
    return (f"engram: the contradiction checker ({inert(checker, 40)}) failed {failures} times in a row "
            f"(last: {inert(last, 160)}), "
            f"so it is off for the rest of this session. Writes are no longer checked against recorded decisions; "
            f"details in {log_path}.")
