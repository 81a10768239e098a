"""Entity resolution of versions (issue 26, docs/graph.md "Entity resolution"): a versioned mention
of a thing is that thing, its version kept as an attribute; two numbered members of a series are
two things; an abbreviated and a spelled-out marker are one. Each rule through the real Resolver
on a real SQLite file."""

from __future__ import annotations

import pytest

from engram.consolidate import entity_resolution as er
from engram.consolidate import graph_apply
from engram.graph import store
from engram.providers.offline import LocalEmbedder
from engram.retrieve import tiers


def _resolve(conn, proposed: str, existing: str, type: str = "concept") -> tuple[er.Resolution, str]:
    nid = store.create_node(conn, name=existing, type=type, description="", source_episodes=["ep1"])
    return er.Resolver(conn, LocalEmbedder()).resolve(proposed, type), nid


@pytest.mark.parametrize("proposed, existing, version", [
    ("SQLite 3.53.0", "SQLite", "3.53.0"),      # the spec's own example
    ("SQLite", "SQLite 3.53.0", ""),            # the thing met again without a version
    ("Python 3.12", "Python 3.11", "3.12"),     # two versions: one thing
    ("python3.12", "Python", "3.12"),           # glued on
    ("zod v3", "Zod", "3"),                     # "v" before the number
    ("Zod version 3", "Zod", "3"),              # spelled out
    ("node:20-alpine", "Node.js", "20-alpine"),  # an image's tag
    ("macOS Sonoma", "macOS", "14"),            # a version line the alias table lists ("macOS 14")
    ("flask-cors~=6.0.0", "Flask-Cors==5.0.0", "6.0.0"),  # requirement specifiers
    ("github.com/minio/minio-go/v7", "minio-go", "7"),     # a Go module's major version
    ("gopkg.in/yaml.v3", "gopkg.in/yaml.v2", "3"),
    ("OAuth 2.1", "OAuth 1.0a", "2.1"),         # a letter after a dotted version
    ("Claude 3 Opus", "Claude Opus 4.1", ""),   # versions inside the name
])  # fmt: skip
def test_a_versioned_mention_is_the_thing(conn, proposed, existing, version):
    res, nid = _resolve(conn, proposed, existing)
    assert (res.action, res.node_id, res.version) == ("merge", nid, version)


@pytest.mark.parametrize("proposed, existing", [
    ("Phase 3", "Phase 2"),
    ("Milestone 5", "Milestone 4"),
    ("v2 API", "v1 API"),
    ("API v3", "API v2"),
    ("Stripe API v2", "Stripe API v1"),
    ("schema v3", "schema v2"),
    ("hooks.json v2", "hooks.json v1"),         # a file's numbers are its format's
    ("Manifest V3", "Manifest V2"),
    ("Sprint 12", "Sprint 11"),
])  # fmt: skip
def test_two_members_of_a_series_are_two_things(conn, proposed, existing):
    res, nid = _resolve(conn, proposed, existing)
    assert res.action == "new" and res.version == ""  # never merged, nor a child of its sibling


def test_a_member_is_a_child_of_its_series(conn):
    res, nid = _resolve(conn, "Stripe API v2", "Stripe API")
    assert (res.action, res.node_id, res.how) == ("child", nid, "series member")


@pytest.mark.parametrize("proposed, existing", [
    ("API version 2", "API v2"),
    ("version 2 API", "v2 API"),
    ("Ph. 2", "Phase 2"),
    ("Phase2", "Phase 2"),
    ("version 2", "v2"),
    ("Zod ver. 3", "zod v3"),
])  # fmt: skip
def test_an_abbreviated_marker_is_the_spelled_out_one(conn, proposed, existing):
    res, nid = _resolve(conn, proposed, existing)
    assert (res.action, res.node_id) == ("merge", nid)


def test_a_name_the_table_knows_is_no_version(conn):
    """"V8 engine" is V8 (the table's), not "engine" at version 8; "OWASP Top 10" keeps its number."""
    res, nid = _resolve(conn, "V8 engine", "V8")
    assert (res.action, res.node_id, res.version) == ("merge", nid, "")
    assert er.Resolver(conn, LocalEmbedder()).resolve("OWASP Top 10", "concept").version == ""


@pytest.mark.parametrize("proposed,existing", [
    ("Upgrade to Python 3.12", "Upgrade to Python 3.11"),
    ("Use PostgreSQL 16 for the database", "Use PostgreSQL for the database"),  # a version named at all: refined
])
def test_a_statement_about_another_version_is_another_statement(conn, proposed, existing):
    res, nid = _resolve(conn, proposed, existing, type="decision")
    assert res.node_id != nid and res.version == ""  # decisions keep their versions apart
    assert er.name_relation("Upgrade to Python 3.12", "Upgrade to Python 3.11") == "merge"  # as a thing's name


def _request(*names: str) -> dict:
    nodes = [{"op": "create", "key": f"n{i}", "name": n, "type": "concept", "files": [], "evidence": [],
              "description": ""} for i, n in enumerate(names)]
    return {"episode": {"goal": "g", "approach": "a", "outcome": "success", "discoveries": [], "decisions": [],
                        "errors": []}, "graph": {"nodes": nodes, "edges": []}}


def _apply(conn, request: dict, to_seq: int) -> None:
    record = {"id": store.new_id("ep"), "goal": "g", "approach": "a", "outcome": "success",
              "from_seq": to_seq - 9, "to_seq": to_seq, "kind": "full", "files_modified": []}
    planned = graph_apply.plan(request, er.Resolver(conn, LocalEmbedder()))
    graph_apply.apply(conn, session="s1", from_seq=to_seq - 9, to_seq=to_seq, record=record, request=request,
                      planned=planned)


def test_the_versions_are_kept_on_the_one_node_and_shown(conn):
    _apply(conn, _request("SQLite 3.45"), 10)
    _apply(conn, _request("SQLite 3.53.0", "sqlite3"), 20)
    _apply(conn, _request("SQLite 3.45"), 30)
    nodes = store.find_by_name(conn, "SQLite 3.45")
    assert len(nodes) == 1 and nodes[0]["data"]["versions"] == ["3.45", "3.53.0"]
    assert len(conn.execute("SELECT id FROM nodes WHERE type = 'concept'").fetchall()) == 1
    assert "versions seen: 3.45, 3.53.0" in tiers.line(nodes[0], tiers.FULL)
