"""The curated alias table is parsed once and then loaded from its cache; a stale, corrupt or
unwritable cache costs only the parse, never a wrong table."""

from __future__ import annotations

import marshal
import os

import pytest

from engram.language import aliases

TEXT = ("PostgreSQL = postgres, pg\nTypeScript = ts\ntsconfig.json < TypeScript\nAWS ^ amazon, aws\n"
        "@sdk-language TypeScript, Go\n")


@pytest.fixture
def table_file(tmp_path, monkeypatch):
    """A table of our own (its cache beside it, in __pycache__), and no table read yet."""
    path = tmp_path / "pkg" / "aliases.txt"
    path.parent.mkdir()
    path.write_text(TEXT)
    monkeypatch.setattr(aliases, "TABLE_PATH", str(path))
    monkeypatch.setenv("ENGRAM_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(aliases, "_TABLE", [])
    monkeypatch.setattr(aliases, "_CANON", [])
    return path


def fresh() -> aliases.Table:
    """The table as a new process reads it."""
    aliases._TABLE.clear()
    aliases._CANON.clear()
    return aliases.table()


def read_canon() -> dict[str, str]:
    """What `canon()` answers for every name the table knows (and None for one it does not)."""
    known = aliases.canon()
    assert known.get("no such tool") is None
    return {k: known.get(k) for k in aliases.parse(TEXT).canon}


def same(a: aliases.Table, b: aliases.Table) -> bool:
    return (a.canon, a.display, a.parents, a.owners, a.classes, a.aliases) == (
        b.canon, b.display, b.parents, b.owners, b.classes, b.aliases)


def cache_of(table_file) -> str:
    return os.path.join(table_file.parent, "__pycache__", aliases.CACHE_NAME)


def test_the_table_is_parsed_once_then_read_from_its_cache(table_file):
    first = aliases.table()
    assert same(first, aliases.parse(TEXT))
    assert os.path.isfile(cache_of(table_file))
    again = fresh()
    assert same(again, aliases.parse(TEXT)) and again.canonical("pg") == "postgresql"
    assert again.aliases["postgresql"] == ["postgresql", "postgres", "pg"]  # canonical first, table order
    aliases._TABLE.clear()
    assert read_canon() == aliases.parse(TEXT).canon  # the prompt's part alone


def test_a_changed_table_is_parsed_again(table_file):
    fresh()
    table_file.write_text(TEXT + "Kubernetes = k8s\n")
    assert fresh().canonical("k8s") == "kubernetes"
    assert fresh().canonical("k8s") == "kubernetes"  # and the cache now holds it


def test_the_same_text_under_a_new_mtime_keeps_the_cache_and_restamps_it(table_file):
    fresh()
    st = os.stat(table_file)
    os.utime(table_file, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert same(fresh(), aliases.parse(TEXT))
    with open(cache_of(table_file), "rb") as f:
        assert marshal.loads(f.read())[2] == os.stat(table_file).st_mtime_ns


@pytest.mark.parametrize("junk", [b"", b"\x00garbage", marshal.dumps((3, 1, 2)),
                                  "inner"])  # fmt: skip
def test_a_corrupt_cache_costs_only_the_parse(table_file, junk):
    fresh()
    path = cache_of(table_file)
    if junk == "inner":  # a valid envelope whose blobs are not marshal data
        with open(path, "rb") as f:
            fmt, size, mtime, digest, *_ = marshal.loads(f.read())
        junk = marshal.dumps((fmt, size, mtime, digest, b"\xff\x00", b"\xff\x00"))
    with open(path, "wb") as f:
        f.write(junk)
    assert same(fresh(), aliases.parse(TEXT))
    aliases._TABLE.clear()
    aliases._CANON.clear()
    assert read_canon() == aliases.parse(TEXT).canon


def test_the_prompts_canon_is_read_by_bucket_and_a_corrupt_bucket_reads_the_table(table_file):
    fresh()
    aliases._TABLE.clear()
    aliases._CANON.clear()
    known = aliases.canon()
    assert isinstance(known, aliases.Canon) and known.get("pg") == "postgresql" and known.get("ts") == "typescript"
    with open(cache_of(table_file), "rb") as f:
        fmt, size, mtime, digest, buckets, rest = marshal.loads(f.read())
    parts = list(marshal.loads(buckets))
    parts[aliases.bucket("postgres")] = b"\xff\x00"
    with open(cache_of(table_file), "wb") as f:
        f.write(marshal.dumps((fmt, size, mtime, digest, marshal.dumps(tuple(parts)), rest)))
    aliases._CANON.clear()
    assert aliases.canon().get("postgres") == "postgresql"


def test_an_unwritable_package_caches_in_engram_home_and_none_at_all_still_works(table_file, tmp_path):
    (table_file.parent / "__pycache__").write_text("a file where the directory would be")
    assert same(fresh(), aliases.parse(TEXT))
    assert os.path.isfile(tmp_path / "home" / "cache" / aliases.CACHE_NAME)
    assert same(fresh(), aliases.parse(TEXT))  # read from there
    os.unlink(tmp_path / "home" / "cache" / aliases.CACHE_NAME)
    (tmp_path / "home" / "cache").rmdir()
    (tmp_path / "home" / "cache").write_text("not a directory either")
    assert same(fresh(), aliases.parse(TEXT))


def test_a_projects_aliases_still_extend_the_cached_table(table_file):
    fresh()
    base = fresh()
    extended = aliases.for_config({"aliases": {"Attio": ["our crm"], "PostgreSQL": ["pgsql"]}})
    assert extended.canonical("our crm") == "attio" and extended.canonical("pgsql") == "postgresql"
    assert extended.aliases["postgresql"] == ["postgresql", "postgres", "pg", "pgsql"]
    assert base.canonical("our crm") is None and "pgsql" not in base.aliases["postgresql"]


def test_class_lines(table_file):
    """A class of names a rule reads ("@sdk-language ..."), by canonical: the rule names no product."""
    t = fresh()
    assert t.classes == {"sdk-language": ["typescript", "go"]}
    assert t.in_class("ts", "sdk-language") == "typescript" and t.in_class("pg", "sdk-language") is None
    assert same(fresh(), aliases.parse(TEXT))  # from the cache, the classes too
