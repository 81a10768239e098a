"""`engram eval` end to end: on synthetic transcripts (always) and on the shared fixtures."""

from __future__ import annotations

import json
import os
import tempfile

import pytest
from testing.evaluation import shop_history
from testing.helpers import needs_shared

from engram.cli import main

SECTIONS = ("# engram evaluation", "## 1. Does memory help?", "## 1b. Knowledge", "## 2. Supersession", "## 3. Cost",
            "## 4. Sensitivity analysis", "## 5. Per session", "## Definitions")
AXES = ["decayFactor", "activationThreshold", "spreadingRule", "tokenBudget", "bands.merge", "bands.child", "windows"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """One tiny run over three synthetic sessions, shared by the tests below (~5 s)."""
    tmp = tmp_path_factory.mktemp("eval")
    root = tmp / "shop"
    (root / ".git").mkdir(parents=True)
    shop_history(str(tmp / "transcripts"), str(root))
    out = tmp / "out"
    labels = tmp / "labels.json"
    labels.write_text(json.dumps(SHOP_LABELS))
    mp = pytest.MonkeyPatch()  # module scope runs before the per-test autouse fixture: isolate here too
    mp.setenv("ENGRAM_HOME", str(tmp / "home"))
    mp.setenv("HOME", str(tmp / "user-home"))
    mp.setenv("ENGRAM_OFFLINE", "1")
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "VOYAGE_API_KEY"):
        mp.delenv(key, raising=False)
    try:
        env, temps = dict(os.environ), _eval_temps()
        code = main(["eval", "--transcripts", str(tmp / "transcripts"), "--out", str(out), "--sweep", "tiny",
                     "--latency-sample", "3", "--chains", "3", "--labels", str(labels)])
        # nothing left behind (other runs on this machine may add and remove their own meanwhile)
        assert dict(os.environ) == env and _eval_temps() <= temps
    finally:
        mp.undo()
    assert code == 0 and not (tmp / "home").exists()  # the run never used the real home
    return json.loads((out / "report.json").read_text()), (out / "report.md").read_text(), tmp


SHOP_LABELS = {"format": "engram knowledge labels v1", "method": "written for this synthetic history", "projects": {
    "shop": {"sessions": {
        "sess-two": {"split": "dev", "needs": [
            {"id": "tests", "kind": "command", "pattern": "python -m pytest"},
            {"id": "decimal", "kind": "instruction", "pattern": "Decimal for money"}]},
        "sess-three": {"split": "held-out", "needs": [
            {"id": "tests", "kind": "command", "pattern": "python -m pytest"}]}}}}}


def _eval_temps() -> set[str]:
    return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith("engram-eval-")}


def test_the_report_has_every_section_and_the_json_its_numbers(report):
    data, md, _ = report
    for title in SECTIONS:
        assert title in md
    assert set(data) >= {"meta", "corpus", "comparison", "latency", "consolidation", "supersession", "sweep"}
    assert data["corpus"] == [{"project": "shop", "root": data["corpus"][0]["root"], "sessions": 3, "scored": 2}]
    assert data["meta"]["command"].startswith("engram eval --transcripts ")


def test_the_knowledge_score_beside_its_baselines(report):
    data, md, _ = report
    score = data["knowledge"]["shop"]["score"]
    engram, recency = score["by_source"]["engram"], score["by_source"]["recency"]
    assert engram["all"] == {"delivered": 3, "needed": 3} and engram["held-out"]["needed"] == 1
    assert recency["command"]["delivered"] < engram["command"]["delivered"]
    assert score["words"]["engram"]["max"] <= 800 and set(score["words"]) == {"engram", "engram+prompt", "recency", "bm25"}
    assert "| held-out | 1.00 (1/1) |" in md


def test_labels_that_are_missing_or_malformed_are_a_one_line_error(tmp_path, capsys):
    bad = tmp_path / "labels.json"
    bad.write_text('{"projects": {"p": {"sessions": {"s": {"split": "dev", "needs": [{"id": "x"}]}}}}}')
    (tmp_path / "t").mkdir()
    assert main(["eval", "--transcripts", str(tmp_path / "t"), "--labels", str(tmp_path / "nope.json")]) == 1
    assert "--labels" in capsys.readouterr().err
    from engram.errors import EngramError
    from engram.evaluation import knowledge

    with pytest.raises(EngramError, match="not in the labels format"):
        knowledge.load_labels(str(bad))


@pytest.mark.parametrize("need,said", [
    ({"id": "i", "kind": "command", "pattern": "("}, "needs[0]: 'pattern' is not a regular expression"),
    ({"id": "i", "kind": "wish", "pattern": "x"}, "needs[0]: 'kind' must be one of command, gotcha"),
    ({"kind": "command", "pattern": "x"}, "needs[0]: needs an 'id'"),
    ({"id": "i", "kind": "command"}, "needs[0]: needs a 'pattern'"),
])
def test_malformed_labels_are_one_line_before_any_replay(tmp_path, capsys, need, said):
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"projects": {"x": {"sessions": {"a": {"split": "dev", "needs": [need]}}}}}))
    assert main(["eval", "--labels", str(labels), "--sweep", "none", "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and "projects.x.sessions.a" in err, err
    assert not (tmp_path / "out").exists()  # nothing replayed, nothing written


def test_no_memory_recalls_nothing_and_engram_retrieves_the_planted_fact(report):
    comp = report[0]["comparison"]
    none, engram = comp["none"], comp["engram"]
    assert none["recall_all_revisited"]["num"] == 0 and none["recall_all_revisited"]["den"] > 0
    assert none["tokens_pre_per_session"] == 0 and none["mrr"]["value"] == 0
    # session 2 goes back to src/cart.py and the failing cart test: memory of session 1 pointed there first
    assert engram["recall_all_revisited"]["value"] == 1.0
    assert engram["recall_all_revisited_file"]["num"] == 1 and engram["recall_all_revisited_error"]["num"] == 1
    assert engram["mrr"]["questions"] >= 1 and engram["mrr"]["value"] > 0
    assert 0 < engram["tokens_pre_per_session"] <= 1200


def test_the_baselines_are_measured_in_the_same_run(report):
    comp = report[0]["comparison"]
    assert set(comp) == {"engram", "spec+noisy-or", "bm25", "recency", "none"}
    assert comp["recency"]["recall_all_revisited_file"]["num"] == 1  # the previous session's file
    assert comp["recency"]["recall_all_revisited_error"]["num"] == 0  # recency knows no errors
    assert comp["bm25"]["precision_all"]["den"] > 0


def test_latency_and_consolidation_cost_are_reported(report):
    data = report[0]
    inproc = data["latency"]["in_process_ms"]
    assert inproc["SessionStart"]["n"] == 3 and inproc["PostToolUse"]["p50"] > 0
    assert data["latency"]["subprocess_ms"]["bare"]["n"] == 3
    assert data["consolidation"]["sessions"] == 3 and data["consolidation"]["events_per_second"] > 0
    assert data["latency"]["hook_faults"] == 0


def test_the_supersession_check_returns_the_current_decision(report):
    methods = report[0]["supersession"]["methods"]
    engram = methods["engram: query_knowledge (top 3)"]
    assert all(v["right"] for v in engram["single"])
    ablation = methods["engram without decision supersession: query_knowledge (top 3)"]
    assert all(v["stale"] for v in ablation["single"])  # without the rule the replaced decision comes back


def test_the_sweep_covers_every_axis_with_its_default_marked(report):
    data, md, tmp = report
    assert [a["key"] for a in data["sweep"]] == AXES
    for axis in data["sweep"]:
        assert sum(p["default"] for p in axis["points"]) == 1, axis["key"]
        assert len(axis["points"]) >= 1
    windows = data["sweep"][-1]["points"]
    assert all(p["metrics"]["windowing"]["windows"] > 0 for p in windows)
    budget = next(a for a in data["sweep"] if a["key"] == "tokenBudget")
    assert all(p["metrics"]["recall_all_revisited"]["den"] == 3 for p in budget["points"])
    assert "**1200**" in md


def test_plots_are_written_when_matplotlib_is_installed(report):
    pytest.importorskip("matplotlib")  # in the dev extra, so `make test` has it
    _, md, tmp = report
    assert (tmp / "out" / "plots" / "decayFactor.png").stat().st_size > 1000
    assert "![decay factor](plots/decayFactor.png)" in md
    assert (tmp / "out" / "plots" / "baselines.png").stat().st_size > 1000  # engram against each baseline
    assert "![engram against the baselines](plots/baselines.png)" in md


def test_without_matplotlib_the_report_and_stderr_say_so(report, tmp_path, monkeypatch, capsys):
    """Finding 9: plots never vanish silently."""
    import sys

    from engram.evaluation import report as report_module

    data, _, _ = report
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    paths = report_module.write(data, str(tmp_path / "out"))
    md = (tmp_path / "out" / "report.md").read_text()
    assert not any(p.endswith(".png") for p in paths) and not (tmp_path / "out" / "plots").exists()
    assert "No plots: matplotlib is not installed" in md
    assert "No plots: matplotlib is not installed" in capsys.readouterr().err


def test_without_transcripts_the_error_says_what_to_pass(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ENGRAM_SHARED", str(tmp_path / "nowhere"))
    assert main(["eval", "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--transcripts DIR" in err


def test_a_directory_without_sessions_is_a_one_line_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["eval", "--transcripts", str(tmp_path / "empty"), "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no Claude Code sessions found" in err
    assert main(["eval", "--transcripts", str(tmp_path / "missing")]) == 1
    assert "no such file or directory" in capsys.readouterr().err


@needs_shared
def test_eval_on_the_shared_fixtures(tmp_path):
    out = tmp_path / "out"
    assert main(["eval", "--out", str(out), "--sweep", "none", "--latency-sample", "0", "--chains", "1"]) == 0
    data = json.loads((out / "report.json").read_text())
    attio = next(c for c in data["corpus"] if c["project"] == "attio-mcp-server")
    assert attio["sessions"] == 8 and attio["scored"] == 7
    comp = data["comparison"]
    assert comp["none"]["recall_all_revisited"]["num"] == 0
    assert comp["engram"]["recall_all_revisited"]["num"] > 0 and comp["engram"]["mrr"]["questions"] > 0
    assert comp["engram"]["tokens_pre_per_session"] < comp["bm25"]["tokens_pre_per_session"]
    k = data["knowledge"]["attio-mcp-server"]["score"]
    held = {src: k["by_source"][src]["held-out"]["delivered"] for src in ("engram", "recency", "bm25")}
    assert held["engram"] >= 0.6 * k["by_source"]["engram"]["held-out"]["needed"]  # the bar
    assert held["engram"] > max(held["recency"], held["bm25"]) and k["words"]["engram"]["max"] <= 800


def test_eval_with_a_model_provider_counts_tokens_and_rebuilds_per_window(tmp_path, monkeypatch):
    """--provider anthropic through the real SDK against the local model server (tests/testing/servers)."""
    from testing.servers.llm_server import LLMServer

    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    shop_history(str(tmp_path / "t"), str(root))
    monkeypatch.delenv("ENGRAM_OFFLINE", raising=False)
    with LLMServer() as srv:
        for k, v in srv.env("anthropic").items():
            monkeypatch.setenv(k, v)
        assert main(["eval", "--transcripts", str(tmp_path / "t"), "--out", str(tmp_path / "out"), "--provider",
                     "anthropic", "--sweep", "tiny", "--latency-sample", "0", "--chains", "1"]) == 0
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert data["consolidation"]["input_tokens"] > 0 and data["consolidation"]["failed"] == []
    windows = next(a for a in data["sweep"] if a["key"] == "windows")["points"]
    small = next(p for p in windows if p["value"] == [6, 2])["metrics"]
    assert small["consolidation"]["input_tokens"] > 0 and "recall_all_revisited" in small


def test_the_payoff_hit_rate_is_reported(report):
    """Items injected into the replayed sessions and how many each session then used (docs/curation.md)."""
    data, md, _ = report
    (graph,) = data["graph"].values()
    p = graph["payoff"]
    assert p["sessions"] >= 2 and p["injected"] > 0 and 0 <= p["used"] <= p["injected"] and p["words"] > 0
    line = next(ln for ln in md.splitlines() if ln.startswith("Payoff: "))
    assert f"{p['injected']} item(s) injected" in line and "hit rate of" in line
