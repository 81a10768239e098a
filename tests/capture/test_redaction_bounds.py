"""Redaction: bounded time on hostile text (issue 18, finding 1), and the secret formats the red
team planted that the old rules missed (finding 3), through the real hook into the JSONL.

The labelled corpus (bench/redaction_corpus.py, written before the rules changed) is checked
here as a regression guard: every development case caught, the held-out half at its first
measured recall or better, no near-miss negative changed.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import random
import time

import pytest
from testing.helpers import REPO, events, payload, run_hook

from engram import redact


def _corpus():
    spec = importlib.util.spec_from_file_location("redaction_corpus", REPO / "bench" / "redaction_corpus.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _scrub(case: dict) -> str:
    return redact.scrubber(case["file"])(case["text"]) if case.get("file") else redact.redact(case["text"])


def _recall(half: str) -> tuple[int, int]:
    corpus = _corpus()
    caught = planted = 0
    for cases in corpus.POSITIVE.values():
        for case in corpus.split(cases, half):
            out = _scrub(case)
            planted += len(case["secrets"])
            caught += sum(s not in out for s in case["secrets"])
            assert all(k in out for k in case.get("keep", [])), (case["text"], out)
    return caught, planted


def test_corpus_development_half_is_caught_whole():
    caught, planted = _recall("dev")
    assert caught == planted


def test_corpus_held_out_half_keeps_its_first_measured_recall():
    caught, planted = _recall("heldout")
    assert caught >= 54 and planted == 55  # the first run after tuning: 54/55 (docs/reliability.md)


def test_near_miss_negatives_come_through_unchanged():
    corpus = _corpus()
    assert [t for t in corpus.NEGATIVE + corpus.NEGATIVE_3 if redact.redact(t) != t] == []


def test_corpus_batch_3_is_caught_whole():
    """Issue 29's five shapes, in the corpus's own variants: 17/17 at the first run after the change."""
    missed = [(c["text"], s) for cases in _corpus().POSITIVE_3.values() for c in cases for s in c["secrets"]
              if s in _scrub(c) or not all(k in _scrub(c) for k in c.get("keep", []))]
    assert missed == []


def _hostile() -> dict[str, str]:
    rnd = random.Random(7)
    b64 = base64.urlsafe_b64encode(rnd.randbytes(45_000)).decode()
    return {
        "keyword run 4.2 KB": "btn-auth-login-token-" * 200,
        "keyword run 60 KB": "btn-auth-login-token-" * 3000,
        "base64 60 KB with pwd": b64[:30_000] + "pwd" + b64[30_000:],
        "assignments 60 KB": "password=" * 6000,
        "armour lines 60 KB": "-----BEGIN RSA PRIVATE KEY-----\n" * 2000,
        "urls 60 KB": "a://b:c" * 8000,
        "blank lines 60 KB": "\n" * 60_000,
        "spoken 60 KB": "the password is " * 4000,
        "tags 60 KB": "<token>" * 9000,
        "json keys 60 KB": '{"key": "ab12cd34e", ' * 3000,
        "env names 60 KB": "API_KEY_SUFFIX_" * 4000 + "=Nw7Qz2Rk9Vx",
        "odd passwords 60 KB": "the password is swordfishmarlin " * 1900,
    }


@pytest.mark.parametrize("name", list(_hostile()))
def test_redaction_time_is_bounded_on_hostile_text(name):
    """The old keyword pattern took 22-24 s on the 4.2 KB line and never ended on 60 KB."""
    text = _hostile()[name]
    t = time.perf_counter()
    redact.redact(text)
    assert time.perf_counter() - t < 2.0, name


def test_clip_then_redact_masks_a_secret_cut_by_the_clip():
    secret = "sk-proj-" + "Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9"
    text = "x" * 990 + secret + "y" * 5000
    out, original = redact.clip_then_redact(text, 2000)
    assert original == len(text) and "Qw3Er5Ty7Ui9" not in out and len(out) <= 2007


def test_hostile_fields_reach_the_stream_quickly(proj):
    """A hook's fields are clipped before they are redacted: output, prompt and last message."""
    hostile = "btn-auth-login-token-" * 3000
    calls = [
        ("PostToolUse", dict(tool_name="Bash", tool_input={"command": "make build"},
                             tool_response={"stdout": hostile, "stderr": ""})),
        ("UserPromptSubmit", dict(prompt=hostile)),
        ("Stop", dict(last_assistant_message=hostile)),
    ]
    for event, fields in calls:
        t = time.monotonic()
        res = run_hook(event, payload(event, "s", proj, **fields), env=None)
        assert res.returncode == 0 and time.monotonic() - t < 5, event
    assert [e["type"] for e in events(proj, "s")] == ["build", "user_prompt", "turn_complete"]


# -- finding 3: the formats the red team planted ------------------------------------------------

PLANTED = [  # (text, the secret)
    ("export DB_PASSWORD=Hx7-Lq2-Zr9m", "Hx7-Lq2-Zr9m"),
    ("DB_PASSWORD: Tz8Wq3Lm5Rk", "Tz8Wq3Lm5Rk"),
    ("$ printenv\nUSER=dev\nMYSQL_PWD=Yq4Rt7Kp2\nTERM=xterm", "Yq4Rt7Kp2"),
    ("mysql -h db -u root -pQx9Zt4Wm2 shop", "Qx9Zt4Wm2"),
    ("curl -u admin:Lk3Jh8Gf5 https://ci.internal/api", "Lk3Jh8Gf5"),
    ("sshpass -p 'Mn6Bv2Cx9' ssh deploy@web1", "Mn6Bv2Cx9"),
    # Windows-style flags and SQL Server's clients (a dev transcript of the corpus held both)
    ('SqlPackage.exe /Action:Import /TargetUser:"sa" /TargetPassword:"Wd4Fg7Hj2Kl!"', "Wd4Fg7Hj2Kl!"),
    ('sqlcmd -S localhost -U sa -P "Zx5Cv8Bn3Mq" -Q "select 1"', "Zx5Cv8Bn3Mq"),
    ("machine api.example.com login ci password Pq7Wr2Ty5Ui", "Pq7Wr2Ty5Ui"),
    ("db.internal:5432:app:svc:Rs8Td3Uf6Vg", "Rs8Td3Uf6Vg"),
    ("DefaultEndpointsProtocol=https;AccountName=st;AccountKey=Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op7Qr9St1Uv3Wx5==;EndpointSuffix=core.windows.net",
     "Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op7Qr9St1Uv3Wx5=="),
    ("xapp-1-A0B1C2D3E4F-5678901234567-0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
     "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"),
    ("https://hooks.slack.com/services/T01234567/B01234567/Zy8Xw7Vu6Ts5Rq4Po3Nm2Lk1", "Zy8Xw7Vu6Ts5Rq4Po3Nm2Lk1"),
    ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC9x8Qm2Lr7Kp4W\n"
     "Hs1Jd6Fb0Tc3Ew8Gu5Ia2Ob7Pc4Qd9Re1Sf6Tg3Uh0Vi5Wj2Xk7Yl4Zm9An1Bo6\n-----END PRIVATE KEY-----",
     "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC9x8Qm2Lr7Kp4W"),
    ("my database password is Gr8-Tz4-Wq1, please keep it", "Gr8-Tz4-Wq1"),
]


def test_planted_formats_never_reach_the_stream(proj):
    env = proj / ".env"
    for n, (text, _secret) in enumerate(PLANTED):
        s = f"p{n}"
        assert run_hook("UserPromptSubmit", payload("UserPromptSubmit", s, proj, prompt=text)).returncode == 0
        assert run_hook("PostToolUse", payload("PostToolUse", s, proj, tool_name="Bash",
                                               tool_input={"command": f"cat notes{n}.txt"},
                                               tool_response={"stdout": text, "stderr": ""})).returncode == 0
        assert run_hook("Stop", payload("Stop", s, proj, last_assistant_message=f"Done. {text}")).returncode == 0
    env.write_text("export APP_SECRET=Zx5Cv8Bn2Mq\nAPI_TOKEN: Lp4Ok7Ij1Uh\n")
    patch = [{"oldStart": 1, "oldLines": 0, "newStart": 1, "newLines": 2,
              "lines": ["+export APP_SECRET=Zx5Cv8Bn2Mq", "+API_TOKEN: Lp4Ok7Ij1Uh"]}]
    assert run_hook("PostToolUse", payload("PostToolUse", "env", proj, tool_name="Write",
                                           tool_input={"file_path": str(env), "content": env.read_text()},
                                           tool_response={"filePath": str(env), "structuredPatch": patch})).returncode == 0
    stream = json.dumps([events(proj, f"p{n}") for n in range(len(PLANTED))] + [events(proj, "env")])
    leaked = [secret for _, secret in PLANTED if secret in stream]
    leaked += [v for v in ("Zx5Cv8Bn2Mq", "Lp4Ok7Ij1Uh") if v in stream]
    assert leaked == []
