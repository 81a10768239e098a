"""`engram demo`: the main job end to end on the offline defaults, in a temporary home."""

from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("demo", help="run a sample project through engram, offline (no API key needed)")
    p.add_argument("--dir", default=None, help="keep the demo's files in this (new or empty) directory")
    p.set_defaults(func=run)


def run(args) -> int:
    from engram import demo

    return demo.main(args.dir)
