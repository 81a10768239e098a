"""`engram eval [--transcripts DIR ...] [--provider offline|anthropic|openai] [--out DIR]`.

Replays Claude Code transcripts, project by project and in time order, through the real
hooks into a temporary ENGRAM_HOME (your own ~/.engram is never touched), consolidates
after each session, and scores what retrieval supplied to every later session against
what that session then did; scores the knowledge each labelled later session started with
(commands, gotchas, unfinished work, instructions) against two baselines at the same
word budget. Also runs the supersession check and the sensitivity analysis, and writes report.md + report.json (+ plots/*.png with matplotlib) to --out.
Progress goes to stderr. Without --transcripts: the transcripts of the shared fixtures
folder, found beside the checkout or via $ENGRAM_SHARED. --labels is checked before any
replay.
"""

from __future__ import annotations

import argparse
import os


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("eval", help="evaluate engram on recorded sessions (report with baselines and sweep)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                              epilog="example: engram eval --transcripts ~/.claude/projects/-home-me-myproj "
                                     "--out eval-report")
    p.add_argument("--transcripts", nargs="+", metavar="DIR", action="extend",
                   help="directories (or files) of Claude Code transcripts; sub-directories are read too")
    p.add_argument("--provider", choices=("offline", "anthropic", "openai"), default="offline",
                   help="consolidation provider (default: %(default)s; a model provider costs tokens)")
    p.add_argument("--out", default="engram-eval", metavar="DIR", help="where the report goes (default: %(default)s)")
    p.add_argument("--sweep", choices=("default", "tiny", "none"), default="default",
                   help="sensitivity analysis size (default: %(default)s)")
    p.add_argument("--max-sessions", type=int, default=None, metavar="N",
                   help="per project, only the latest N sessions (bounds the time on a long history)")
    p.add_argument("--latency-sample", type=int, default=24, metavar="N",
                   help="payloads also timed as real hook subprocesses (default: %(default)s; 0 = none)")
    p.add_argument("--chains", type=int, default=12, metavar="N",
                   help="decision chains per kind in the supersession check (1-12, default: %(default)s)")
    p.add_argument("--labels", metavar="FILE", default=None,
                   help="knowledge labels (JSON, the format of engram/evaluation/knowledge_labels.json; "
                        "default: the labels shipped for the shared fixtures)")
    p.add_argument("--corpus", metavar="DIR", default=None,
                   help="score only the labelled corpus (engram/evaluation/corpus): DIR holds <project>/<file> copies "
                        "of its public transcripts, each checked against its git blob (docs/evaluation.md)")
    p.add_argument("--split", choices=("dev", "held-out"), default=None,
                   help="with --corpus: only the projects of this split (default: both)")
    p.add_argument("--projects", metavar="NAME,...", default=None, help="with --corpus: only these projects")
    p.add_argument("--daily-budget", metavar="TOKENS", type=int, default=None,
                   help="with --corpus and a model provider: each replayed project's daily token budget (default: "
                        "dailyTokenBudget's default); sessions past it are consolidated offline, and the report "
                        "says how many")
    p.set_defaults(func=run)


def transcript_dirs(args: argparse.Namespace) -> list[str]:
    """The directories to read, or a one-line error saying what to pass."""
    from engram.errors import EngramError
    from engram.history import corpus

    if args.transcripts:
        missing = [d for d in args.transcripts if not os.path.exists(os.path.expanduser(d))]
        if missing:
            raise EngramError(f"--transcripts {missing[0]}: no such file or directory")
        return [os.path.expanduser(d) for d in args.transcripts]
    shared = corpus.shared_transcripts()
    if shared is None:
        raise EngramError("no transcripts to evaluate: pass --transcripts DIR (e.g. ~/.claude/projects/<project>), "
                          "or set ENGRAM_SHARED to a folder holding fixtures/transcripts")
    return [shared]


def command_line(args: argparse.Namespace) -> str:
    """The command that reproduces this run (the options that differ from the defaults)."""
    import shlex

    parts = ["engram", "eval"]
    if args.transcripts:
        parts += ["--transcripts", *args.transcripts]
    for opt, value, default in (("--provider", args.provider, "offline"), ("--out", args.out, "engram-eval"),
                                ("--sweep", args.sweep, "default"), ("--max-sessions", args.max_sessions, None),
                                ("--latency-sample", args.latency_sample, 24), ("--chains", args.chains, 12),
                                ("--labels", args.labels, None)):
        if value != default:
            parts += [opt, str(value)]
    return " ".join(shlex.quote(p) for p in parts)


def run_corpus(args: argparse.Namespace) -> int:
    """`engram eval --corpus DIR`: the knowledge score on the labelled corpus, by split and kind."""
    import tempfile

    from engram.errors import EngramError
    from engram.evaluation import corpus_eval
    from engram.evaluation.run import stderr

    where = os.path.expanduser(args.corpus)
    if not os.path.isdir(where):
        raise EngramError(f"--corpus {args.corpus}: no such directory (it holds <project>/<file> copies of the "
                          "corpus transcripts; see docs/evaluation.md)")
    names = [n for n in (args.projects or "").split(",") if n] or None
    unknown = sorted(set(names or []) - set(corpus_eval.records()))
    if unknown:
        raise EngramError(f"--projects: {unknown[0]} is not a corpus project ({', '.join(corpus_eval.records())})")
    if args.daily_budget is not None and args.daily_budget < 0:
        raise EngramError(f"--daily-budget {args.daily_budget}: give a number of tokens, 0 or more")
    settings = {} if args.daily_budget is None else {"dailyTokenBudget": args.daily_budget}
    if args.provider != "offline":
        stderr(f"{args.provider}: every session of the chosen projects is consolidated by the model once "
               "(it costs tokens; the report says how many)")
    with tempfile.TemporaryDirectory(prefix="engram-corpus-") as base:
        results = corpus_eval.evaluate(where, base, projects=names, split=args.split, provider=args.provider,
                                       settings=settings, say=stderr)
    print("\n".join(corpus_eval.write_report(results, args.out)))
    return 0


def run(args: argparse.Namespace) -> int:
    from engram.errors import EngramError
    from engram.evaluation import knowledge, report
    from engram.evaluation.run import Options, evaluate, stderr

    if args.corpus:
        return run_corpus(args)

    if not 1 <= args.chains <= 12:
        raise EngramError(f"--chains {args.chains}: must be between 1 and 12")
    if args.labels and not os.path.isfile(os.path.expanduser(args.labels)):
        raise EngramError(f"--labels {args.labels}: no such file (pass a JSON file of knowledge labels)")
    knowledge.load_labels(os.path.expanduser(args.labels) if args.labels else None)  # before any replay
    opts = Options(transcript_dirs(args), args.out, args.provider, args.sweep, args.max_sessions,
                   max(0, args.latency_sample), args.chains, command=command_line(args),
                   labels=os.path.expanduser(args.labels) if args.labels else None)
    data = evaluate(opts, stderr)
    paths = report.write(data, args.out)
    e = data["comparison"]["engram"]
    stderr(f"recall (all) {report.ratio(e['recall_all_revisited'])}, precision {report.ratio(e['precision_all'])}, "
           f"MRR@10 {report.num(e['mrr']['value'])}")
    for name, k in (data.get("knowledge") or {}).items():
        held = k["score"]["by_source"]["engram"].get("held-out", {"delivered": 0, "needed": 0})
        stderr(f"knowledge ({name}): held-out items delivered {held['delivered']}/{held['needed']}")
    print("\n".join(paths))
    return 0
