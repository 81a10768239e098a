"""Harnesses that run engram only where the user trusted it: Codex records each trusted hook in
config.toml (the shape Codex 0.171.0's /hooks panel wrote, docs/harness-contracts.md §9.2),
Gemini CLI trusts folders (~/.gemini/trustedFolders.json)."""

from __future__ import annotations

import json
import tomllib

from engram.cli import main
from engram.install import plan
from engram.harnesses.registry import get
from engram.report import doctor


def trusted_by_codex(home) -> list[str]:
    """What Codex's "Trust all and continue" appends for the hooks.json engram wrote."""
    tables = plan.trust_tables(get("codex"), None)
    lines = ["", "[hooks.state]", ""] + [f'[{t}]\ntrusted_hash = "sha256:{i:064x}"\n' for i, t in enumerate(tables)]
    with open(home / ".codex" / "config.toml", "a") as f:
        f.write("\n".join(lines) + '\n[projects."/src/app"]\ntrust_level = "trusted"\n')
    return tables


def test_uninstall_takes_out_the_trust_codex_recorded_for_engrams_hooks(home):
    assert main(["install", "--harness", "codex"]) == 0
    tables = trusted_by_codex(home)
    assert len(tables) == 6 and all(t.startswith('hooks.state."') and ':session_start:' in "".join(tables)
                                    for t in tables)
    assert main(["uninstall", "--harness", "codex"]) == 0
    toml = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert toml["hooks"]["state"] == {}  # engram's entries gone
    assert toml["projects"] == {"/src/app": {"trust_level": "trusted"}}  # the user's own trust stays
    assert toml["mcp_servers"]["docs"]["command"] == "npx"


def test_doctor_says_when_codex_has_not_trusted_the_hooks(home):
    assert main(["install", "--harness", "codex"]) == 0
    said = [c for c in doctor.trust(["codex"], None)]
    assert [c.level for c in said] == [doctor.WARN] and "has not trusted engram's hooks" in said[0].message
    trusted_by_codex(home)
    assert doctor.trust(["codex"], None) == []


def test_gemini_folder_trust_is_checked_by_doctor_and_named_by_install(home, tmp_path, capsys, monkeypatch):
    folder = tmp_path / "app"
    (folder / ".git").mkdir(parents=True)
    monkeypatch.chdir(folder)
    assert main(["install", "--harness", "gemini"]) == 0
    assert "Gemini CLI does not trust" in capsys.readouterr().out
    (warned,) = doctor.trust(["gemini"], None)
    assert warned.level == doctor.WARN and str(folder) in warned.message
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(folder): "TRUST_FOLDER"}))
    assert doctor.trust(["gemini"], None) == []
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(folder / "sub"): "TRUST_PARENT"}))
    assert doctor.trust(["gemini"], None) == []  # its parent's children are trusted
