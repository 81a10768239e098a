"""Model tokens per consolidated session and per contradiction check, on the shared real
transcripts, against the spec's estimates for the same sessions (measured in this run).

    .venv/bin/python bench/model_cost.py [--max-sessions N] [--provider anthropic|openai]

Every session of the shared fixtures (../shared/fixtures/transcripts) is replayed through
the real hooks into a scratch ENGRAM_HOME, oldest first per project, and consolidated by
the model provider pointed at the local scripted server (tests/testing/servers), through
the real SDK, the meter and the ledger; every write the PostToolUse hook queued for a check
(linked to a decision of the graph built so far) is then checked through the same server.
All figures are read back from the ledger (`model_calls`).

Input tokens are engram's real prompts (characters / 4); output tokens are the scripted
server's answers, shorter than a real model's, so output is a floor (a check's extended
thinking, up to 1,024 tokens with Haiku, is not emulated at all). Prompt caching is
emulated as Anthropic documents it (nothing below a model's minimum length is cached).
The baselines, per session: the spec's formula for its windows (docs/spec.md,
"Consolidation cost": Pass 1 400 x windows, Pass 2 2000 + 200 x windows), its typical
~3K per session, and ~700 tokens per checked write (~2,100 per session).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]
SPEC_SESSION, SPEC_CHECK = 3000, 700


def _env(home: str, srv, provider: str) -> None:
    for k in [k for k in os.environ if k.endswith(("_API_KEY", "_BASE_URL"))]:
        os.environ.pop(k)
    os.environ.pop("ENGRAM_OFFLINE", None)
    os.environ.update(ENGRAM_HOME=home, ENGRAM_NO_WORKER="1", **srv.env(provider))


def _ledger(project, since_rowid: int = 0) -> list[tuple]:
    from engram.graph.readonly import open_ro

    conn = open_ro(project.db_path)
    if conn is None:
        return []
    try:
        return conn.execute("SELECT rowid, purpose, input_tokens + output_tokens + cache_read_tokens + "
                            "cache_write_tokens, cache_read_tokens + cache_write_tokens, output_tokens "
                            "FROM model_calls WHERE rowid > ? ORDER BY rowid", (since_rowid,)).fetchall()
    finally:
        conn.close()


def run(max_sessions: int | None, provider: str) -> dict:
    from engram.config import Project, load_config
    from engram.consolidate import worker
    from engram.history import corpus
    from engram.history.replay import replay
    from engram.monitor import worker as checks
    from engram.providers import registry
    from testing.servers.llm_server import LLMServer

    src = corpus.shared_transcripts()
    if not src:
        raise SystemExit("the shared fixtures (../shared/fixtures/transcripts) are absent")
    projects = corpus.load([src], max_sessions)
    sessions, checked = [], []
    with LLMServer() as srv:
        _env(tempfile.mkdtemp(prefix="engram-cost-"), srv, provider)
        cfg = {**load_config()[0], "llmProvider": provider}
        for fixture in projects:
            project, last = None, 0
            for s in fixture.sessions:
                replay(s.payloads(fixture.root), fixture.root)
                project = project or Project.from_cwd(fixture.root).ensure()
                held = _estimate(project, s.id, cfg)
                o = worker.consolidate_session(project, s.id, cfg, registry.consolidation(cfg, project=project))
                rows = _ledger(project, last)
                last = rows[-1][0] if rows else last
                if o.status == "consolidated":
                    sessions.append({**_session(o, rows), "held": held})
                checks.drain(project, cfg, registry.checker(cfg, project=project))
                rows = _ledger(project, last)
                last = rows[-1][0] if rows else last
                checked += [t for _, p, t, _, _ in rows if p == "contradiction"]
        systems: dict[str, int] = {}  # the system prompt of each kind of call: the prefix caching could store
        for c in srv.calls:
            systems[c["kind"]] = max(systems.get(c["kind"], 0), len(c["system"]) // 4)
    return {"sessions": sessions, "checks": checked, "projects": len(projects), "systems": systems}


def _estimate(project, session: str, cfg: dict) -> int:
    """What the budget holds for the session before its first call (budget.Meter.session),
    without the known-node lines Pass 2 adds."""
    from engram.consolidate import passes, worker
    from engram.providers.base import estimate_tokens

    events, _ = worker.read_stream(project.events_path(session))
    return sum(estimate_tokens(chars, out) for chars, out in passes.call_sizes(events, cfg))


def _session(o, rows: list[tuple]) -> dict:
    """One consolidated session's figures from its ledger rows."""
    def tokens(step: str) -> tuple[int, int]:
        mine = [r for r in rows if r[1].startswith(step)]
        return sum(t - out for _, _, t, _, out in mine), sum(out for *_, out in mine)

    return {"kind": o.kind, "events": o.to_seq - o.from_seq + 1, "calls": len(rows),
            "windows": sum(1 for r in rows if r[1].startswith("pass1[") and ":" not in r[1]),
            "tokens": sum(r[2] for r in rows), "cached": sum(r[3] for r in rows),
            "pass1": tokens("pass1"), "pass2": tokens("pass2")}


def spec_estimate(s: dict) -> int:
    """The spec's formula for a full consolidation with `windows` windows; ~3K otherwise."""
    w = s["windows"]
    return 400 * w + 2000 + 200 * w if s["kind"] == "full" and w else SPEC_SESSION


def report(r: dict) -> None:
    ss, cs = r["sessions"], r["checks"]
    full = [s for s in ss if s["kind"] == "full"]
    tokens = sorted(s["tokens"] for s in ss)
    est = sum(spec_estimate(s) for s in ss)
    print(f"{len(ss)} sessions consolidated ({len(full)} full, {len(ss) - len(full)} discussion) from "
          f"{r['projects']} fixture projects, {sum(s['calls'] for s in ss)} model calls")
    print("\ntokens per consolidated session      measured   spec        ratio")
    print(f"  mean                               {statistics.mean(tokens):8,.0f}   {SPEC_SESSION:8,}    "
          f"{statistics.mean(tokens) / SPEC_SESSION:.2f}x (spec: ~3K typical)")
    print(f"  median                             {statistics.median(tokens):8,.0f}   {SPEC_SESSION:8,}    "
          f"{statistics.median(tokens) / SPEC_SESSION:.2f}x")
    print(f"  p90                                {tokens[int(0.9 * (len(tokens) - 1))]:8,}")
    print(f"  max                                {tokens[-1]:8,}")
    print(f"  all sessions, vs the spec formula  {sum(tokens):8,}   {est:8,}    {sum(tokens) / est:.2f}x "
          "(400 x windows + 2000 + 200 x windows)")
    if full:
        w = max(1, sum(s["windows"] for s in full))
        p1_in, p1_out = (sum(s["pass1"][i] for s in full) / w for i in (0, 1))
        p2_in, p2_out = (statistics.mean(s["pass2"][i] for s in full) for i in (0, 1))
        print(f"  full sessions: {statistics.mean(s['events'] for s in full):.0f} events and "
              f"{statistics.mean(s['windows'] for s in full):.1f} windows on average")
        print(f"  Pass 1 per window: {p1_in:,.0f} in + {p1_out:,.0f} out (spec: 400); Pass 2 per session: "
              f"{p2_in:,.0f} in + {p2_out:,.0f} out (spec: 2000 + 200 x windows)")
    held = [s["held"] for s in full]
    if held:
        print(f"  held before the first call (the whole-session estimate): mean {statistics.mean(held):,.0f}, "
              f"max {max(held):,} ({sum(held) / max(1, sum(s['tokens'] for s in full)):.1f}x what was spent)")
    print(f"  prompt-cache tokens (read + written): {sum(s['cached'] for s in ss):,}")
    print("  system prompts (tokens, the cacheable prefix): " + ", ".join(
        f"{kind} {n:,}" for kind, n in sorted(r["systems"].items(), key=lambda kv: kv[1])))
    if cs:
        per_session = sum(cs) / max(1, len(ss))
        print(f"\ntokens per contradiction check       {statistics.mean(cs):8,.0f}   {SPEC_CHECK:8,}    "
              f"{statistics.mean(cs) / SPEC_CHECK:.2f}x ({len(cs)} checks, max {max(cs):,}; "
              "thinking tokens not emulated)")
        label = f"per session ({len(cs) / max(1, len(ss)):.2f} checks)"
        print(f"  {label:<35}{per_session:8,.0f}   {3 * SPEC_CHECK:8,}    "
              f"{per_session / (3 * SPEC_CHECK):.2f}x (spec: 2-3 checked writes, ~2,100)")
    else:
        print("\nno write was linked to a decision: no contradiction check ran")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-sessions", type=int, help="at most this many sessions per project")
    ap.add_argument("--provider", choices=("anthropic", "openai"), default="anthropic")
    args = ap.parse_args()
    report(run(args.max_sessions, args.provider))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
