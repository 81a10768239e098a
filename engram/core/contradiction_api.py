"""Contradiction checkers backed by a model: Anthropic (Haiku, extended thinking) and OpenAI.

The prompt is the spec's question ("Does this change contradict, weaken, or conflict
with these decisions? Consider indirect contradictions.") in
`engram/llm/prompts/contradiction.txt`. The diff and the decisions are untrusted text
(an agent wrote the one, a conversation produced the other), so they travel as data
inside `<decisions>` / `<diff>` tags, with any closing tag inside them defused, and the
prompt tells the model never to follow instructions found there.

The answer must be one JSON object matching `SCHEMA` (verdict, severity, decision ids,
explanation, recommendation); anything else is a `CheckFailed("malformed")`, which
counts towards the session's failure limit like a timeout or an HTTP error. The SDKs
get `timeout=probeTimeoutMs` and no retries of their own: one check is one request, so
a stalled API costs one timeout, and the failure count means what it says.
SDKs are imported inside the calls (ARCHITECTURE §2): only the worker pays for them.
"""

from __future__ import annotations

import json
import os
import re
from importlib import resources
from typing import Any

from engram.core.contradiction import NO, SEVERITIES, VERDICTS, CheckFailed, Verdict

THINKING_BUDGET = 1024  # the minimum Anthropic allows; the verdict itself is ~200 tokens
ANSWER_TOKENS = 700
MAX_DECISIONS = 8
MAX_DECISION_CHARS = 500
SCHEMA = {
    "verdict": VERDICTS,
    "severity": SEVERITIES,
    "decision_ids": list,
    "explanation": str,
    "recommendation": str,
}
OPTIONAL = {"decision_ids": [], "recommendation": ""}


def system_prompt() -> str:
    return resources.files("engram.llm").joinpath("prompts/contradiction.txt").read_text("utf-8")


# A model reads </DIFF > and < /decisions> like </diff> and </decisions>: any case, any spacing.
_TAGS = re.compile(r"<(?=\s*/?\s*(?:diff|decisions)\b)", re.I)


def _defuse(text: str) -> str:
    """Keep data from closing (or opening) the tags that delimit it."""
    return _TAGS.sub(r"<\\", text)


def user_prompt(decisions: list[dict[str, Any]], path: str, diff: str) -> str:
    from engram.core.decision_rules import decision_text_of

    rows = []
    for d in decisions[:MAX_DECISIONS]:
        text = decision_text_of(d)[:MAX_DECISION_CHARS]
        data = d.get("data") if isinstance(d.get("data"), dict) else {}
        why = str(data.get("rationale") or "")[:200]
        rows.append(f"[{d.get('id')}] {text}" + (f" (rationale: {why})" if why and why not in text else ""))
    return (f"<decisions>\n{_defuse(chr(10).join(rows))}\n</decisions>\n\n"
            f"<diff path=\"{_defuse(path)[:300]}\">\n{_defuse(diff)}\n</diff>")


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


def _failure(sdk: Any, exc: Exception, where: str) -> CheckFailed:
    """The consolidation client's classification of an SDK error; a checker never retries
    (a failure counts towards disabling it), so retryable and final errors alike fail."""
    from engram.llm.chat import classify_error

    err = classify_error(sdk, exc, where)
    return CheckFailed(err.kind, str(err))


class AnthropicChecker:
    """`contradictionModel` with extended thinking, through the Messages API."""

    def __init__(self, model: str, timeout: float, api_key: str, base_url: str | None):
        self.model, self.timeout, self.api_key, self.base_url = model, timeout, api_key, base_url
        self.name = f"anthropic:{model}"

    def check(self, decisions: list[dict[str, Any]], path: str, diff: str) -> Verdict:
        import anthropic

        client = anthropic.Anthropic(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout,
                                     max_retries=0)
        try:
            msg = client.messages.create(
                model=self.model, max_tokens=THINKING_BUDGET + ANSWER_TOKENS, system=system_prompt(),
                thinking={"type": "enabled", "budget_tokens": THINKING_BUDGET},
                messages=[{"role": "user", "content": user_prompt(decisions, path, diff)}])  # fmt: skip
        except anthropic.APIError as exc:
            raise _failure(anthropic, exc, self.base_url or "api.anthropic.com") from None
        text = "".join(getattr(b, "text", "") for b in msg.content or [] if getattr(b, "type", "") == "text")
        return parse_verdict(text, [str(d.get("id")) for d in decisions], self.name)


class OpenAIChecker:
    """The same prompt and schema through Chat Completions (JSON mode)."""

    def __init__(self, model: str, timeout: float, api_key: str, base_url: str | None):
        self.model, self.timeout, self.api_key, self.base_url = model, timeout, api_key, base_url
        self.name = f"openai:{model}"

    def check(self, decisions: list[dict[str, Any]], path: str, diff: str) -> Verdict:
        import openai

        client = openai.OpenAI(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout, max_retries=0)
        try:
            resp = client.chat.completions.create(
                model=self.model, max_completion_tokens=ANSWER_TOKENS, response_format={"type": "json_object"},
                messages=[{"role": "system", "content": system_prompt()},
                          {"role": "user", "content": user_prompt(decisions, path, diff)}])  # fmt: skip
        except openai.APIError as exc:
            raise _failure(openai, exc, self.base_url or "api.openai.com") from None
        text = (resp.choices[0].message.content or "") if resp.choices else ""
        return parse_verdict(text, [str(d.get("id")) for d in decisions], self.name)


def make(provider: str, cfg: dict[str, Any]) -> AnthropicChecker | OpenAIChecker:
    """The checker for `provider` (anthropic|openai), keys and URLs from the environment."""
    timeout = float(cfg.get("probeTimeoutMs", 30000)) / 1000.0
    if provider == "openai":
        return OpenAIChecker(str(cfg.get("openaiModel") or "gpt-4.1-mini"), timeout,
                             os.environ.get("OPENAI_API_KEY", ""), os.environ.get("OPENAI_BASE_URL") or None)
    return AnthropicChecker(str(cfg["contradictionModel"]), timeout, os.environ.get("ANTHROPIC_API_KEY", ""),
                            os.environ.get("ANTHROPIC_BASE_URL") or None)
