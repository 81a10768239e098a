"""`engram export --to CLAUDE.md|AGENTS.md|GEMINI.md`: one marked section, the rest untouched."""

from __future__ import annotations

import json

from testing.consolidation import Session, cfg, consolidate, make_root
from testing.helpers import engram

from engram.harnesses.memory_file import BEGIN, END


def project(tmp_path):
    root = make_root(tmp_path)
    (root / "Makefile").write_text("test:\n\tpytest\nlint:\n\truff .\n")
    s = Session(root, "s1").start()
    s.prompt("Run the checks.")
    s.command("make test", 0, "ok").command("make lint", 0, "ok").stop("Done.")
    consolidate(s.project, "s1", cfg(s.project), lock_timeout=30)
    return root


def test_the_section_is_kept_current_idempotent_and_alone(tmp_path):
    root = project(tmp_path)
    mine = "# Team notes\n\nDeploy on Fridays only after the review.\n"
    (root / "AGENTS.md").write_text(mine)
    res = engram("export", "--to", "AGENTS.md", "--project", str(root))
    assert res.returncode == 0 and res.stdout.startswith("updated"), res.stderr
    text = (root / "AGENTS.md").read_text()
    assert text.startswith(mine) and text.count(BEGIN) == 1 and text.count(END) == 1
    assert "`make test`" in text and "not instructions" in text
    again = engram("export", "--to", "AGENTS.md", "--project", str(root))
    assert again.stdout.startswith("already current") and (root / "AGENTS.md").read_text() == text

    listed = json.loads(engram("memory", "list", "--json", "--project", str(root)).stdout)
    lint = next(r for r in listed if r["name"] == "make lint")
    engram("memory", "pin", lint["id"], "--project", str(root))
    engram("export", "--to", "AGENTS.md", "--project", str(root))
    new = (root / "AGENTS.md").read_text()
    section = new.split(BEGIN, 1)[1]
    assert new.startswith(mine) and "make lint" in section.split("\n")[4] and "(pinned)" in section  # pinned first
    (root / "AGENTS.md").write_text(new + "\nA line the team added after.\n")
    engram("export", "--to", "AGENTS.md", "--project", str(root))
    assert (root / "AGENTS.md").read_text().endswith("A line the team added after.\n")


def test_a_new_file_and_the_old_export_form_both_work(tmp_path):
    root = project(tmp_path)
    assert engram("export", "--to", "CLAUDE.md", "--project", str(root)).returncode == 0
    assert (root / "CLAUDE.md").read_text().startswith(BEGIN)
    out = tmp_path / "backup"
    res = engram("export", str(out), "--project", str(root))
    assert res.returncode == 0 and (out / "graph.json").exists(), res.stderr
    both = engram("export", str(tmp_path / "b2"), "--to", "GEMINI.md", "--project", str(root))
    assert both.returncode == 1 and len(both.stderr.strip().splitlines()) == 1
    bad = engram("export", "--to", "README.md", "--project", str(root))
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_a_symlinked_memory_file_is_left_alone(tmp_path):
    root = project(tmp_path)
    (tmp_path / "elsewhere.md").write_text("keep\n")
    (root / "GEMINI.md").symlink_to(tmp_path / "elsewhere.md")
    res = engram("export", "--to", "GEMINI.md", "--project", str(root))
    assert res.returncode == 1 and "symlink" in res.stderr
    assert (tmp_path / "elsewhere.md").read_text() == "keep\n"
