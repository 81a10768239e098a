"""Shell command lines as knowledge: split, normalised, named by purpose, their error read.

Shared by the worker (knowledge/) and the hook, which reads a failed command's family and
error key against the gotchas the worker indexed (retrieve/at_failure.py); it imports `re`,
so the hook loads it only after a command failed.

A command line is cut at top-level `&&`, `||`, `;` and newlines (quotes, `$(…)` and
heredocs kept whole); each part loses its redirections (`2>&1`, `> out.log`), a trailing
filter pipeline (`| tail -20`, `| grep FAIL`), secret-looking assignments, and is dropped
when it only moves around (`cd`, `pushd`) or prints (`echo`, `sleep`). `canonical` then
drops what selects a subset (file arguments, `-k`/`-t` patterns, reporters), so every
"run one test file" variant counts as a run of the project's test command.
"""

from __future__ import annotations

import re

from engram.capture import shellcmd
from engram.fsio import scratch
from engram.text import clip_words, sets_variable, strip_ansi

FILTERS = {"head", "tail", "grep", "egrep", "fgrep", "rg", "less", "more", "wc", "sort", "uniq", "tee",
           "cat", "jq", "awk", "sed", "cut", "tr", "column", "fold", "nl", "xargs",
           # PowerShell's (`dotnet build | Select-Object -First 50`)
           "Select-Object", "Select-String", "Tee-Object", "Out-String", "Out-Host", "Format-Table", "Format-List",
           "Where-Object", "Sort-Object", "Measure-Object"}
NOISE = {"cd", "pushd", "popd", "echo", "printf", "sleep", "true", "false", "clear", "set", "export", "source",
         "pwd", ":"}
SELECTORS = {"-k", "-t", "--grep", "-g", "--testNamePattern", "--testPathPattern", "-run", "--run",
             "--filter", "--reporter", "--tests", "--test"}
# Options whose value is a path (where a command acts, a manifest, a configuration file, where
# it writes): `canonical` drops the option with its path, never the path alone (`pnpm --dir
# /x/app lint` is `pnpm lint`, not `pnpm --dir lint`, and `go build -o` builds nothing).
PLACE_OPTIONS = {"-C", "-f", "-c", "--dir", "--cwd", "--prefix", "--directory", "--manifest-path", "--project",
                 "--config", "--file", "--rootdir", "--git-dir", "--work-tree", "-o", "--output", "--out",
                 "--out-dir", "--outDir", "--outdir", "--output-dir", "--target-dir", "--startup-project"}
# Options naming the repository a command acts on (`gh pr create --repo o/other`): another
# value is another target, not another way to reach the same one.
REPO_OPTIONS = {"--repo", "-R"}
MESSAGE_FLAGS = {"-m", "--message", "--title", "--body", "-b", "-F"}
SECRET_NAMES = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASS")
LINTERS = {"eslint", "prettier", "ruff", "black", "isort", "flake8", "pylint", "mypy", "pyright", "golangci-lint",
           "gofmt", "rubocop", "stylelint", "biome", "shellcheck", "pre-commit", "markdownlint", "tsc", "clippy"}
SETUP = {("npm", "install"), ("npm", "ci"), ("npm", "i"), ("yarn", "install"), ("pnpm", "install"),
         ("pip", "install"), ("uv", "sync"), ("poetry", "install"), ("bundle", "install"), ("go", "mod"),
         ("cargo", "fetch"), ("composer", "install"), ("pre-commit", "install")}
RUNNERS = {("npm", "run"), ("yarn", "run"), ("pnpm", "run"), ("bun", "run"), ("npm", "start"), ("cargo", "run"),
           ("go", "run"), ("docker", "compose"), ("just",), ("make",), ("task",), ("python", "-m"), ("uv", "run"),
           ("dotnet", "run"), ("dotnet", "ef"), ("mix",), ("bundle", "exec"), ("rails",), ("php", "artisan"),
           ("poetry", "run"), ("./gradlew",), ("gradle",), ("mvn",), ("deno", "task")}
# An error word counts as a word of prose: not inside a path or an identifier
# ("test/utils/error-sanitizer.test.ts", "sanitizeErrorMessage"); an exception's class name
# ("TypeError", "ModuleNotFoundError") counts whole.
_ERROR = re.compile(r"(?<![\w./\\-])(?:errors?|fatal|failed|failure|blocked|denied|not found|cannot|can't|"
                    r"not a valid|is not recognized|couldn't|could not|unexpected argument|illegal option|"
                    r"unknown (?:option|command)|no such|exception|traceback|refused|timed out|not recogni[sz]ed|"
                    r"did not match|invalid|conflict|rejected|aborting|would be overwritten|no matches found)(?![\w/\\-]|\.\w)|"
                    r"(?<![\w./\\-])(?-i:[A-Z]\w*(?:Error|Exception))(?![\w/\\-]|\.\w)", re.I)
# Lines a test runner prints for what passed (vitest / jest "✓", TAP "ok", "PASS file").
_PASSING = ("\u2713", "\u2714", "\u221a", "PASS ", "ok ")
_SOURCE_EXT = re.compile(r"\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java|kt|rb|php|c|h|cc|cpp|cs|swift|scala|"
                         r"ex|exs|vue|svelte|sh)$")


def parts(command: str) -> list[str]:
    """The top-level `&&` / `||` / `;` / `&` / newline parts of a command line, quotes kept whole
    and a line ending in a backslash continued; a part sent to the background keeps its `&`
    (its launch, not its run, is what the exit status says)."""
    out, buf, quote, depth, i = [], [], "", 0, 0
    text = command or ""
    heredocs: list[str] = []  # the delimiters of here-documents opened on this line
    while i < len(text):
        ch = text[i]
        if (not quote and not depth and text.startswith("<<", i) and not text.startswith("<<<", i)
                and text[i - 1:i] != "<"):  # `<<<` is a here-string, no document
            m = _HEREDOC.match(text, i)
            if m:
                heredocs.append(m.group(2))
        if not quote and not depth and ch == "\n" and heredocs:
            out.append("".join(buf))
            buf, i = [], _past_heredocs(text, i + 1, heredocs)
            heredocs = []
            continue
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif text.startswith("\\\n", i):  # a line continued: one command line
            buf.append(" ")
            i += 2
            continue
        elif text.startswith("$(", i):
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif not depth and (text.startswith("&&", i) or text.startswith("||", i)):
            out.append("".join(buf))
            buf, i = [], i + 2
            continue
        elif not depth and ch in ";\n":
            out.append("".join(buf))
            buf, i = [], i + 1
            continue
        elif (not depth and ch == "&" and text[i - 1:i] not in ("&", ">", "|") and text[i + 1:i + 2] != ">"
              and "".join(buf).strip()):  # a part's first word `&` is PowerShell's call operator
            out.append("".join(buf).rstrip() + " &")  # sent to the background: it ends there, still marked
            buf, i = [], i + 1
            continue
        buf.append(ch)
        i += 1
    out.append("".join(buf))
    return [p.strip() for p in out if p.strip()]


_HEREDOC = re.compile(r"<<[-~]?[ \t]*(['\"]?)([A-Za-z_][\w.-]{0,40})\1")


def _past_heredocs(text: str, i: int, delimiters: list[str]) -> int:
    """Where the command line goes on after the here-documents that start at `i`: each body
    runs to a line holding only its delimiter (a file's text, not commands)."""
    for word in delimiters:
        while i < len(text):
            end = text.find("\n", i)
            line, i = (text[i:], len(text)) if end < 0 else (text[i:end], end + 1)
            if line.strip() == word:
                break
    return i


def _pipeline(part: str) -> list[str]:
    """`a | b | c` -> [a, b, c] at top level (`||` is not a pipe)."""
    segs, buf, quote = [], [], ""
    for i, ch in enumerate(part):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "|" and part[i - 1: i] != "|" and part[i + 1: i + 2] != "|":
            segs.append("".join(buf))
            buf = []
            continue
        buf.append(ch)
    segs.append("".join(buf))
    return [s.strip() for s in segs]


def split_words(text: str) -> list[str]:
    """Whitespace-separated words, a quoted span (with its quotes) staying one word."""
    out, buf, quote = [], [], ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch.isspace():
            if buf:
                out.append("".join(buf))
                buf = []
            continue
        buf.append(ch)
    if buf:
        out.append("".join(buf))
    return out


def _words(seg: str) -> list[str]:
    """Words of one segment without redirections, secret-looking assignments and messages."""
    out, skip = [], False
    for w in split_words(seg):
        if out and out[-1] in MESSAGE_FLAGS and w[:1] in "'\"$":
            out.append("…")  # a commit message or PR body says nothing about the command
            continue
        if skip:
            skip = False
            continue
        if re.fullmatch(r"\d?>>?|&>|<", w):
            skip = True  # `> out.log`: the target goes too
            continue
        if re.fullmatch(r"\d?>>?&?\S*|&>\S*|<\S+", w):
            continue
        name = w.split("=", 1)[0]
        if "=" in w and not out and name.isupper() and any(s in name for s in SECRET_NAMES):
            continue
        out.append(w)
    return out


# A variable set for the commands after it, in its own part: `export NAME=value`, cmd.exe's
# `set NAME=value`, PowerShell's `$env:NAME="value"`.
_SETS = re.compile(r"^(?:export\s+|set\s+|\$env:)([A-Za-z_]\w*)\s*=\s*(['\"]?)([\w.:/@+-]{1,60})\2$")


def normalise(command: str) -> list[str]:
    """The meaningful parts of a command line, each normalised (see the module doc). A variable
    set in a part of its own (`$env:DOTNET_ENVIRONMENT="Development"; dotnet run`) goes before
    each later part as the `NAME=value` prefix a POSIX shell would write: what made the command
    work may be that variable (a secret-looking one is dropped, as a prefix is)."""
    return [part for part, _ in normalise_in(command)]


def _cd(core: list[str]) -> str:
    """The folder a part's words move to when they are `cd <folder>`, else ""."""
    return core[1].strip("'\"") if core[:1] == ["cd"] and len(core) == 2 else ""


def moved_to(command: str) -> str:
    """The folder the line's last `cd` moved to ("" when it has none)."""
    moves = [_cd(shellcmd.stripped(_words(part))) for part in parts(command)]
    return next((m for m in reversed(moves) if m), "")


def normalise_in(command: str) -> list[tuple[str, str]]:
    """`normalise`'s parts, each with the folder the line moved to before it (`cd services/api &&
    uv run pytest`: "services/api"; "" when it did not): in a repository of several packages a
    command works in one folder only."""
    out, env, folder = [], [], ""
    for part in parts(command):
        m = _SETS.match(part.strip())
        if m:
            env += [] if any(s in m.group(1).upper() for s in SECRET_NAMES) else [f"{m.group(1)}={m.group(3)}"]
            continue
        segs = _pipeline(part)
        while len(segs) > 1 and (shellcmd.stripped(segs[-1].split()) or [""])[0] in FILTERS:
            segs.pop()
        words = _words(" | ".join(segs))
        core = shellcmd.stripped(words)
        if _cd(core):
            folder = _cd(core)
        elif core and core[0] not in NOISE:
            out.append((" ".join(env + words), folder))
    return out


def segments(command: str) -> list[str]:
    """Every pipeline segment of every part, its words as normalise keeps them (filters too)."""
    return [" ".join(w) for part in parts(command) for w in map(_words, _pipeline(part)) if w]


_BLAMED = re.compile(r"(?<![\w.+-])([\w.+-]+): (?:(?:illegal|invalid|unrecognized|unknown) option|(?:error|fatal):)",
                     re.I)


def blamed(command: str, signature: str) -> str:
    """The segment of `command` whose program the error names as refusing an option ("cat:
    illegal option -- A" from `cat -A f | sed -n 1,5p`, or from the filter in `sed -n 1,5p f |
    cat -A`: a tool's flags differ between platforms, BSD and GNU) or as failing ("xcodebuild:
    error: Unable to find a device …" from `xcodebuild … | tail -20`, whose zero exit status is
    tail's), whichever place the tool has in the pipeline; "" when the error names no program
    of the command."""
    m = _BLAMED.match(signature.strip())
    for seg in segments(command) if m else []:
        core = shellcmd.stripped(seg.split())
        if core and core[0].rsplit("/", 1)[-1] == m.group(1):
            return seg
    return ""


def file_ops(command: str) -> list[tuple[str, str, str]]:
    """What a command line does to files, part by part: ("cd", dir, ""), ("rm", path, "") for
    `rm` / `git rm` / `unlink`, ("mv", path, destination) for `mv` / `git mv` (a destination
    ending in "/" is a directory: several sources, or the user's trailing slash). Words the
    shell would expand (`*`, `$`, `~`, backquotes) are left out, and so are `git rm --cached`
    (the file stays) and `mv -t` (sources last): an unknown path retires nothing. A `cd` is
    returned as written, for the caller to follow the working directory."""
    out: list[tuple[str, str, str]] = []
    for part in parts(command):
        segs = _pipeline(part)
        words = shellcmd.stripped([_unquote(w) for w in _words(segs[0])]) if len(segs) == 1 else []
        if words[:1] == ["git"] and words[1:2] in (["rm"], ["mv"]):
            words = words[1:] if "--cached" not in words else []
        args = [w for w in words[1:] if not w.startswith("-")]
        if words[:1] == ["cd"]:  # the resolver reads an unexpanded directory as unknown
            out.append(("cd", args[0] if args else "~", ""))
        elif any(ch in w for w in args for ch in "*?[$~`") or "-t" in words or "--target-directory" in words:
            continue
        elif words[:1] in (["rm"], ["unlink"]):
            out += [("rm", a, "") for a in args]
        elif words[:1] == ["mv"] and len(args) >= 2:
            dest = args[-1] + ("/" if len(args) > 2 and not args[-1].endswith("/") else "")
            out += [("mv", a, dest) for a in args[:-1]]
    return out


def _unquote(word: str) -> str:
    return word[1:-1] if len(word) > 1 and word[0] == word[-1] and word[0] in "'\"" else word


# Programs whose first operand is the program they run, not a selection of their input:
# `python tools/x.py`, `go run ./cmd/app npm:react`, `bun run src/cli.ts git pr`.
_RUNS_A_FILE = {("python",), ("python3",), ("node",), ("ruby",), ("php",), ("perl",), ("tsx",), ("ts-node",),
                ("bun",), ("bun", "run"), ("go", "run"), ("deno", "run")}


def canonical(normalised: str) -> str:
    """A normalised part without what selects a subset: file arguments, patterns, a bare `--`.
    The file an interpreter or `go run` runs stays: without it the line runs something else
    (`bun run src/cli.ts git pr` is not `bun run git pr`)."""
    words = split_words(normalised)
    lead = 0
    while lead < len(words) - 1 and sets_variable(words[lead]):
        lead += 1  # `VAR=value` assignments, then the program: never a file argument
    runs = 2 if tuple(words[lead:lead + 2]) in _RUNS_A_FILE else 1 if (words[lead],) in _RUNS_A_FILE else 0
    if runs and len(words) > lead + runs and _is_file_arg(words[lead + runs]) and words[lead + runs][:1] not in "'\"":
        lead += runs  # the program and the file it runs, then the file's own arguments as any
    out, skip = words[: lead + 1], False
    for i, w in enumerate(words[lead + 1:], lead + 1):
        if skip:
            skip = False
            continue
        value = words[i + 1] if i + 1 < len(words) else ""
        if w in SELECTORS or w in PLACE_OPTIONS and _is_file_arg(value) or (
                w.startswith("-") and len(w) > 3 and "=" not in w and value[:1] in "'\"" and value):
            skip = True  # the option goes with its value (a quoted long option's too: `--connection "…"`,
            continue  # xcodebuild's `-destination 'platform=…'`: an option left without it breaks the line
        if w.split("=", 1)[0] in SELECTORS or "::" in w or _is_file_arg(w) or w[:1] in "'\"":
            continue
        out.append(w)
    while len(out) > 1 and out[-1] == "--":
        out.pop()
    return " ".join(out)


def option_values(normalised: str) -> tuple[str, ...]:
    """The quoted values a part gives its options (`-destination 'platform=iOS Simulator,name=iPhone
    17 Pro'`), which `canonical` leaves out with the patterns: two forms of a command may differ
    only there."""
    words = split_words(normalised)
    return tuple(w for prev, w in zip(words, words[1:]) if prev.startswith("-") and prev not in SELECTORS
                 and w[:1] in "'\"")


def _is_file_arg(word: str) -> bool:
    return not word.startswith("-") and ("/" in word or bool(_SOURCE_EXT.search(word)) or "*" in word)


_PIECES = re.compile(r"[:._/-]")
_CMDLET = re.compile(r"^[A-Z][a-z]+-[A-Z][A-Za-z]+$")


def purpose(normalised: str) -> str:
    """test / build / lint / format / setup / run, or "" for a command that is not a project command."""
    words = shellcmd.stripped(normalised.split())
    if not words or any(scratch(w) for w in words[:3]):
        return ""  # `go run /tmp/urlcheck.go`: a one-off script in a scratch folder is no project's command
    kind = shellcmd.classify(normalised)
    named = shellcmd.stripped(canonical(normalised).split())  # without the subset it selects (`--filter x`)
    script = named[2] if len(named) > 2 and named[1] == "run" and not _is_file_arg(named[2]) else ""
    # the words' parts (`lint:fix`, `golangci-lint`), not `git log --format=…`, `git add x/format.go`, `rg FormatTags`
    pieces = {p for w in named[:3] if not w.startswith("-") for p in _PIECES.split(w.lower())}
    if kind == shellcmd.TEST:
        return "test"
    if _CMDLET.match(words[0]):
        return ""  # a PowerShell cmdlet (`Get-ChildItem`): the shell's, not the project's
    if tuple(words[:2]) in SETUP:  # `pre-commit install` sets the hooks up; `pre-commit run` lints
        return "setup"
    if pieces & {"format", "fmt"} or words[0] in ("prettier", "black", "isort", "gofmt"):
        return "format"
    if any(p.endswith("lint") for p in pieces) or "typecheck" in pieces or "check" in script or words[0] in LINTERS:
        return "lint" if words[0] != "tsc" or "--noEmit" in words else "build"
    if kind == shellcmd.BUILD:
        return "build"
    first = words[0]
    if first.startswith("./") or (first.endswith(".sh") and "/" in first):
        return "run"
    if tuple(words[:2]) in RUNNERS or (first,) in RUNNERS:
        return "run"
    return ""


# Lines tools print around the error, not the error: PowerShell's record, rustc's and npm's
# pointers to more help, a stack trace's prompt.
_BOILERPLATE = ("+ CategoryInfo", "+ FullyQualifiedErrorId", "For more information about this error",
                "npm ERR! A complete log of this run", "npm error A complete log of this run", "Run with --stacktrace",
                "note: run with `RUST_BACKTRACE", "error: could not compile", "Error: Process completed with exit code")


# A runner's line that reports only the exit status of what it ran (bun's `error: script "x"
# exited with code 1`, yarn's "Command failed with exit code 1", make's "[Makefile:3: test]
# Error 2", npm's ELIFECYCLE, turbo's "ERROR run failed: command exited (1)"): the error is in the
# lines before it.
_EXIT_ONLY = re.compile(r"exited with (?:exit )?code -?\d+\W*$|failed with exit code -?\d+\W*$|\] Error -?\d+$|ELIFECYCLE|"
                        r"\bexited\s+\(-?\d+\)\W*$|"
                        r"^Exit code -?\d+$|"  # Claude Code's own first line of a failed call
                        r"^(?i:exit(?:[ _](?:code|status))?|status|rc)\s*[:=]\s*-?\d+$")  # a line's own `echo "EXIT: $?"`
# A check's line that says it passed or was skipped (pre-commit's "gitleaks.....Passed").
_PASSED = re.compile(r"\.{3}\s*(?:Passed|Skipped|\(no files to check\)Skipped)\s*$")
# A line that opens with its verdict ("ERROR: …", "fatal: …", "error[E0425]: …",
# "ModuleNotFoundError: …", "sqlalchemy.exc.ProgrammingError: …", "java.lang.IllegalStateException"):
# what a tool says went wrong, where a line that only holds an
# error word may be a warning on the way ("Opening `/dev/tty` failed (6)") or a trace's
# opening ("Traceback (most recent call last):").
# A line of the code a diagnostic quotes, behind its gutter ("478 478 │ if (x) {", "> 60 │ useEffect(",
# rustc's "12 |     let x"): the code's words ("conflict", "error") are not what failed.
_CODE_FRAME = re.compile(r"^>?\s*(?:\d+\s+)*[│|](?:\s|$)")
# pytest marks the lines that say what failed with "E" and spaces ("E       sqlite3.OperationalError:
# table t has no column named c"); its "path:105: OperationalError" line only says where.
_PYTEST_E = re.compile(r"^E {2,}(?=\S)")
# A line that opens with its verdict: an error word, npm's mark, an exception's name, or a
# linter's rule code and message (ruff's and flake8's "E501 Line too long (99 > 88)", pylint's "C0301").
_VERDICT = re.compile(r"^\W{0,3}(?:(?i:error|fatal|bug)\b|npm ERR!|(?:[A-Za-z_]\w{0,40}\.){0,6}[A-Z]\w*(?:Error|Exception)\b|"
                      r"(?:\S+:\d+(?::\d+)?:\s+)?[A-Z]{1,3}\d{3,4} [A-Z][a-z])")


def first_error(output: str, limit: int = 220) -> str:
    """The first line of `output` that opens with its verdict (_VERDICT), else the first that
    says what went wrong (with the list it introduces), passing over the lines tools print
    around an error (_BOILERPLATE); "" when none does. A line too long to show whole starts
    at its error word: "Batch entry 10 INSERT INTO … was aborted: ERROR: duplicate key value
    …" is shown from "ERROR"."""
    lines = [_PYTEST_E.sub("", ln.strip()) for ln in strip_ansi(str(output or "")).split("\n")]
    said = [i for i, ln in enumerate(lines) if ln and not (ln + " ").startswith(_PASSING)
            and not ln.startswith(_BOILERPLATE) and not _EXIT_ONLY.search(ln) and not _CODE_FRAME.match(ln)]
    for i in [i for i in said if _VERDICT.match(lines[i])] + said:
        ln = lines[i]
        m = _ERROR.search(ln) or _VERDICT.match(ln)
        if m:
            extra = [x for x in lines[i + 1: i + 6] if x][:3] if ln.endswith(":") else []
            return clip_words(" ".join([ln[m.start():] if len(ln) > limit else ln] + extra), limit)
    return ""


def error_signature(output: str, limit: int = 220) -> str:
    """`first_error`, else the last line of `output` that is no check's pass (pre-commit's
    "gitleaks......Passed" is not what failed) nor an exit status alone; "" when none is."""
    output = strip_ansi(str(output or ""))
    tail = [ln for ln in output.split("\n") if ln.strip() and not _PASSED.search(ln)
            and not _EXIT_ONLY.search(ln.strip())]
    return first_error(output, limit) or (clip_words(tail[-1].strip(), limit) if tail else "")


_CANNOT_RUN = re.compile(r"command not found|no rule to make target|unknown option|unrecognized option|"
                         r"missing script|no such file or directory|is not recognized as|not installed|"
                         r"no module named|permission denied|blocked by hook", re.I)


def cannot_run(output: str) -> bool:
    """The output says the command itself could not run (a missing tool, script or target)."""
    return bool(_CANNOT_RUN.search(str(output or "")[:4000]))


# What a shell or a CLI prints when the command line itself was refused: a failure seen in
# the output even where the transcript recorded no exit status (an export that shows none).
_REFUSED = re.compile(r"not a valid statement separator|ParserError|illegal option|invalid option|"
                      r"couldn't find a project to run|unexpected argument|is not recognized as the name|"
                      r"\bno matches found: |"  # zsh: a glob that matched nothing stops the line (_SYNTAX)
                      r"^[^\S\n]*(?:fatal|error): ", re.I | re.M)


# What a shell prints when a program is not there: bash / sh / zsh, PowerShell, cmd.exe; and a
# script run by its path that is not there (zsh's "no such file or directory: scripts/x.sh",
# bash's "bash: ./x.sh: No such file or directory").
_NOT_FOUND = re.compile(r"(?:^|[\s:])([\w.+-]+): command not found(?!:)|command not found: ([\w.+-]+)|"
                        r"^\S*sh: \d+: ([\w.+-]+): not found|The term '([\w.+-]+)' is not recognized|"
                        r"^'([\w.+-]+)' is not recognized as an internal or external command|"
                        r"no such file or directory: ([\w.+-]*/[\w./+-]+)$|"
                        r"^\S*sh: (?:line \d+: )?([\w.+-]*/[\w./+-]+): No such file or directory$", re.M)


def programs(command: str) -> set[str]:
    """The programs a command line runs: each pipeline segment's first word, and the program a
    wrapper there starts (`timeout 5 make` runs both)."""
    out = set()
    for seg in segments(command):
        words = split_words(seg)
        out |= {w[0] for w in (words, shellcmd.stripped(words)) if w}
    return out


def missing_program(command: str, output: str) -> str:
    """The program `command` ran that its shell said is not there (`output`), or "": one that a
    script the line started looked for is not the line's."""
    runs = programs(command)
    for m in _NOT_FOUND.finditer(str(output or "")[:4000]):
        name = next(g for g in m.groups() if g)
        if name in runs:
            return name
    return ""


_SAID_BY = re.compile(r"([\w.+-]+): ")


def filter_failed(command: str, signature: str) -> str:
    """The filter of the line's pipeline that its error names (`… 2>&1 | tail -20` -> "tail: 2: No
    such file or directory": a shell whose hook appended a redirection, a wrong count), other
    than refusing an option (`blamed`'s gotcha), or "": the way round is the line written
    otherwise (redirected to a file), as for a line the shell could not parse."""
    m = _SAID_BY.match(signature.strip())
    if not m or m.group(1) not in FILTERS or _BLAMED.match(signature.strip()):
        return ""
    later = [(shellcmd.stripped(_words(seg)) or [""])[0] for part in parts(command) for seg in _pipeline(part)[1:]]
    return m.group(1) if m.group(1) in later else ""


# What a shell prints when it could not parse the line (PowerShell 5 has no `&&`; bash, zsh and
# sh quoting errors) or would not run it (zsh stops a line whose glob matched nothing, an unquoted
# URL's `?` too): the way round is the same line written otherwise.
_SYNTAX = re.compile(r"not a valid statement separator|ParserError|syntax error near unexpected token|"
                     r"unexpected EOF while looking for matching|unterminated quoted string|parse error near|"
                     r"\bno matches found: ", re.I)


def shell_syntax(output: str) -> bool:
    """The output shows the shell refusing to parse the command line (see _SYNTAX)."""
    return bool(_SYNTAX.search(str(output or "")[:4000]))


def refused(output: str) -> bool:
    """The output shows the shell or the program refusing the command line (see _REFUSED)."""
    text = str(output or "")[:4000]
    return cannot_run(text) or bool(_REFUSED.search(text))


_VARYING = re.compile(r"0x[0-9a-f]+|\b[0-9a-f]{7,}\b|\d+(?:\.\d+)*|'[^']*'|\"[^\"]*\"|`[^`]*`|(?<![/g-z_.-])[\w.*-]*/[\w./*-]*[\w.*-]", re.I)


def error_key(output: str) -> str:
    """The first meaningful error line, reduced to what repeats: lower case, and numbers,
    hashes, quoted strings and paths replaced by `#`, so the same failure on another file,
    line or port is the same key (the hook matches a new failure against known gotchas by it)."""
    line = error_signature(output, 160)
    return " ".join(_VARYING.sub("#", line.lower()).split())


def family_key(command: str) -> str:
    """The program and subcommand of a command line's first meaningful part ("git push")."""
    parts_ = normalise(command)
    return " ".join(family(parts_[0])) if parts_ else ""


# A program's subcommand that names a group of actions, the next word the action (`gh pr
# create` / `gh pr merge`, `git worktree add` / `remove`, `dotnet ef database update` / `drop`):
# one action failing is not gone round by another.
_GROUPS = {("gh", "pr"), ("gh", "issue"), ("gh", "run"), ("gh", "repo"), ("gh", "release"), ("gh", "workflow"),
           ("gh", "label"), ("git", "worktree"), ("git", "remote"), ("git", "stash"), ("git", "submodule"),
           ("docker", "compose"), ("docker", "image"), ("docker", "container"), ("go", "mod"), ("dotnet", "ef"),
           ("dotnet", "ef", "database"), ("dotnet", "ef", "migrations")}


def family(normalised: str) -> tuple[str, ...]:
    """The program and its subcommand ("git checkout", "npm run test:offline", "rm"), and the
    action of a subcommand that groups actions ("gh pr create", "git worktree remove")."""
    said = shellcmd.stripped(split_words(normalised))
    # an option's value is no subcommand: `git -C /x/app commit` is `git commit`
    words = [w for i, w in enumerate(said) if not w.startswith("-")
             and not (i and said[i - 1] in PLACE_OPTIONS | REPO_OPTIONS)]
    if not words:
        return ()
    if words[:2] == ["nix", "run"] and len(words) > 2:  # `nix run nixpkgs#goreleaser -- check`: goreleaser's
        return family(" ".join([words[2].rsplit("#", 1)[-1], *said[said.index(words[2]) + 1:]]))
    if (words[0].rsplit("/", 1)[-1],) in _RUNS_A_FILE or words[0].startswith("python"):
        if len(said) > 1 and said[1] in ("-c", "-e"):
            return words[0], said[1]  # code given inline is not the script `python x.py` runs
        if len(words) > 1 and _is_file_arg(words[1]):
            return words[0], words[1]
    if words[0] in ("npm", "yarn", "pnpm", "bun") and len(words) > 2 and words[1] == "run":
        return tuple(words[:3])
    fam = tuple(words[:2]) if len(words) > 1 and not _is_file_arg(words[1]) else tuple(words[:1])
    while fam in _GROUPS and len(words) > len(fam) and not _is_file_arg(words[len(fam)]):
        fam = tuple(words[:len(fam) + 1])
    return fam
