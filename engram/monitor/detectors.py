"""Semantic detectors: violations of a decision that never use the decision's words.

"Always use parameterized queries" is broken by `f"SELECT ... {user_id}"`; "passwords are
hashed with bcrypt" by `hashlib.sha256(password)`; "never run containers as root" by
`runAsUser: 0`. Term matching cannot see these, so each detector here knows the few
code shapes that break one kind of decision. A detector runs only when the decision's
own words call for it (its `cue`, in `RULES` below), and only on ADDED lines: a
detector reports what the change introduces, never what it removes.

Each returns `(kind, line, why)` with kind "direct" (the diff does the very thing the
decision names) or "indirect" (it undermines the decision by another route).
"""

from __future__ import annotations

import re

from engram.language import decision_text
from engram.monitor.code_lines import Line, enclosing_def
from engram.monitor.rules import Hit, Rule, on_lines
from engram.text import singular

_SQL = r"\b(?:select\b[^\"'`]*\bfrom|insert\s+into|update\s+\w+\s+set|delete\s+from)\b"
_BODY = r"(?:(?!\1).)*"  # the rest of a literal opened by group 1 (other quotes may nest inside)
_SQL_INTERP = [
    ("f-string", re.compile(r"\b[rR]?[fF][rR]?([\"'])(?=" + _BODY + _SQL + r")" + _BODY + r"\{[^}]+\}", re.I)),
    ("%-formatting", re.compile(r"([\"'])(?=" + _BODY + _SQL + r")" + _BODY + r"%[sdr]" + _BODY + r"\1\s*%", re.I)),
    (".format()", re.compile(r"([\"'])(?=" + _BODY + _SQL + r")" + _BODY + r"\{\w*\}" + _BODY + r"\1\s*\.format\(",
                             re.I)),
    ("string concatenation", re.compile(r"([\"'])(?=" + _BODY + _SQL + r")" + _BODY + r"\1\s*\+\s*[A-Za-z_(]", re.I)),
    ("a template literal", re.compile(r"`(?=[^`]*" + _SQL + r")[^`]*\$\{", re.I)),
    ("fmt.Sprintf", re.compile(r"Sprintf\(\s*\"(?=[^\"]*" + _SQL + r")[^\"]*%[sdv]", re.I)),
]
_ROOT_DIRECT = re.compile(r"^\s*(?:-\s*)?user\s*:\s*[\"']?root\b|^\s*USER\s+root\b|\bprivileged\s*:\s*true\b|"
                          r"runAsNonRoot\s*:\s*false", re.I)
_ROOT_UID = re.compile(r"runAsUser\s*:\s*0\b|^\s*USER\s+0(?::0)?\s*$|^\s*(?:-\s*)?user\s*:\s*[\"']?0(?::0)?[\"']?\s*$")
_NAIVE_PY = re.compile(r"\bdatetime\.(?:now|today)\(\s*\)|\bdate\.today\(\s*\)|\bdatetime\.fromtimestamp\([^,()]*\)|"
                       r"\btime\.localtime\(|\bdatetime\.utcnow\(\s*\)")
_NAIVE_JS = re.compile(r"\.toLocale(?:String|DateString|TimeString)\((?![^)]*timeZone\s*:\s*[\"']UTC)|"
                       r"\.get(?:Hours|Minutes|Date|Day|Month|FullYear)\(\s*\)")
_SECRET_NAME = r"\w*(?:password|passwd|pwd|secret|token|api_?key|apikey|private_?key|credential|access_?key)\w*"
_SECRET = re.compile(r"(?i)^\s*(?:export\s+|const\s+|let\s+|var\s+|final\s+|static\s+)*[\"']?(" + _SECRET_NAME +
                     r")[\"']?\s*(?::\s*[\w\[\]]+\s*)?(?:=|:=|:)\s*([\"'])(.+?)\2\s*[,;]?\s*$")
# DATABASES["default"]["PASSWORD"] = "..."; secret_key: sk_live_... (YAML, INI, .env)
_SECRET_ITEM = re.compile(r"(?i)\[[\"'](" + _SECRET_NAME + r")[\"']\]\s*=\s*([\"'])(.+?)\2\s*;?\s*$")
_SECRET_BARE = re.compile(r"(?i)^\s*(?:export\s+)?(" + _SECRET_NAME + r")\s*[:=]\s*()([^\s\"'#${}][^\s#]{7,})\s*$")
# Credentials with a recognisable shape: Stripe live keys, GitHub, AWS, Slack, OpenAI / Anthropic.
_TOKEN_SHAPE = re.compile(r"\b(?:sk_live_[0-9A-Za-z]{10,}|rk_live_[0-9A-Za-z]{10,}|gh[pousr]_[0-9A-Za-z]{30,}|"
                          r"AKIA[0-9A-Z]{16}|xox[baprs]-[0-9A-Za-z\-]{10,}|sk-(?:proj-|ant-)?(?=[\w\-]*\d)[0-9A-Za-z_\-]{20,})")
_PLACEHOLDERS = ("", "changeme?", "xxx+", "<[^>]*>", r"\$\{[^}]*\}", r"%\([^)]*\)s", r"\{\{[^}]*\}\}", "todo", "none",
                 "null", "dummy", "example", "test")
_WEAK_HASH = re.compile(r"\b(?:md5|sha1|sha224|sha256|sha384|sha512)\b|createHash\(\s*['\"](?:md5|sha\d+)|"
                        r"\bsha256\.Sum256|\bmd5\.Sum", re.I)
_PASSWORD = re.compile(r"passw(?:or)?d|\bpwd\b|passphrase", re.I)
_RUST_EXPECT = re.compile(r"\.expect\(")
_DROP_COLUMN = re.compile(r"\bdrop\s+column\b", re.I)
_DROP_TABLE = re.compile(r"\bdrop\s+table\b", re.I)
_SELECT_STAR = re.compile(r"\bselect\s+(?:distinct\s+)?\*\s*(?:from\b|$)", re.I)


def _added(lines: list[Line]) -> list[Line]:
    return [ln for ln in lines if ln.side == "+" and not ln.prose]


def _sql_text(ln: Line, lang: str) -> str:
    """Where SQL lives on a line: the code itself in .sql files, else string literals too."""
    return ln.code if lang == "sql" else ln.code + " " + " ".join(ln.strings)


# The words with which a decision names each way of building SQL by hand.
_SQL_FORM_NAMES = {"f-string": ("f-string", "fstring", "f string"), "%-formatting": ("format", "%s"),
                   ".format()": ("format",), "string concatenation": ("concatenat",),
                   "a template literal": ("template",), "fmt.Sprintf": ("sprintf",)}


def sql_params(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    named = decision.lower()
    out = []
    for ln in _added(lines):
        for form, rx in _SQL_INTERP:
            if rx.search(ln.text):
                direct = any(w in named for w in _SQL_FORM_NAMES[form])
                out.append(("direct" if direct else "indirect", ln, f"builds SQL with {form} instead of parameters"))
                break
    return out


def run_as_root(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    out = []
    for ln in _added(lines):
        if _ROOT_DIRECT.search(ln.code):
            out.append(("direct", ln, "runs the container as root"))
        elif _ROOT_UID.search(ln.code):
            out.append(("indirect", ln, "runs the container as uid 0, which is root"))
    return out


def naive_datetime(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    rx = _NAIVE_PY if lang == "python" else _NAIVE_JS if lang == "js" else None
    if rx is None or re.search(r"\b(?:never|not|no)\s+(?:in\s+)?UTC\b", decision, re.I):
        return []  # "shown in the user's timezone, never UTC": local time is what it wants
    direct = "datetime.now()" in decision
    return [("direct" if direct and "now(" in ln.code else "indirect", ln, "creates a naive (local-time) datetime")
            for ln in _added(lines) if rx.search(ln.code)]


# Terraform: `variable "api_token" { default = "..." }` gives the secret-named variable its value.
_TF_BLOCK = re.compile(r"^\s*(?:variable|locals|output)\s+\"([^\"]+)\"\s*\{")
_TF_DEFAULT = re.compile(r"^\s*default\s*=\s*([\"'])(.+?)\1\s*$")


def _defaults_of_secrets(lines: list[Line]) -> dict[int, re.Match]:
    """Added `default = "..."` lines inside a block whose name is a secret's, by line number, read as
    `<block name> = "..."` (the shape `_SECRET` knows)."""
    out, block = {}, ""
    for ln in (x for x in lines if x.side != "-"):
        if m := _TF_BLOCK.match(ln.text):
            block = m.group(1)
        elif ln.text.startswith("}"):
            block = ""
        elif ln.side == "+" and re.fullmatch(_SECRET_NAME, block, re.I) and (d := _TF_DEFAULT.match(ln.text)):
            if found := _SECRET.search(f'{block} = "{d.group(2)}"'):
                out[ln.number] = found
    return out


def hardcoded_secret(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    out = []
    defaults = _defaults_of_secrets(lines) if lang == "other" else {}
    for ln in _added(lines):
        if _TOKEN_SHAPE.search(ln.code if lang in ("hash", "json", "other") else " ".join(ln.strings)):
            out.append(("direct", ln, "puts a live credential (a known token format) in the source"))
            continue
        m = _SECRET.search(ln.text) or _SECRET_ITEM.search(ln.text) or defaults.get(ln.number)
        if m is None and lang in ("hash", "other"):
            m = _SECRET_BARE.search(ln.code)
        if m is None:
            continue
        value = m.group(3).strip()
        if "$" in value or value.startswith(("/", "~", "./")):
            continue  # "${NPM_TOKEN:?}", "$HOME/.npmrc": a reference or a path, not a secret
        if any(re.fullmatch(p, value, re.I) for p in _PLACEHOLDERS) or _names_a_field(m.group(1), value):
            continue
        out.append(("indirect", ln, f"puts a literal value in {m.group(1)} instead of reading it from the environment"))
    return out


_SECRET_WORDS = frozenset("password passwd secret token key apikey credential credentials creds".split())


def _names_a_field(name: str, value: str) -> bool:
    """`PASSWORD_FIELD = "password"`, `API_KEY_HEADER = "X-Api-Key"`: the value is the name of a key, a
    header or a variable, not a secret. So is a slug that says it names one (`secret = "lass-db-password"`,
    a Secret Manager id): a secret's value does not describe itself in lowercase words."""
    if re.fullmatch(r"[a-z_\-]{3,30}", value, re.I) and value.lower().replace("-", "_") in name.lower():
        return True
    parts = re.split(r"[-_]", value)
    if re.fullmatch(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+", value) and _SECRET_WORDS & set(parts):
        return True
    return (re.search(r"(?:header|name|field|param|env|var|label|prefix)s?$", name, re.I) is not None
            and re.fullmatch(r"[A-Za-z][A-Za-z_\-.]{1,40}", value) is not None)


def password_hash(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    return [("indirect", ln, "hashes a password with a fast general-purpose hash") for ln in _added(lines)
            if _WEAK_HASH.search(ln.text) and _PASSWORD.search(ln.code + " " + " ".join(ln.strings) + " " +
                                                               enclosing_def(ln, lines))]


def unwrap_family(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    if lang != "rust":
        return []
    return [("indirect", ln, "uses .expect(), which panics like unwrap()") for ln in _added(lines)
            if _RUST_EXPECT.search(ln.code)]


# A column declared in a model: Prisma `legacySku String?`, Django `sku = models.CharField(`,
# SQLAlchemy `sku = Column(` / `sku: Mapped[str] = mapped_column(`.
_MODEL_FIELD = [re.compile(r"^\s*(\w+)\s+(?:String|Int|BigInt|Float|Decimal|Boolean|DateTime|Json|Bytes)\b"),
                re.compile(r"^\s*(\w+)\s*=\s*models\.\w+Field\("),
                re.compile(r"^\s*(\w+)\s*(?::\s*Mapped\[[^\]]*\]\s*)?=\s*(?:\w+\.)?(?:Column|mapped_column)\(")]


def drop_column(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    out = []
    for ln in _added(lines):
        text = _sql_text(ln, lang)
        if _DROP_COLUMN.search(text):
            out.append(("direct", ln, "drops a column"))
        elif _DROP_TABLE.search(text):
            out.append(("indirect", ln, "drops a table, and every column in it"))
    return out + _fields_removed(lines)


def _fields_removed(lines: list[Line]) -> list[Hit]:
    """A model's column declaration removed and not declared again: the next migration drops it."""
    def fields(side: str) -> dict[str, Line]:
        return {m.group(1): ln for ln in lines if ln.side == side and not ln.prose
                for rx in _MODEL_FIELD if (m := rx.match(ln.code))}
    kept = fields("+")
    return [("indirect", ln, f"removes the model field {name}, so its column is dropped")
            for name, ln in fields("-").items() if name not in kept]


def select_star(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    return [("direct", ln, "selects * instead of naming the columns") for ln in _added(lines)
            if _SELECT_STAR.search(_sql_text(ln, lang))]


_RAW_SQL = re.compile(r"\.(?:execute|executemany|executescript|raw|query)\(\s*[rfbu]?[\"'`]\s*(?:select|insert|update|"
                      r"delete|with|create|alter|drop)\b|\bcursor\(\s*\)", re.I)
_EVAL_LIKE = {"python": re.compile(r"(?<![\w.])exec\(|\bcompile\([^)]*['\"]exec['\"]"),
              "js": re.compile(r"\bnew\s+Function\s*\(|\bset(?:Timeout|Interval)\(\s*[\"'`]|\bvm\.run\w*\(")}
_ACTION_REF = re.compile(r"^\s*-?\s*uses:\s*[\"']?([\w.\-]+/[\w.\-/]+)@([\w.\-/]+)")
_DOCKER_FROM = re.compile(r"^\s*FROM\s+(?:--platform=\S+\s+)?([\w.\-/:@]+)", re.I)
_GLOBAL_STMT = re.compile(r"^\s*global\s+\w+")
_SWITCHES = [  # how a decision names a setting it keeps on
    re.compile(r"\bkeep\s+((?:[\w'`.\-]+\s+){1,5}?)(?:on|enabled|turned on|active)\b", re.I),
    re.compile(r"\bnever\s+(?:disable|turn off|switch off)\s+((?:[\w'`.\-]+\s*){1,3})", re.I),
    re.compile(r"\b(?<!\b[\w'`.\-])([\w'`.\-]+)\s*:\s*always\s+(?:on|enabled)\b", re.I),
    re.compile(r"\b(?<!\b[\w'`.\-])((?:[\w'`.\-]+\s+){1,3})(?:must|should)\s+(?:stay|remain|be)\s+(?:on|enabled)\b", re.I),
    re.compile(r"\benforce\s+([`'\"]?\w+[`'\"]?)\s+mode\b", re.I),
]
_NOT_SWITCHES = frozenset("""mode protection protections check checks setting settings flag flags option options the a an
its our on for every all and or feature features support enabled always""".split())
# TypeScript's strict mode is these flags too: turning one off weakens it.
_FAMILY = {"strict": ("noImplicitAny", "strictNullChecks", "strictFunctionTypes", "strictBindCallApply",
                      "strictPropertyInitialization", "noImplicitThis", "alwaysStrict", "useUnknownInCatchVariables")}


def raw_sql(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    return [("direct", ln, "runs SQL directly instead of going through the layer the decision names")
            for ln in _added(lines) if lang in ("python", "js", "go", "clike") and _RAW_SQL.search(ln.text)]


def eval_family(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    rx = _EVAL_LIKE.get(lang)
    return [("indirect", ln, "evaluates a string as code, which is eval by another name") for ln in _added(lines)
            if rx and rx.search(ln.code)]


def pin_versions(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """Unpinned GitHub Actions refs (when the decision names a SHA / commit) and Docker base images."""
    wants_sha = re.search(r"\bsha\b|\bcommit\b|\bdigest\b", decision, re.I) is not None
    # "the only actions allowed ... are actions created by GitHub itself": GitHub's own owners are exempt
    first_party = re.search(r"\b(?:created|published|maintained|provided|owned|made) by github\b|\bgithub'?s own\b|"
                            r"\bfirst[- ]party\b", decision, re.I) is not None
    out = []
    if lang != "hash":
        return out  # workflows and Dockerfiles; Python's `from x import y` is no base image
    for ln in _added(lines):
        m = _ACTION_REF.search(ln.code)
        if m and first_party and m.group(1).split("/")[0].lower() in ("actions", "github"):
            continue
        if m and not m.group(1).startswith("./") and wants_sha and not re.fullmatch(r"[0-9a-f]{40}", m.group(2)):
            out.append(("direct", ln, f"uses {m.group(1)} at {m.group(2)!r}, a movable ref, not a commit SHA"))
            continue
        d = _DOCKER_FROM.search(ln.code)
        if d and d.group(1).lower() != "scratch" and "$" not in d.group(1):
            image = d.group(1)
            tag = image.rsplit(":", 1)[1] if ":" in image.rsplit("/", 1)[-1] else ""
            if "@sha256:" not in image and (not tag or tag == "latest"):
                out.append(("direct", ln, f"uses the base image {image} without a pinned version"))
    return out


def switch_words(decision: str) -> list[str]:
    """The settings a decision keeps on ("keep TypeScript's strict mode on" -> typescript, strict)."""
    words = []
    for rx in _SWITCHES:
        for m in rx.finditer(decision):
            words += [w.strip("`'.").removesuffix("'s") for w in m.group(1).split()]
    return [w for w in dict.fromkeys(words) if len(w) > 2 and w.lower() not in _NOT_SWITCHES]


def _setting_name(word: str) -> bool:
    """CSRF, HSTS, disallow_untyped_defs, strictNullChecks: a setting's own name, not a product's."""
    return (word.isupper() and len(word) >= 3) or "_" in word or re.search(r"[a-z][A-Z]", word) is not None


def flag_off(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """A setting the decision keeps on turned off, exempted (`@csrf_exempt`) or removed from its list."""
    out = []
    plus_text = " ".join(ln.text for ln in lines if ln.side == "+").lower()
    for word in switch_words(decision):
        w = word.lower()
        names = [w] + [f.lower() for f in _FAMILY.get(w, ())]
        # the word alone or as a part of a setting's name (WTF_CSRF_ENABLED, strictMode)
        off = re.compile(rf"[\"']?\b\w*?(?<![a-z0-9])(?:{'|'.join(map(re.escape, names))})(?![a-z0-9])\w*[\"']?\s*[:=]\s*"
                         rf"[\"']?(?:false|off|0|no|disabled|none)\b", re.I)
        exempt = re.compile(rf"\b(?:{re.escape(w)}_exempt|exempt_{re.escape(w)}|disable_{re.escape(w)}|skip_{re.escape(w)}|"
                            rf"no_{re.escape(w)})\b", re.I)
        for ln in _added(lines):
            if off.search(ln.code):
                out.append(("direct", ln, f"turns {w} off"))
            elif exempt.search(ln.code):
                out.append(("direct", ln, f"exempts this code from {w}, which the decision keeps on"))
        if _setting_name(word) and w not in plus_text:  # a list's entries are strings ("...CsrfViewMiddleware")
            out += [("direct", ln, f"removes {w} from the configuration, which the decision keeps on")
                    for ln in lines if ln.side == "-" and not ln.prose and _listed_item(ln.text)
                    and _names_part(w, ln.code + " " + " ".join(ln.strings))]
    return out


def _names_part(word: str, code: str) -> bool:
    return any(word in _parts(tok) for tok in re.findall(r"[A-Za-z_][\w.]*", code.replace(".", "_")))


def _listed_item(code: str) -> bool:
    """A line that is one entry of a list or mapping (a middleware, a plugin, a setting)."""
    return re.match(r"\s*(?:-\s|[\"'][\w.\-/]+[\"']\s*[,:\]]|\w+\s*[:=])", code) is not None


def global_state(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    if lang != "python":
        return []
    return [("direct", ln, "mutates module-level state through a global statement") for ln in _added(lines)
            if _GLOBAL_STMT.search(ln.code)]


# -- suppression comments, sensitive data in logs, protected tables, banned syntax, migrations ----

# Suppression directives by tool; a decision that names some is about those, one that names the
# type checker about the type family, one that names lint or warnings about the lint family.
_DIRECTIVES = {
    "noqa": (r"#\s*noqa\b", "lint"), "type: ignore": (r"#\s*type:\s*ignore", "type"),
    "pylint": (r"#\s*pylint:\s*disable", "lint"), "eslint-disable": (r"eslint-disable", "lint"),
    "ts-ignore": (r"@ts-ignore", "type"), "ts-nocheck": (r"@ts-nocheck", "type"),
    "ts-expect-error": (r"@ts-expect-error", "type"), "nolint": (r"//\s*nolint|//\s*NOLINT", "lint"),
    "allow": (r"#!?\[allow\(", "lint"), "nosec": (r"#\s*nosec\b", "lint"), "nosonar": (r"NOSONAR", "lint"),
    "suppresswarnings": (r"@SuppressWarnings", "lint"), "oxlint-disable": (r"oxlint-disable", "lint"),
    "rubocop": (r"rubocop:\s*disable", "lint"), "shellcheck": (r"#\s*shellcheck\s+disable", "lint"),
    "biome-ignore": (r"biome-ignore", "lint"), "pyright": (r"#\s*pyright:\s*ignore", "type"),
    "phpstan-ignore": (r"@phpstan-ignore", "type"),
}
_SUPPRESS = re.compile("|".join(rx for rx, _ in _DIRECTIVES.values()))
_TYPE_WORDS = re.compile(r"\btype[- ]?check\w*|\btypes?\b|\bmypy\b|\bpyright\b|\btsc\b|\btyping\b", re.I)
_LINT_WORDS = re.compile(r"\blint\w*|\bwarnings?\b|\bclippy\b|\bstatic analysis\b", re.I)
_JUSTIFIED = re.compile(r"justif|explain|reason|rationale|document|descriptions?\s+after", re.I)
# "No @ts-ignore without an issue link": a suppression that cites one (a URL, #123, ABC-123) is allowed.
_WANTS_LINK = re.compile(r"\b(?:without|unless|must (?:cite|reference|link|include))\b[^.;]{0,30}\b(?:issue|ticket|link|url|bug)s?\b",
                         re.I)
# "`# type: ignore` must carry an error code" (PGH003 / PGH004): a directive that names the code stands.
_WANTS_CODE = re.compile(r"\b(?:error|specific|rule|explicit)\s+codes?\b|\bignore-without-code\b|\bblanket\b|\bPGH00[34]\b", re.I)
_NAMES_CODE = re.compile(r"\[[\w\-, ]+\]|:\s*[A-Z]+\d+")
_CITES = re.compile(r"https?://|(?<![\w&])#\d+\b|\b[A-Z][A-Z0-9]+-\d+\b")


def _ruled_out(decision: str) -> re.Pattern[str]:
    """The directives a decision is about: those it names and those of the families it names
    ("type and lint errors"); with neither, all of them."""
    low = decision.lower()
    named = [rx for name, (rx, _) in _DIRECTIVES.items()
             if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", low) or re.search(rx, decision)]  # "disallow" is no `allow`
    families = {f for f, words in (("type", _TYPE_WORDS), ("lint", _LINT_WORDS)) if words.search(decision)}
    chosen = named + [rx for rx, f in _DIRECTIVES.values() if f in families and rx not in named]
    return re.compile("|".join(chosen)) if chosen else _SUPPRESS


# A linter's own configuration, where a rule is turned off by value rather than by a comment.
_LINT_CONFIG = re.compile(r"(?:^|/)(?:\.?(?:eslint|oxlint)rc(?:\.\w+)*|eslint\.config\.\w+|biome\.jsonc?|\.golangci\.ya?ml|"
                          r"\.rubocop\.ya?ml|\.?ruff\.toml|\.pylintrc|\.flake8|clippy\.toml)$", re.I)
_RULE_OFF = re.compile(r"""^\s*["']?([\w@/\-]+)["']?\s*[:=]\s*\[?\s*["']?(?:off|allow|ignore|0)["']?\s*[,\]]?""", re.I)


def _rules_turned_off(lines: list[Line], path: str) -> list[Hit]:
    """Rules a linter's configuration turns off (`"typescript/no-explicit-any": "off"`) that it did not before."""
    if not _LINT_CONFIG.search(path.replace("\\", "/")):
        return []
    was_off = {m.group(1) for ln in lines if ln.side == "-" and (m := _RULE_OFF.match(ln.text))}
    return [("direct", ln, f"turns the lint rule {m.group(1)} off instead of fixing what it reports")
            for ln in lines if ln.side == "+" and (m := _RULE_OFF.match(ln.text)) and m.group(1) not in was_off]


def suppression(lines: list[Line], lang: str, decision: str, path: str = "") -> list[Hit]:
    """A lint / type-check suppression directive the change adds (unless justified, where the decision allows
    that), or a rule its linter's configuration turns off."""
    if _TYPE_WORDS.search(decision) is None and (found := _rules_turned_off(lines, path)):
        return found
    ruled_out = _ruled_out(decision)
    before = {m.group(0) for ln in lines if ln.side == "-" for m in _SUPPRESS.finditer(ln.text)}
    new_side = [ln for ln in lines if ln.side != "-"]
    out = []
    for i, ln in enumerate(new_side):
        m = ruled_out.search(ln.text) if ln.side == "+" else None
        if m is None or m.group(0) in before or any(m.group(0) in s for s in ln.strings):
            continue
        if m.group(0) in ln.code and not m.group(0).startswith(("#", "@")):
            continue  # `/eslint-disable/` in a regular expression: code that looks for the comment, not the comment
        above = new_side[i - 1].text if i and new_side[i - 1].prose else ""
        if _WANTS_LINK.search(decision) and _CITES.search(ln.text[m.end():] + " " + above):
            continue
        if _WANTS_CODE.search(decision) and _NAMES_CODE.match(ln.text[m.end():]):
            continue  # `# type: ignore[attr-defined]`, `# noqa: E501`: the error it silences is named
        if _JUSTIFIED.search(decision) and (re.search(r"(?://|#|--)\s*\w+(?:\W+\w+){2,}", ln.text[m.end():])
                                            or re.search(r"(?<!\w)\w+(?:\W+\w+){3,}", above)):
            continue  # the reason is written on the line or on the comment line above it
        out.append(("direct", ln, f"adds the suppression `{m.group(0).strip()}` instead of fixing what it hides"))
    return out


SENSITIVE = {
    "password": ("password", "passwd", "pwd", "passphrase"),
    "token": ("token", "bearer", "authorization", "jwt"),
    "key": ("key", "apikey", "secret"),
    "secret": ("secret", "credential", "password", "token", "apikey", "key"),
    "session": ("sid", "session", "sessionid", "cookie"),
    "body": ("body", "payload", "form"),
    "card": ("card", "cardnumber", "pan", "cvv", "cvc"),
    # "sensitive data", "PII": the usual suspects
    "sensitive": ("password", "passwd", "token", "bearer", "authorization", "secret", "credential", "apikey", "card",
                  "cardnumber", "cvv", "ssn", "body", "payload"),
    # personal data: "PII", "emails or phone numbers"
    "personal": ("email", "phone", "ssn", "address", "birthdate", "dob", "passport"),
}
_SENSITIVE_WORDS = {"password": "password", "passwords": "password", "token": "token", "tokens": "token",
                    "jwt": "token", "bearer": "token", "key": "key", "keys": "key", "secret": "secret",
                    "secrets": "secret", "credential": "secret", "credentials": "secret", "session": "session",
                    "bodies": "body", "body": "body", "payload": "body", "payloads": "body", "card": "card",
                    "cards": "card", "credit": "card", "sensitive": "sensitive", "pii": "personal",
                    "personal": "personal", "personally": "personal", "email": "personal", "emails": "personal",
                    "phone": "personal", "phones": "personal"}
_LOG_CALL = re.compile(r"(?:\b(?:logger|logging|log|console|LOG|Log|logrus|slog)\s*\.\s*\w+|\bprint|\bpprint|"
                       r"\bfmt\.(?:Print|Fprint)\w*|\bprintln!?)\s*\(")
# "never log or include in errors": an error's message is read as widely as a log.
_ERROR_CALL = re.compile(r"\b(?:fmt\.Errorf|errors\.New|new\s+\w*(?:Error|Exception))\s*\(|\braise\s+\w+\s*\(|"
                         r"\bthrow\s+new\s+\w+\s*\(|\bpanic!?\s*\(")
_ERRORS_TOO = re.compile(r"\b(?:errors?|exceptions?|error messages?)\b", re.I)
# `tok, err := s.tokens.New(email)`: the first name bound is the value.
_ASSIGN = re.compile(r"(?:\b(?:const|let|var)\s+)?(?<![A-Za-z_])([A-Za-z_]\w*)(?:\s*,\s*[A-Za-z_]\w*)*\s*(?::=|=(?!=))\s*(.+)")
_INTERP = re.compile(r"\$?\{([^{}]+)\}")
_CAMEL_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|[A-Z]+|\d+")


def _parts(ident: str) -> set[str]:
    """Lowercased parts of an identifier and their singulars (`s.tokens` holds tokens)."""
    parts = {p.lower() for chunk in ident.split("_") for p in _CAMEL_PARTS.findall(chunk)}
    return parts | {singular(p) for p in parts}


# What reveals nothing of a value: its length, presence, prefix, a mask or hash of it
# (`Boolean(header)`, `strings.HasPrefix(key, "sk_live")`, `len(token)`, `maskCard(number)`).
_DERIVED = re.compile(r"\b(?:Boolean|bool|len|count|typeof|isset|empty|[A-Za-z]*(?:[Mm]ask|[Rr]edact|[Hh]ash|[Ff]ingerprint|"
                      r"[Tt]runcate|[Oo]bfuscate)\w*|(?:strings\.)?(?:HasPrefix|HasSuffix|Contains))\s*\([^()]*\)|"
                      r"(?<![\w.])[\w.]+\??\.(?:length|size|count|startsWith\([^()]*\)|endsWith\([^()]*\))|!!\s*[\w.]+|"
                      r"(?<![\w.])[\w.]+\s*(?:!==?|===?)\s*(?:null|undefined|None|nil)\b|(?<![\w.])[\w.]+\s+is\s+(?:not\s+)?None\b")


# The names of fields and keyword arguments (`{ card: masked }`, `token=redacted`) label a value.
_KEYS = re.compile(r"(?<=[{,(])\s*[A-Za-z_]\w*\s*:(?!:)|\b[A-Za-z_]\w*\s*=(?!=)")


def _outside_calls(expr: str) -> str:
    """An expression with every call's arguments taken out."""
    while (shorter := re.sub(r"\([^()]*\)", "", expr)) != expr:
        expr = shorter
    return expr


def _continued(ln: Line, args: str, after: list[Line]) -> list[Line]:
    """The lines a call's arguments span: `logger.info("shared", {` and the fields on the added lines
    after it, up to the line that closes its parenthesis (`args`: the first line's code after the call)."""
    out = [Line(side="+", number=ln.number, text=args, code=args, strings=ln.strings)]
    depth = args.count("(") - args.count(")") + 1
    for nxt in after[:12]:
        if depth <= 0 or nxt.number != out[-1].number + 1:
            break
        out.append(nxt)
        depth += nxt.code.count("(") - nxt.code.count(")")
    return out


def sensitive_families(decision: str) -> tuple[str, ...]:
    found = {_SENSITIVE_WORDS[w] for w in re.findall(r"[a-z]+", decision.lower()) if w in _SENSITIVE_WORDS}
    if "pii" in re.findall(r"[a-z]+", decision.lower()):
        found.add("sensitive")  # "PII" is read as personal and secret data both
    return tuple(dict.fromkeys(word for f in sorted(found) for word in SENSITIVE[f]))


def sensitive_logs(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """A log or print call whose arguments carry the data the decision keeps out of logs."""
    words = set(sensitive_families(decision))
    tainted = set()
    for ln in lines:
        if ln.side == "-":
            continue
        m = _ASSIGN.search(ln.code if lang not in ("hash", "json") else ln.text)
        carried = " ".join(e for s in ln.strings for e in _INTERP.findall(s))  # a literal's words are text, not data
        if m and (_parts(m.group(1)) | _parts(_outside_calls(m.group(2)) + " " + carried)) & words:
            tainted.add(m.group(1))  # `result = charge(card)` is not the card: calls do not pass it on
    out = []
    added = _added(lines)
    errors_too = _ERRORS_TOO.search(decision) is not None
    for i, ln in enumerate(added):
        call = _LOG_CALL.search(ln.code) or (_ERROR_CALL.search(ln.code) if errors_too else None)
        if call is None:
            continue
        rest = _continued(ln, ln.code[call.end():], added[i + 1:])
        args = " , ".join(x.code for x in rest) + " " + " ".join(e for x in rest for s in x.strings for e in _INTERP.findall(s))
        args = _KEYS.sub(" ", _DERIVED.sub(" ", args))
        idents = re.findall(r"[A-Za-z_][\w.]*", args)
        hit = next((i for i in idents if i.split(".")[0] in tainted or _parts(i.replace(".", "_")) & words
                    and not i.isupper()), None)
        if hit:
            out.append(("direct", ln, f"writes {hit} to {'an error' if call.re is _ERROR_CALL else 'a log'}"))
    return out


_TABLE_NAME = re.compile(r"\b([a-z][a-z0-9]*_[a-z0-9_]+)\b|\b([a-z]\w*)\s+table\b|\bthe\s+([a-z]\w*)\s+table\b")
# "Financial transactions MUST NEVER be deleted": the rows' noun is the table (its model: Transaction).
_TABLE_SUBJECT = re.compile(r"\b([a-z]\w*s)\s+(?:(?:must|should|shall|can|may|are|is|will)\s+)?(?:never|not)\s+(?:be\s+)?"
                            r"(?:physically\s+|hard[- ]?)?(?:deleted|updated|modified|removed)\b", re.I)
_NOT_TABLES = frozenset("records rows data items objects values entries files things fields columns tables this".split())
_TABLE_OPS = [
    (re.compile(r"append-only|insert-only|never (?:be )?updated|no update|not (?:be )?updated|"
                r"\b(?:no|never|not)\s+(?:\w+\s+)?delete\s*(?:/|or|and|,)\s*update\b", re.I), ("update",)),
    (re.compile(r"append-only|insert-only|never (?:be )?deleted|no delete|not (?:be )?deleted|"
                r"\b(?:no|never|not)\s+(?:\w+\s+)?update\s*(?:/|or|and|,)\s*delete\b", re.I), ("delete", "truncate")),
    (re.compile(r"read-only|never (?:write|modify|change) |do not (?:write|modify|change) |must not (?:write|modify)",
                re.I), ("update", "delete", "insert", "truncate")),
]
_SQL_OP = {"update": r"\bupdate\s+{t}\b", "delete": r"\bdelete\s+from\s+{t}\b", "insert": r"\binsert\s+into\s+{t}\b",
           "truncate": r"\btruncate\s+(?:table\s+)?{t}\b"}


def protected_tables(decision: str) -> list[tuple[str, tuple[str, ...]]]:
    """(table, forbidden SQL operations) a decision protects ("audit_log is append-only")."""
    ops = tuple(dict.fromkeys(op for rx, o in _TABLE_OPS if rx.search(decision) for op in o))
    sentences = decision_text.sentences(decision) or [decision]
    guarded = [s for s in sentences if any(rx.search(s) for rx, _ in _TABLE_OPS)]  # "X updated async, NOT truth": not X
    names = [a or b or c for s in guarded for a, b, c in _TABLE_NAME.findall(s)]
    names += [m.group(1).lower() for s in guarded for m in _TABLE_SUBJECT.finditer(s)
              if m.group(1).lower() not in _NOT_TABLES]
    return [(n, ops) for n in dict.fromkeys(names) if ops and n not in ("the", "a", "this")]


# A trigger, rule or policy of the table dropped, or disabled: its protection goes with it.
_UNGUARD = (r"\bdrop\s+(?:trigger|rule|policy)\s+(?:if\s+exists\s+)?[\"`]?\w*{t}\w*|"
            r"\balter\s+table\s+[\"`]?{t}[\"`]?\s+disable\s+(?:trigger|rule|row\s+level\s+security)")


# ORM calls that update or delete rows: `.update(`, `deleteMany(`, `.delete()`, `destroy_all`, `update_all`.
_ORM_OP = {"update": r"\.\s*(?:update|updateMany|update_all|update_attribute|update_column|bulk_update|upsert)\s*\(|"
                     r"\b(?:db|tx|trx|knex)\s*\.\s*update\s*\(",
           "delete": r"\.\s*(?:delete|deleteMany|delete_all|destroy|destroy_all|remove|truncate)\s*\(|"
                     r"\b(?:db|tx|trx|knex)\s*\.\s*delete\s*\("}


def _model_forms(table: str) -> tuple[str, ...]:
    """How code names a table's model: audit_logs -> AuditLog, auditLogs, auditLog, audit_log."""
    words = table.split("_")
    single = words[:-1] + [singular(words[-1])]
    pascal = "".join(w.capitalize() for w in single)
    plural = words[0] + "".join(w.capitalize() for w in words[1:])
    return tuple(dict.fromkeys((pascal, plural, pascal[0].lower() + pascal[1:], "_".join(single))))


def _orm_write(ln: Line, table: str, ops: tuple[str, ...]) -> str | None:
    """The operation of an ORM call on the table's model on this line (`AuditLog.objects.filter(...).delete()`)."""
    if not any(re.search(rf"(?<![\w]){re.escape(f)}(?![a-z0-9])", ln.code) for f in _model_forms(table)):
        return None
    return next((o for o in ops if o in _ORM_OP and re.search(_ORM_OP[o], ln.code)), None)


def protected_table(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    out = []
    for table, ops in protected_tables(decision):
        for ln in _added(lines):
            text = _sql_text(ln, lang)
            op = next((o for o in ops if re.search(_SQL_OP[o].format(t=re.escape(table)), text, re.I)), None)
            if op:
                out.append(("direct", ln, f"runs {op.upper()} on {table}, which the decision protects"))
            elif op := _orm_write(ln, table, ops):
                out.append(("direct", ln, f"makes an ORM {op} of {table} rows, which the decision protects"))
            elif re.search(_UNGUARD.format(t=re.escape(table)), text, re.I):
                out.append(("indirect", ln, f"removes a guard of {table}, which the decision protects"))
    return out


_KEYWORD = re.compile(r"\b(?:never|don'?t|do not|no|avoid|must not)\s+(?:use\s+|using\s+)?(?:the\s+)?[\"'`]?(\w+)[\"'`]?"
                      r"\s+keyword", re.I)
_DEFAULT_EXPORT = re.compile(r"named exports? only|(?:avoid|no|disallow|forbid|ban|prohibit)\w*\s+(?:the\s+use\s+of\s+)?default "
                             r"exports?|never use default exports?",
                             re.I)


def banned_syntax(lines: list[Line], lang: str, decision: str) -> list[Hit]:
    """Keywords and forms the decision bans: `function`, `as`, `export default`, the `any` type."""
    rules = [(rf"\b{re.escape(k)}\b", f"uses the {k} keyword") for k in _KEYWORD.findall(decision)]
    if _DEFAULT_EXPORT.search(decision):
        rules.append((r"\bexport\s+default\b", "adds a default export"))
    if re.search(r"\b(?:avoid|never|no|without|disallow\w*|forbid\w*|ban\w*)\b[^.;]{0,30}\bany\b", decision, re.I) and lang == "js":
        rules.append((r":\s*any\b|<any>|\bas\s+any\b|\bany\[\]", "types a value as any"))
    out = []
    for ln in _added(lines):
        if ln.imports:
            continue
        hit = next((why for rx, why in rules if re.search(rx, ln.code)), None)
        if hit:
            out.append(("direct", ln, hit))
    return out


RULES = (
    Rule("detector:sql_params", "SQL built by formatting or concatenation where the decision asks for parameters", on_lines(sql_params),
         re.compile(r"parameteri[sz]e\w*|prepared statements?|placeholders?|bind (?:param|variable)|"
                               r"sql injection|(?:f-?strings?|concatenat\w*|string format\w*|interpolat\w*).{0,40}\bsql\b|"
                               r"\bsql\b.{0,40}(?:f-?strings?|concatenat\w*|string format\w*|interpolat\w*)", re.I)),
    Rule("detector:hardcoded_secret", "a credential written into the code or its configuration", on_lines(hardcoded_secret),
         re.compile(r"^(?=.*\b(?:secrets?|credentials?|passwords?|api keys?|tokens?)\b)"
                                     r"(?=.*(?:hard-?cod|environment|\benv\b|vault|commit|repositor|\brepo\b|"
                                     r"source code|config files?|config ?maps?|secret (?:resources?|managers?|stores?)))", re.I | re.M)),
    Rule("detector:password_hash", "a password hashed with a fast general-purpose hash", on_lines(password_hash),
         re.compile(r"^(?=.*\bpasswords?\b)(?=.*\b(?:bcrypt|argon2|scrypt|pbkdf2|hash\w*)\b)", re.I | re.M)),
    Rule("detector:naive_datetime", "a naive (local-time) datetime where the decision asks for UTC or aware times", on_lines(naive_datetime),
         re.compile(r"\butc\b|time ?zones?|tz-?aware|timezone-aware|aware datetimes?", re.I)),
    Rule("detector:run_as_root", "a container set to run as root", on_lines(run_as_root),
         re.compile(r"\bas root\b|\broot user\b|\bnon-?root\b|runasnonroot", re.I)),
    Rule("detector:unwrap_family", "`.expect()` against a decision that bans `unwrap()`: both panic", on_lines(unwrap_family),
         re.compile(r"\b(?:never|don'?t|do not|no|avoid)\b.{0,40}\bunwrap", re.I)),
    Rule("detector:drop_column", "a column dropped, by DDL or by removing its model field", on_lines(drop_column),
         re.compile(r"\b(?:never|don'?t|do not|no|avoid|must not)\b.{0,20}\bdrop(?:ping)?\s+"
                                r"(?:a |any |the )?columns?\b|\b(?:never|don'?t|do not|no|avoid|must not)\b.{0,40}"
                                r"\b(?:drop|remov|delet)\w*\s+(?:existing\s+|database\s+|db\s+|any\s+|the\s+){0,3}columns?\b", re.I)),
    Rule("detector:select_star", "`SELECT *` where the decision wants the columns named", on_lines(select_star),
         re.compile(r"\b(?:never|don'?t|do not|no|avoid|must not)\b.{0,20}select\s*\*", re.I)),
    Rule("detector:raw_sql", "SQL run directly where the decision routes it through the ORM or a repository", on_lines(raw_sql),
         re.compile(r"\b(?:no|never|avoid|without|not|don'?t|do not)\s+(?:(?:use|using|write|writing|run|any|ever)\s+)"
                            r"{0,2}(?:raw sql\b|sql by hand\b|"
                            r"hand-?written sql)|\braw sql\b[^.;]{0,20}\b(?:forbidden|not allowed|prohibited|banned)|\bonly (?:through|via) the (?:orm|repository)|"
                            r"(?:go|goes) through the (?:orm|repository)", re.I)),
    Rule("detector:eval_family", "code evaluated from a string (`exec`, `new Function`) against a ban on eval", on_lines(eval_family),
         re.compile(r"\b(?:never|don'?t|do not|no|avoid|must not)\b.{0,20}\beval\b", re.I)),
    Rule("detector:pin_versions", "a GitHub Action at a movable ref, or a base image without a pinned version", on_lines(pin_versions),
         re.compile(r"\bpin(?:ned|ning|s)?\b", re.I)),
    Rule("detector:flag_off", "a setting the decision keeps on turned off, exempted or removed", on_lines(flag_off),
         re.compile(r"\benforce\s+[`'\"]?\w+[`'\"]?\s+mode\b|"
                             r"\bkeep\s+(?:[\w'`.\-]+\s+){1,5}?(?:on|enabled|turned on|active)\b|"
                             r"\bnever\s+(?:disable|turn off|switch off)\b|:\s*always\s+(?:on|enabled)\b|"
                             r"\b(?:must|should)\s+(?:stay|remain|be)\s+(?:on|enabled)\b", re.I)),
    Rule("detector:global_state", "module-level state mutated through `global`", on_lines(global_state),
         re.compile(r"\bglobal (?:mutable )?state\b|\bmodule-level (?:mutable )?state\b|\bno globals\b", re.I)),
    Rule("detector:suppression", "a lint or type-check warning silenced, or a lint rule turned off", on_lines(suppression, path=True),
         re.compile(r"\bkeep\s+(?:the\s+)?(?:shellcheck|eslint|clippy|ruff|mypy|pylint|golangci-lint|rubocop|"
                                r"flake8|pyright|tsc|biome|oxlint|lint|linters?|type[- ]?check\w*)\s+(?:clean|happy|green|"
                                r"passing|quiet)\b|noqa|eslint-disable|ts-ignore|ts-nocheck|ts-<directive>|ban-ts-comment|type: ?ignore|pylint: ?disable|nolint|"
                                r"#\[allow|(?:lint|linter|warning)s?\W+(?:\w+\W+){0,6}suppress|suppress\w*\W+(?:\w+\W+){0,4}"
                                r"(?:lint|linter|warning)|(?:silenc\w*|mut(?:e|ing)|disabl\w*|ignor\w*)\W+(?:\w+\W+){0,4}?"
                                r"(?:lint\w*|warnings?|type[- ]?check\w*|type errors?|mypy|pyright|eslint|clippy|compiler)\b|"
                                r"\b(?:eslint|lint\w*|linter|warnings?|type errors?|clippy)\b(?:\W+\w+){0,5}?\W+(?:not\s+)?"
                                r"(?:disabl\w*|silenc\w*|suppress\w*|ignor\w*|mut(?:e|ed|ing))\b", re.I)),
    Rule("detector:sensitive_logs", "a sensitive value (password, token, card number, PII) written to a log or an error", on_lines(sensitive_logs),
         re.compile(r"\A(?=.*\b(?:log|logs|logged|logging|print|prints|expose)\b)(?=.*\b(?:passwords?|"
                                   r"secrets?|tokens?|keys?|credentials?|session ids?|request bod(?:y|ies)|payloads?|sensitive (?:data|information|"
                                   r"fields?|values?)|pii|personal (?:data|information)|personally identifiable|e-?mails?|"
                                   r"e-?mail addresses|phone numbers?|card numbers?|credit cards?)\b)",
                                   re.I | re.S)),
    Rule("detector:protected_table", "an UPDATE or DELETE, in SQL or through the ORM, of a table the decision keeps append-only", on_lines(protected_table),
         re.compile(r"append-only|insert-only|read-only|never (?:be )?(?:updated|deleted)|no update queries|"
                                    r"\b(?:no|never|not|must not|do not)\s+(?:\w+\s+)?(?:update|delete)\s*(?:/|or|and|,)\s*"
                                    r"(?:update|delete)\b|\b(?:no|never)\s+(?:update|delete)s?\s+(?:on|of|to|in)\b", re.I)),
    Rule("detector:banned_syntax", "a keyword or a default export the decision bans", on_lines(banned_syntax),
         re.compile(r"\bkeyword\b|default exports?|\bany\b", re.I)),
)
