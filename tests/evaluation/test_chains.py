"""The supersession check's chains, its verdicts and its sessions."""

from __future__ import annotations

from engram.evaluation import chains


def test_chains_have_their_own_vocabulary_and_rotate_phrasings():
    single, multi = chains.generate("single", 12), chains.generate("multi", 12)
    techs = [t for d in chains.DOMAINS for t in d[1:3]]
    assert len(set(techs)) == len(techs)  # no technology in two chains
    assert len({c.template for c in single}) == len(chains.TEMPLATES["replace"])
    assert [len(c.steps) for c in multi] == [3] * 12 and len(multi[0].superseded) == 2
    c = multi[0]
    assert c.question == "What retry limit does the job queue use?" and c.current == "Redis's retry limit is now 5"


def test_verdict_wants_the_current_statement_and_no_superseded_one():
    c = chains.generate("single", 1)[0]
    assert chains.verdict([c.current.upper()], c) == {"current": True, "stale": False, "right": True}
    assert chains.verdict([c.current, c.superseded[0]], c)["right"] is False
    assert chains.verdict([], c) == {"current": False, "stale": False, "right": False}


def test_latest_wins_returns_the_newest_statement_on_the_topic():
    c = chains.generate("single", 1)
    assert chains.latest_wins(c) == [[c[0].current]]


def test_statements_become_prompts_or_engram_decide_calls():
    s = [chains.Statement("Use Redis for the job queue", "decide", "x")]
    items = chains.session_payloads("s1", "/p", s)
    assert [e for e, _ in items] == ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"]
    assert items[2][1]["tool_input"]["command"] == "engram decide 'Use Redis for the job queue'"


def test_engram_is_above_latest_wins_on_every_chain(tmp_path):
    """Issue 14, finding 5: the check used to put engram (83% / 67%) under its own latest-wins
    baseline (92% / 83%). All twelve chains of each kind, through the real hooks."""
    res = chains.check(str(tmp_path), ablation=False)["methods"]

    def rate(method: str, hops: str) -> float:
        return sum(v["right"] for v in res[method][hops]) / len(res[method][hops])

    baseline = {h: rate("latest-wins over the raw statements", h) for h in ("single", "multi")}
    for method in ("engram: query_knowledge (top 3)", "engram: the question as a prompt",
                   "engram: a prompt naming the technologies"):
        assert rate(method, "single") >= 0.95 and rate(method, "single") > baseline["single"], method
        assert rate(method, "multi") >= 0.90 and rate(method, "multi") > baseline["multi"], method


def test_two_real_engram_decide_calls_in_one_session_keep_the_replacement(tmp_path):
    """The audit of issue 14: `engram decide` A, then B instead of A, in one agent session, then
    its consolidation brought A back over B; the check now runs the real command that way."""
    chains_ = chains.decided(3)
    assert [[s.via for s in c.steps[0]] for c in chains_] == [["decide", "decide"]] * 3
    verdicts = chains._check_real_decide(str(tmp_path), 3, "offline")
    assert set(verdicts) == {f"{chains.REAL_DECIDE}: query_knowledge (top 3)",
                             f"{chains.REAL_DECIDE}: the question as a prompt"}
    for method, got in verdicts.items():
        assert [v["right"] for v in got] == [True] * 3, method
