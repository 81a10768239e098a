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
