-- engram's database schema, as the ordered list of migrations that builds it.
--
-- Each `-- @migration <name>` header starts one migration; engram/graph/migrations.py runs
-- each section once, in order, inside its own transaction, and records its name in
-- `schema_migrations`. A new database and an old one go through the same path.
-- Never edit a section that has shipped: append a new one.
--
-- The vector table (`node_embeddings`, a sqlite-vec vec0 table whose dimension comes from
-- the embedding model) is created at run time by engram/graph/embeddings.py, not here, so
-- every table below can be read by any SQLite >= 3.38 without extensions.

-- @migration m001_spec_graph
-- The specification's three tables and five indexes, verbatim.
CREATE TABLE IF NOT EXISTS nodes (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    type            TEXT NOT NULL
                    CHECK (type IN ('concept','episode','decision','finding','error','pattern')),
    description     TEXT NOT NULL DEFAULT '',
    strength        REAL NOT NULL DEFAULT 0 CHECK (strength >= 0 AND strength <= 1),
    status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active','superseded')),
    superseded_by   TEXT REFERENCES nodes(id) ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED,
    affected_files  TEXT NOT NULL DEFAULT '[]',   -- JSON array of project-relative paths
    source_episodes TEXT NOT NULL DEFAULT '[]',   -- JSON array of episode ids
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
-- The spec's edges(from_node) index is declared UNIQUE over (from_node, to_node, type):
-- one index both serves from_node lookups and keeps one edge per (from, to, type).
-- (A rowid table: WITHOUT ROWID keyed by random ids measured 12% larger at 5,000 nodes.)
CREATE TABLE IF NOT EXISTS edges (
    id              TEXT PRIMARY KEY,
    from_node       TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    to_node         TEXT NOT NULL REFERENCES nodes(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    type            TEXT NOT NULL
                    CHECK (type IN ('requires','interacts_with','discovered_during','caused_by',
                                    'resolved_by','similar_to','contradicts','version_of','supersedes')),
    strength        REAL NOT NULL DEFAULT 0 CHECK (strength >= 0 AND strength <= 1),
    source_episodes TEXT NOT NULL DEFAULT '[]',
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS episodes (
    id           TEXT PRIMARY KEY,
    session_id   TEXT NOT NULL,
    goal         TEXT NOT NULL DEFAULT '',
    approach     TEXT NOT NULL DEFAULT '',
    outcome      TEXT NOT NULL CHECK (outcome IN ('success','partial','failure')),
    episode_data TEXT NOT NULL DEFAULT '{}',
    created_at   TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS edges_from_node ON edges(from_node, to_node, type);
CREATE INDEX IF NOT EXISTS edges_to_node ON edges(to_node);
CREATE INDEX IF NOT EXISTS nodes_type ON nodes(type);
CREATE INDEX IF NOT EXISTS nodes_strength ON nodes(strength);
-- Kept because the spec lists it; file lookups use node_files below (a JSON array
-- cannot be searched by one of its elements through an index).
CREATE INDEX IF NOT EXISTS nodes_affected_files ON nodes(affected_files);

-- @migration m002_engram_tables
-- What the spec leaves implicit but retrieval, consolidation and maintenance need.
ALTER TABLE nodes ADD COLUMN name_key TEXT NOT NULL DEFAULT '';       -- casefolded, whitespace-collapsed name
ALTER TABLE nodes ADD COLUMN summary TEXT NOT NULL DEFAULT '';        -- one line, for medium-tier retrieval
ALTER TABLE nodes ADD COLUMN data TEXT NOT NULL DEFAULT '{}';         -- JSON object, free structure
-- Strength inputs (engram/graph/strength.py computes strength from these alone).
ALTER TABLE nodes ADD COLUMN episode_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE nodes ADD COLUMN sessions_without_reinforcement INTEGER NOT NULL DEFAULT 0;
ALTER TABLE nodes ADD COLUMN outcome_success INTEGER NOT NULL DEFAULT 0;
ALTER TABLE nodes ADD COLUMN outcome_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE nodes ADD COLUMN causal INTEGER NOT NULL DEFAULT 0 CHECK (causal IN (0, 1));
ALTER TABLE nodes ADD COLUMN last_reinforced_session TEXT;
ALTER TABLE edges ADD COLUMN data TEXT NOT NULL DEFAULT '{}';         -- e.g. a supersedes edge's reason
UPDATE nodes SET name_key = lower(trim(name)) WHERE name_key = '';   -- refined by migrations.py
UPDATE nodes SET episode_count = json_array_length(source_episodes) WHERE json_valid(source_episodes);
CREATE INDEX IF NOT EXISTS nodes_name_key ON nodes(name_key);
-- Partial: superseded nodes are few, and a full status index tempts the planner into
-- scanning by status instead of using the id / path / name indexes.
CREATE INDEX IF NOT EXISTS nodes_superseded ON nodes(status) WHERE status = 'superseded';
-- The superseded_by foreign key's child index: without it SQLite scans every node for each
-- node inserted while a deferred reference is outstanding (quadratic bulk inserts).
CREATE INDEX IF NOT EXISTS nodes_superseded_by ON nodes(superseded_by) WHERE superseded_by IS NOT NULL;
CREATE INDEX IF NOT EXISTS episodes_session ON episodes(session_id);

-- file -> node lookup for involuntary retrieval and the contradiction check: keyed by
-- path first, so `WHERE path = ?` is a primary-key range and no second index is needed.
-- No foreign key: SQLite would then need an index on node_id for its checks (without
-- one, bulk inserts went quadratic); graph.py writes both sides in one transaction and
-- the nodes_deleted trigger below removes a deleted node's links.
CREATE TABLE IF NOT EXISTS node_files (
    path    TEXT NOT NULL,
    node_id TEXT NOT NULL,
    PRIMARY KEY (path, node_id)
) WITHOUT ROWID;
INSERT OR IGNORE INTO node_files (node_id, path)
    SELECT n.id, j.value FROM nodes n, json_each(n.affected_files) j
    WHERE json_valid(n.affected_files) AND j.type = 'text';

-- One row per applied event range: a consolidation takes effect exactly once.
CREATE TABLE IF NOT EXISTS consolidations (
    session_id TEXT NOT NULL,
    from_seq   INTEGER NOT NULL,
    to_seq     INTEGER NOT NULL,
    episode_id TEXT,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (session_id, to_seq)
) WITHOUT ROWID;

-- Sessions already counted by activity-relative decay (each counts once).
CREATE TABLE IF NOT EXISTS decay_sessions (
    session_id TEXT PRIMARY KEY,
    counted_at TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- Keys that `engram forget` removed and consolidation must not recreate.
CREATE TABLE IF NOT EXISTS tombstones (
    key        TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
) WITHOUT ROWID;

-- Vectors when sqlite-vec cannot load: little-endian float32, L2-normalised.
CREATE TABLE IF NOT EXISTS node_vectors (
    node_id TEXT PRIMARY KEY,
    vector  BLOB NOT NULL
) WITHOUT ROWID;

-- Which nodes have an up-to-date embedding; a changed name or description drops the row
-- (trigger below), so the next sync re-embeds exactly the stale nodes.
CREATE TABLE IF NOT EXISTS embedded (
    node_id   TEXT PRIMARY KEY,
    text_hash TEXT NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS nodes_text_changed
    AFTER UPDATE OF name, description ON nodes
    WHEN OLD.name IS NOT NEW.name OR OLD.description IS NOT NEW.description
BEGIN
    DELETE FROM embedded WHERE node_id = NEW.id;
END;
CREATE TRIGGER IF NOT EXISTS nodes_deleted AFTER DELETE ON nodes
BEGIN
    DELETE FROM embedded WHERE node_id = OLD.id;
    DELETE FROM node_vectors WHERE node_id = OLD.id;
    DELETE FROM node_files WHERE node_id = OLD.id;
END;

-- Remote embeddings by (model, text hash): the same text is never requested twice.
CREATE TABLE IF NOT EXISTS embedding_cache (
    model     TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    vector    BLOB NOT NULL,
    PRIMARY KEY (model, text_hash)
) WITHOUT ROWID;

-- @migration m003_knowledge_kinds
-- The knowledge kinds (docs/knowledge.md) live in nodes.data: `kind` (command, gotcha,
-- unfinished, instruction, ...), `key` (what a newer node of the same key replaces) and
-- `alias` (a second key the same item is known by: a pull request by its branch).
-- SessionStart lists the live nodes of some kinds whatever the entry points; consolidation
-- finds the live nodes of a key. Both are index lookups, not scans of every node's JSON.
CREATE INDEX IF NOT EXISTS nodes_kind ON nodes(json_extract(data, '$.kind')) WHERE status = 'active';
CREATE INDEX IF NOT EXISTS nodes_data_key ON nodes(json_extract(data, '$.key')) WHERE status = 'active';
CREATE INDEX IF NOT EXISTS nodes_data_alias ON nodes(json_extract(data, '$.alias')) WHERE status = 'active';

-- @migration m003_model_calls
-- The ledger: one row per model call on any model path (consolidation, contradiction check),
-- written by engram/providers/budget.py through engram/graph/ledger.py. The daily token
-- budget and `engram status` read it. `at` is UTC ISO-8601 with microseconds (text sorts in
-- time order); token columns are the vendor's report normalised: `input_tokens` excludes
-- cached input, which is `cache_read_tokens` (read) and `cache_write_tokens` (written);
-- `cost_usd` is the cost the provider reported (NULL when it reports none).
CREATE TABLE IF NOT EXISTS model_calls (
    at                 TEXT NOT NULL,
    provider           TEXT NOT NULL,
    model              TEXT NOT NULL DEFAULT '',
    purpose            TEXT NOT NULL DEFAULT '',
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd           REAL,
    ok                 INTEGER NOT NULL DEFAULT 1 CHECK (ok IN (0, 1))
);
CREATE INDEX IF NOT EXISTS model_calls_provider_at ON model_calls(provider, at);

-- @migration m004_decision_decay
-- Decisions decay by the formula like every node (engram/graph/strength.py, docs/graph.md
-- "Strength"): `asserted` is the strength a node was stated with before any episode
-- observed it again (an explicit decision 0.85, an implicit one 0.35, else 0), the floor
-- of its frequency term; `decay_rate` is the rate of its recency term (the spec's 0.1, 0.05
-- for an explicit decision). Decisions also get `data.statement` (their subject, choice
-- and what they rule out: language/decision_text.py), in the Python step of migrations.py.
ALTER TABLE nodes ADD COLUMN asserted REAL NOT NULL DEFAULT 0 CHECK (asserted >= 0 AND asserted <= 1);
ALTER TABLE nodes ADD COLUMN decay_rate REAL NOT NULL DEFAULT 0.1 CHECK (decay_rate >= 0);
UPDATE nodes SET asserted = CASE WHEN json_extract(data, '$.explicit') THEN 0.85 ELSE 0.35 END,
                 decay_rate = CASE WHEN json_extract(data, '$.explicit') THEN 0.05 ELSE 0.1 END
    WHERE type = 'decision';

-- @migration m005_node_fulltext
-- The keyword index `engram query` and query_knowledge search (engram/graph/fulltext.py):
-- SQLite's FTS5 over each node's name, summary, description and file paths, kept current
-- by the triggers below, so a question reads an index instead of tokenising every node
-- (~6 s per question at 50,000 nodes before). FTS5 is compiled into the SQLite of CPython's
-- builds and of sqlean.py. `node_fulltext_rows` finds a node's index row for the update
-- and delete triggers: nodes has no INTEGER PRIMARY KEY, and VACUUM (`engram forget`)
-- may renumber its rowids, so they cannot be the index's. Only text columns fire the
-- update trigger: decay rewrites every node's strength and must not touch the index.
CREATE VIRTUAL TABLE IF NOT EXISTS node_fulltext USING fts5(node_id UNINDEXED, body, tokenize = 'porter unicode61');
CREATE TABLE IF NOT EXISTS node_fulltext_rows (
    node_id   TEXT PRIMARY KEY,
    fts_rowid INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS node_fulltext_inserted AFTER INSERT ON nodes
BEGIN
    INSERT INTO node_fulltext (node_id, body)
        VALUES (NEW.id, NEW.name || ' ' || NEW.summary || ' ' || NEW.description || ' '
                        || replace(NEW.affected_files, '"', ' '));
    INSERT OR REPLACE INTO node_fulltext_rows (node_id, fts_rowid) VALUES (NEW.id, last_insert_rowid());
END;
CREATE TRIGGER IF NOT EXISTS node_fulltext_changed
    AFTER UPDATE OF name, summary, description, affected_files ON nodes
    WHEN OLD.name IS NOT NEW.name OR OLD.summary IS NOT NEW.summary
         OR OLD.description IS NOT NEW.description OR OLD.affected_files IS NOT NEW.affected_files
BEGIN
    DELETE FROM node_fulltext WHERE rowid = (SELECT fts_rowid FROM node_fulltext_rows WHERE node_id = OLD.id);
    INSERT INTO node_fulltext (node_id, body)
        VALUES (NEW.id, NEW.name || ' ' || NEW.summary || ' ' || NEW.description || ' '
                        || replace(NEW.affected_files, '"', ' '));
    INSERT OR REPLACE INTO node_fulltext_rows (node_id, fts_rowid) VALUES (NEW.id, last_insert_rowid());
END;
CREATE TRIGGER IF NOT EXISTS node_fulltext_deleted AFTER DELETE ON nodes
BEGIN
    DELETE FROM node_fulltext WHERE rowid = (SELECT fts_rowid FROM node_fulltext_rows WHERE node_id = OLD.id);
    DELETE FROM node_fulltext_rows WHERE node_id = OLD.id;
END;
INSERT INTO node_fulltext (rowid, node_id, body)
    SELECT rowid, id, name || ' ' || summary || ' ' || description || ' ' || replace(affected_files, '"', ' ')
    FROM nodes;
INSERT INTO node_fulltext_rows (node_id, fts_rowid) SELECT id, rowid FROM nodes;

-- @migration m006_live_decisions_index
-- The live decisions, strongest first, with what a prompt or a question is matched against
-- (readonly.decisions_about: the name and `data.statement.subject`): the 2,000 strongest
-- are read from this index alone, in its order. Before it, every live decision was read
-- from the table and sorted (~6,200 at 50,000 nodes: 25-45 ms of each `engram query` and
-- prompt hook; 6 ms now). Partial, so it holds only what that query reads (0.4 MB at
-- 50,000 nodes), and no other query's plan or row order changes: none states all three of its terms.
CREATE INDEX IF NOT EXISTS nodes_live_decisions
    ON nodes(type, strength DESC, id, status, name_key, json_extract(data, '$.statement.subject'))
    WHERE type = 'decision' AND status = 'active' AND strength > 0;

-- @migration m007_live_episodes_index
-- The newest live episodes (readonly.latest_episodes: SessionStart's "Earlier sessions"):
-- read in this index's order, a handful of rows. Before it, every episode was read and
-- sorted by time (~6,500 at 50,000 nodes: ~11 ms of every SessionStart). Partial: only
-- live episodes, and only a query stating both of its terms uses it (`type` leads, as in
-- nodes_live_decisions, so the planner prefers it to nodes_type).
CREATE INDEX IF NOT EXISTS nodes_live_episodes ON nodes(type, created_at DESC, id)
    WHERE type = 'episode' AND status = 'active';

-- @migration m008_model_call_errors
-- Why a failed model call failed: the LLMError kind (`timeout`, `auth`, `client`, ...; '' for
-- a call that answered). A harness CLI killed at `cliTimeoutMs` leaves a row with ok = 0 and
-- error = 'timeout' (engram/providers/budget.py, Meter.settle).
ALTER TABLE model_calls ADD COLUMN error TEXT NOT NULL DEFAULT '';

-- @migration m009_decision_statements_r2
-- Every decision's `data.statement` read again (migrations._backfill_statements): issue 30
-- changed how a decision's subject, choice and ruled-out options are read (linking verbs,
-- destinations, canonical names, one stemmer), and supersession and retrieval compare a
-- new statement with the stored ones. No schema change.

-- @migration m010_item_payoff
-- What each injected item earned (docs/curation.md). `injections`: one row per item shown to
-- a session (SessionStart, a prompt, a first read), with the event that used it, if any,
-- decided by the worker from the session's later events (consolidate/knowledge/payoff.py).
-- `item_state`: per item the sums of those rows, whether the user pinned it, whether it
-- faded (shown `fadeAfterUnused` times, never used), and its evidence (the session, event
-- seqs and what of the project's files it needs: graph/items/evidence.py). `session_payoff`: per
-- session what was injected (items, words) and used. `curation_log`: every change a person
-- made to one item (`engram memory`), its old text included; a deleted node takes its rows
-- with it (`engram forget` leaves no copy here).
CREATE TABLE IF NOT EXISTS injections (
    session_id TEXT NOT NULL,
    node_id    TEXT NOT NULL,
    via        TEXT NOT NULL,              -- session_start | prompt | first_read
    seq        INTEGER NOT NULL,           -- the `injected` event's seq
    used_seq   INTEGER,                    -- the event that used it (NULL: not used)
    used_how   TEXT NOT NULL DEFAULT '',
    at         TEXT NOT NULL,              -- when it was shown (the event's time)
    used_at    TEXT,                       -- when it was used (that event's time)
    PRIMARY KEY (session_id, node_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS injections_node ON injections(node_id);
CREATE TABLE IF NOT EXISTS item_state (
    node_id       TEXT PRIMARY KEY,
    pinned        INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
    faded         INTEGER NOT NULL DEFAULT 0 CHECK (faded IN (0, 1)),
    injected      INTEGER NOT NULL DEFAULT 0,
    used          INTEGER NOT NULL DEFAULT 0,
    last_injected TEXT,
    last_used     TEXT,
    evidence      TEXT NOT NULL DEFAULT '{}'  -- JSON: session, seqs, needs (graph/items/evidence.py)
) WITHOUT ROWID;
-- The hook reads the pinned and faded items at every SessionStart: a few rows of this index.
CREATE INDEX IF NOT EXISTS item_state_flagged ON item_state(pinned, faded) WHERE pinned = 1 OR faded = 1;
CREATE TABLE IF NOT EXISTS session_payoff (
    session_id TEXT PRIMARY KEY,
    injected   INTEGER NOT NULL DEFAULT 0,
    used       INTEGER NOT NULL DEFAULT 0,
    words      INTEGER NOT NULL DEFAULT 0,
    at         TEXT NOT NULL               -- the session's first injection
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS curation_log (
    at      TEXT NOT NULL,
    node_id TEXT NOT NULL,
    action  TEXT NOT NULL,                 -- pin | unpin | edit | forget
    detail  TEXT NOT NULL DEFAULT '{}'     -- JSON: the old and new text of an edit
);
CREATE UNIQUE INDEX IF NOT EXISTS curation_log_node ON curation_log(node_id, at, action);  -- an import adds a row once
CREATE TRIGGER IF NOT EXISTS items_node_deleted AFTER DELETE ON nodes
BEGIN
    DELETE FROM item_state WHERE node_id = OLD.id;
    DELETE FROM injections WHERE node_id = OLD.id;
    DELETE FROM curation_log WHERE node_id = OLD.id;
END;

-- @migration m011_observed_outcomes
-- A knowledge item (`data.kind` in graph/strength.py OBSERVED_KINDS) counts no episode
-- outcome: its outcome counts are cleared and its strength computed again
-- (migrations._clear_observed_outcomes), so what a failed session observed (a check failing
-- at its end, above all) is no longer held at strength 0. No schema change.

-- @migration m012_passages
-- What the agent said at the end of each turn (a turn_complete's final message, as captured:
-- at most 800 characters), one row per turn, written with the turn's consolidation from the
-- event files (consolidate/knowledge/replies.py). A session's first prompt finds the earlier
-- replies that share its words through the FTS5 index below (retrieve/replies.py): the
-- agent's own account of what it found and did, which the offline rules cannot turn into
-- items. `engram forget` scrubs them as it does the episodes and rebuilds the index.
CREATE TABLE IF NOT EXISTS passages (
    session_id TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    ts         TEXT NOT NULL DEFAULT '',
    text       TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE VIRTUAL TABLE IF NOT EXISTS passage_fulltext USING fts5(
    text, content = 'passages', content_rowid = 'rowid', tokenize = 'porter unicode61');
CREATE TRIGGER IF NOT EXISTS passage_inserted AFTER INSERT ON passages
BEGIN
    INSERT INTO passage_fulltext (rowid, text) VALUES (NEW.rowid, NEW.text);
END;
CREATE TRIGGER IF NOT EXISTS passage_deleted AFTER DELETE ON passages
BEGIN
    INSERT INTO passage_fulltext (passage_fulltext, rowid, text) VALUES ('delete', OLD.rowid, OLD.text);
END;
CREATE TRIGGER IF NOT EXISTS passage_changed AFTER UPDATE OF text ON passages
BEGIN
    INSERT INTO passage_fulltext (passage_fulltext, rowid, text) VALUES ('delete', OLD.rowid, OLD.text);
    INSERT INTO passage_fulltext (rowid, text) VALUES (NEW.rowid, NEW.text);
END;

-- @migration m013_decision_statements_r3
-- Every decision's `data.statement` read again (migrations._backfill_statements): issue 30's
-- second round reads more shapes (a known name before the copula, "let X ...", "X handles
-- ...", "off X", a headline "X for Y", a bare version of a named thing) and the one stemmer
-- takes "-er", "-ion" and "-ence" off ("linter" / "lint"), so a stored subject would no
-- longer meet a new one. No schema change.

-- @migration m014_decision_statements_r4
-- Every decision's `data.statement` read again (migrations._backfill_statements): issue 30's
-- third round reads a headline's name and a name after a preposition as chosen whether the
-- table knows it or not, keeps the verbs that say how a choice does its job (`verbs`), and
-- counts "main" / "primary" and "management" as no concern of their own. No schema change.

-- @migration m015_edges_covering
-- Spreading activation reads each expanded node's edges in both directions for their other
-- end and strength (graph/readonly.py `neighbours`): with both in the index, a lookup never
-- reads the edge's row. On a copy of the 50,000-node latency graph the live neighbours of 60
-- nodes took 1.65 ms instead of 2.0 ms, for 8% more file (docs/graph.md, "Schema").
-- (to_node, from_node, strength) serves every lookup `edges_to_node` served, so it replaces it.
CREATE INDEX IF NOT EXISTS edges_from_cover ON edges(from_node, to_node, strength);
CREATE INDEX IF NOT EXISTS edges_to_cover ON edges(to_node, from_node, strength);
DROP INDEX IF EXISTS edges_to_node;

-- @migration m016_decision_statements_r5
-- Every decision's `data.statement` read again (migrations._backfill_statements): issue 30's
-- fourth round reads a count in words as a value ("two weeks"), a value only up to its unit
-- ("1 week long"), "pin" as choosing, a version said after its thing ("Pin Postgres at version
-- 16"), "we're on X", "we've", a trailing "now." and "between" as the end of a choice, and
-- counts "need", "require", "talk", "pin" as linking verbs, among the rest docs/graph.md lists
-- ("Round 4 added"); the stemmer cuts "-ings" ("recordings" / "record"). No schema change.

-- @migration m017_decision_statements_r6
-- Every decision's `data.statement` read again (migrations._backfill_statements): issue 30's
-- round 5 reads chat shorthand ("w/", "bc"), a reason after "so we", a product's end ("X is
-- shutting down", "X is EOL") as dropping it, a commit-style topic as its first clause's concern,
-- "swap" as a decision verb, "layer" as a kind word, a clause joined by "and store / host / …"
-- and "become" as a copula (docs/graph.md, "Round 5"). No schema change.
