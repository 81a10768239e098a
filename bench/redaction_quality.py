"""How well the redactor finds secrets, and how little ordinary content it eats.

    python bench/redaction_quality.py [--split dev|heldout|both|batch2|batch3|all] [--show]

Cases: bench/redaction_corpus.py (labelled secrets by family, near-miss negatives), written
before the rules were changed and split development / held-out, and its batches 2 and 3, each held out
whole (measured against the held-out half's ordinary content). Ordinary content: the
running interpreter's standard library (code; `test` packages excluded) and, when present,
the tool outputs and messages of the shared real transcripts (logs), both alternating
development / held-out by file. Every mask inserted into ordinary content is counted as a
false positive (`--show` prints them, to check by eye).

Reported per half:
* recall: planted secrets gone after redaction / planted secrets (by family);
* collateral: ordinary words next to a secret that were eaten / such words;
* negatives changed: near-miss cases altered / near-miss cases;
* ordinary content: masks per 10,000 lines;
* precision: secrets caught / (secrets caught + masks in negatives and ordinary content),
  over code and logs, and over code only (what a checkout without the shared transcripts
  reproduces).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import sysconfig
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import redaction_corpus as corpus  # noqa: E402

from engram import redact  # noqa: E402

CHUNK_LINES = 40  # ordinary content is redacted in chunks the size of a captured output field
TRANSCRIPTS = os.path.join(os.path.dirname(HERE), "..", "shared", "fixtures", "transcripts")


def scrub(case: dict) -> str:
    """The capture path's choice: a `.env` or key file's content, a field clipped to its limit, or
    any other text."""
    if case.get("file"):
        return redact.scrubber(case["file"])(case["text"])
    if case.get("clip"):
        return redact.clip_then_redact(case["text"], case["clip"])[0]
    return redact.redact(case["text"])


def masks(before: str, after: str) -> int:
    return max(0, after.count(redact.MASK) - before.count(redact.MASK))


# -- ordinary content ------------------------------------------------------------------------


def stdlib_files() -> list[str]:
    lib = sysconfig.get_paths()["stdlib"]
    out = []
    for dirpath, dirnames, filenames in os.walk(lib):
        dirnames[:] = sorted(d for d in dirnames if d not in ("test", "tests", "idle_test", "site-packages", "__pycache__")
                             and not d.startswith("lib2to3"))
        out += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py")]
    return out


def _texts(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    if isinstance(value, dict):
        if value.get("type") in ("tool_result", "text"):
            return _texts(value.get("content")) + _texts(value.get("text"))
        return _texts(value.get("content")) if "content" in value else []
    return []


def transcript_texts(path: str) -> str:
    """Tool results and messages of one transcript (JSONL or JSON array), as one text."""
    with open(path, "rb") as f:
        raw = f.read().decode("utf-8", "replace")
    try:
        records = json.loads(raw) if raw.lstrip().startswith("[") else [json.loads(x) for x in raw.splitlines() if x.strip()]
    except ValueError:
        return ""
    parts = []
    for rec in records if isinstance(records, list) else []:
        if isinstance(rec, dict) and isinstance(rec.get("message"), dict):
            parts += _texts(rec["message"].get("content"))
    return "\n".join(parts)


def ordinary(half: str) -> dict[str, list[str]]:
    """{"code": [texts], "logs": [texts]} of one half."""
    code = []
    for path in corpus.split(stdlib_files(), half):
        with open(path, "rb") as f:
            code.append(f.read().decode("utf-8", "replace"))
    logs = []
    if os.path.isdir(TRANSCRIPTS):
        files = sorted(os.path.join(d, f) for d, _, fs in os.walk(TRANSCRIPTS) for f in fs if f.endswith((".json", ".jsonl")))
        logs = [t for t in (transcript_texts(p) for p in corpus.split(files, half)) if t]
    return {"code": code, "logs": logs}


def scan_ordinary(texts: list[str], show: bool) -> tuple[int, int, float]:
    """(lines, masks inserted, seconds) over texts cut into CHUNK_LINES-line chunks."""
    lines = found = 0
    spent = 0.0
    for text in texts:
        rows = text.split("\n")
        for i in range(0, len(rows), CHUNK_LINES):
            chunk = "\n".join(rows[i : i + CHUNK_LINES])
            t0 = time.perf_counter()
            out = redact.redact(chunk)
            spent += time.perf_counter() - t0
            lines += min(CHUNK_LINES, len(rows) - i)
            n = masks(chunk, out)
            if n:
                found += n
                if show:
                    at = out.find(redact.MASK)
                    while at >= 0:
                        print("    FP  " + " ".join(out[max(0, at - 70) : at + 50].split()))
                        at = out.find(redact.MASK, at + 1)
    return lines, found, spent


# -- labelled cases --------------------------------------------------------------------------


def labelled(half: str) -> tuple[dict[str, list[dict]], list[str]]:
    """(positive cases by family, negatives) of one half, or of batch 2 (held out whole)."""
    if half in ("batch2", "batch3"):
        return (corpus.POSITIVE_2, corpus.NEGATIVE_2) if half == "batch2" else (corpus.POSITIVE_3, corpus.NEGATIVE_3)
    return {f: corpus.split(cases, half) for f, cases in corpus.POSITIVE.items()}, corpus.split(corpus.NEGATIVE, half)


def run_cases(half: str, show: bool) -> dict:
    fam: dict[str, list[int]] = {}
    planted = caught = keep_total = eaten = 0
    positive, neg = labelled(half)
    for family, cases in positive.items():
        got = n = 0
        for case in cases:
            out = scrub(case)
            for s in case["secrets"]:
                n += 1
                if s not in out:
                    got += 1
                elif show:
                    print(f"    MISS [{family}] {case['text'][:120]!r}")
            for k in case.get("keep", []):
                keep_total += 1
                if k not in out:
                    eaten += 1
                    if show:
                        print(f"    ATE  [{family}] {k!r} in {out[:120]!r}")
        fam[family] = [got, n]
        planted += n
        caught += got
    changed = neg_masks = 0
    for text in neg:
        out = redact.redact(text)
        if out != text:
            changed += 1
            neg_masks += max(1, masks(text, out))
            if show:
                print(f"    NEG  {text[:100]!r} -> {out[:100]!r}")
    return {"families": fam, "planted": planted, "caught": caught, "keep": keep_total, "eaten": eaten,
            "negatives": len(neg), "negatives_changed": changed, "negative_masks": neg_masks}


def report(half: str, show: bool) -> None:
    r = run_cases(half, show)
    print(f"== batch {half[-1]} (held out whole) ==" if half.startswith("batch") else f"== {half} half ==")
    for family, (got, n) in r["families"].items():
        print(f"  recall {family:<17} {got:>3}/{n:<3} {got / n:6.1%}")
    print(f"  recall (all)              {r['caught']:>3}/{r['planted']:<3} {r['caught'] / r['planted']:6.1%}")
    print(f"  collateral                {r['eaten']:>3}/{r['keep']:<3} words next to a secret eaten")
    print(f"  negatives changed         {r['negatives_changed']:>3}/{r['negatives']:<3}")
    fp = {"negatives": r["negative_masks"]}
    for kind, texts in ordinary("heldout" if half.startswith("batch") else half).items():
        if not texts:
            print(f"  ordinary {kind}: none found (the shared transcripts are absent)")
            continue
        lines, found, spent = scan_ordinary(texts, show)
        fp[kind] = found
        print(f"  ordinary {kind:<5} {lines:>8} lines, {found:>4} masks ({found * 10000 / max(1, lines):.2f} per 10k lines), "
              f"{lines / max(spent, 1e-9) / 1000:.0f}k lines/s")
    for label, kinds in (("code and logs", ("negatives", "code", "logs")), ("code only", ("negatives", "code"))):
        if label == "code only" or "logs" in fp:
            wrong = sum(fp.get(k, 0) for k in kinds)
            print(f"  precision ({label:<13}) {r['caught'] / max(1, r['caught'] + wrong):.3f} "
                  f"({r['caught']} secrets caught, {wrong} masks on negatives and ordinary {' and '.join(kinds[1:])})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("dev", "heldout", "both", "batch2", "batch3", "all"), default="all")
    ap.add_argument("--show", action="store_true", help="print every miss, eaten word and false positive")
    args = ap.parse_args()
    halves = {"both": ("dev", "heldout"), "all": ("dev", "heldout", "batch2", "batch3")}.get(args.split, (args.split,))
    for half in halves:
        report(half, args.show)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
