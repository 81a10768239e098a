"""The secrets family: a secret written into the code as the fallback of an environment variable, against "load secrets
from the environment; never commit credentials": `os.environ.get("API_TOKEN", "8f3b2c61d9a04e7")`,
`process.env.CLIENT_SECRET || "sk_..."`, `ENV.fetch("DB_PASSWORD", "hunter22")`.

The read from the environment is what the decision asks for; the literal after it is the very
credential, committed, and used wherever the variable is unset. The variable's name says it holds
a secret; the literal must look like one (long, no spaces, a digit in it, not a placeholder).
"""

from __future__ import annotations

import re

from engram.monitor.code_lines import Line
from engram.monitor.rules import Hit, Rule, on_lines

CUE = re.compile(r"\A(?=.*\b(?:secrets?|credentials?|tokens?|api keys?|passwords?|private keys?)\b)"
                 r"(?=.*\b(?:environment|env|commit\w*|hard-?cod\w*)\b)", re.I | re.S)
_SECRET_VAR = r"[\"']?(\w*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CLIENT_?ID|CREDENTIAL)\w*)[\"']?"
# An environment read with a literal fallback, by language.
_FALLBACKS = [
    re.compile(rf"\b(?:os\.environ\.get|os\.getenv|getenv|ENV\.fetch|env)\(\s*{_SECRET_VAR}\s*,\s*([\"'])([^\"']+)\2", re.I),
    re.compile(rf"\bprocess\.env(?:\.|\[\s*){_SECRET_VAR}\]?\s*(?:\|\||\?\?)\s*([\"'`])([^\"'`]+)\2", re.I),
    re.compile(rf"\benv::var\(\s*{_SECRET_VAR}\s*\)\.unwrap_or(?:_else)?\([^\"']*([\"'])([^\"']+)\2", re.I),
]
_PLACEHOLDER = re.compile(r"example|changeme|change-me|dummy|placeholder|your[_\-]|xxx|test|local|fake|sample|todo|"
                          r"<|\$\{", re.I)


def _looks_secret(value: str) -> bool:
    return (len(value) >= 8 and " " not in value and re.search(r"\d", value) is not None
            and not _PLACEHOLDER.search(value))


def secret_fallback(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """An environment variable that holds a secret, given a committed literal to fall back to."""
    out = []
    for ln in lines:
        if ln.side != "+" or ln.prose:
            continue
        for rx in _FALLBACKS:
            m = rx.search(ln.text)
            if m and _looks_secret(m.group(3)):
                out.append(("direct", ln, f"commits a literal fallback for {m.group(1)}, a secret the decision keeps "
                                          f"out of the code"))
                break
    return out


RULES = (Rule("detector:secret_fallback", "a secret given a committed literal to fall back to when its variable is unset",
              on_lines(secret_fallback), CUE),)
