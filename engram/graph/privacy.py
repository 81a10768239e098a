"""`engram forget` in the database, and the tombstones that keep forgotten things forgotten.

Forgetting works on *terms*: the text the user named, or the name of the node they named.
Terms match on word boundaries, ignoring case. A node whose name contains a term is
deleted (with its edges, file links and vectors); any other text that mentions a term
(descriptions, summaries, node data, other nodes' file lists and file links, edge data,
episode records) has it replaced by FORGOTTEN or dropped. Each term is kept in
`tombstones` as `term:<word count>:<salt>:<sha256>`, never as text (a tombstone must not be
a copy); the salt (random, one per database, also carried by imported keys) stops a table
of precomputed hashes and linking one forgotten text across projects (whoever holds the
database can still test a guess, one hash each; docs/reliability.md, "Limits"). Keys
written before salting (`term:<n>:<sha256>`) still match. The consolidator screens every
proposed node against them (`screen_request`), so old events (or an episode file rebuilt
from them) cannot bring it back.

The file side (JSONL lines, episode files, state, logs) is `engram.consolidate.purge`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from engram import jsonio
from engram.errors import EngramError
from engram.graph import fulltext, store

FORGOTTEN = "[forgotten]"
PREFIX = "term:"
MIN_TERM = 3


class TooBroad(EngramError):
    """A forget target so short it would match nearly everything."""


class UnknownNode(EngramError):
    """A forget target shaped like a node id that names no node."""


class _DryRun(Exception):
    """Raised inside the transaction of a dry run, so everything it did is rolled back."""


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


SALT_KEY = "tombstone_salt"


def _key(words: list[str], salt: str = "") -> str:
    """A tombstone key: the word count, the salt and a salted hash, never the text itself
    (`salt` "" gives the unsalted keys of older databases)."""
    import hashlib

    body = "\x1f".join(w.casefold() for w in words)
    digest = hashlib.sha256(((salt + "\x1e") if salt else "").encode() + body.encode()).hexdigest()[:32]
    return f"{PREFIX}{len(words)}:{salt}:{digest}" if salt else f"{PREFIX}{len(words)}:{digest}"


def salt_of(conn: Any) -> str:
    """This database's tombstone salt (made on first use; stored by `apply`'s transaction)."""
    return store.get_meta(conn, SALT_KEY) or os.urandom(8).hex()


class Terms:
    """Forgotten texts as word sequences, matched case-insensitively on word boundaries.

    Built from plain text at forget time, or from the tombstones' keys afterwards: a
    window of n words of a candidate text matches when its hash under one of the keys'
    salts is a tombstone of n words.
    """

    def __init__(self, keys: set[str]):
        self.keys = keys
        parts = [k[len(PREFIX):].split(":") for k in keys]
        self.sizes = sorted({int(p[0]) for p in parts})
        self.salts = sorted({p[1] if len(p) == 3 else "" for p in parts})

    @classmethod
    def from_text(cls, texts: list[str], salt: str = "") -> "Terms":
        keys = {_key([m.group() for m in _words(t)], salt) for t in texts if _words(t)}
        return cls(keys)

    def __bool__(self) -> bool:
        return bool(self.keys)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of text that are a forgotten word sequence."""
        words = _words(text)
        out = []
        for n in self.sizes:
            for i in range(len(words) - n + 1):
                window = [m.group() for m in words[i : i + n]]
                if any(_key(window, salt) in self.keys for salt in self.salts):
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
    """Resolve a node id or a text into terms, nodes and evidence. Raises TooBroad, or
    UnknownNode for a node id the graph does not hold (a typo must not forget a text)."""
    target = target.strip()
    node = store.get_node(conn, target)
    if node is None and _looks_like_id(target):
        raise UnknownNode(f"no node {target!r} in this project's graph; `engram show NAME` finds a node's id, "
                          "and a text to forget is given as it is written")
    text = node["name"] if node is not None else target
    if len(norm(text)) < MIN_TERM or not _words(text):
        raise TooBroad(f"{target!r} is shorter than {MIN_TERM} characters: it would match too much")
    p = Plan(Terms.from_text([text], salt_of(conn)))
    terms = p.terms
    rows = conn.execute("SELECT id, name FROM nodes").fetchall()
    ids = [nid for nid, name in rows if contains(name, terms)]
    if node is not None and node["id"] not in ids:
        ids.append(node["id"])
    p.delete = list(store.get_nodes(conn, ids).values())
    for n in p.delete:
        _add_evidence(conn, p, n)
    return p


def _looks_like_id(text: str) -> bool:
    """`n_3f9a0c1d2e4b5a6f` (or a typo of one): a prefix, an underscore, one word."""
    head, sep, rest = text.partition("_")
    return bool(sep) and head in ("n", "e", "ep") and rest.isalnum() and " " not in text


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


def apply(conn: Any, p: Plan, *, dry_run: bool = False) -> dict[str, Any]:
    """Delete and scrub in one transaction and record the tombstones; then purge free pages
    and the WAL (`checkpointed` says whether the WAL could be emptied). A dry run does the
    same work and rolls it back, so its counts (and `scrubbed`, the names of the nodes whose
    text is scrubbed) are exactly what a real run changes."""
    from engram.graph import embeddings

    counts: dict[str, Any] = {"nodes_deleted": 0, "nodes_scrubbed": 0, "file_links_removed": 0,
                              "edges_scrubbed": 0, "episodes_scrubbed": 0, "passages_scrubbed": 0, "cache_rows": 0,
                              "scrubbed": []}
    conn.execute("PRAGMA secure_delete = ON")  # freed pages are zeroed, not left readable
    try:
        with store.transaction(conn):
            hashes = [_text_hash(n) for n in p.delete]
            for n in p.delete:
                embeddings.delete_embedding(conn, n["id"])
                counts["nodes_deleted"] += store.delete_node(conn, n["id"])
            counts["scrubbed"] = _scrub_nodes(conn, p.terms, hashes)
            counts["nodes_scrubbed"] = len(counts["scrubbed"])
            counts["file_links_removed"] = _scrub_file_links(conn, p.terms)
            counts["edges_scrubbed"] = _scrub_rows(conn, "edges", "id", ("data",), p.terms)
            counts["episodes_scrubbed"] = _scrub_rows(conn, "episodes", "id", ("goal", "approach", "episode_data"),
                                                      p.terms)
            _scrub_rows(conn, "curation_log", "rowid", ("detail",), p.terms)  # an `engram memory edit`'s old text
            counts["passages_scrubbed"] = _scrub_rows(conn, "passages", "rowid", ("text",), p.terms)
            counts["cache_rows"] = _drop_cache(conn, hashes)
            if fulltext.available(conn):  # deleted rows' terms stay in FTS5's segments until rebuilt
                conn.execute("INSERT INTO node_fulltext (node_fulltext) VALUES ('rebuild')")
                conn.execute("INSERT INTO passage_fulltext (passage_fulltext) VALUES ('rebuild')")
            if store.get_meta(conn, SALT_KEY) is None:
                store.set_meta(conn, SALT_KEY, p.terms.salts[-1])
            for key in p.terms.keys:
                store.add_tombstone(conn, key)
            if dry_run:
                raise _DryRun
    except _DryRun:
        return counts
    embeddings.purge_orphans(conn)
    counts["checkpointed"] = int(compact(conn))
    return counts


def _text_hash(node: dict[str, Any]) -> str:
    """The embedding cache's key of a node's text (what `embeddings.sync` sent the model)."""
    from engram.graph import embeddings
    from engram.graph.vectors import text_hash

    return text_hash(embeddings.node_text(node["name"], node.get("description") or ""))


def _scrub_nodes(conn: Any, terms: Terms, hashes: list[str]) -> list[str]:
    """Other nodes' description, summary, data and file list, scrubbed of every mention; their names."""
    from engram.graph import embeddings

    names = []
    for node in store.list_nodes(conn):
        fields = {k: node[k] for k in ("description", "summary", "data", "affected_files")}
        if not contains(fields, terms):
            continue
        hashes.append(_text_hash(node))
        conn.execute("UPDATE nodes SET description = ?, summary = ?, data = ?, affected_files = ?, updated_at = ? "
                     "WHERE id = ?",
                     (scrub(node["description"], terms), scrub(node["summary"], terms),
                      jsonio.dumps(scrub(node["data"], terms)), jsonio.dumps(scrub(node["affected_files"], terms)),
                      store.now(), node["id"]))
        embeddings.delete_embedding(conn, node["id"])  # re-embedded from the scrubbed text
        names.append(node["name"])
    return names


def _scrub_file_links(conn: Any, terms: Terms) -> int:
    """node_files rows whose path mentions a term (a forgotten file name)."""
    rows = [r for r in conn.execute("SELECT path, node_id FROM node_files").fetchall() if contains(r[0], terms)]
    conn.executemany("DELETE FROM node_files WHERE path = ? AND node_id = ?", rows)
    return len(rows)


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


def compact(conn: Any, wait: float = 30.0) -> bool:
    """Checkpoint the WAL into the file and rebuild it, so no old page keeps a copy; True
    when the WAL was emptied. A reader holding an old snapshot keeps the checkpoint from
    finishing (its pages must stay readable): retried until `wait` seconds have passed."""
    import time

    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")
    deadline = time.monotonic() + wait
    while True:
        busy, log, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if not busy and log <= 0:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


# -- what the consolidator asks ---------------------------------------------------------------


def allow(conn: Any, text: str) -> int:
    """Remove the tombstones of `text` (under every salt in use), so it may be learned again."""
    keys = set()
    for salt in tombstoned_terms(conn).salts:
        keys |= Terms.from_text([text], salt).keys
    return sum(conn.execute("DELETE FROM tombstones WHERE key = ?", (k,)).rowcount for k in keys)


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
