"""Deterministic classification of a shell command line (docs/harness-contracts.md §6).

Plain string work, no regex: a command is split into segments at `&&`, `||`, `;`, `|`
and newlines; each segment loses its env assignments and wrappers (`sudo`, `time`,
`uv run`, `npx`, `python -m`, ...); its leading words are looked up in the tables below.
The strongest class over all segments wins: test > build > decision > read > search > command.
"""

from __future__ import annotations

from engram.text import sets_variable

TEST, BUILD, DECISION, READ, SEARCH, COMMAND = "test", "build", "decision", "read", "search", "command"
_RANK = {TEST: 6, BUILD: 5, DECISION: 4, READ: 3, SEARCH: 2, COMMAND: 1}

# `&` first in a part: PowerShell's call operator (`& "C:\Tools\SqlPackage.exe" /Action:Import`).
_WRAPPERS = {"sudo", "time", "env", "nice", "nohup", "exec", "command", "timeout", "xvfb-run", "&"}
_RUNNERS = {("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run"), ("hatch", "run"),
            ("pnpm", "exec"), ("npm", "exec"), ("yarn", "exec"), ("bundle", "exec"), ("rye", "run")}
_SINGLE_RUNNERS = {"npx", "bunx", "pnpx", "dotenv"}

_TEST_1 = {"pytest", "py.test", "tox", "nox", "vitest", "jest", "mocha", "ava", "tap", "ctest",
           "rspec", "phpunit", "pest", "nextest", "karma", "playwright"}
_TEST_2 = {("go", "test"), ("cargo", "test"), ("cargo", "nextest"), ("npm", "test"), ("npm", "t"),
           ("yarn", "test"), ("pnpm", "test"), ("bun", "test"), ("deno", "test"), ("mvn", "test"),
           ("mvn", "verify"), ("gradle", "test"), ("./gradlew", "test"), ("dotnet", "test"),
           ("make", "test"), ("make", "check"), ("mix", "test"), ("swift", "test"), ("stack", "test"),
           ("cabal", "test"), ("zig", "test"), ("rake", "test"), ("bundle", "rspec"), ("meson", "test")}
_BUILD_1 = {"make", "ninja", "tsc", "webpack", "rollup", "esbuild", "gcc", "g++", "clang", "clang++",
            "cc", "javac", "rustc", "msbuild", "bazel", "meson", "scons", "gmake"}
_BUILD_2 = {("cmake", "--build"), ("cargo", "build"), ("cargo", "check"), ("cargo", "clippy"), ("go", "build"),
            ("go", "vet"), ("vite", "build"), ("mvn", "package"), ("mvn", "compile"), ("mvn", "install"),
            ("gradle", "build"), ("gradle", "assemble"), ("./gradlew", "build"), ("./gradlew", "assemble"),
            ("dotnet", "build"), ("python", "build"), ("docker", "build"), ("npm", "build"),
            ("yarn", "build"), ("pnpm", "build"), ("bun", "build"), ("swift", "build"), ("zig", "build"),
            ("next", "build"), ("mix", "compile"), ("stack", "build"), ("cabal", "build")}
_READ_1 = {"cat", "head", "tail", "nl", "less", "more", "bat", "view"}
_SEARCH_1 = {"rg", "grep", "egrep", "fgrep", "ag", "ack", "find", "fd", "ls", "tree", "locate", "git-grep"}


def _segments(command: str) -> list[list[str]]:
    text = command
    for sep in ("&&", "||", ";", "|", "\n", "(", ")"):
        text = text.replace(sep, "\x00")
    return [seg.split() for seg in text.split("\x00") if seg.strip()]


def _strip(words: list[str]) -> list[str]:
    """Drop env assignments, wrappers and runner prefixes from the front of a segment."""
    i = 0
    while i < len(words):
        w = words[i]
        if sets_variable(w):
            i += 1
        elif w in _WRAPPERS or w in _SINGLE_RUNNERS:
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 1  # options of the wrapper (e.g. `timeout -s KILL`)
            if w == "timeout" and i < len(words) and words[i][:1].isdigit():
                i += 1
        elif i + 1 < len(words) and (w, words[i + 1]) in _RUNNERS:
            i += 2
        else:
            break
    words = words[i:]
    if words and words[0].rsplit("/", 1)[-1].startswith("python") and len(words) > 2 and words[1] == "-m":
        words = words[2:]  # python -m pytest -> pytest
    if words and not words[0].startswith("./"):  # a program by its path (quoted, or Windows'): its name
        words = [words[0].strip("'\"").replace("\\", "/").rsplit("/", 1)[-1]] + words[1:]
    return words


def stripped(words: list[str]) -> list[str]:
    """A segment's words without env assignments, wrappers and runner prefixes."""
    return _strip(words)


def _classify_words(words: list[str]) -> str:
    if not words:
        return COMMAND
    if words[0] in ("bash", "sh", "zsh") and len(words) > 1 and not words[1].startswith("-"):
        words = words[1:]  # `bash scripts/test.sh` is classified by its script
    first = words[0]
    second = next((w for w in words[1:] if not w.startswith("-")), "")
    if first in ("xcodebuild", "gradle", "./gradlew", "gradlew"):
        return _actions(words[1:])
    tasked = _tasks(first, words[1:])
    if tasked:
        return tasked
    if first.endswith(".sh") or (first.startswith("./") and (first, second) not in _TEST_2 | _BUILD_2):
        name = first.rsplit("/", 1)[-1].lower()
        return TEST if "test" in name or name in _TEST_1 else BUILD if "build" in name else COMMAND
    if first == "engram" and second == "decide":
        return DECISION
    if first in ("npm", "yarn", "pnpm", "bun") and second == "run" and len(words) > 2:
        script = next((w for w in words[2:] if not w.startswith("-")), "")
        second = "test" if script.startswith("test") else "build" if script.startswith("build") else script
    if first == "node" and "--test" in words:
        return TEST
    if first in _TEST_1 or (first, second) in _TEST_2 or first == "unittest":
        return TEST
    if (first, second) in _BUILD_2 or first in _BUILD_1 or first == "build":  # python -m build
        return BUILD
    if first == "pip" and second == "install" and ("-e" in words or "--editable" in words):
        return BUILD
    if first in _READ_1 or (first == "sed" and "-n" in words):
        return READ if any(_is_path_arg(w) for w in words[1:]) else COMMAND
    if first in _SEARCH_1 or (first == "git" and second == "grep"):
        return SEARCH
    return COMMAND


# Programs that run a project's named tasks, the task anywhere among their words (`make -C build
# test`, `pnpm --filter web test`, `mise run test`, `./mvnw -B verify`), and the words that name a
# test run or a build among those tasks.
_TASK_RUNNERS = {"make", "gmake", "just", "task", "mise", "nx", "turbo", "sbt", "lein", "dune", "bazel", "bazelisk",
                 "flutter", "dart", "rails", "rake", "mvn", "./mvnw", "mvnw", "npm", "yarn", "pnpm", "bun", "composer"}
_TEST_TASKS = {"test", "tests", "check", "verify", "spec", "unittest", "e2e"}
# A package.json's "check" script lints, formats or type-checks (svelte-check, biome check,
# `prettier --write . && eslint --fix`); make's and Gradle's `check` run the tests.
_JS_RUNNERS = {"npm", "yarn", "pnpm", "bun"}
_BUILD_TASKS = {"build", "compile", "assemble", "package", "archive", "typecheck", "type-check"}


def _tasks(first: str, args: list[str]) -> str:
    """TEST or BUILD when a task runner's words name a test run or a build; "" otherwise. Django's
    `python manage.py test` and Laravel's `php artisan test` are test runs too."""
    words = [w for w in args if not w.startswith("-")]
    program = first.rsplit("/", 1)[-1]
    if program in ("python", "python3", "php") and len(words) > 1 \
            and words[0].rsplit("/", 1)[-1] in ("manage.py", "artisan") and words[1] == "test":
        return TEST
    if first == "cmake" and "--build" in args:
        return BUILD
    if program not in _TASK_RUNNERS:
        return ""
    names = [w.split(":")[-1] if ":" in w.strip(":") else w for w in words]  # `app:test`, `test:unit`
    tests = _TEST_TASKS - {"check"} if program in _JS_RUNNERS else _TEST_TASKS  # `bun run check`: a lint
    if any(w in tests or w.startswith(("test:", "test-", "test_")) for w in words) or any(n in tests for n in names):
        return TEST  # `make test-race`, `just test_unit`
    maven = program in ("mvn", "mvnw") and "install" in words  # builds, tests and installs
    return BUILD if maven or any(w in _BUILD_TASKS or w.startswith("build:") for w in words) else ""


def _actions(args: list[str]) -> str:
    """xcodebuild's actions and Gradle's tasks, wherever they stand among the options
    (`xcodebuild -scheme App test`, `./gradlew :app:testDebugUnitTest`): a test one makes a test run."""
    tasks = [w.rsplit(":", 1)[-1] for w in args if not w.startswith("-") and "=" not in w]
    if any(t.startswith("test") or t.endswith("Test") or t == "check" for t in tasks):
        return TEST
    return BUILD if any(t in ("build", "assemble", "archive") or t.startswith("assemble") for t in tasks) else COMMAND


def _is_path_arg(word: str) -> bool:
    """A plausible file argument (not an option, redirection, heredoc or quoted text)."""
    return not word.startswith(("-", "<", ">", "$", "'", '"', "&")) and not word[:1].isdigit()


def classify(command: str) -> str:
    """Return one of test / build / decision / read / search / command."""
    best = COMMAND
    for seg in _segments(command or ""):
        kind = _classify_words(_strip(seg))
        if _RANK[kind] > _RANK[best]:
            best = kind
    return best


def _quoted_segments(command: str) -> list[list[str]]:
    """Like `_segments`, but a quoted span is one word, without its quotes (a path with spaces:
    `cat "d:\\my project\\a.cs"`), and separators inside quotes separate nothing."""
    out, words, buf, quote, in_word = [], [], [], "", False
    for ch in command + "\n":
        if quote:
            if ch == quote:
                quote = ""
            else:
                buf.append(ch)
        elif ch in "'\"":
            quote, in_word = ch, True
        elif ch.isspace() or ch in "&|;()":
            if in_word:
                words.append("".join(buf))
                buf, in_word = [], False
            if ch in "&|;()\n" and words:
                out.append(words)
                words = []
        else:
            buf.append(ch)
            in_word = True
    return out


def read_targets(command: str) -> list[str]:
    """File arguments of the read commands in a command line (for Codex-style reads)."""
    out = []
    for seg in _quoted_segments(command or ""):
        words = _strip(seg)
        if words and _classify_words(words) == READ:
            out += [w for w in words[1:] if _is_path_arg(w) and not (words[0] == "sed" and w.endswith("p"))]
    return out


def decision_args(command: str) -> dict | None:
    """Parse `engram decide "text" --rationale "why" --files a,b` out of a command line."""
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for i in range(len(words) - 1):
        if words[i].rsplit("/", 1)[-1] == "engram" and words[i + 1] == "decide":
            rest = words[i + 2 :]
            out: dict = {"content": "", "rationale": "", "files": []}
            j = 0
            while j < len(rest):
                w = rest[j]
                if w in ("&&", "||", ";", "|"):
                    break
                if w in ("--rationale", "-r", "--files", "-f") and j + 1 < len(rest):
                    if w in ("--rationale", "-r"):
                        out["rationale"] = rest[j + 1]
                    else:
                        out["files"] = [p.strip() for p in rest[j + 1].split(",") if p.strip()]
                    j += 2
                    continue
                if w.startswith("--rationale="):
                    out["rationale"] = w.split("=", 1)[1]
                elif w.startswith("--files="):
                    out["files"] = [p.strip() for p in w.split("=", 1)[1].split(",") if p.strip()]
                elif not w.startswith("-") and not out["content"]:
                    out["content"] = w
                j += 1
            return out if out["content"] else None
    return None


def echoed_status(command: str, output: str) -> int | None:
    """The status a line's closing `echo "…$?…"` printed (`xcodebuild … > log 2>&1; echo "EXIT: $?"`
    prints "EXIT: 70"): the harness's status is the echo's, always 0, and the output says how
    the command before it ended. None when the line ends otherwise, or the output does not
    show it once among its last lines (a harness may add a note after it)."""
    last = command.rstrip().rsplit(";", 1)[-1].rsplit("&&", 1)[-1].rsplit("||", 1)[-1].strip()
    if not last.startswith("echo ") or last.count("$?") != 1:
        return None
    said = last[5:].strip()
    if len(said) >= 2 and said[0] == said[-1] == '"':
        said = said[1:-1]
    elif said[:1] in ("'", '"'):
        return None  # single quotes print `$?` itself
    before, after = (part.strip() for part in said.split("$?"))
    lines = [ln.strip() for ln in output.split("\n") if ln.strip()][-3 if before or after else -1:]
    found = [ln[len(before): len(ln) - len(after)].strip() for ln in lines
             if ln.startswith(before) and ln.endswith(after) and len(ln) > len(before) + len(after)]
    found = [n for n in found if n.isdigit()]
    return int(found[0]) if len(found) == 1 else None


# What build tools print as their verdict, last line first (msbuild / dotnet, Gradle, Maven,
# xcodebuild, Next.js, cargo): read only where the harness recorded no exit status.
_PASSED_VERDICTS = ("Build succeeded.", "BUILD SUCCESSFUL", "[INFO] BUILD SUCCESS", "** BUILD SUCCEEDED **",
                    "** TEST SUCCEEDED **", "** ARCHIVE SUCCEEDED **")
_FAILED_VERDICTS = ("Build FAILED.", "BUILD FAILED", "[INFO] BUILD FAILURE", "** BUILD FAILED **", "** TEST FAILED **",
                    "Failed to compile", "error: could not compile")


def printed_verdict(kind: str, output: str) -> int | None:
    """0 or 1 when the output of a build or a test run (`kind`, this module's class of its line)
    ends in its tool's verdict (an export that records no exit status shows what the tool
    printed); None otherwise. A success is read only at the end: `dotnet ef` and `dotnet run`
    print "Build succeeded." before their own work, and Next.js "Compiled successfully" before
    its type check."""
    if kind not in (BUILD, TEST):
        return None
    after = False  # a line after the verdict that may say otherwise
    for line in reversed(output[-8000:].split("\n")[-60:]):
        s = line.strip()
        if s.startswith(_FAILED_VERDICTS):
            return 1
        if s.startswith(_PASSED_VERDICTS):
            return None if after else 0
        said = s.lower()
        after = after or (not s.startswith("0 ") and ("error" in said or "fail" in said or "exception" in said))
    return None
