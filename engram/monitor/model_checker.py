"""The contradiction check by a model (a provider's chat client: Anthropic's Haiku with
extended thinking, OpenAI's model in JSON mode, or the user's own harness CLI).

The prompt is the spec's (docs/spec.md) question ("Does this change contradict, weaken, or conflict
with these decisions? Consider indirect contradictions.") in
`engram/monitor/prompts/contradiction.txt`. The diff and the decisions are untrusted text
(an agent wrote the one, a conversation produced the other), so they travel as data
inside `<decisions>` / `<diff>` tags, with any closing tag inside them defused, and the
prompt tells the model never to follow instructions found there. Only those travel: the
write's diff hunks (at most MAX_DIFF_CHARS, never the whole file) and at most MAX_DECISIONS
decisions of at most MAX_DECISION_CHARS each, so a check's input is bounded (~1.5K tokens).

The answer must be one JSON object matching `SCHEMA` (verdict, severity, decision ids,
explanation, recommendation); anything else is a `CheckFailed("malformed")`, which
counts towards the session's failure limit like a timeout or an HTTP error. The client
gets `timeout=probeTimeoutMs` and no retries: one check is one request, so a stalled API
costs one timeout, and the failure count means what it says.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

from engram.errors import LLMError
from engram.monitor.contradiction import NO, SEVERITIES, VERDICTS, CheckFailed, Verdict

ANSWER_TOKENS = 700
MAX_DECISIONS = 8
MAX_DECISION_CHARS = 500
MAX_DIFF_CHARS = 4000  # the write's diff hunks (never the whole file), ~1K tokens, whatever maxDiffChars says
SCHEMA = {
    "verdict": VERDICTS,
    "severity": SEVERITIES,
    "decision_ids": list,
    "explanation": str,
    "recommendation": str,
}
OPTIONAL = {"decision_ids": [], "recommendation": ""}


def system_prompt() -> str:
    return resources.files("engram.monitor").joinpath("prompts", "contradiction.txt").read_text("utf-8")


# A model reads </DIFF > and < /decisions> like </diff> and </decisions>: any case, any spacing.
_TAGS = re.compile(r"<(?=\s*/?\s*(?:diff|decisions)\b)", re.I)


def _defuse(text: str) -> str:
    """Keep data from closing (or opening) the tags that delimit it."""
    return _TAGS.sub(r"<\\", text)


def user_prompt(decisions: list[dict[str, Any]], path: str, diff: str) -> str:
    from engram.monitor.decision_rules import decision_text_of

    rows = []
    for d in decisions[:MAX_DECISIONS]:
        text = decision_text_of(d)[:MAX_DECISION_CHARS]
        data = d.get("data") if isinstance(d.get("data"), dict) else {}
        why = str(data.get("rationale") or "")[:200]
        rows.append(f"[{d.get('id')}] {text}" + (f" (rationale: {why})" if why and why not in text else ""))
    return (f"<decisions>\n{_defuse(chr(10).join(rows))}\n</decisions>\n\n"
            f"<diff path=\"{_defuse(path)[:300]}\">\n{_defuse(diff[:MAX_DIFF_CHARS])}\n</diff>")


def parse_verdict(text: str, known_ids: list[str], checker: str) -> Verdict:
    """Validate a model's answer against SCHEMA; raise CheckFailed("malformed") otherwise."""
    obj = _json_object(text)
    for key, want in SCHEMA.items():
        value = obj.setdefault(key, OPTIONAL[key]) if key in OPTIONAL else obj.get(key)
        if isinstance(want, tuple):
            if value not in want:
                raise CheckFailed("malformed", f"{key} must be one of {', '.join(want)}, got {str(value)[:60]!r}")
        elif not isinstance(value, want):
            raise CheckFailed("malformed", f"{key} must be a {want.__name__}, got {type(value).__name__}")
    verdict, severity = obj["verdict"], obj["severity"]
    if (verdict == NO) != (severity == "none"):
        raise CheckFailed("malformed", f"severity {severity!r} does not fit verdict {verdict}")
    if verdict != NO and not obj["explanation"].strip():
        raise CheckFailed("malformed", "a contradiction without an explanation")
    ids = [i for i in obj["decision_ids"] if isinstance(i, str) and i in known_ids]
    return Verdict(verdict, severity, obj["explanation"].strip()[:800], obj["recommendation"].strip()[:400],
                   ids, [], checker)


def _json_object(text: str) -> dict[str, Any]:
    s = (text or "").strip()
    if s.startswith("```"):
        s = s.strip("`")
        s = s[4:] if s.lower().startswith("json") else s
    start, end = s.find("{"), s.rfind("}")
    if start < 0 or end <= start:
        raise CheckFailed("malformed", f"no JSON object in the answer: {text[:80]!r}")
    try:
        obj = json.loads(s[start : end + 1])
    except ValueError as exc:
        raise CheckFailed("malformed", f"the answer is not valid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise CheckFailed("malformed", "the answer is not a JSON object")
    return obj


class ModelChecker:
    """A provider's chat model as the checker: one request per check, no retries of its own."""

    def __init__(self, name: str, client: Any, model: str, thinking: int = 0):
        self.name = name  # e.g. "anthropic:claude-haiku-4-5"
        self.client = client
        self.model = model
        self.thinking = thinking  # extended-thinking budget, for the models that take one

    def check(self, decisions: list[dict[str, Any]], path: str, diff: str) -> Verdict:
        try:
            reply = self.client.complete(system_prompt(), user_prompt(decisions, path, diff), model=self.model,
                                         max_tokens=ANSWER_TOKENS, thinking=self.thinking, step="contradiction")
        except LLMError as exc:
            raise CheckFailed(exc.kind, str(exc)) from None
        return parse_verdict(reply.text, [str(d.get("id")) for d in decisions], self.name)
