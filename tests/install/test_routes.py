"""The install routes a new user takes (issue 15, findings 3 and 4): the package built as a
wheel and installed into a fresh venv, as `pipx install`, `uv tool install` and `pip
install` from a path or a git URL do (not editable), then `engram install` into an empty
HOME, then the registered hook command run with a real payload; and the hints every route
prints are commands that run.

The wheel is installed without its dependencies (no network in the suite): the fresh venv
reads them from this test run's venv through a .pth path entry, while engram itself comes
from the wheel alone (the test checks which file `import engram` loads).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile

import pytest
from testing.helpers import REPO, payload

SKIP = shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.egg-info", "build", "dist", ".pytest_cache")


def _run(argv, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, **kw)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> str:
    """The wheel `pip wheel` builds from a copy of the repository (nothing written into it)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "engram-hooks"
    shutil.copytree(REPO, src, ignore=SKIP)
    res = _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp / "dist"), str(src)])
    assert res.returncode == 0, res.stderr[-2000:]
    (built,) = (tmp / "dist").glob("engram_hooks-*.whl")
    return str(built)


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> str:
    """A fresh venv with the wheel installed (not editable); its bin directory."""
    tmp = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", "--without-pip", str(tmp / "v")], check=True)
    py = str(tmp / "v" / "bin" / "python")
    res = _run([sys.executable, "-m", "pip", "--python", py, "install", "-q", "--no-deps", "--no-index", wheel])
    assert res.returncode == 0, res.stderr[-2000:]
    site = _run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], check=True).stdout.strip()
    with open(os.path.join(site, "engram-test-deps.pth"), "w") as f:  # the dependencies, not engram
        f.write(sysconfig.get_paths()["purelib"] + "\n")
    return str(tmp / "v" / "bin")


def _user_env(tmp_path) -> dict:
    """A new user's shell: an empty HOME, the default ENGRAM_HOME, no venv on PATH."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "CLAUDE_", "PYTHON"))}
    env.update(HOME=str(home), PATH="/usr/local/bin:/usr/bin:/bin", ENGRAM_NO_WORKER="1")
    return env


def test_the_wheel_carries_every_data_file_and_its_dependencies(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for data in ("engram/graph/schema.sql", "engram/language/aliases.txt", "engram/evaluation/knowledge_labels.json",
                 "engram/consolidate/prompts/pass1.txt", "engram/monitor/prompts/contradiction.txt"):
        assert data in names, data
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    requires = [line.split(":", 1)[1].strip() for line in meta.splitlines() if line.startswith("Requires-Dist:")]
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    name = lambda req: re.match(r"[A-Za-z0-9_.-]+", req).group().lower()  # noqa: E731
    assert {name(r) for r in requires if "extra ==" not in r} == {name(d) for d in declared}
    assert "mcp" in {name(r) for r in requires if "extra ==" not in r}  # the MCP tool comes with the package


def test_wheel_install_then_engram_install_gives_working_hooks(venv, tmp_path):
    env = _user_env(tmp_path)
    home = env["HOME"]
    where = _run([f"{venv}/python", "-c", "import engram, engram.language.aliases as a; a.table(); print(engram.__file__)"],
                 env=env, cwd=home, check=True).stdout.strip()
    assert where.startswith(os.path.dirname(venv)), where  # the wheel's copy, not the checkout
    res = _run([f"{venv}/engram", "install"], env=env, cwd=home)
    assert res.returncode == 0, res.stderr
    settings = json.loads(open(f"{home}/.claude/settings.json").read())
    command = settings["hooks"]["PostToolUse"][0]["hooks"][0]["command"]
    # no checkout, no PATH lookup; -P: the project's files never stand in for the standard library's
    # -S: no `site`; the folder the wheel put engram in is named on the command line instead
    site_dir = os.path.dirname(os.path.dirname(where))
    assert command.startswith(f"{venv}/python -S -P -c 'import sys; sys.path.append(sys.argv.pop(1)); "
                              f"from engram.hook import entry; entry()' {shlex.quote(site_dir)} PostToolUse"), command
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    for event, fields in (("SessionStart", {"source": "startup"}),
                          ("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": "pytest -q"},
                                           "tool_response": {"stdout": "3 passed in 0.1s", "stderr": ""}})):
        cmd = settings["hooks"][event][0]["hooks"][0]["command"]
        ran = _run(["sh", "-c", cmd], input=json.dumps(payload(event, "wheel-1", proj, **fields)), env=env, cwd=str(proj))
        assert ran.returncode == 0 and not ran.stderr, (event, ran.stderr)
    streams = [os.path.join(d, f) for d, _, fs in os.walk(f"{home}/.engram/projects") for f in fs
               if f == "wheel-1.jsonl"]
    (stream,) = streams
    types = [json.loads(line)["type"] for line in open(stream)]
    assert types == ["session_start", "test_run"]


def test_every_hint_after_install_is_a_command_that_runs(venv, tmp_path):
    """Finding 3: `engram` is not on this user's PATH, so the hints name it by its path."""
    env = _user_env(tmp_path)
    out = _run([f"{venv}/engram", "install"], env=env, cwd=env["HOME"]).stdout
    hints = re.findall(r"`([^`]*engram (?:doctor|backfill|install)[^`]*)`", out)
    assert hints, out
    for hint in hints:
        assert hint.split()[0] == f"{venv}/engram", hint
        ran = _run(["sh", "-c", hint.replace("backfill", "backfill --help")], env=env, cwd=env["HOME"])
        assert ran.returncode != 127, (hint, ran.stderr)
    on_path = dict(env, PATH=f"{venv}{os.pathsep}{env['PATH']}")  # once on PATH, hints say plain `engram`
    out = _run([f"{venv}/engram", "install"], env=on_path, cwd=env["HOME"]).stdout
    assert "`engram doctor`" in out and f"{venv}/engram doctor" not in out


def test_doctor_in_the_fresh_install_passes(venv, tmp_path):
    env = _user_env(tmp_path)
    _run([f"{venv}/engram", "install", "--harness", "gemini"], env=env, cwd=env["HOME"], check=True)
    res = _run([f"{venv}/engram", "doctor"], env=env, cwd=env["HOME"])
    assert res.returncode == 0, res.stdout
    assert "OK    MCP server" in res.stdout and "OK    Gemini CLI" in res.stdout
    assert "Codex CLI" not in res.stdout and "GSD 2" not in res.stdout  # not on this machine: not listed
