"""Planted secrets in every captured field never reach the JSONL (or anything under ENGRAM_HOME)."""

from __future__ import annotations

import pytest
from testing.helpers import payload, run_hook

# (the secret value, how it appears in text). Values are fake but shaped like the real thing.
SECRETS = [
    ("sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv", "ANTHROPIC_API_KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv"),
    ("sk-proj-ZyXwVuTsRqPoNmLkJiHg1234", "openai key sk-proj-ZyXwVuTsRqPoNmLkJiHg1234 in use"),
    ("AKIAIOSFODNN7EXAMPLE", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"),
    ("wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", "aws_secret_access_key=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"),
    ("ghp_16C7e42F292c6912E7710c838347Ae178B4a", "git clone https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/x/y"),
    ("hunter2hunter2", "psql postgres://admin:hunter2hunter2@db.internal:5432/app"),
    ("xoxb-123456789012-abcdefghijkl", "SLACK_TOKEN=xoxb-123456789012-abcdefghijkl"),
    ("AIzaSyA1234567890abcdefghijklmnopqrstu", "key=AIzaSyA1234567890abcdefghijklmnopqrstu"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N"),
    ("MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END RSA PRIVATE KEY-----"),
    ("s3cr3t-Pa55word", 'DB_PASSWORD="s3cr3t-Pa55word"'),
    ("glpat-xxxxXXXXxxxxXXXX1234", "export GITLAB_TOKEN=glpat-xxxxXXXXxxxxXXXX1234"),
]


@pytest.fixture
def proj(tmp_path):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


def plant(proj, text, n):
    s = f"s{n}"
    f = proj / f"f{n}.py"
    f.write_text(f"x = 1\n{text}\n")
    env = proj / ".env"
    env.write_text("PLAIN=1\n")
    calls = [
        ("UserPromptSubmit", dict(prompt=f"use this: {text}")),
        ("PostToolUse", dict(tool_name="Bash", tool_input={"command": f"echo '{text}'"},
                             tool_response={"stdout": text, "stderr": text})),
        ("PostToolUseFailure", dict(tool_name="Bash", tool_input={"command": f"pytest # {text}"},
                                    error=f"Exit code 1\n{text}")),
        ("PostToolUse", dict(tool_name="Edit", tool_input={"file_path": str(f), "old_string": "x", "new_string": text},
                             tool_response={"filePath": str(f), "structuredPatch": [
                                 {"oldStart": 2, "oldLines": 0, "newStart": 2, "newLines": 1, "lines": ["+" + text]}]})),
        ("PostToolUse", dict(tool_name="Write", tool_input={"file_path": str(env), "content": f"TOKEN_X={text}\n"},
                             tool_response={"type": "update", "filePath": str(env), "originalFile": "PLAIN=1\n",
                                            "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
                                                                 "lines": ["-PLAIN=1", f"+TOKEN_X={text}"]}]})),
        ("PostToolUse", dict(tool_name="WebFetch", tool_input={"url": f"https://example.com/?q={text}", "prompt": "x"},
                             tool_response={"code": 200})),
        ("PostToolUse", dict(tool_name="WebSearch", tool_input={"query": text}, tool_response={"results": []})),
        ("PostToolUse", dict(tool_name="mcp__x__y", tool_input={"arg": text}, tool_response=text)),
        ("Stop", dict(last_assistant_message=f"I used {text}")),
    ]
    for event, fields in calls:
        assert run_hook(event, payload(event, s, proj, **fields)).returncode == 0


def test_no_planted_secret_reaches_disk(proj, engram_home):
    for n, (_secret, text) in enumerate(SECRETS):
        plant(proj, text, n)
    blobs = b"".join(p.read_bytes() for p in engram_home.rglob("*") if p.is_file())
    assert blobs.count(b"[REDACTED]") >= len(SECRETS)
    leaked = [secret for secret, _ in SECRETS if secret.encode() in blobs]
    assert leaked == []
