"""Which items a retrieval serves: pinned first, faded and expired ones left out.

Three rules on top of ranking (docs/curation.md):

* a pinned item (`engram memory pin`) is always injected at SessionStart, first in its
  section, whatever its strength, its evidence or the entry points (while it is active);
* a faded item (injected `fadeAfterUnused` times, never used: consolidate/knowledge/payoff.py) is no
  longer injected, unless pinned;
* an item whose recorded evidence no longer holds (graph/items/evidence.py: its Makefile target,
  script or file is gone, the file its role was read from was rewritten) is not served as
  current: left out; a failing check whose files all changed since is served as possibly
  fixed, not as failing.

Two small indexed queries (item_state) and at most evidence.MAX_READS bounded file reads
per retrieval; a database from before these tables reads as "nothing pinned, nothing
faded, no evidence".
"""

from __future__ import annotations

from engram.graph import items, readonly
from engram.retrieve import tiers

PIN_ACTIVATION = 1.0


def pinned(conn) -> list[tuple[dict, float]]:
    """The pinned active items, as standing (node, activation) pairs: shown whatever their
    strength (a superseded or forgotten item is not)."""
    return [(node, PIN_ACTIVATION) for node in items.pinned_nodes(conn, readonly.NODE_COLS)]


def screen_both(conn, root: str | None, first: list[tuple[dict, float]], rest: list[tuple[dict, float]],
                log: dict | None = None) -> tuple[list[tuple[dict, float]], list[tuple[dict, float]]]:
    """`screen` of the standing and the ranked pairs in one pass (one read of the flags and
    states, one budget of file reads); `log` gets the fingerprints of the files it checked
    (evidence.Reader)."""
    kept = screen(conn, root, first + rest, marked=True, log=log)
    return [p for i, p in kept if i < len(first)], [p for i, p in kept if i >= len(first)]


def screen(conn, root: str | None, pairs: list[tuple[dict, float]], marked: bool = False,
           log: dict | None = None) -> list:
    """The pairs without faded items and items whose evidence no longer holds (pinned ones
    kept); with `marked`, each kept pair with its index in `pairs`."""
    if not pairs:
        return pairs
    pins, faded = items.flagged(conn)
    state = items.states(conn, {n["id"] for n, _ in pairs})
    reader = None
    keep = set(pins)
    out = []
    for i, (node, act) in enumerate(pairs):
        nid = node["id"]
        if nid in faded and nid not in keep:
            continue
        needs = (state.get(nid) or {}).get("evidence", {}).get("needs")
        if root and needs:
            if reader is None:  # the evidence module loads only for an item that has some to check
                from engram.graph.items import evidence

                reader = evidence.Reader(root, log=log)
            if nid not in keep and evidence.broken(needs, reader, tiers.data_of(node)):
                continue
            node = _possibly_fixed(node, evidence.changed(needs, reader))
        out.append((i, (node, act)) if marked else (node, act))
    return out


def _possibly_fixed(node: dict, files: list[str]) -> dict:
    """A failing check whose files all changed since: said as possibly fixed, not as failing."""
    if not files:
        return node
    named = ", ".join(f"`{f}`" for f in files[:3])
    return {**node, "description": f"Possibly fixed since: {named} changed after it failed (not re-run here). "
                                   + str(node.get("description") or "")}
