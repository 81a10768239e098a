"""Supersession, not deletion (docs/spec.md, "Supersession").

Outdated knowledge keeps its row: status 'superseded', strength 0 (retrieval ignores it),
`superseded_by` pointing at its replacement, and a `supersedes` edge from the new node to
the old one whose data holds the reason, the episode and the strength it had. It stays
findable by name and by embedding, so when a later episode proposes the same concept the
consolidator sees it and may `unsupersede` it. Each change is also appended to the old
node's `data["history"]`, which `engram show` prints.

`trajectory` answers "how has our auth approach evolved?": the nodes joined by
`supersedes` / `version_of` edges, oldest first.

`supersede_replaced` is what consolidation calls for every decision it writes: a newer
explicit decision supersedes an older one about the same subject that it conflicts with
("Switch the job queue to SQS" retires "Use Redis for the job queue", not "Use Redis for
the HTTP cache"), and links the ones it is only related to.
"""

from __future__ import annotations

from engram.language import aliases, decision_text
from engram.graph.store import Node, NotFound, edges_of, find_by_name, get_node, get_nodes, now, transaction, update_node, upsert_edge

TYPE_CHECKING = False  # `typing` costs ~3 ms of import (engram query, the hooks); annotations only
if TYPE_CHECKING:
    from typing import Any

LINEAGE_EDGES = ("supersedes", "version_of")


def _history(node: Node, entry: dict[str, Any]) -> list[dict[str, Any]]:
    data = node["data"] if isinstance(node["data"], dict) else {}
    return list(data.get("history") or []) + [entry]


def supersede(
    conn: Any, old_id: str, new_id: str | None = None, *, reason: str, episode_id: str | None = None
) -> str | None:
    """Mark `old_id` superseded by `new_id` (None: nothing replaces it, e.g. its files are gone).

    Returns the `supersedes` edge id (None without a successor). Raises NotFound for an
    unknown node and ValueError when a node would supersede itself.
    """
    if new_id == old_id:
        raise ValueError(f"node {old_id!r} cannot supersede itself")
    with transaction(conn):
        old = get_node(conn, old_id)
        if old is None:
            raise NotFound(f"no node {old_id!r}")
        if new_id is not None and get_node(conn, new_id) is None:
            raise NotFound(f"no node {new_id!r}")
        stamp = now()
        info = {"reason": reason, "episode_id": episode_id, "previous_strength": old["strength"], "at": stamp}
        entry = {"event": "superseded", "by": new_id, **info}
        update_node(
            conn, old_id, status="superseded", strength=0.0, superseded_by=new_id,
            data={"history": _history(old, entry)},
        )  # fmt: skip
        if new_id is None:
            return None
        return upsert_edge(
            conn, new_id, old_id, "supersedes", strength=1.0,
            source_episodes=[episode_id] if episode_id else [], data=info,
        )  # fmt: skip


def unsupersede(conn: Any, node_id: str, *, reason: str, episode_id: str | None = None) -> Node:
    """Bring a superseded node back: active again, its `supersedes` edges removed.

    Strength returns to the formula's value when the node has episodes, else to the
    strength it had when superseded. The history keeps both events.
    """
    from engram.graph.strength import node_strength

    with transaction(conn):
        node = get_node(conn, node_id)
        if node is None:
            raise NotFound(f"no node {node_id!r}")
        if node["status"] != "superseded":
            return node
        history = node["data"].get("history", []) if isinstance(node["data"], dict) else []
        previous = next((h.get("previous_strength") for h in reversed(history) if h.get("event") == "superseded"), 0.0)
        entry = {"event": "unsuperseded", "reason": reason, "episode_id": episode_id, "at": now()}
        conn.execute("DELETE FROM edges WHERE to_node = ? AND type = 'supersedes'", (node_id,))
        restored = {**node, "status": "active", "strength": float(previous or 0.0)}
        return update_node(
            conn, node_id, status="active", superseded_by=None, strength=node_strength(restored),
            data={"history": _history(node, entry)},
        )  # fmt: skip


def _resolve(conn: Any, node_or_name: str) -> Node | None:
    node = get_node(conn, node_or_name)
    if node is None:
        matches = find_by_name(conn, node_or_name, limit=1)
        node = matches[0] if matches else None
    return node


def trajectory(conn: Any, node_or_name: str) -> list[Node]:
    """Every node linked to this one through supersedes / version_of edges, oldest first.

    Each node carries `lineage`: its lineage edges within the set. Accepts a node id or a
    name (exact or normalised). Returns [] when nothing matches.
    """
    start = _resolve(conn, node_or_name)
    if start is None:
        return []
    seen, frontier, edges = {start["id"]}, [start["id"]], {}
    while frontier:
        nxt = []
        for nid in frontier:
            for e in edges_of(conn, nid, types=LINEAGE_EDGES):
                edges[e["id"]] = e
                other = e["to_node"] if e["from_node"] == nid else e["from_node"]
                if other not in seen:
                    seen.add(other)
                    nxt.append(other)
        frontier = nxt
    nodes = list(get_nodes(conn, seen).values())
    for n in nodes:
        n["lineage"] = [e for e in edges.values() if n["id"] in (e["from_node"], e["to_node"])]
    return sorted(nodes, key=lambda n: (n["created_at"], n["id"]))


# -- decisions that replace decisions -----------------------------------------------------
#
# docs/graph.md, "Supersession by subject": a newer explicit decision retires an older one
# only when both are about the same subject and they conflict; a shared technology alone
# is not enough. When unsure, the two are linked (a `similar_to` edge whose data says
# "related decision") and both stay active.

RELATED_STRENGTH = 0.4
# The reason of a `similar_to` link from a newer decision to an older one it may replace
# (the concerns only contain one another, or the newer rules the older's choice out without
# a concern of its own): both stay current, and retrieval serves the newer, naming the older
# (retrieve/screens/conflicts.py).
POSSIBLY = "possibly replaces"


def _statement(node: Node) -> dict[str, Any]:
    data = node["data"] if isinstance(node["data"], dict) else {}
    return data.get("statement") or decision_text.statement(node["name"])


def _key(term: str) -> str:
    """A choice in canonical names, a version kept after its thing ("postgres 16" is "postgresql 16")."""
    table = aliases.table()
    name, _, version = term.rpartition(" ")
    if name and version[:1].isdigit() and not table.canonical(term):
        return f"{table.canonical(name) or name} {version}"
    return table.canonical(term) or term


def _agree(a: str, b: str) -> bool:
    """The same choice, or one stating the other more precisely ("PostgreSQL" / "PostgreSQL 16");
    a word naming the kind of thing ("the feature/<ticket> scheme", "the Jest setup") adds nothing."""
    ka, kb = _key(a), _key(b)
    wa, wb = set(ka.split()), set(kb.split())
    wa, wb = (wa - aliases.CONCERN_KINDS or wa), (wb - aliases.CONCERN_KINDS or wb)
    return ka == kb or wa <= wb or wb <= wa


def _rules_out(ruled: str, choice: str, concern: set[str]) -> bool:
    """Whether ruling `ruled` out rules out `choice`: it names the choice, or the thing the choice
    states more precisely ("drop Redis" rules out "Redis Streams", "instead of Airbnb's" "the
    Airbnb config"), the concern's own words aside ("replacing Accept-header versioning" rules
    out "the Accept header"); a more precise one does not ("Python 2 is out" leaves "Use
    Python")."""
    if _key(ruled) == _key(choice):
        return True
    wr, wc = set(_key(ruled).replace("-", " ").split()), set(_key(choice).replace("-", " ").split())
    from engram.text import STOPWORDS, stem

    wr = {w for w in wr if stem(w) not in concern and w not in STOPWORDS} or wr
    wr, wc = (wr - aliases.CONCERN_KINDS or wr), (wc - aliases.CONCERN_KINDS or wc)
    return wr <= wc


def _stems(phrase: str) -> set[str]:
    """A choice's words read as a concern's are (aliases.concern_words), to find a choice named
    in a subject ("Run the main Postgres database on RDS" is about PostgreSQL)."""
    from engram.text import stem

    return aliases.concern_words(phrase.split()) or {stem(w) for w in phrase.split()}


def _value(choice: str) -> bool:
    """A value ("50 MB", "3 times") rather than a thing: a value conflicts only with a value
    ("Use Redis for the rate limiter" says nothing against "it allows 10 requests a second")."""
    return choice[:1].isdigit()


# What a value measures, by its unit: the words that name that measure or say "at most" are
# not the concern it is set for ("Log retention: 90 days" and "Keep application logs for 30
# days" are about the logs, "Uploads are capped at 50 MB" and "the max upload size is 10 MB"
# about uploads). Read as a subject's words are (aliases.concern_words).
_MEASURES = (
    ("second seconds sec secs s ms minute minutes min mins hour hours hr hrs h day days week weeks month months "
     "quarter quarters year years", "retention retain retained duration length long period lifetime age window "
     "expiry expire expires interval limit cap capped cadence frequency"),
    ("b kb mb gb tb kib mib gib byte bytes kilobytes megabytes gigabytes",
     "size limit cap capped big large"),
    ("percent", "threshold bar target rate ratio share level limit minimum floor"),
)


def _measure_words(old: list[str], new: list[str]) -> set[str]:
    """The words naming the measure two values share by their units (_MEASURES), else none."""
    units = [{c.split()[-1] for c in choices if _value(c) and len(c.split()) > 1} for choices in (old, new)]
    for unit_words, words in _MEASURES:
        if all(us & set(unit_words.split()) for us in units):
            return aliases.concern_words(words.split())
    return set()


def _version(choice: str) -> tuple[str, str] | None:
    """("python", "3.11") for "python 3.11": a named thing and the version chosen of it."""
    words = _key(choice).split()
    if len(words) >= 2 and words[-1][:1].isdigit() and not words[0][:1].isdigit():
        return " ".join(words[:-1]), words[-1]
    return None


def _other_version(old: list[str], new: list[str]) -> str:
    """A choice of `new` naming another version of a thing `old` chose ("Move to Python 3.11"
    after "Upgrade to Python 3.9"): a choice of that version, whatever the subject. A bare
    version continues the one thing `old` chose a version of when it is written the same way
    ("move to 3.12" after "Pin Python 3.11": Python 3.12; not "3" after "Node 18.2")."""
    versioned = [v for a in old if (v := _version(a))]
    for va in versioned:
        for b in new:
            vb = _version(b) or _continued(b, va, len(versioned))
            if vb and _agree(va[0], vb[0]) and va[1] != vb[1]:
                return f"{vb[0]} {vb[1]}"
    return ""


def _continued(choice: str, version: tuple[str, str], count: int) -> tuple[str, str] | None:
    """(thing, choice) when `choice` is a bare version shaped as `version` is (as many dotted
    parts) and that is the only versioned thing chosen (`count`), else None."""
    bare = choice.removeprefix("v")
    if count != 1 or not bare.replace(".", "").isdigit() or bare.count(".") != version[1].count("."):
        return None
    return version[0], bare


def _scope(old: set[str], new: set[str]) -> str:
    """How the newer decision's concern covers the older's: "same" (the same words), "wider"
    (fewer: "the database" after "the prototype's database"), "narrower" (more: "the CLI's
    packaging" after "packaging"), or "" (neither contains the other)."""
    if old == new:
        return "same"
    if new < old:
        return "wider" if new else ""
    return "narrower" if old < new and old else ""


def concerns(old: dict[str, Any], new: dict[str, Any]) -> tuple[set[str], set[str], str]:
    """The two statements' concerns as compared, and how the newer covers the older (_scope;
    "unscoped": neither names one).

    When both choices are of one kind (aliases.kinds: two databases, two CI systems), the
    words naming that kind or its job are left out of both ("Use MySQL for the orders
    database" / "Orders are stored in Postgres now" are both about {order}), and a concern
    said only by such words counts as named ("Use pnpm as the package manager" is wider than
    "Use Yarn as the package manager in the web repo"). Two that name no concern at all are
    alternatives only when their choices are of the same kinds ("Use Postgres." and "Use
    Redis.", a cache and a broker too, are not sure to be). A newer one that names its concern
    only by a pronoun ("Actually, switch it to SQS", "make it 30 days") is wider than any older
    one of its kind, or with a value of its measure, that names one: which it points at is sure
    only when it is the one (supersede_replaced). Two values of one measure (_MEASURES) are
    compared without the words naming it."""
    o, n = set(old["subject"]), set(new["subject"])
    if not n and o and _other_version(old["choice"], new["choice"]):
        return o, n, "wider"  # "bump Node to 16" after "The API runs on Node 14"
    measure = _measure_words(old["choice"], new["choice"])
    if measure and not n and new.get("refers") and o:
        return o, n, "wider"  # "make it 30 days" after "keep logs for 7 days"
    if measure and o - measure and n - measure and (scope := _scope(o - measure, n - measure)):
        return o - measure, n - measure, scope  # "log retention: 90 days" after "keep app logs for 30 days"
    alike = aliases.shared_kinds(old["choice"], new["choice"])
    if not alike or not o and not n and _kinds(old["choice"]) != _kinds(new["choice"]):
        return o, n, (_scope(o, n) if o or n else "unscoped")  # "Use Postgres." / "Use Redis." (a cache too)
    kind = aliases.kind_words(alike)
    co, cn = _unverbed(old, new, o, n, kind)
    if not n and new.get("refers") and o:
        return co, cn, "wider"
    if co == cn:
        return co, cn, "same"
    if cn < co:
        return co, cn, "wider" if cn or n and n <= o else ""
    return co, cn, "narrower" if co < cn and (co or o) else ""


def _kinds(choices: list[str]) -> set[str]:
    return set().union(*(aliases.kinds(c) for c in choices))


def _unverbed(old: dict[str, Any], new: dict[str, Any], o: set[str], n: set[str], kind: set[str]
              ) -> tuple[set[str], set[str]]:
    """Two concerns without the words naming their choices' kind (`kind`) and, when they differ
    with them, the words saying how each choice does the job (decision_text's `verbs`: "Store
    feature flags in Unleash" / "Feature flags are served by Flagsmith" are both about
    {feature, flag}): when the choices are of one kind by their own names (not only as two
    products of one cloud: storing uploads in S3 and serving them from CloudFront are two
    jobs) and a concern is left on both sides."""
    co, cn = o - kind, n - kind
    if co == cn or not aliases.shared_kinds(old["choice"], new["choice"], parents=False):
        return co, cn
    vo, vn = o - set(old.get("verbs") or ()), n - set(new.get("verbs") or ())
    return (vo - kind, vn - kind) if vo and vn else (co, cn)


def relation(old: dict[str, Any], new: dict[str, Any]) -> tuple[str, str]:
    """("replaces" | "related" | "", why) for two statements (decision_text.statement), older first.

    Replaces: the newer is about the same concern (docs/graph.md, "Supersession by subject")
    and conflicts with the older: it rules out the older's choice, or chooses something else
    for it (a choice that only adds detail, "PostgreSQL 16" for "PostgreSQL", agrees), or
    another version of the same thing. The concerns (`concerns`) decide how sure that is:
    the same words or fewer ("the DB" after "the prototype's database") cover the older's
    concern; more words (a narrower concern: "the test database" after "the database")
    cover it only when the older's choice is said to be gone ("drop X", "no more X", "X is
    retired") or the newer names no choice of its own; no words at all only when it is said
    to be gone ("Replace Lerna with Nx") or both are unscoped. A newer decision about the
    older's choice ("Kafka topics get 12 partitions" after "Use Kafka for domain events")
    refines it. When the concerns only contain one another and the two conflict, or the
    newer rules the older's choice out and names no concern, the pair may conflict:
    ("related", "possibly replaces: ..."). Anything else that shares a concern word or a
    choice is related.
    """
    o, n, scope = concerns(old, new)
    said = set(old["subject"]) | set(new["subject"])
    ruled = [r for r in new["ruled_out"] for c in old["choice"] if _rules_out(r, c, said)]
    gone = [r for r in new.get("dropped") or [] for c in old["choice"] if _rules_out(r, c, said)]
    other = any(_value(a) == _value(b) for a in old["choice"] for b in new["choice"]) and not any(
        _agree(a, b) for a in old["choice"] for b in new["choice"])
    version = _other_version(old["choice"], new["choice"])
    about_choice = any(_stems(c) <= set(new["subject"]) for c in old["choice"] if c)
    if reset := _reset(old, new):
        return "replaces", reset
    if ruled and (scope in ("same", "wider", "unscoped") or (scope == "narrower" and (gone or not new["choice"]))):
        return "replaces", f"rules out {ruled[0]}"
    if gone and not new["subject"]:
        return "replaces", f"rules out {gone[0]}"
    apart = _apart(old["choice"], new["choice"])
    if scope in ("same", "wider") and (other or version) and not about_choice and not apart:
        return "replaces", f"chooses {version or new['choice'][0]} instead of {old['choice'][0]}"
    if scope == "unscoped" and version:
        return "replaces", f"chooses {version} instead of {old['choice'][0]}"
    if (ruled and ((scope in ("narrower", "") and o & n) or not new["subject"])) or (
            (scope in ("narrower", "wider") or apart and scope == "same") and (other or version) and not about_choice):
        said = f"rules out {ruled[0]}" if ruled else (
            f"chooses {version or new['choice'][0]} where it chose {old['choice'][0]}")
        return "related", f"{POSSIBLY}: {said}"
    return _related(old, new)


def _head_kinds(choice: str) -> set[str]:
    """The kinds of the name a choice ends with, its version aside ("Postgres full-text search":
    a search engine; "a YAML config file": none, a file is no kind), not of the names it is a
    part of (Create React App, a part of React, is no UI framework)."""
    words = choice.split()
    if len(words) > 1 and words[-1][:1].isdigit():
        words = words[:-1]
    for n in (3, 2, 1):
        if len(words) >= n and (found := aliases.name_kinds(" ".join(words[-n:]), parents=False)):
            return found
    return set()


def _apart(old: list[str], new: list[str]) -> bool:
    """Every choice of both is of a kind the table knows, and the two have no kind in common
    (an error tracker and a language, a translation library and a translation service): not
    alternatives ("Use TypeScript for the frontend" after "We use Sentry for frontend error
    tracking"); for the same concern, the newer at most possibly replaces the older."""
    ko, kn = [_head_kinds(c) for c in old], [_head_kinds(c) for c in new]
    if not ko or not kn or not all(ko + kn):
        return False
    return not set().union(*ko) & set().union(*kn)


def _reset(old: dict[str, Any], new: dict[str, Any]) -> str:
    """Why the newer sets another value for a setting the older stated beside its choice
    ("Black line length is 120" after "Format with Black, line length 88"), else ""."""
    named = set().union(*(_stems(c) for c in old["choice"] if c))
    setting = set(new["subject"]) - named
    for subject, values in old.get("also") or []:
        if setting and (setting <= set(subject) or set(subject) <= setting):
            for a in values:
                for b in new["choice"]:
                    if _value(b) and not _agree(a, b):
                        return f"sets {' '.join(subject)} to {b} where it was {a}"
    return ""


def _related(old: dict[str, Any], new: dict[str, Any]) -> tuple[str, str]:
    """("related", why) when the two share a choice or a concern word, else ("", "")."""
    o, n = set(old["subject"]), set(new["subject"])
    shared = [c for c in new["choice"] + new["ruled_out"] for o_ in old["choice"] if _agree(c, o_)]
    shared += [c for c in new["choice"] for o_ in old["ruled_out"] if _agree(c, o_)]
    shared += [c for c in old["choice"] if _stems(c) & n]  # "Redis's retry limit"
    shared += [c for c in new["choice"] if _stems(c) & o]
    if shared or o & n:
        why = f"both name {shared[0]}" if shared else f"both about {' '.join(sorted(o & n))}"
        return "related", f"related decision: {why}"
    return "", ""


def ms(ts: str) -> str:
    """An ISO-8601 UTC time cut to milliseconds, so event times (3 digits) and row times (6)
    compare as text."""
    return str(ts)[:23]


def stated_at(node: Node) -> str:
    """When a decision was last stated: `data.stated_at` (its latest evidence event, or the
    moment `engram decide` wrote it), else when its row was created."""
    data = node["data"] if isinstance(node["data"], dict) else {}
    return ms(data.get("stated_at") or node["created_at"])


def superseded_at(node: Node) -> str:
    """When a node was last superseded ("" if never)."""
    data = node["data"] if isinstance(node["data"], dict) else {}
    return next((ms(h.get("at") or "") for h in reversed(data.get("history") or []) if h.get("event") == "superseded"), "")


def _inherit(conn: Any, younger_id: str, older: Node) -> None:
    """Store what a decision that named neither its concern nor its thing has replaced as its own:
    a bare version is that thing's ("Upgrade to 3.11" after "Use Python 3.9" chooses Python 3.11),
    and one without a concern ("bump it to 18", "Move off Java 8 to 11") is about the older's,
    so that the next decision about either ("Bump Python to 3.12", "Java 17 for all services")
    finds what it replaces in turn."""
    younger = get_node(conn, younger_id)
    young, old = _statement(younger), _statement(older)
    named = _other_version(old["choice"], young["choice"])
    bare = [c for c in young["choice"] if c.removeprefix("v").replace(".", "").isdigit()]
    choice = [named if bare and c == bare[0] else c for c in young["choice"]] if named else young["choice"]
    subject = young["subject"] or old["subject"]
    if choice != young["choice"] or subject != young["subject"]:
        update_node(conn, younger_id, data={"statement": {**young, "choice": choice, "subject": subject}})


def _pointed_at(old: dict[str, Any], new: dict[str, Any], scope: str) -> tuple[str, ...] | None:
    """What a newer decision that names less than an older one retires it by: the older's concern
    when the newer's is wider ("the database", "switch it to SQS"), the older's choices when
    neither names a concern and the newer chooses only a value or a bare version ("bump to 20");
    None when the newer names what it replaces. Two such decisions pointed at by one newer are
    two guesses at what it replaces (supersede_replaced)."""
    if scope == "wider":
        return ("concern", *old["subject"])
    if scope == "unscoped" and new["choice"] and all(_value(c) for c in new["choice"]):
        return ("choice", *old["choice"])
    return None


def supersede_replaced(conn: Any, node_id: str, *, episode_id: str | None = None,
                       later: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Supersede the active decisions that this decision replaces (explicit decisions only),
    or this one when a decision stated after it replaces it; the ids superseded.

    Each pair is taken in the order its two decisions were stated (`stated_at`; `later`:
    decisions known to be stated after this one, the rest of a consolidation's range): a
    decision stated after this one is never retired by it, and retires it when it replaces
    it. A decision whose concern is wider than those of several older ones with different
    concerns ("the database" after "the analytics database" and "the prototype's database"),
    or that names no concern and only a value or a bare version that several unscoped older
    ones could take ("bump to 20" after "Use Node 18." and "Use Postgres 15."), retires none
    of them (_pointed_at): which one it replaces is unsure, so each gets a "possibly replaces"
    link. Every other active decision it is related to gets one `similar_to` edge
    (its reason "related decision: ..." or "possibly replaces: ..."; both stay active),
    whichever of the two was written first: a link does not depend on the order sessions are
    consolidated in.
    """
    new = get_node(conn, node_id)
    if not new or new["type"] != "decision" or new["status"] != "active":
        return []
    linked = {e["from_node"] if e["to_node"] == node_id else e["to_node"]
              for e in edges_of(conn, node_id, types=("similar_to",))}
    rows = conn.execute("SELECT id FROM nodes WHERE type = 'decision' AND status = 'active' AND id != ?", (node_id,))
    judged = []
    for other in get_nodes(conn, [r[0] for r in rows.fetchall()]).values():
        newer = other["id"] in later or stated_at(other) > stated_at(new)
        older, younger = (new, other) if newer else (other, new)
        old_s, young_s = _statement(older), _statement(younger)
        kind, why = relation(old_s, young_s)
        if kind == "replaces" and not (younger["data"] or {}).get("explicit"):
            kind = "related"
        judged.append((older, younger, kind, why, concerns(old_s, young_s)[2]))
    pointed = {_pointed_at(_statement(o), _statement(new), sc) for o, y, k, _, sc in judged if k == "replaces" and y is new}
    pointed.discard(None)
    out: list[str] = []
    for older, younger, kind, why, scope in judged:
        unsure = len(pointed) > 1 and _pointed_at(_statement(older), _statement(new), scope) is not None
        if kind == "replaces" and younger is new and unsure:
            kind, why = "related", f"{POSSIBLY}: {why}"
        if kind == "replaces" and older["id"] not in out and not (younger is new and node_id in out):
            supersede(conn, older["id"], younger["id"], reason=f"{why}: {younger['name'][:80]}", episode_id=episode_id)
            _inherit(conn, younger["id"], older)
            out.append(older["id"])
        elif kind and (older if younger is new else younger)["id"] not in linked:
            upsert_edge(conn, younger["id"], older["id"], "similar_to", strength=RELATED_STRENGTH,
                        source_episodes=[episode_id] if episode_id else [], data={"reason": why})
    return out
