"""Installer tests: a home directory holding realistic settings of other tools (testing/settings.py)."""

from testing.settings import files, home, settings, snapshot  # noqa: F401  (fixtures)
