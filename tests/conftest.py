"""Every test runs with ENGRAM_HOME and HOME in temporary directories, offline; shared fixtures.

No test touches the real ~/.engram (HOME is moved too, as a tripwire for code that
ignores ENGRAM_HOME), and no test can reach a model API: keys are removed and
ENGRAM_OFFLINE is set unless a test points a provider at a local server itself.
"""

from __future__ import annotations

import pytest

_KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "VOYAGE_API_KEY", "ENGRAM_ANTHROPIC_API_KEY", "ENGRAM_OPENAI_API_KEY",
         "ENGRAM_VOYAGE_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "VOYAGE_BASE_URL", "ENGRAM_DISABLE")


@pytest.fixture(autouse=True)
def engram_home(tmp_path, monkeypatch):
    home = tmp_path / "engram-home"
    home.mkdir()
    monkeypatch.setenv("ENGRAM_HOME", str(home))
    user_home = tmp_path / "user-home"
    user_home.mkdir()
    monkeypatch.setenv("HOME", str(user_home))
    for key in _KEYS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("ENGRAM_OFFLINE", "1")
    return home


@pytest.fixture
def proj(tmp_path):
    """A small git project: src/calc.py and its test."""
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text("from src.calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")
    return root


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "proj" / "engram.db")


@pytest.fixture
def conn(db_path):
    """A real engram.db (schema migrated, sqlite-vec when it loads here)."""
    from engram.graph.connect import connect

    c = connect(db_path)
    yield c
    c.close()
