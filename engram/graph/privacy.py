"""`engram forget` in the database, and the tombstones that keep forgotten things forgotten.

Forgetting works on *terms*: the text the user named, or the name of the node they named.
Terms match on word boundaries, ignoring case. A node whose name contains a term is
deleted (with its edges, file links and vectors); any other text that mentions a term
(descriptions, node data, edge data, episode records) has it replaced by FORGOTTEN. Each
term is kept in `tombstones` as `term:<word count>:<sha256>`, never as text (a tombstone
must not be a copy), and the consolidator screens every proposed node against them
(`screen_request`), so old events (or an episode file rebuilt from them) cannot bring it back.

The file side (JSONL lines, episode files, state, logs) is `engram.consolidate.purge`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from engram import jsonio
from engram.errors import EngramError
from engram.graph import store

FORGOTTEN = "[forgotten]"
PREFIX = "term:"
MIN_TERM = 3


class TooBroad(EngramError):
    """A forget target so short it would match nearly everything."""


@dataclass
class Plan:
    """What one `engram forget` removes: terms, nodes to delete, evidence lines by session."""

    terms: Terms
    delete: list[dict[str, Any]] = field(default_factory=list)
    evidence: dict[str, set[int]] = field(default_factory=dict)


# -- terms ---------------------------------------------------------------------------------


def norm(text: str) -> str:
    return " ".join(str(text).casefold().split())


def _words(text: str) -> list[re.Match[str]]:
    return list(_WORD.finditer(text))


_WORD = re.compile(r"\w+")


def _key(words: list[str]) -> str:
    """A tombstone key: the word count and a hash, never the forgotten text itself."""
    import hashlib

    digest = hashlib.sha256("\x1f".join(w.casefold() for w in words).encode()).hexdigest()[:32]
    return f"{PREFIX}{len(words)}:{digest}"


class Terms:
    """Forgotten texts as word sequences, matched case-insensitively on word boundaries.

    Built from plain text at forget time, or from the tombstones' hashes afterwards: a
    window of n words of a candidate text matches when its hash is a tombstone of n words.
    """

    def __init__(self, keys: set[str]):
        self.keys = keys
        self.sizes = sorted({int(k[len(PREFIX):].split(":", 1)[0]) for k in keys})

    @classmethod
    def from_text(cls, texts: list[str]) -> "Terms":
        keys = {_key([m.group() for m in _words(t)]) for t in texts if _words(t)}
        return cls(keys)

    def __bool__(self) -> bool:
        return bool(self.keys)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of text that are a forgotten word sequence."""
        words = _words(text)
        out = []
        for n in self.sizes:
            for i in range(len(words) - n + 1):
                if _key([m.group() for m in words[i : i + n]]) in self.keys:
                    out.append((words[i].start(), words[i + n - 1].end()))
        return sorted(out)


def contains(value: Any, terms: Terms) -> bool:
    """Whether any string inside a JSON value holds a forgotten word sequence."""
    if not terms or value is None:
        return False
    return bool(terms.spans(_strings(value)))


def _strings(value: Any) -> str:
    """Every string inside a JSON value, joined (unicode intact, unlike jsonio.dumps)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return " \n ".join(_strings(k) + " \n " + _strings(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return " \n ".join(_strings(v) for v in value)
    return ""


def scrub_text(text: str, terms: Terms) -> str:
    for a, b in reversed(terms.spans(text)):  # right to left: earlier spans keep their offsets
        text = text[:a] + FORGOTTEN + text[b:]
    return text


def scrub(value: Any, terms: Terms) -> Any:
    """A JSON value with every mention of a term gone: strings rewritten, list items that
    mention a term dropped (a discovery about the forgotten thing goes with it)."""
    if isinstance(value, str):
        return scrub_text(value, terms) if contains(value, terms) else value
    if isinstance(value, dict):
        return {k: scrub(v, terms) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v, terms) for v in value if not (isinstance(v, (dict, str)) and contains(v, terms))]
    return value


# -- planning --------------------------------------------------------------------------------


def plan(conn: Any, target: str) -> Plan:
    """Resolve a node id or a text into terms, nodes and evidence. Raises TooBroad."""
    node = store.get_node(conn, target.strip())
    text = node["name"] if node is not None else target
    if len(norm(text)) < MIN_TERM or not _words(text):
        raise TooBroad(f"{target!r} is shorter than {MIN_TERM} characters: it would match too much")
    p = Plan(Terms.from_text([text]))
    terms = p.terms
    rows = conn.execute("SELECT id, name FROM nodes").fetchall()
    ids = [nid for nid, name in rows if contains(name, terms)]
    if node is not None and node["id"] not in ids:
        ids.append(node["id"])
    p.delete = list(store.get_nodes(conn, ids).values())
    for n in p.delete:
        _add_evidence(conn, p, n)
    return p


def _add_evidence(conn: Any, p: Plan, node: dict[str, Any]) -> None:
    """The event lines a node came from: its evidence seqs, inside each source episode's range."""
    seqs = [s for s in ((node.get("data") or {}).get("evidence_seqs") or []) if isinstance(s, int)]
    for ep_id in node.get("source_episodes") or []:
        ep = store.get_episode(conn, ep_id)
        if not ep:
            continue
        rec = ep["episode_data"] if isinstance(ep["episode_data"], dict) else {}
        lo, hi = rec.get("from_seq", 0), rec.get("to_seq", 0)
        if node["type"] == "episode":  # forgetting an episode forgets its whole range
            hits = set(range(lo, hi + 1))
        else:
            hits = {s for s in seqs if lo <= s <= hi}
        if hits:
            p.evidence.setdefault(ep["session_id"], set()).update(hits)


# -- applying --------------------------------------------------------------------------------


def apply(conn: Any, p: Plan) -> dict[str, int]:
    """Delete and scrub in one transaction, record the tombstones, then purge free pages."""
    from engram.graph import embeddings

    counts = {"nodes_deleted": 0, "nodes_scrubbed": 0, "edges_scrubbed": 0, "episodes_scrubbed": 0,
              "cache_rows": 0}
    conn.execute("PRAGMA secure_delete = ON")  # freed pages are zeroed, not left readable
    with store.transaction(conn):
        hashes = [_text_hash(n) for n in p.delete]
        for n in p.delete:
            embeddings.delete_embedding(conn, n["id"])
            counts["nodes_deleted"] += store.delete_node(conn, n["id"])
        counts["nodes_scrubbed"] = _scrub_nodes(conn, p.terms, hashes)
        counts["edges_scrubbed"] = _scrub_rows(conn, "edges", "id", ("data",), p.terms)
        counts["episodes_scrubbed"] = _scrub_rows(conn, "episodes", "id", ("goal", "approach", "episode_data"), p.terms)
        counts["cache_rows"] = _drop_cache(conn, hashes)
        for key in p.terms.keys:
            store.add_tombstone(conn, key)
    embeddings.purge_orphans(conn)
    compact(conn)
    return counts


def _text_hash(node: dict[str, Any]) -> str:
    from engram.graph import embeddings

    return embeddings._text_hash(embeddings.node_text(node["name"], node.get("description") or ""))


def _scrub_nodes(conn: Any, terms: Terms, hashes: list[str]) -> int:
    from engram.graph import embeddings

    n = 0
    for node in store.list_nodes(conn):
        fields = {k: node[k] for k in ("description", "summary", "data")}
        if not contains(fields, terms):
            continue
        hashes.append(_text_hash(node))
        conn.execute("UPDATE nodes SET description = ?, summary = ?, data = ?, updated_at = ? WHERE id = ?",
                     (scrub(node["description"], terms), scrub(node["summary"], terms),
                      jsonio.dumps(scrub(node["data"], terms)), store.now(), node["id"]))
        embeddings.delete_embedding(conn, node["id"])  # re-embedded from the scrubbed text
        n += 1
    return n


def _scrub_rows(conn: Any, table: str, key: str, cols: tuple[str, ...], terms: Terms) -> int:
    n = 0
    for row in conn.execute(f"SELECT {key}, {', '.join(cols)} FROM {table}").fetchall():
        values = list(row[1:])
        if not any(contains(v, terms) for v in values):
            continue
        new = []
        for v in values:
            try:
                parsed = jsonio.loads(v) if isinstance(v, str) and v[:1] in "[{" else None
            except ValueError:
                parsed = None
            new.append(jsonio.dumps(scrub(parsed, terms)) if parsed is not None else scrub(v, terms))
        conn.execute(f"UPDATE {table} SET {', '.join(c + ' = ?' for c in cols)} WHERE {key} = ?", (*new, row[0]))
        n += 1
    return n


def _drop_cache(conn: Any, hashes: list[str]) -> int:
    if not hashes:
        return 0
    q = "DELETE FROM embedding_cache WHERE text_hash IN (%s)" % ",".join("?" * len(hashes))
    return conn.execute(q, hashes).rowcount


def compact(conn: Any) -> None:
    """Checkpoint the WAL into the file and rebuild it, so no old page keeps a copy."""
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


# -- what the consolidator asks ---------------------------------------------------------------


def allow(conn: Any, text: str) -> None:
    """Remove the tombstones of `text`, so it may be learned again."""
    conn.executemany("DELETE FROM tombstones WHERE key = ?", [(k,) for k in Terms.from_text([text]).keys])


def tombstoned_terms(conn: Any) -> Terms:
    try:
        rows = conn.execute("SELECT key FROM tombstones WHERE key LIKE ?", (PREFIX + "%",)).fetchall()
    except Exception as exc:  # a database older than the tombstones table
        if "no such table" in str(exc):
            return Terms(set())
        raise
    return Terms({r[0] for r in rows})


def screen(node: dict[str, Any], terms: Terms) -> dict[str, Any] | None:
    """A proposed node as the graph may store it: None when its name is forgotten, else
    with any forgotten term scrubbed from its description, summary and data."""
    if not terms:
        return node
    if contains(node.get("name", ""), terms):
        return None
    if not contains({k: node.get(k) for k in ("description", "summary", "data", "rationale")}, terms):
        return node
    out = dict(node)
    for k in ("description", "summary", "data", "rationale"):
        if k in out:
            out[k] = scrub(out[k], terms)
    return out


def screen_request(conn: Any, request: dict[str, Any], record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A consolidation's graph change request and episode record minus everything tombstoned.

    Proposed nodes named by a forgotten term are dropped (with their edges); other text is
    scrubbed. Called before entity resolution, so nothing forgotten is embedded either.
    """
    terms = tombstoned_terms(conn)
    if not terms:
        return request, record
    kept, dropped = [], set()
    for n in request["graph"]["nodes"]:
        s = screen(n, terms)
        if s is None:
            dropped.add(n.get("key"))
        else:
            kept.append(s)
    edges = [e for e in request["graph"]["edges"] if e.get("from") not in dropped and e.get("to") not in dropped]
    out = {**request, "graph": {**request["graph"], "nodes": kept, "edges": edges},
           "episode": scrub(request["episode"], terms)}
    return out, scrub(record, terms)
