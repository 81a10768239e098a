"""Transcripts -> projects and sessions (engram/history/corpus.py)."""

from __future__ import annotations

import json
from datetime import timedelta

from testing.evaluation import T0, Transcript

from engram.history import corpus


def test_sessions_are_merged_across_files_grouped_by_project_and_ordered_by_time(tmp_path):
    a, b = str(tmp_path / "proj-a"), str(tmp_path / "proj-b")
    late = Transcript("late", a, T0 + timedelta(days=3)).prompt("second").reply("ok")
    early = Transcript("early", a, T0).prompt("first").reply("ok")
    other = Transcript("other", b, T0 + timedelta(days=1)).prompt("elsewhere").reply("ok")
    late.write(str(tmp_path / "t"))
    other.write(str(tmp_path / "t" / "sub"))  # sub-directories are read too
    # the same session in a chat.json array, continued in a second file that repeats its history
    (tmp_path / "t" / "chat.json").write_text(json.dumps(early.records))
    early.prompt("continued").reply("ok").write(str(tmp_path / "t"))
    (tmp_path / "t" / "notes.txt").write_text("not a transcript")
    projects = corpus.load([str(tmp_path / "t")])
    assert [(p.root, [s.id for s in p.sessions]) for p in projects] == [(a, ["early", "late"]), (b, ["other"])]
    early_s = projects[0].sessions[0]
    assert len(early_s.records) == 4  # 2 + 2 more, the first 2 read twice but kept once (by uuid)
    prompts = [p["prompt"] for e, p in early_s.payloads() if e == "UserPromptSubmit"]
    assert prompts == ["first", "continued"]
    assert [s.id for s in corpus.load([str(tmp_path / "t")], max_sessions=1)[0].sessions] == ["late"]


def test_payload_cwds_are_pinned_to_the_project(tmp_path):
    root = str(tmp_path / "p")
    t = Transcript("s1", root, T0).prompt("go")
    t.records[-1]["cwd"] = root + "/sub"  # the agent cd'ed into a sub-directory
    s = corpus.load_sessions([t.write(str(tmp_path / "t"))])[0]
    assert {p["cwd"] for _, p in s.payloads(root)} == {root}


def test_claude_code_folder_names():
    assert corpus.claude_dir_names("/home/me/my.proj") == ["-home-me-my.proj", "-home-me-my-proj"]
    assert corpus.claude_dir_names("/srv/app") == ["-srv-app"]
