"""The model's verdict on an ambiguous entity pair (docs/consolidation.md, "Entity resolution").

Entity resolution settles most pairs by name rules and embedding bands; a similarity in
the band where the bands are least sure goes to the configured chat provider, when there
is one (engram.providers.registry builds this; offline there is none). One short request
per pair, on the provider's cheapest model; the proposal and the existing node travel as
data inside tags, so a name cannot instruct the model.
"""

from __future__ import annotations

from typing import Any

from engram.consolidate import passes
from engram.text import clip

DECISIONS = ("merge", "child", "new")
MAX_TOKENS = 200


class ModelAdjudicator:
    """Asks a chat client whether a proposed node is an existing one (merge), a part of it (child), or new."""

    def __init__(self, client: Any, model: str, usage: Any = None):
        self.client = client
        self.model = model
        self.usage = usage if usage is not None else passes.Usage()

    def adjudicate(self, proposed: dict[str, Any], existing: dict[str, Any]) -> tuple[str, str]:
        user = (f"<proposed>{_entity(proposed)}</proposed>\n<existing>{_entity(existing)}</existing>")
        reply = self.client.complete(passes.prompt("adjudicate"), user, model=self.model, max_tokens=MAX_TOKENS,
                                     usage=self.usage, step="adjudicate")
        answer = passes.parse_json(reply.text)
        decision = str(answer.get("decision", "")).strip().lower() if isinstance(answer, dict) else ""
        if decision not in DECISIONS:
            raise ValueError(f"the adjudicator answered {decision!r}, not one of {', '.join(DECISIONS)}")
        return decision, clip(answer.get("reason") or "no reason given", 200)


def _entity(node: dict[str, Any]) -> str:
    text = f"name: {node.get('name', '')}; type: {node.get('type', '')}; description: {node.get('description', '')}"
    return clip(text.replace("<", "‹").replace(">", "›"), 600)
