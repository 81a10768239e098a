"""`engram view`: one self-contained HTML page, rendered in headless Chromium (Debian's
`chromium`) with a screenshot checked for content; skipped where Chromium is absent."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib

import pytest
from testing.consolidation import Session, cfg, consolidate, make_root
from testing.helpers import engram

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (Debian: apt-get install chromium)")


@pytest.fixture
def page(tmp_path):
    root = make_root(tmp_path)
    (root / "Makefile").write_text("test:\n\tpytest\n")
    (root / "rates.py").write_text('"""VAT rates by country code, one entry per country."""\nRATES = {}\n')
    s = Session(root, "s1").start()
    s.prompt("Add the VAT rates. Never use float for money.")
    s.read("rates.py").read("rates.py").command("make test", 0, "ok").stop("Done.")
    consolidate(s.project, "s1", cfg(s.project), lock_timeout=30)
    s2 = Session(root, "s2").start()
    s2.command("make test 2>&1 | tail -1", 0, "ok").stop("Done.")
    consolidate(s2.project, "s2", cfg(s2.project), lock_timeout=30)
    out = tmp_path / "view" / "memory.html"
    out.parent.mkdir()
    res = engram("view", "--out", str(out), "--project", str(root))
    assert res.returncode == 0, res.stderr
    return out


def test_the_page_holds_every_section_and_loads_nothing(page):
    html = page.read_text()
    for part in ("Knowledge by kind", "Sessions", "What each session was shown", "token ledger", "make test",
                 "rates.py", "payoff: last", "used / injected"):
        assert part in html, part
    for loads in ("<script", "<link", "<img", "src=", "href=", "@import", "url("):
        assert loads not in html


def test_a_bad_out_path_is_a_one_line_error(tmp_path, page):
    res = engram("view", "--out", str(tmp_path / "no" / "such" / "dir" / "x.html"), "--project", str(tmp_path / "proj"))
    assert res.returncode == 1 and len(res.stderr.strip().splitlines()) == 1 and "does not exist" in res.stderr
    res = engram("view", "--out", str(tmp_path), "--project", str(tmp_path / "proj"))
    assert res.returncode == 1 and "is a directory" in res.stderr


def _chromium(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           f"--user-data-dir={tmp_path / 'chromium-profile'}",
                           "--host-resolver-rules=MAP * ~NOTFOUND", *args],
                          capture_output=True, text=True, timeout=120)


def _png_pixels(path) -> bytes:
    """The decompressed image data of a PNG (its filter bytes included): enough to tell a blank
    screenshot from one with text, without an imaging library."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat = 8, b""
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if kind == b"IDAT":
            idat += data[at + 8:at + 8 + length]
        at += 12 + length
    return zlib.decompress(idat)


@needs_chromium
def test_chromium_renders_the_items(tmp_path, page):
    dom = _chromium(tmp_path, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-500:]
    assert "make test" in dom.stdout and "rates.py" in dom.stdout and "Knowledge by kind" in dom.stdout
    shot, blank = tmp_path / "page.png", tmp_path / "blank.png"
    (tmp_path / "blank.html").write_text("<!DOCTYPE html><html><body></body></html>")
    for target, uri in ((shot, page.as_uri()), (blank, (tmp_path / "blank.html").as_uri())):
        res = _chromium(tmp_path, f"--screenshot={target}", "--window-size=1000,1400", uri)
        assert res.returncode == 0 and target.exists(), res.stderr[-500:]
    pixels, empty = _png_pixels(shot), _png_pixels(blank)
    assert len(set(pixels)) > 40 and len(set(empty)) < 10  # text and tables drawn; a blank page is one colour
    assert len(zlib.compress(pixels)) > 5 * len(zlib.compress(empty))
