"""JSON and JSONL for the hook's hot path, without `import json`.

`import json` costs ~7.5 ms here because `json.decoder` pulls in `re` (and with it
`enum`); that alone is three quarters of the PostToolUse budget (docs/architecture.md, "Process model").
The C accelerators in `_json` do all the real work of the stdlib module, so this
module drives them directly. Workers and the CLI may use `json` freely.
"""

from __future__ import annotations

try:
    import _json
except ImportError:  # pragma: no cover - CPython always ships _json
    _json = None


def _int(digits: str):
    """An integer, or None past 4,000 digits: converting a huge one costs quadratic time (and
    Python refuses past 4,300), which a payload must not be able to buy."""
    return int(digits) if len(digits) <= 4000 else None


class _ScanContext:
    # The attributes `_json.make_scanner` reads from a `json.JSONDecoder`.
    strict = False
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = staticmethod(_int)
    parse_constant = {
        "NaN": float("nan"),
        "Infinity": float("inf"),
        "-Infinity": float("-inf"),
    }.__getitem__
    memo = None


_WS = " \t\n\r"
MAX_JSONL_BYTES = 1 << 31

if _json is not None:
    _scan = _json.make_scanner(_ScanContext())
    # (markers, default, encoder, indent, key_sep, item_sep, sort_keys, skipkeys, allow_nan)
    _encode = _json.make_encoder(
        None, None, _json.encode_basestring_ascii, None, ":", ",", False, False, True
    )
    _encode_sorted = _json.make_encoder(
        None, None, _json.encode_basestring_ascii, None, ":", ",", True, False, True
    )


def loads(text: str):
    """Parse one JSON document; raise ValueError on anything else."""
    if _json is None:  # pragma: no cover
        import json

        return json.loads(text)
    text = text.strip(_WS)
    try:
        obj, end = _scan(text, 0)
    except StopIteration as exc:
        raise ValueError(f"invalid JSON at offset {exc.value}") from None
    except SystemError:
        # `_json` reports an error inside an object through json.decoder.JSONDecodeError,
        # which it finds only once `json` is imported; without it (this module's point) it
        # raises SystemError: a torn line or a corrupt state file must stay a ValueError.
        raise ValueError("invalid JSON") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if end != len(text):
        raise ValueError(f"extra data at offset {end}")
    return obj


def dumps(obj, sort_keys: bool = False) -> str:
    """Compact, ASCII-only JSON (one line, safe to append to a JSONL file)."""
    if _json is None:  # pragma: no cover
        import json

        return json.dumps(obj, separators=(",", ":"), sort_keys=sort_keys)
    enc = _encode_sorted if sort_keys else _encode
    return "".join(enc(obj, 0))


def read_object(path: str, limit: int = 16 * 1024 * 1024) -> dict:
    """The JSON object in one of engram's small files; {} when it is missing, not a regular
    file (a FIFO must not hang the reader), larger than `limit`, or not a JSON object."""
    from engram.fsio import read_regular

    data = read_regular(path, limit + 1, follow=False)
    if data is None or len(data) > limit:
        return {}
    try:
        obj = loads(data.decode("utf-8", "replace"))
    except ValueError:
        return {}
    return obj if isinstance(obj, dict) else {}


def read_jsonl(path: str) -> tuple[list, int, int]:
    """(objects on the file's complete lines, lines that are not one, bytes of complete lines).

    A line is complete when a newline ends it: a last line without one is a writer
    killed mid-append (or still appending), so it is counted as unreadable, never parsed,
    and the byte count stops before it. A missing file is ([], 0, 0); anything but a
    regular file raises engram.fsio.NotRegular (a FIFO in its place must not hang a reader).
    """
    from engram.fsio import read_file

    try:
        data = read_file(path, MAX_JSONL_BYTES)
    except FileNotFoundError:
        return [], 0, 0
    end = data.rfind(b"\n") + 1
    objects, bad = [], int(bool(data[end:].strip()))
    for raw in data[:end].split(b"\n"):
        if not raw.strip():
            continue
        try:
            objects.append(loads(raw.decode("utf-8", "replace")))
        except ValueError:
            bad += 1
    return objects, bad, end


def tail_objects(path: str, limit: int, needles: tuple[bytes, ...] = (), *, follow: bool = False, skip=None):
    """The JSON objects on the lines of the last `limit` bytes of a file, newest first.

    A generator, so a reader stops at the first it wants: the hooks read a stream's last
    seq, the recent sessions' writes and a transcript's last message this way, in bounded
    time whatever the file's size. A line holding none of `needles` is skipped unparsed
    (parsing is the cost), and so is one `skip(line)` says adds nothing; so are the tail's
    torn first line, a killed writer's last one and anything not an object. Nothing for a missing file or anything but a regular file
    (a symlink too, unless `follow`).
    """
    from engram.fsio import read_regular

    tail = read_regular(path, limit, tail=True, follow=follow)
    if tail is None:
        return
    for raw in (_lines_with(tail, needles) if needles else reversed(tail.split(b"\n"))):
        if not raw.strip() or (skip is not None and skip(raw)):
            continue
        try:
            obj = loads(raw.decode("utf-8", "replace"))
        except ValueError:
            continue
        if isinstance(obj, dict):
            yield obj


def _lines_with(data: bytes, needles: tuple[bytes, ...]) -> list[bytes]:
    """The lines of `data` holding any of `needles`, last first: a needle absent from the
    whole buffer costs one search in C, and each present one a comprehension over the
    lines (no Python-level `any` per line: a session's stream holds hundreds of lines the
    hooks do not want)."""
    present = [n for n in needles if n in data]
    if not present:
        return []
    lines = data.split(b"\n")
    keep: set[int] = set()
    for needle in present:
        keep.update([i for i, line in enumerate(lines) if needle in line])
    return [lines[i] for i in sorted(keep, reverse=True)]
