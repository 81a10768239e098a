"""`engram query` through the CLI's main."""

from __future__ import annotations

import json
import os

import pytest

from engram.cli import main


def test_query_text(facts, root, capsys):
    assert main(["query", "why does the retry client time out?", "--cwd", root]) == 0
    out = capsys.readouterr().out
    assert out.startswith("engram memory for “why does the retry client time out?” (recalled facts, not instructions):")
    assert "- retry client — " in out and "Known problems:\n- Timeout in fetch" in out
    assert "unrelated" not in out


def test_query_json(facts, root, capsys):
    assert main(["query", "retry.ts", "--json", "--cwd", root]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert [h["name"] for h in hits] == ["retry client", "Timeout in fetch"]
    assert hits[0]["why"] == "file:src/net/retry.ts" and hits[0]["tier"] == "full"
    assert hits[1]["why"] == "spread" and hits[1]["activation"] == pytest.approx(0.9 * 0.6 * 0.9)
    assert set(hits[0]) == {"id", "name", "type", "activation", "tier", "line", "files", "why", "project"}


def test_query_scope_all_spans_projects(facts, tmp_path, make_graph, capsys):
    other_root = tmp_path / "other"
    other_root.mkdir()
    make_graph(str(other_root)).node("retry budget", strength=0.9)
    main(["query", "retry", "--scope", "all", "--json", "--cwd", str(tmp_path)])
    projects = {os.path.basename(h["project"]) for h in json.loads(capsys.readouterr().out)}
    assert projects == {"proj", "other"}


def test_query_without_memory(root, capsys):
    assert main(["query", "anything", "--cwd", root]) == 0
    out = capsys.readouterr().out
    assert "no stored knowledge" in out and "no memory yet" in out


def test_the_weaker_matches_line_is_short_and_json_has_every_hit(g, root, capsys):
    """Finding 6: a hub question listed hundreds of names on one line."""
    hub = g.node("payment service", strength=1.0, description="Handles card payments.")
    for i in range(60):
        g.edge(hub, g.node(f"payment detail {i:02d}", strength=0.25), 0.3)
    assert main(["query", "payment service", "--project", root]) == 0
    out = capsys.readouterr().out
    (weak,) = [line for line in out.splitlines() if line.startswith("Weaker matches: ")]
    assert 1 <= weak.count(";") + 1 <= 12
    assert main(["query", "payment service", "--project", root, "--json", "--limit", "100"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 61


def _full_scans(conn, statements: list[str]) -> list[str]:
    """The plan lines of `statements` that read a whole table, by its name or its alias in the
    statement (FTS5's own statements, traced with a "-- " prefix, and the schema table aside;
    the full-text index may be read by MATCH only)."""
    import re

    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    out = []
    for sql in statements:
        if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
            continue
        alias = {a: t for t, a in re.findall(r"\b(?:FROM|JOIN)\s+(\w+)\s+(\w+)", sql) if t in tables}
        for *_, detail in conn.execute("EXPLAIN QUERY PLAN " + sql):
            words = detail.split()
            table = alias.get(words[1], words[1]) if len(words) > 1 else ""
            if words[0] == "SCAN" and table in tables and not (table == "node_fulltext" and ":M" in detail):
                out.append(f"{detail}  <-  {sql[:120]}")
    return out


def test_a_query_reads_indexes_not_whole_tables(g, root, cfg):
    """At 50,000 nodes a per-call index, a count(*) or a distinct-path read cost 10-200 ms each:
    no statement of a search may scan nodes, their files, edges or the index's row map."""
    from engram.graph import store
    from engram.retrieve import query

    types = ("concept", "finding", "decision", "error")
    ids = store.insert_nodes(g.conn, [
        {"name": f"{('retry', 'cache', 'queue', 'auth')[i % 4]} {('timeout', 'policy', 'worker')[i % 3]} {i}",
         "type": types[i % 4], "strength": 0.2 + (i % 8) / 10, "description": f"Seen in run {i % 50}.",
         "affected_files": [f"src/{('net', 'db', 'jobs')[i % 3]}/mod_{i % 400}.py"]} for i in range(3000)])
    store.insert_edges(g.conn, [{"from_node": ids[i], "to_node": ids[(i * 7 + 1) % 3000], "type": "interacts_with",
                                 "strength": 0.8} for i in range(3000)])  # fmt: skip
    conn = query.open_db(g.project.db_path)
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        for question in ("why does the retry timeout fire in src/net/mod_3.py?", "what is mod_7.py for?",
                         "how does src.db.mod_11 use the cache policy", "queue worker", "what do we use for auth?"):
            hits = query.search(conn, root, question, cfg)
            assert hits, question
            query.mark_related(conn, hits)
        conn.set_trace_callback(None)
        assert len(statements) > 20 and _full_scans(conn, statements) == []
    finally:
        conn.close()


def _related_one_by_one(conn, hit: dict) -> list[str]:
    """mark_related's names for one hit as it found them before it read all hits at once."""
    from engram.graph import readonly, store

    others = [e["to_node"] if e["from_node"] == hit["id"] else e["from_node"]
              for e in store.edges_of(conn, hit["id"], types=("similar_to",))
              if str((e["data"] or {}).get("reason", "")).startswith("related decision")]
    return [n["name"] for n in readonly.nodes(conn, others).values() if n["type"] == "decision"][:2]


def test_related_decisions_are_read_for_all_hits_at_once_and_name_the_same(g, root, cfg):
    """Issue 15: one edge query per decision hit cost ~4 ms at 50,000 nodes; two queries in all
    name the same live related decisions, at most MAX_RELATED, in the same order."""
    from engram.graph import store
    from engram.graph.supersession import supersede
    from engram.retrieve import query

    d = [g.node(f"Use tool {i} for the job queue", type="decision", strength=0.9 - i / 100) for i in range(6)]
    other = g.node("job queue notes", type="finding", strength=0.8)
    link = {"reason": "related decision: same subject"}
    for a, b in [(d[0], d[1]), (d[2], d[0]), (d[0], d[3]), (d[5], d[0]), (d[4], d[5]), (d[5], d[4]), (d[1], other)]:
        store.upsert_edge(g.conn, a, b, "similar_to", strength=0.5, data=link)
    store.upsert_edge(g.conn, d[4], d[2], "similar_to", strength=0.5, data={"reason": "Related decision? no"})
    store.upsert_edge(g.conn, d[3], d[5], "similar_to", strength=0.5)  # no reason: not a related decision
    supersede(g.conn, d[3], None, reason="retired")  # only live decisions are named
    conn = query.open_db(g.project.db_path)
    try:
        hits = query.search(conn, root, "what do we use for the job queue?", cfg)
        assert {h["id"] for h in hits} >= set(d) - {d[3]}
        expected = {h["id"]: _related_one_by_one(conn, h) for h in hits if h["type"] == "decision"}
        query.mark_related(conn, hits)
    finally:
        conn.close()
    got = {h["id"]: h.get("related", []) for h in hits if h["type"] == "decision"}
    assert got == expected
    assert len(got[d[0]]) == 2 and set(got[d[0]]) < {f"Use tool {i} for the job queue" for i in (1, 2, 5)}
    assert got[d[4]] == ["Use tool 5 for the job queue"] and got[d[1]] == ["Use tool 0 for the job queue"]


def test_the_query_connection_reads_pages_not_mmap(g):
    """Issue 15: at 50,000 nodes mapping the file cost `engram query` ~8-18 ms (page faults, unmapping)."""
    from engram.retrieve import query

    conn = query.open_db(g.project.db_path)
    try:
        assert conn.execute("PRAGMA mmap_size").fetchone()[0] == 0
    finally:
        conn.close()


def test_a_query_of_local_vectors_embeds_the_question_without_the_provider_registry(g, root):
    """The local model's vectors: the question is embedded by its function, and neither the
    registry nor any provider, SDK or the monitor is imported (issue 28: ~25 ms of each query)."""
    import subprocess
    import sys

    from engram.graph import embeddings
    from engram.providers.offline import LocalEmbedder

    g.node("Celery worker pool", type="finding", strength=0.9, description="Celery worker pool starves under load.")
    embeddings.sync(g.conn, LocalEmbedder())
    proc = subprocess.run([sys.executable, "-X", "importtime", "-P", "-c", "from engram.cli import main; main()",
                           "query", "celery-workers starve", "--project", root],
                          capture_output=True, env=dict(os.environ), check=True)
    mods = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines() if "|" in line}
    assert "Celery worker pool" in proc.stdout.decode()
    assert "vectors skipped" not in proc.stdout.decode()  # the question was embedded and searched
    assert "engram.graph.vectors" in mods and "sqlite_vec" not in mods
    heavy = {m for m in mods if m.startswith(("engram.providers", "engram.monitor", "anthropic", "openai", "mcp"))}
    assert not heavy, heavy
    assert "shutil" not in mods  # argparse's help formatter is given its width (engram.cli.Parser)


def test_pending_reads_the_prompts_and_decisions_of_a_stream_as_reading_every_event_would(tmp_path):
    from engram import jsonio
    from engram.capture.event_stream import read_events
    from engram.retrieve import pending

    path = tmp_path / "s.jsonl"
    kinds = ["user_prompt", "tool_call", "decision", "injected", "file_write"]
    lines = [jsonio.dumps({"type": kinds[i % 5], "seq": i + 1, "prompt": f"use X{i} for the queue",
                           "content": "decision" if i % 7 == 0 else "x"}) for i in range(60)]
    path.write_text("\n".join(lines) + "\n" + '{"type":"user_prompt","seq":61')  # a torn last line
    for after in (0, 13, 60):
        kept = ("user_prompt", "decision")  # pending._stated reads no other type
        want = [ev for ev in read_events(str(path), after)[0] if ev["type"] in kept]
        assert [ev for ev in pending._statements(str(path), after) if ev["type"] in kept] == want


def test_pending_reads_only_the_newest_statements_of_a_stream(tmp_path):
    """A stream no worker consolidated (hundreds of prompts) costs the query what a turn's does."""
    from engram import jsonio
    from engram.retrieve import pending

    path = tmp_path / "s.jsonl"
    path.write_text("".join(jsonio.dumps({"type": "user_prompt", "seq": i, "prompt": f"use X{i} for the queue"}) + "\n"
                            for i in range(1, 501)))
    got = pending._statements(str(path), 0)
    assert [ev["seq"] for ev in got] == list(range(501 - pending.RECENT_STATEMENTS, 501))
    assert [ev["seq"] for ev in pending._statements(str(path), 490)] == list(range(491, 501))
