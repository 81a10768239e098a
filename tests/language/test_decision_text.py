"""language/decision_text.py compiles its patterns on first use, once (issue 15: compiling all 26
at import cost every `engram query` ~10 ms)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from engram.language import decision_text

PROBE = r"""
from engram.language import decision_text as dt

def patterns():
    for value in vars(dt).values():
        for p in value if isinstance(value, list) else [value]:
            if isinstance(p, dt._Lazy):
                yield p

print(len(list(patterns())), sum(p._compiled is not None for p in patterns()))
first = dt.statement("Use Redis for the job queue instead of RabbitMQ")
compiled = {id(p): p._compiled for p in patterns() if p._compiled is not None}
again = dt.statement("Use Redis for the job queue instead of RabbitMQ")
print(first == again, all(p._compiled is compiled[id(p)] for p in patterns() if id(p) in compiled), len(compiled))
print(first)
print(dt.decision_sentences("ok. Let's use pytest for the tests, not nose."))
"""


def test_importing_compiles_no_pattern_and_a_use_compiles_each_once():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "68 0"  # _USE is counted twice: alone and in _CHOICE
    same, kept, compiled = out[1].split()
    assert same == "True" and kept == "True" and int(compiled) > 0
    assert out[2] == "{'subject': ['job', 'queu'], 'choice': ['redis'], 'ruled_out': ['rabbitmq'], 'dropped': [], 'refers': False, 'also': [], 'verbs': []}"
    assert "'requires': ['pytest']" in out[3] and "Let's use pytest for the tests, not nose." in out[3]


def test_a_sentence_naming_only_what_is_ruled_out_is_a_fragment_not_a_decision():
    from engram.language.decision_text import decision_sentences

    said = "i think it needs to run with `bun publish` to resolve the version issue. can we try it. instead of npm publish"
    assert [d["text"] for d in decision_sentences(said)] == []
    assert [d["text"] for d in decision_sentences("Use Redis instead of Memcached for the cache.")] == [
        "Use Redis instead of Memcached for the cache."]


@pytest.mark.parametrize("reply,chosen", [
    ("I used a guard clause instead of try/except in the parser.", "guard clause"),
    ("We are using httpx rather than requests now.", "httpx"),
    ("Railway is using Railpack (their auto-builder) instead of the Dockerfile.", None),  # another's doing
    ("The issue is likely that I need to use AccessTools.TypeByName instead of typeof().", None),  # a guess
    ("The user wants to use ModBehaviour instead of BaseUnityPlugin.", None),  # someone's wish
    ("- Or switch to using `bun publish` instead of changeset publish.", None),  # an option offered
])
def test_an_implicit_decision_is_a_choice_the_agent_made(reply, chosen):
    got = decision_text.alternative_choices(reply)
    assert ([c["chosen"] for c in got] or [None])[0] == chosen


@pytest.mark.parametrize("prompt", [
    "I want to know if we can add a second icon instead of the current arrow box.",
    "Also I want you to research whether we can use the phoenix icon instead of the down arrow.",
    "So we can have images instead of little boxes and arrows.",
])
def test_a_request_to_find_out_or_a_purpose_clause_is_no_decision(prompt):
    assert decision_text.decision_sentences(prompt) == []
    assert decision_text.decision_sentences("Let's use the phoenix icon instead of the down arrow.")
