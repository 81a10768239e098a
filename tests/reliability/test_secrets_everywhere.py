"""Planted secrets in every captured field reach none of: the JSONL, the database, the episode
files, the session state, the logs (tests/capture checks the JSONL alone, before consolidation).

The corpus covers cloud keys, tokens, passwords in URLs and assignments, private keys and
`.env` files the agent reads or writes; every secret goes through prompts, commands, their
output, edits, file reads, web calls, MCP tools, decisions and the agent's last message, then
through a full consolidation and a fault log line.
"""

from __future__ import annotations

import json

import pytest
from testing.reliability import all_bytes, consolidate_all, replay_inproc, run_inproc

# (the secret, text that carries it). Fake values shaped like the real ones.
SECRETS = [
    ("sk-ant-api03-Zq9xW2vB7nM4kL1pR8tY6uI3oE5aS0dF", "export ANTHROPIC_API_KEY=sk-ant-api03-Zq9xW2vB7nM4kL1pR8tY6uI3oE5aS0dF"),
    ("sk-proj-Hh7Gg6Ff5Ee4Dd3Cc2Bb1Aa0Zz9Yy8", "client = OpenAI(api_key='sk-proj-Hh7Gg6Ff5Ee4Dd3Cc2Bb1Aa0Zz9Yy8')"),
    ("AKIAQWERTYUIOPASDFGH", "aws_access_key_id = AKIAQWERTYUIOPASDFGH"),
    ("9hVx/Lq2Zr8Kp4Wm7Ny1Tb6Gc3Fd5Hs0Jk2Ue8Ao", "AWS_SECRET_ACCESS_KEY=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"),
    ("ASIAZXCVBNMLKJHGFDSA", "session creds ASIAZXCVBNMLKJHGFDSA expire soon"),
    ("ghp_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78", "git remote add o https://ghp_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78@github.com/a/b"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "GH_TOKEN=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
    ("glpat-Zz8Yy7Xx6Ww5Vv4Uu3Tt", "gitlab token glpat-Zz8Yy7Xx6Ww5Vv4Uu3Tt"),
    ("xoxb-2048-4096-Qw3Er4Ty5Ui6Op7", "slack: xoxb-2048-4096-Qw3Er4Ty5Ui6Op7"),
    ("sk_live_51HxYzAbCdEfGhIjKlMnOp", "stripe.api_key = 'sk_live_51HxYzAbCdEfGhIjKlMnOp'"),
    ("AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "maps key AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("npm_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", "//registry.npmjs.org/:_authToken=npm_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"),
    ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyNDIifQ.c2lnbmF0dXJlLWhlcmUtMTIz",
     "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyNDIifQ.c2lnbmF0dXJlLWhlcmUtMTIz' api"),
    ("Tr0ub4dor-and-3", "psql postgresql://deploy:Tr0ub4dor-and-3@db.internal:5432/prod"),
    ("correct-horse-battery", "mysql --user=root --password=correct-horse-battery"),
    ("pa55w0rd-in-env", 'DB_PASSWORD="pa55w0rd-in-env"'),
    ("hunter2-client-secret", "client_secret: hunter2-client-secret"),
    ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSj",
     "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSj\nAoIBAQC7\n-----END PRIVATE KEY-----"),
    ("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
     "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----"),
    ("plain-looking-value-42", "SMTP_PASS=plain-looking-value-42"),  # also written to .env below
]
ENV_ONLY = "zebra-crossing-1987"  # a value with no secret shape: only its .env file makes it one


def _session(root, n: int, secret: str, text: str) -> list[tuple[str, dict]]:
    """Every captured field of one session carries `text` (a URL carries `secret` as a token)."""
    s = f"sec{n}"
    env = root / ".env"
    env.write_text(f"PLAIN=1\nAPP_MODE={ENV_ONLY}\n{text.splitlines()[0]}\n")
    src = root / "src" / f"cfg{n}.py"
    src.write_text(f"X = 1\n{text}\n")

    def p(event, **fields):
        return event, {"session_id": s, "cwd": str(root), "transcript_path": "", **fields}

    edit_patch = [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 2, "lines": ["-X = 1", "+X = 1", f"+{text}"]}]
    return [
        p("SessionStart", source="startup"),
        p("UserPromptSubmit", prompt=f"deploy with {text} please"),
        p("PostToolUse", tool_name="Read", tool_input={"file_path": str(env)},
          tool_response={"type": "text", "file": {"filePath": str(env), "content": env.read_text()}}),
        p("PostToolUse", tool_name="Read", tool_input={"file_path": str(src)},
          tool_response={"type": "text", "file": {"filePath": str(src), "content": src.read_text()}}),
        p("PostToolUse", tool_name="Bash", tool_input={"command": f"echo '{text}' && cat .env"},
          tool_response={"stdout": f"{text}\nAPP_MODE={ENV_ONLY}", "stderr": text}),
        p("PostToolUseFailure", tool_name="Bash", tool_input={"command": f"pytest -q  # {text}"},
          error=f"Exit code 1\nFAILED tests/test_cfg.py::test_key - {text}\n1 failed in 0.1s"),
        p("PostToolUse", tool_name="Edit", tool_input={"file_path": str(src), "old_string": "X = 1", "new_string": f"X = 1\n{text}"},
          tool_response={"filePath": str(src), "structuredPatch": edit_patch}),
        p("PostToolUse", tool_name="Write", tool_input={"file_path": str(env), "content": f"APP_MODE={ENV_ONLY}\nK={text}\n"},
          tool_response={"type": "update", "filePath": str(env), "originalFile": "PLAIN=1\n", "structuredPatch": [
              {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 2,
               "lines": ["-PLAIN=1", f"+APP_MODE={ENV_ONLY}", f"+K={text.splitlines()[0]}"]}]}),
        p("PostToolUse", tool_name="Bash", tool_input={"command": "pytest -q"}, tool_response={"stdout": "3 passed in 0.1s", "stderr": ""}),
        p("PostToolUse", tool_name="WebFetch", tool_input={"url": f"https://example.com/cb?token={secret}", "prompt": text},
          tool_response={"code": 200, "result": text}),
        p("PostToolUse", tool_name="WebSearch", tool_input={"query": text}, tool_response={"results": []}),
        p("PostToolUse", tool_name="mcp__vault__get", tool_input={"arg": text}, tool_response=text),
        p("PostToolUse", tool_name="Task", tool_input={"description": text, "subagent_type": "Explore", "prompt": text},
          tool_response={"content": [{"type": "text", "text": text}]}),
        p("PostToolUse", tool_name="Bash",
          tool_input={"command": f'engram decide "Keep credentials out of src" --rationale "leaked {text}" --files src/cfg{n}.py'},
          tool_response={"stdout": "recorded", "stderr": ""}),
        p("PostToolUse", tool_name="mcp__engram__save_decision",
          tool_input={"decision": f"Rotate {text}", "rationale": text, "files": [f"src/cfg{n}.py"]}, tool_response="ok"),
        p("Stop", last_assistant_message=f"Done. I configured {text} in src/cfg{n}.py."),
        p("PreCompact", trigger="auto"),
        p("SessionEnd", reason="other"),
    ]


def test_no_secret_anywhere_after_capture_consolidation_and_faults(proj, engram_home, figures):
    for n, (secret, text) in enumerate(SECRETS):
        replay_inproc(_session(proj, n, secret, text))
        # a fault whose message would carry the text: a hostile session id is logged
        bad = {"session_id": f"{text[:60]}/../x", "cwd": str(proj), "prompt": text}
        assert run_inproc("UserPromptSubmit", json.dumps(bad).encode()).rc == 0
    outcomes = consolidate_all(proj)
    assert {o.status for o in outcomes} == {"consolidated"}, [(o.session, o.status, o.error) for o in outcomes]
    blob = all_bytes(engram_home)
    assert blob.count(b"[REDACTED]") >= len(SECRETS)
    leaked = [secret for secret, _ in SECRETS if secret.encode() in blob]
    assert leaked == []
    assert ENV_ONLY.encode() not in blob, ".env values are secrets whatever their shape"
    kinds = {p.parent.name for p in engram_home.rglob("*") if p.is_file()}
    assert {"events", "episodes", "sessions", "logs"} <= kinds
    assert any(p.name == "engram.db" for p in engram_home.rglob("*"))
    figures.add("secrets", planted=len(SECRETS) + 1, fields_per_secret=18, leaked=0)


def test_no_secret_reaches_a_model_prompt(proj, monkeypatch, figures):
    """The API path: what the consolidation sends to the model holds no planted secret."""
    from testing.servers.llm_server import LLMServer

    with LLMServer() as srv:
        monkeypatch.delenv("ENGRAM_OFFLINE", raising=False)
        monkeypatch.setenv("ENGRAM_LLM_BACKOFF", "0.01")
        for k, v in srv.env("anthropic").items():
            monkeypatch.setenv(k, v)
        for n, (secret, text) in enumerate(SECRETS[:8]):
            replay_inproc(_session(proj, n, secret, text))
        outcomes = consolidate_all(proj)
        sent = "\n".join(c["system"] + c["user"] for c in srv.calls)
    assert {o.provider for o in outcomes} == {"anthropic"} and srv.calls
    assert [s for s, _ in SECRETS[:8] if s in sent] == []
    assert ENV_ONLY not in sent
    figures.add("secrets", model_prompts_checked=len(srv.calls), leaked_to_model=0)


# -- the audit of issue 18: shapes the rules missed, through the real hook subprocesses ------------

_DISCORD = "MTE4NzY1NDMyMDk4NzY1NDMyMQ.1qdXWP.Jx_d8ut8pdqsxRpvED5hJRaOvRTYZPNvS-I4k9"
_SSH = ("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZYNVVZD2jiszwdzu8XX9cjXk1Ndxf7",
        "puwyueHm4z2AQM22iB2/lv2LR9U9gDwjn4ce6/lzhNDA1dGe5CanKlvUihNGjr6giSi360MV9ERiROJ78zDeBfi9FmVw==")
_BODY = ("gUIJ/hWp7c1UQ0ml3HBxtvw1k3pvjZkcWuQq69pHoyUvQDd9c0cCpv0L0ctKhh3j7S0UTOtmnYWJaN/engR6i98+8OQLrQeAinm84OUbofi+"
         "/q5GWi2JmuYMC44nwTxbikFSLj5Zi5MCKvf1NRN4cO9y6Y/KmiBlNX3qYk63brutAoVgXuL2WKigMXMH5SvmPQWx2LMO63CvsoTZd+g5QZru"
         "9/qg3ugnkipV+NGCHrY3Rbv/d+GN1/08MoUPn8zXi5+69WfiMxrKAisT/2+ydFfYIn8SU7HShaEoj/Zy1R00S7Cxiog8ErhctdNSrAsz03pq6oIq"
         "8B5PJftYFdIbzj4I5a+IPoBQkNKr+8gR6LkAMjUABReKOYBwO9TrWHg14MWu2AJhvgiXckSv9qlxRBWXMzUISYiDV+DjlRpI/BpGnPGBOL1dr+"
         "0JiuuY3/MKvDXwHDkKUyK1qRc3GVMjXfOnL3CsaqO10eQ3kxcQoJZXh50e/s2ic2+ukukii7fr")
_GHP = "ghp_m14IKCzi2Eg3h0p54qGzTYdXt5yN84Bl3WWW"
_SHELL_LINES = [  # (a line of a script the agent writes, its password)
    ("mysql -h db -uadmin -pFjord_Kettle_5521 shop", "Fjord_Kettle_5521"),
    ("count=$(mysql -uroot -pAmber9Lynx -N -e 'select 1')", "Amber9Lynx"),
    ("ls dumps|mysql -uops -pCobalt_Reef38 shop", "Cobalt_Reef38"),
    ("curl --user ci:Tidal4Orchid https://ci.example.com/job", "Tidal4Orchid"),
    ("sshpass -p 'Quarry#7714' scp build.tgz ops@web1:/srv", "Quarry#7714"),
    (f"client.run('{_DISCORD}')", _DISCORD),
]


def _heredoc_then_push() -> str:
    """A command longer than its field's limit (1000): a key written by a heredoc (it shrinks
    by far more than clip_then_redact's margin when masked), then a token the clip cuts."""
    pem = "\n".join(["-----BEGIN RSA PRIVATE KEY-----"] + [_BODY[i : i + 64] for i in range(0, 576, 64)]
                    + ["-----END RSA PRIVATE KEY-----"])
    head = f"cat > deploy.pem <<'EOF'\n{pem}\nEOF\nchmod 600 deploy.pem\n"
    cut = 1000 // 2 + 256  # the head window's end: the token's first 19 characters fall inside it
    head += "#" * (cut - 19 - len(head) - len("\ngit push https://")) + "\ngit push https://"
    assert len(head) == cut - 19
    return head + _GHP + "@github.com/acme/app.git main\n" + "echo pushed\n" * 120


def _cli(proj, *argv: str):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "engram", *argv], cwd=str(proj), capture_output=True, text=True,
                          timeout=120)


def test_audit_shapes_reach_no_file_through_the_real_hooks(proj, engram_home, figures):
    from testing.helpers import payload, run_hook

    script = proj / "deploy.sh"
    body = "".join(line + "\n" for line, _ in _SHELL_LINES)
    script.write_text(body)
    note = "Rotate the deploy key; note: " + "\n".join(_SSH)
    calls = [
        ("UserPromptSubmit", dict(prompt=f"the bot token is in deploy.sh: client.run('{_DISCORD}')")),
        ("PostToolUse", dict(tool_name="Write", tool_input={"file_path": str(script), "content": body},
                             tool_response={"type": "create", "filePath": str(script)})),
        ("PostToolUse", dict(tool_name="Edit", tool_input={"file_path": str(script), "old_string": "",
                                                           "new_string": _SHELL_LINES[1][0]},
                             tool_response={"filePath": str(script)})),
        ("PostToolUse", dict(tool_name="Bash", tool_input={"command": "python bot.py"},
                             tool_response={"stdout": f"logging in with {_DISCORD}\n{note}", "stderr": ""})),
        ("PostToolUse", dict(tool_name="Bash", tool_input={"command": _heredoc_then_push()},
                             tool_response={"stdout": "pushed", "stderr": ""})),
        ("Stop", dict(last_assistant_message=f"Done: {note}")),
        ("SessionEnd", dict(reason="exit")),
    ]
    for event, fields in calls:
        assert run_hook(event, payload(event, "audit", proj, **fields)).returncode == 0, event
    assert _cli(proj, "decide", note, "--rationale", _SHELL_LINES[0][0], "--files", "src/app.py").returncode == 0
    done = _cli(proj, "consolidate", "--all")
    assert done.returncode == 0, done.stderr
    blob = all_bytes(engram_home)
    secrets = [s for _, s in _SHELL_LINES] + list(_SSH) + [_GHP[:19], _BODY[:64]]
    leaked = [s for s in secrets if s.encode() in blob or json.dumps(s)[1:-1].encode() in blob]
    assert leaked == []
    assert {p.name for p in engram_home.rglob("engram.db")} and list(engram_home.rglob("*.episode.json"))
    figures.add("secrets", audit_shapes=len(secrets), leaked=0)


# -- the audit of issue 29: the five shapes still stored, through the real hook subprocesses -----

_PEM_LINES = [_BODY[i : i + 64] for i in range(64, 256, 64)]  # the middle of a key file, no armour
_ROUND3 = {  # name: (the secret, the hook calls that carry it)
    "mcp input": ("q8Zt2LmW4vRx", [("PostToolUse", dict(
        tool_name="mcp__vault__put", tool_input={"key": "q8Zt2LmW4vRx", "name": "deploy"}, tool_response="stored"))]),
    "build error": ("Hk4rT9wQ2zLp", [("PostToolUseFailure", dict(
        tool_name="Bash", tool_input={"command": "cargo build --release"},
        error="Exit code 101\n   Compiling signer v0.3.1\nerror: failed to run custom build command for `signer`\n"
              "  signing failed: key=Hk4rT9wQ2zLp rejected by the keystore\nerror: could not compile `signer`"))]),
    "pem edit": (_PEM_LINES[1], [("PostToolUse", dict(
        tool_name="Edit", tool_input={"file_path": "{root}/certs/deploy.pem", "old_string": _PEM_LINES[1][:40],
                                      "new_string": _PEM_LINES[1]},
        tool_response={"filePath": "{root}/certs/deploy.pem"}))]),
    "grep output": ("w3Rk8PzV2mQx", [("PostToolUse", dict(
        tool_name="Bash", tool_input={"command": "grep -rn SUFFIX src"},
        tool_response={"stdout": "src/settings.py:12:API_KEY_SUFFIX=w3Rk8PzV2mQx\nsrc/settings.py:13:LOG_LEVEL=info",
                       "stderr": ""}))]),
    "prompt": ("swordfishmarlin", [("UserPromptSubmit", dict(
        prompt="log in to the staging box, the password is swordfishmarlin"))]),
}


def test_round3_shapes_reach_no_file_through_the_real_hooks(proj, engram_home, figures):
    from testing.helpers import payload, run_hook

    key = proj / "certs" / "deploy.pem"
    key.parent.mkdir()
    key.write_text("-----BEGIN PRIVATE KEY-----\n" + "\n".join(_PEM_LINES) + "\n-----END PRIVATE KEY-----\n")
    for n, (_, calls) in enumerate(_ROUND3.values()):
        for event, fields in [("SessionStart", dict(source="startup"))] + calls + [("Stop", {}), ("SessionEnd", {})]:
            fields = json.loads(json.dumps(fields).replace("{root}", str(proj)))
            assert run_hook(event, payload(event, f"r3-{n}", proj, **fields)).returncode == 0, event
    done = _cli(proj, "consolidate", "--all")
    assert done.returncode == 0, done.stderr
    from testing.helpers import events

    masked = [name for n, name in enumerate(_ROUND3) if "[REDACTED]" in json.dumps(events(proj, f"r3-{n}"))]
    assert masked == list(_ROUND3)  # each shape was captured, and masked, not dropped
    blob = all_bytes(engram_home)  # the JSONL, engram.db and its WAL, episode files, state, logs
    assert list(engram_home.rglob("engram.db"))
    leaked = [name for name, (secret, _) in _ROUND3.items() if secret.encode() in blob]
    assert leaked == []
    figures.add("secrets", round3_shapes=len(_ROUND3), leaked=0)
