"""The labelled corpus: its records as shipped, and the runner on a corpus of our own samples."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from testing.helpers import REPO

from engram.errors import EngramError
from engram.evaluation import corpus_eval, knowledge

SHOP = REPO / "tests" / "history" / "data" / "shop"


def test_the_shipped_corpus_is_broad_blind_labelled_and_split_by_project():
    recs = corpus_eval.records()
    needs = [n for r in recs.values() for lab in r["labels"].values() for n in lab["needs"]]
    assert len(recs) >= 8 and len(needs) >= 200
    languages = {r["language"].split()[0].split("(")[0].strip().lower() for r in recs.values()}
    assert len(languages) >= 4, languages
    assert {r["split"] for r in recs.values()} == {"dev", "held-out"}
    for name, r in recs.items():
        files = {s["file"].rsplit(".", 1)[0] for s in r["sessions"]}
        assert all(re.fullmatch(r"[0-9a-f]{40}", s["blob"]) for s in r["sessions"]), name
        for sid, lab in r["labels"].items():
            assert sid in files and lab["split"] == r["split"], (name, sid)
            for n in lab["needs"]:
                assert n["kind"] in knowledge.KINDS and set(n["from"]) <= files, (name, n["id"])
                re.compile(n["pattern"])


def shop_record(files: list[str]) -> dict:
    sessions = [{"id": f.rsplit(".", 1)[0], "file": f, "path": f, "commit": "0" * 40, "bytes": 0,
                 "blob": corpus_eval.blob_id((SHOP / f).read_bytes())} for f in files]
    second = sessions[1]["id"]
    need = {"id": "cart-tests", "kind": "file", "from": [sessions[0]["id"]], "text": "the cart's tests",
            "pattern": r"test_cart", "evidence": "runs them again"}
    return {"project": "shop", "split": "held-out", "language": "Python", "repository": "ours/shop",
            "sessions": sessions, "labels": {second: {"split": "held-out", "needs": [need]}}}


def shop_corpus(tmp_path, monkeypatch) -> str:
    """A corpus folder of the shop samples, its record the only one."""
    files = ["01-claude-code.jsonl", "02-codex-rollout.jsonl"]
    (tmp_path / "corpus" / "shop").mkdir(parents=True)
    for f in files:
        shutil.copy(SHOP / f, tmp_path / "corpus" / "shop" / f)
    monkeypatch.setattr(corpus_eval, "records", lambda: {"shop": shop_record(files)})
    return str(tmp_path / "corpus")


def test_the_runner_replays_a_corpus_folder_and_scores_each_source(tmp_path, monkeypatch):
    results = corpus_eval.evaluate(shop_corpus(tmp_path, monkeypatch), str(tmp_path / "work"))
    assert corpus_eval.cost(results) == ["Sessions consolidated by: offline 2; 0 input / 0 output tokens; "
                                         "0 session(s) failed."]
    (row,) = results["shop"]["score"]["items"]
    assert set(row) >= {"engram", "engram+prompt", "recency", "bm25"} and row["kind"] == "file"
    assert "Project memory from earlier sessions" in results["shop"]["texts"]["02-codex-rollout"]["engram"]
    md, js = corpus_eval.write_report(results, str(tmp_path / "out"))
    assert "| held-out | engram | engram+prompt | recency | bm25 |" in open(md).read()
    assert json.load(open(js))["totals"]["items"]["held-out:engram:file"]["needed"] == 1


@pytest.fixture
def shop_on_a_model(tmp_path, monkeypatch):
    """The shop samples as a corpus folder, and the local model server as anthropic (real SDK)."""
    from testing.servers.llm_server import LLMServer

    corpus = shop_corpus(tmp_path, monkeypatch)
    monkeypatch.delenv("ENGRAM_OFFLINE", raising=False)
    with LLMServer() as srv:
        for k, v in srv.env("anthropic").items():
            monkeypatch.setenv(k, v)
        yield srv, corpus


def test_the_corpus_consolidated_by_a_model_provider_reports_its_tokens(shop_on_a_model, tmp_path):
    """--provider anthropic: the model path is what a run with a key measures (the offline
    rules' plateau, docs/evaluation.md)."""
    from engram.cli import main

    srv, corpus = shop_on_a_model
    assert main(["eval", "--corpus", corpus, "--provider", "anthropic", "--out", str(tmp_path / "out")]) == 0
    assert srv.calls  # the model was asked
    used = json.loads((tmp_path / "out" / "corpus.json").read_text())["projects"]["shop"]["consolidation"]
    assert used["provider"] == "anthropic" and used["input_tokens"] > 0 and used["failed"] == []
    assert used["by"] == {"anthropic": 2}
    said = (tmp_path / "out" / "corpus.md").read_text()
    assert re.search(r"Sessions consolidated by: anthropic 2; [1-9]\d* input / \d+ output tokens; 0 session\(s\) "
                     r"failed", said)


def test_a_model_run_past_its_daily_budget_says_the_sessions_went_offline(shop_on_a_model, tmp_path, capsys):
    from engram.cli import main

    srv, corpus = shop_on_a_model
    assert main(["eval", "--corpus", corpus, "--provider", "anthropic", "--daily-budget", "1",
                 "--out", str(tmp_path / "out")]) == 0
    assert srv.calls == []
    assert main(["eval", "--corpus", corpus, "--daily-budget", "-5"]) == 1
    assert (tmp_path / "out" / "corpus.md").read_text().splitlines()[2].startswith("Sessions consolidated by: offline 2;")
    assert "--daily-budget -5: give a number of tokens, 0 or more" in capsys.readouterr().err


def test_a_transcript_that_is_not_the_labelled_one_is_one_line(tmp_path, monkeypatch):
    files = ["01-claude-code.jsonl", "02-codex-rollout.jsonl"]
    (tmp_path / "shop").mkdir()
    for f in files:
        shutil.copy(SHOP / f, tmp_path / "shop" / f)
    (tmp_path / "shop" / files[1]).write_text("{}\n")
    with pytest.raises(EngramError, match=r"02-codex-rollout.jsonl: not the labelled transcript"):
        corpus_eval.check_files(shop_record(files), str(tmp_path))


def test_a_transcript_without_a_working_directory_replays_at_the_checkout_its_paths_show():
    from engram.evaluation.corpus_eval import inferred_root
    from engram.history.corpus import Project, Session

    home = "/Users/someone/projects/shop"
    paths = [f"{home}/lib/shop/cart.ex", f"{home}/assets/js/app.js", f"{home}/lib/shop_web/router.ex",
             "/Users/someone/.codex/config.toml", "/v1/messages"] * 3
    calls = [("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": f"cat {p}"}}) for p in paths]
    project = Project("/corpus/shop", [Session("s1", "2025-01-01", "/corpus/shop", [], "codex", calls)])
    assert inferred_root(project) == home
    few = Project("/corpus/shop", [Session("s1", "2025-01-01", "/corpus/shop", [], "codex", calls[:3])])
    assert inferred_root(few) is None  # too few paths to say


def test_a_workspace_of_several_checkouts_replays_at_the_folder_holding_them():
    from engram.evaluation.corpus_eval import inferred_root
    from engram.history.corpus import Project, Session

    ws = "c:\\Dev\\Mod Workspace"
    paths = ([f"{ws}\\Mod\\mod\\src\\Patch{i}.cs" for i in range(4)] + [f"{ws}\\Editor\\main{i}.py" for i in range(4)]
             + [f"{ws}\\Assembly-CSharp\\Game{i}.cs" for i in range(4)] + ["C:\\Program Files\\Game\\log.txt"])
    calls = [("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": f"cat \"{p}\""}}) for p in paths]
    project = Project("/corpus/mod", [Session("s1", "2025-12-28", "/corpus/mod", [], "codex", calls)])
    assert inferred_root(project) == ws  # the mod's own src/ holds a third of them: not the root


def test_a_windows_session_replays_at_the_posix_form_of_its_root():
    from engram.history.corpus import Project, Session

    root = "D:\\oh-my-posh"
    calls = [("PostToolUse", {"cwd": root, "tool_name": "Read", "tool_input": {"file_path": root + "\\src\\cli\\serve.go"}}),
             ("PostToolUse", {"cwd": root, "tool_name": "PowerShell",
                              "tool_input": {"command": "cd D:\\oh-my-posh\\src; go test ./... > D:\\oh-my-posh-logs\\t.txt"}})]
    session = Session("s1", "2026-07-10", root, [{"cwd": root}], "claude-code", calls)
    project = Project(root, [session])
    assert corpus_eval.recorded_root(project) == root and corpus_eval.posix_root(root) == "/d/oh-my-posh"
    moved = corpus_eval._at_posix_root(project, root)
    (read, shell) = [p for _, p in moved.sessions[0].payloads()]
    assert moved.root == "/d/oh-my-posh" and read["cwd"] == "/d/oh-my-posh"
    assert read["tool_input"]["file_path"] == "/d/oh-my-posh/src/cli/serve.go"
    # another folder whose name only starts like the root's is not under it
    assert shell["tool_input"]["command"] == "cd /d/oh-my-posh/src; go test ./... > D:\\oh-my-posh-logs\\t.txt"


def test_a_windows_checkout_is_inferred_from_its_paths_when_no_directory_is_recorded():
    from engram.evaluation.corpus_eval import inferred_root
    from engram.history.corpus import Project, Session

    home = "d:\\dialfa new\\spisa-new"
    paths = [home + "\\backend\\Program.cs", home + "\\frontend\\app\\page.tsx", home + "\\src\\a.ts"] * 4
    calls = [("PostToolUse", {"tool_name": "Read", "tool_input": {"file_path": p}}) for p in paths]
    project = Project("/corpus/x", [Session("s1", "2025-01-01", "/corpus/x", [], "cursor", calls)])
    assert inferred_root(project) == home


def test_a_replays_node_ids_follow_its_homes_name(tmp_path):
    """Ranking ties fall back on node ids: drawn from the home's name, two runs show the same texts."""
    from engram.evaluation import sandbox
    from engram.graph import store

    def ids(base: str) -> list[str]:
        with sandbox.home(str(tmp_path / base / "knowledge-shop"), {}):
            return [store.new_id("n") for _ in range(3)]

    first = ids("a")
    assert first == ids("b") and len(set(first)) == 3 and first[0].startswith("n_")
    assert store.new_id("n") not in first  # outside a replay, ids are random again
