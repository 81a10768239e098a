"""graph/evidence.py against real files: what an item needs, and whether it still holds."""

from __future__ import annotations

import json

from engram.graph.items import evidence
from engram.graph.items.evidence import Reader, broken, changed, command_needs, holds, needs


def test_command_needs_read_the_targets_scripts_and_files_a_command_line_uses():
    assert command_needs("make test") == [["make", ".", "test"]]
    assert command_needs("make -C web build lint") == [["make", "web", "build"], ["make", "web", "lint"]]
    assert command_needs("make") == [["make", ".", ""]]
    assert command_needs("npm run test:offline") == [["script", ".", "test:offline"]]
    assert command_needs("npm test") == [["script", ".", "test"]]
    assert command_needs("yarn lint") == [["script", ".", "lint"]]
    assert command_needs("yarn install") == [] and command_needs("npm ci") == []
    assert command_needs("INVOICE_ENV=staging ./tools/publish.sh") == [["file", "tools/publish.sh"]]
    assert command_needs("pytest tests/test_calc.py::test_add -q") == [["file", "tests/test_calc.py"]]
    assert command_needs("python -m unittest test_calc") == []
    assert command_needs("make test && python scripts/check.py | tail -3") == [["make", ".", "test"],
                                                                              ["file", "scripts/check.py"]]


def test_a_removed_target_script_or_file_breaks_the_need(tmp_path):
    (tmp_path / "Makefile").write_text("test:\n\tpytest\nlint fmt: deps\n\truff .\n")
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"build": "tsc"}}))
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "publish.sh").write_text("echo hi\n")
    r = Reader(str(tmp_path))
    assert holds(["make", ".", "test"], r) and holds(["make", ".", "fmt"], r)
    assert holds(["make", ".", "deploy"], r) is False
    assert holds(["script", ".", "build"], r) and holds(["script", ".", "test"], r) is False
    assert holds(["file", "tools/publish.sh"], r) and holds(["file", "tools/gone.sh"], r) is False
    (tmp_path / "tools" / "publish.sh").unlink()
    assert broken([["make", ".", "test"], ["file", "tools/publish.sh"]], Reader(str(tmp_path))) == [
        "file", "tools/publish.sh"]


def test_what_cannot_be_told_cheaply_never_breaks_an_item(tmp_path):
    (tmp_path / "Makefile").write_text("include common.mk\nbuild:\n\tcc\n")
    r = Reader(str(tmp_path))
    assert holds(["make", ".", "test"], r) is None  # it may come from common.mk
    (tmp_path / "Makefile").write_text("%:\n\t@echo $@\n")
    assert holds(["make", ".", "anything"], Reader(str(tmp_path))) is None  # a pattern rule
    assert holds(["file", "../outside"], r) is None and holds(["file", "/etc/passwd"], r) is None
    spent = Reader(str(tmp_path), max_reads=0)
    assert holds(["make", ".", "test"], spent) is None  # out of budget: not held against the item
    assert broken("not a list", r) is None and broken([["file"], [1, 2]], r) is None


def test_a_rewritten_file_breaks_its_role_an_edit_that_keeps_the_role_does_not(tmp_path):
    f = tmp_path / "rates.py"
    f.write_text('"""VAT rates by country code."""\n\nRATES = {"DE": "0.19"}\n')
    node = {"id": "n_1", "type": "concept", "affected_files": ["rates.py"],
            "data": {"kind": "file", "role": "VAT rates by country code."}}
    recorded = needs(node, Reader(str(tmp_path)))
    assert [n[:2] for n in recorded] == [["head", "rates.py"]]
    f.write_text('"""VAT rates by country code."""\n\nRATES = {"DE": "0.19", "FR": "0.20"}\n')
    assert broken(recorded, Reader(str(tmp_path)), node["data"]) is None
    f.write_text('"""Shipping zones and their carriers."""\n')
    assert broken(recorded, Reader(str(tmp_path)), node["data"])[:2] == ["head", "rates.py"]
    f.unlink()
    assert broken(recorded, Reader(str(tmp_path)), node["data"])[:2] == ["head", "rates.py"]


def test_needs_records_only_what_holds_at_consolidation(tmp_path):
    node = {"id": "n_1", "type": "concept", "name": "make test", "data": {"kind": "command"}}
    assert needs(node, Reader(str(tmp_path))) == []  # no Makefile here: run from elsewhere, nothing recorded
    (tmp_path / "Makefile").write_text("test:\n\tpytest\n")
    assert needs(node, Reader(str(tmp_path))) == [["make", ".", "test"]]
    leftover = {"id": "n_2", "type": "finding", "data": {"kind": "unfinished", "key": "leftover:old.js"}}
    (tmp_path / "old.js").write_text("x")
    assert needs(leftover, Reader(str(tmp_path))) == [["file", "old.js"]]
    gotcha = {"id": "n_3", "type": "error", "data": {"kind": "gotcha", "worked": "make test"}}
    assert needs(gotcha, Reader(str(tmp_path))) == [["make", ".", "test"]]


def test_a_failing_check_is_possibly_fixed_only_when_all_its_files_changed(tmp_path):
    (tmp_path / "a.py").write_text("a = 1\n")
    (tmp_path / "b.py").write_text("b = 1\n")
    same = evidence.same_needs(["a.py", "b.py"], Reader(str(tmp_path)))
    assert changed(same, Reader(str(tmp_path))) == []
    (tmp_path / "a.py").write_text("a = 2\n")
    assert changed(same, Reader(str(tmp_path))) == []
    (tmp_path / "b.py").unlink()
    assert changed(same, Reader(str(tmp_path))) == ["a.py", "b.py"]
    assert broken(same, Reader(str(tmp_path))) is None  # not expired: said as possibly fixed
