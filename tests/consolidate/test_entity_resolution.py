"""Entity resolution: merge / child / new, names first (rules, the alias table), per-model bands,
the model's adjudication of the ambiguous band, supersession recovery."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engram.consolidate import entity_resolution as er
from engram.consolidate import graph_apply
from engram.graph import supersession
from engram.errors import ConfigError
from engram.graph import store
from engram.language import aliases
from engram.providers.offline import LocalEmbedder

REPO = Path(__file__).resolve().parents[2]


def _resolver(conn):
    return er.Resolver(conn, LocalEmbedder())


@pytest.mark.parametrize("a, b, expected", [
    ("  sqlite ", "SQLite", "merge"),              # casefold, spaces
    ("unit tests", "Unit test", "merge"),          # plural
    ("Node.js", "NodeJS", "merge"),                # punctuation
    ("k8s", "Kubernetes", "merge"),                # the alias table
    ("Postgres DB", "PostgreSQL", "merge"),        # a kind word after a known name
    ("SQLite 3.53.0", "SQLite", "merge"),          # a versioned mention is the thing (docs/spec.md; issue 26)
    ("SQLite 3.45", "SQLite 3.53.0", "merge"),     # two versions: one thing, the versions its attribute
    ("Python 3.12", "Python 3.12", "merge"),
    ("API v2", "API v3", "new"),                   # two members of a series are two things
    ("tsconfig.json", "TypeScript", "child"),      # a part, sharing no word
    ("Redis cache", "Redis", "child"),             # a known name plus a qualifier
    ("React Native", "React", "new"),              # two names of their own
    ("email validation", "ID validation", "new"),  # siblings
    ("scenario agent", "oracle", None),            # the embeddings decide
    # round 2 (docs/labelled-sets.md): rules of general value, examples from the development pairs
    ("ExternalDNS", "external-dns", "merge"),      # a squashed name is no plural
    ("Mongo Atlas", "MongoDB Atlas", "merge"),     # an alias inside a longer name
    ("Firebase Authentication", "Firebase Auth", "merge"),
    ("SBOM", "Software Bill of Materials", "merge"),  # an initialism (small words counted or not)
    ("PVC", "PersistentVolumeClaim", "merge"),     # capitalised parts count as words
    ("CI", "CodeIgniter", "new"),                  # the table says what CI is: no initialism
    ("Amazon RDS", "RDS", "merge"),                # an owner's name before its product's
    ("Secrets Manager", "AWS Secrets Manager", "merge"),
    ("AWS Athena", "Amazon Athena", "merge"),      # two prefixes of one owner
    ("Amazon RDS", "AWS", "child"),                # the owner's product
    ("AWS", "Amazon RDS", "new"),
    ("AWS credentials", "credentials", "child"),   # a common noun after the owner: qualified, not the same
    ("Python pip", "pip", "merge"),                # a parent's name before its part's
    ("regression tests", "regression testing", "merge"),
    ("Vue3", "Vue2", "merge"),                     # glued versions
    ("python3.12", "Python 3.12", "merge"),
    ("ES2022", "ES2020", "merge"),
    ("UUIDv7", "UUIDv4", "merge"),
    ("GPT-5", "GPT-4", "merge"),
    ("EC2", "S3", "new"),                          # names, not versions
    ("Docker Compose v2", "Docker Compose", "merge"),
    ("pytest.ini", "pytest", "child"),             # files named for a tool
    (".stylelintrc", "Stylelint", "child"),
    (".coveragerc", "coverage.py", "child"),
    ("playwright.config.ts", "Playwright", "child"),
    ("tsconfig.base.json", "TypeScript", "child"),
    ("Node.js", "JavaScript", "new"),              # "Node.js" is no file
    ("ArgoCD Image Updater", "Argo CD", "child"),  # a qualifier after a squashed name
    # round 3: rules of general value, examples from the development pairs (dev, dev2, holdout2)
    (".editorconfig", "EditorConfig", "child"),    # a file is never a name by its letters alone
    ("NextAuth", "NextAuth.js", "merge"),          # a ".js" suffix
    ("@langchain/langgraph", "LangGraph", "merge"),  # an npm scope is the publisher
    ("@langchain/langgraph", "LangChain", "child"),
    ("@sentry/node", "Node.js", "new"),            # Sentry's package for Node.js, not Node.js
    ("@types/lodash", "Lodash", "child"),          # type definitions
    ("gin-gonic/gin", "Gin", "merge"),             # a repository path
    ("github.com/spf13/cobra", "cobra", "merge"),  # a Go module path
    ("CI/CD", "continuous delivery", "new"),       # an abbreviation, no path
    ("py311", "Python 3.11", "merge"),             # Python's version tags
    ("python3", "Python", "merge"),                # the 3.x line is Python at a version
    ("ES5", "ES6", "merge"),                       # ECMAScript editions are versions
    ("ES6", "ES2015", "merge"),                    # edition 6 is the year 2015
    ("ECMAScript 2022", "ES2022", "merge"),
    ("Pipfile.lock", "Pipenv", "child"),           # the lock file of a part the table gives it
    ("Pipfile", "Pipfile.lock", "new"),            # two files: a lock file is no part of its manifest
    ("build.gradle.kts", "Gradle", "child"),       # the extension names the tool
    ("Gruntfile.js", "Grunt", "child"),            # "<tool>file" manifests
    ("Vagrantfile", "Vagrant", "child"),
    ("D1", "Cloudflare D1", "merge"),              # an owner line
    ("jsonwebtoken", "JWT", "child"),              # a table line: the library, not the token
    # round 4: the broad table, and owners before names the table knows
    ("Microsoft Clarity", "Clarity", "merge"),     # an owner before a name the table does not know
    ("GitHub MCP server", "MCP server", "child"),  # the owner's form of another known thing, not it
    ("DigitalOcean Kafka", "Kafka", "child"),      # a vendor's managed form
    ("Google BigQuery", "Google", "child"),        # both known, the owner's prefix links them
    ("Fly.io", "Fly", "merge"),                    # a site's domain used as the name
    ("Make.com", "Make", "new"),                   # not when the table gives the bare name another meaning
    ("SolidJS", "Solid", "merge"),                 # a kind glued on
    ("TimescaleDB", "Timescale", "merge"),
    ("D3.js", "D3", "merge"),                      # short as the bare name is
    ("SwiftUI", "Swift", "child"),                 # a qualifier glued on at a capital
    ("TestPyPI", "PyPI", "child"),
    ("Reactor", "React", None),                    # no capital, no glued qualifier
    ("Traefik Proxy", "Traefik", "merge"),         # the concept the table makes it a part of
    ("Istio service mesh", "Istio", "merge"),
    ("Zod schemas", "Zod", "child"),               # a word of a concept's other name is no kind word
    ("Project Lombok", "Lombok", "merge"),         # "project" before the name
    ("@sveltejs/kit", "SvelteKit", "merge"),       # a scope and its package spell the name
    ("MST", "MobX-State-Tree", "merge"),           # the words' first letters
    ("lodash.debounce", "Lodash", "child"),        # a member after a dot
    ("Gemfile.lock", "Gemfile", "new"),            # two files
    ("nuget.config", "NuGet", "child"),            # more configuration extensions
    ("mix.exs", "Mix", "child"),
    ("node:20-alpine", "Node.js", "merge"),        # an image's tag is a version; its variant stays in it
    ("node:20-alpine", "node:20", "merge"),
    ("postgres:16", "PostgreSQL 16", "merge"),
    ("actions/setup-node@v4", "actions/setup-node", "merge"),  # pinned with "@"
    ("C++20", "C++17", "merge"),                   # a version glued on after "++"
])  # fmt: skip
def test_name_relation(a, b, expected):
    assert er.name_relation(a, b) == expected


def test_owner_lines_and_their_copy():
    table = aliases.parse("AWS = amazon web services\nAWS ^ amazon, aws\n")
    assert table.owners == {"amazon": "aws", "aws": "aws"}
    assert aliases.for_config({"aliases": {"Attio": ["our crm"]}}).owners == aliases.table().owners


def test_project_aliases_extend_the_table():
    table = aliases.for_config({"aliases": {"Attio": ["attio crm", "our crm"]}})
    assert er.name_relation("our CRM", "Attio", table) == "merge"
    assert er.name_relation("our CRM", "Attio") is None
    with pytest.raises(ConfigError, match="aliases"):
        aliases.for_config({"aliases": {"Attio": "crm"}})


def test_merge_child_new(conn):
    sqlite = store.create_node(conn, name="SQLite", type="concept", description="Embedded SQL database")
    r = _resolver(conn)
    assert (r.resolve("sqlite3", "concept").action, r.resolve("sqlite3", "concept").how) == ("merge", "alias")
    versioned = r.resolve("SQLite 3.53.0", "concept", "Embedded SQL database, version 3.53")
    assert (versioned.action, versioned.node_id, versioned.how, versioned.version) == ("merge", sqlite, "version", "3.53.0")
    assert r.resolve("SQLite migration", "concept").how == "qualified"
    k8s = store.create_node(conn, name="Kubernetes", type="concept")
    assert (r.resolve("K8s", "concept").action, r.resolve("K8s", "concept").node_id) == ("merge", k8s)
    assert r.resolve("Kubernetes operator", "concept", "Cluster automation").action == "child"
    assert r.resolve("Terraform", "concept", "Infrastructure as code").action == "new"


def test_candidates_the_first_letters_miss(conn):
    """A name the rules relate to the proposal need not start like any of its words."""
    aws = store.create_node(conn, name="AWS Secrets Manager", type="concept", source_episodes=["ep1"])
    attio = store.create_node(conn, name="attio MCP server", type="concept", source_episodes=["ep1"])
    sast = store.create_node(conn, name="Static Application Security Testing", type="concept")
    ts = store.create_node(conn, name="TypeScript", type="concept")
    r = _resolver(conn)
    assert (r.resolve("Secrets Manager", "concept").node_id, r.resolve("Secrets Manager", "concept").how) == (aws, "alias")
    sibling = r.resolve("github MCP server", "concept")  # found by a shared word, ruled out by the sibling rule
    assert sibling.action == "new" and attio in r._ruled_out
    assert r.resolve("SAST", "concept").node_id == sast  # by its first letter
    ebs = store.create_node(conn, name="Amazon Elastic Block Store", type="concept")
    assert r.resolve("EBS", "concept").node_id == ebs  # its first letter after an owner's prefix
    gradle = store.create_node(conn, name="Gradle", type="concept")
    assert r.resolve("build.gradle.kts", "concept").node_id == gradle  # by the tool its extension names
    python = store.create_node(conn, name="Python 3.12", type="concept")
    assert r.resolve("py3.12", "concept").node_id == python  # by its name without the version
    assert (r.resolve("tsconfig.base.json", "concept").node_id, r.resolve("tsconfig.base.json", "concept").how) == (ts, "file")
    sam = store.create_node(conn, name="AWS SAM", type="concept")
    assert r.resolve("samconfig.toml", "concept").node_id == sam  # a file's short stem after an owner's prefix
    pypi = store.create_node(conn, name="PyPI", type="concept")
    assert r.resolve("TestPyPI", "concept").node_id == pypi  # by the name glued after a capital


def test_embedding_band_and_rules_that_rule_a_node_out(conn):
    store.create_node(conn, name="React", type="concept")
    r = _resolver(conn)
    assert r.resolve("React Native", "concept").action == "new"  # names decided: never a merge by cosine
    lo, hi = er.bands_for(LocalEmbedder.model)
    store.create_node(conn, name="spreading activation", type="concept")
    hit = r.resolve("spreading-activation model", "concept")
    assert hit.action in ("child", "new") and hit.how in ("qualified", "embedding")


def test_type_must_match(conn):
    store.create_node(conn, name="SQLite", type="concept")
    assert _resolver(conn).resolve("SQLite", "decision").action == "new"


def test_file_concepts_resolve_by_exact_path_only(conn):
    store.create_node(conn, name="src/a/util.py", type="concept", data={"kind": "file"})
    r = _resolver(conn)
    assert r.resolve("src/b/util.py", "concept", exact_only=True).action == "new"
    assert r.resolve("src/a/util.py", "concept", exact_only=True).action == "merge"


def test_bands_are_per_model():
    assert er.bands_for("engram-hash-v1") != er.SPEC_BANDS
    assert er.bands_for("voyage-3-lite") == er.SPEC_BANDS == (0.95, 0.80)


def test_calibration_set_and_report():
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import entity_resolution_calibration as cal
    finally:
        sys.path.remove(str(REPO / "bench"))
    for dev_half, held_half, path in (("dev", "holdout", cal.REAL), ("dev2", "holdout2", cal.ROUND2)):
        dev, held = cal.load_real(dev_half), cal.load_real(held_half)
        assert len(dev) + len(held) >= 200 and {p.label for p in dev + held} == {"same", "child", "different"}
        groups = {half: {r[1] for r in cal._rows(path) if r[0] == half} for half in (dev_half, held_half)}
        assert not groups[dev_half] & groups[held_half]  # a held-out family never seen in tuning
    assert {p.in_table for p in cal.load_real("holdout2")} == {True, False}
    round3 = cal._rows(cal.ROUND3)
    assert {r[0] for r in round3} == {"holdout3"} and len(round3) >= 200  # held out whole
    assert {r[4] for r in round3} == {"same", "child", "different"} and {r[5] for r in round3} <= {"yes", "no"}
    earlier = {n.casefold() for path in (cal.REAL, cal.ROUND2) for r in cal._rows(path) for n in (r[2], r[3])}
    assert not {n.casefold() for r in round3 for n in (r[2], r[3])} & earlier  # no name of an earlier round
    bands = er.bands_for(LocalEmbedder.model)
    # the measured figures (docs/labelled-sets.md) less a small margin: round 1's held-out half 0.99
    # (an upper bound, the table was written for it); round 2's held-out half 1.00 now that round 3
    # tuned on it (0.81 at its own first run); round 3, held out, 0.71 (issue 17's bar is 0.85)
    for half, floor in (("holdout", 0.97), ("holdout2", 0.98), ("holdout3", 0.69)):
        pairs = cal.load_real(half)
        assert cal.macro_f1(cal.scores(pairs, cal.similarities(LocalEmbedder(), pairs), bands)) >= floor



def test_round4_pairs_file():
    """Round 4's set (docs/labelled-sets.md): held out whole, written blind to the resolver, read after
    its run and development material since round 5; only its shape is checked here."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import entity_resolution_calibration as cal
    finally:
        sys.path.remove(str(REPO / "bench"))
    round4 = cal._rows(cal.ROUND4)
    assert all(len(r) == 8 for r in round4) and len(round4) >= 250
    assert {r[0] for r in round4} == {"holdout4"} and {r[5] for r in round4} == {"unknown"}
    assert {r[4] for r in round4} == {"same", "child", "different"}
    assert len(cal.load_real("holdout4")) == len(round4)
    assert "holdout4" in cal.HALVES["dev"] and "holdout4" not in cal.HALVES["holdout"]
    assert cal.HALVES["holdout"] == ["holdout5"] and len(cal.load_real("holdout5")) >= 200  # round 5: the headline
    earlier = {n.casefold() for path in (cal.REAL, cal.ROUND2, cal.ROUND3) for r in cal._rows(path) for n in (r[2], r[3])}
    earlier |= {n.casefold() for p in cal.load_pairs() for n in (p.proposed, p.existing)}
    assert not {n.casefold() for r in round4 for n in (r[2], r[3])} & earlier  # no name of an earlier round

# -- through graph_apply ------------------------------------------------------------------


def _request(*nodes, outcome="success"):
    return {"episode": {"goal": "g", "approach": "a", "outcome": outcome, "discoveries": [], "decisions": [],
                        "errors": []},
            "graph": {"nodes": [{"op": "create", "files": [], "evidence": [], "description": "", **n}
                                for n in nodes], "edges": []}}


def _apply(conn, request, to_seq=10, session="s1"):
    record = {"id": store.new_id("ep"), "goal": "g", "approach": "a", "outcome": request["episode"]["outcome"],
              "from_seq": to_seq - 9, "to_seq": to_seq, "kind": "full", "files_modified": []}
    planned = graph_apply.plan(request, _resolver(conn))
    return graph_apply.apply(conn, session=session, from_seq=to_seq - 9, to_seq=to_seq, record=record,
                             request=request, planned=planned)


def test_apply_merges_and_adds_the_source_episode(conn):
    sqlite = store.create_node(conn, name="SQLite", type="concept", source_episodes=["ep_old"])
    out = _apply(conn, _request({"key": "n1", "name": "sqlite3", "type": "concept"},
                                {"key": "n2", "name": "SQLite migration", "type": "concept"}))
    assert out.counts["merged"] == 1 and out.counts["children"] == 1
    node = store.get_node(conn, sqlite)
    assert node["source_episodes"] == ["ep_old", out.episode_id]
    child = store.find_by_name(conn, "SQLite migration")[0]
    assert store.find_edge(conn, child["id"], sqlite, "version_of")
    assert store.find_edge(conn, child["id"], out.episode_node, "discovered_during")


def test_same_range_applies_once(conn):
    req = _request({"key": "n1", "name": "Redis", "type": "concept"})
    assert _apply(conn, req) is not None
    assert _apply(conn, req) is None
    assert len(store.find_by_name(conn, "Redis")) == 1


def test_decision_data_for_the_contradiction_checker(conn):
    _apply(conn, _request({"key": "d1", "name": "Use orjson instead of json in workers", "type": "decision",
                           "explicit": True, "rationale": "it is faster"}))
    d = store.find_by_name(conn, "Use orjson instead of json in workers")[0]
    assert d["description"] == "Decision: Use orjson instead of json in workers because it is faster"
    assert d["strength"] == graph_apply.EXPLICIT_STRENGTH
    assert d["data"]["explicit"] is True and d["data"]["requires"] == ["orjson"] and d["data"]["forbids"] == ["json"]


def _superseded_decision(conn):
    old = store.create_node(conn, name="Use JWT for sessions", type="decision", strength=0.85,
                            data={"explicit": True})
    new = store.create_node(conn, name="Use server-side sessions", type="decision", strength=0.85)
    supersession.supersede(conn, old, new, reason="moved to server sessions")
    return old, new


def test_supersession_recovery_explicit_unsupersedes(conn):
    old, new = _superseded_decision(conn)
    out = _apply(conn, _request({"key": "d1", "name": "use JWT for sessions", "type": "decision",
                                 "explicit": True, "rationale": "the mobile client needs stateless auth"}))
    assert out.counts["recovered"] == 1
    node = store.get_node(conn, old)
    assert node["status"] == "active" and node["strength"] > 0
    assert [h["event"] for h in node["data"]["history"]] == ["superseded", "unsuperseded"]


def test_supersession_recovery_implicit_annotates_and_reinforces_successor(conn):
    old, new = _superseded_decision(conn)
    out = _apply(conn, _request({"key": "d1", "name": "Use JWT for sessions", "type": "decision",
                                 "explicit": False}))
    assert out.counts["annotated"] == 1 and out.counts["recovered"] == 0
    node = store.get_node(conn, old)
    assert node["status"] == "superseded" and node["strength"] == 0
    assert node["data"]["history"][-1]["event"] == "reappeared"
    assert out.episode_id in store.get_node(conn, new)["source_episodes"]
    assert len(store.find_by_name(conn, "Use JWT for sessions")) == 1


def test_failure_inside_the_transaction_writes_nothing(conn, monkeypatch):
    req = _request({"key": "n1", "name": "Redis", "type": "concept"})
    monkeypatch.setattr(store, "record_consolidation", lambda *a, **k: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        _apply(conn, req)
    assert conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM episodes").fetchone()[0] == 0
