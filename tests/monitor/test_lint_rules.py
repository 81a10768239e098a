"""Issue 17, round 5: the catalogue of lint rules stated as decisions (engram.monitor.readings.lint_rules).

Each entry is tested end to end through the offline checker: a decision in a lint rule's usual
wording, a change that breaks it and one that keeps it. The decisions are written for these
tests, several per rule in different phrasings."""

from __future__ import annotations

import pytest

from engram.monitor import code_lines, decision_rules
from engram.monitor.offline_checker import check
from engram.monitor.readings import lint_rules
from engram.monitor.rules.registry import cued

from testing.decisions import new_file, node

# (rule, decision, path, violating lines, compliant lines)
CASES = [
    ("no-eval", "Disallow the use of `eval()`.", "src/calc.js", ["const v = eval(expr);"], ["const v = JSON.parse(expr);"]),
    ("no-implied-eval", "Disallow the Function constructor and implied eval.", "src/run.ts",
     ["const f = new Function('a', body);"], ["const f = (a: number) => a + 1;"]),
    ("eqeqeq", "Require `===` and `!==`.", "src/cmp.ts", ["if (a == b) { go(); }"], ["if (a === b && c !== d) { go(); }"]),
    ("eqeqeq", "Always use strict equality.", "src/cmp.js", ["return x != null;"], ["return x !== null;"]),
    ("no-var", "Require let or const instead of var.", "src/a.js", ["var count = 0;"], ["let count = 0;"]),
    ("no-var", "Do not use `var` in C#; write explicit types.", "src/Order.cs", ["var total = Sum(items);"],
     ["decimal total = Sum(items);"]),
    ("prefer-const", "Prefer const over let for bindings that are never reassigned.", "src/a.ts",
     ["let limit = 10;", "use(limit);"], ["let total = 0;", "total += 5;"]),
    ("no-console", "Disallow the use of `console`.", "src/api.ts", ["console.log('fetched', rows);"], ["logger.info('fetched');"]),
    ("no-debugger", "Disallow the use of `debugger`.", "src/a.js", ["debugger;"], ["step();"]),
    ("no-debugger", "Never commit breakpoint() or pdb calls.", "app/jobs.py", ["    breakpoint()"], ["    log.debug('here')"]),
    ("no-alert", "Disallow the use of `alert`, `confirm`, and `prompt`.", "src/ui.js", ["alert('Saved');"], ["toast('Saved');"]),
    ("no-with", "Disallow `with` statements.", "src/legacy.js", ["with (obj) { run(); }"], ["run(obj);"]),
    ("no-empty-catch", "Disallow empty catch blocks.", "src/load.ts", ["try { load(); } catch (e) {}"],
     ["try { load(); } catch (e) { report(e); }"]),
    ("no-empty-catch", "Never swallow exceptions silently.", "app/io.py", ["try:", "    load()", "except OSError:", "    pass"],
     ["try:", "    load()", "except OSError:", "    log.warning('load failed')"]),
    ("no-throw-literal", "Disallow throwing literals as exceptions; only throw Error objects.", "src/a.ts",
     ["throw 'not found';"], ["throw new Error('not found');"]),
    ("no-param-reassign", "Disallow reassigning function parameters.", "src/a.js",
     ["function pad(s, n) {", "  s = s.trim();", "  return s;", "}"],
     ["function pad(s, n) {", "  const t = s.trim();", "  return t;", "}"]),
    ("no-nested-ternary", "Disallow nested ternary expressions.", "src/a.ts", ["const c = a ? 1 : b ? 2 : 3;"],
     ["const c = a ? 1 : 3;"]),
    ("radix", "Enforce the consistent use of the radix argument when using `parseInt()`.", "src/a.js",
     ["const n = parseInt(value);"], ["const n = parseInt(value, 10);"]),
    ("curly", "Enforce consistent brace style for all control statements (curly).", "src/a.js",
     ["if (!user) return null;"], ["if (!user) {", "  return null;", "}"]),
    ("no-non-null-assertion", "Disallow non-null assertions using the `!` postfix operator.", "src/a.ts",
     ["const name = user!.name;"], ["const name = user?.name ?? '';"]),
    ("no-non-null-assertion", "Avoid `!!` in Kotlin; use safe calls.", "app/src/Main.kt", ["val n = name!!.length"],
     ["val n = name?.length ?: 0"]),
    ("no-namespace", "Disallow TypeScript namespaces; use ES modules.", "src/geo.ts", ["export namespace Geo {"],
     ["export const Geo = {};"]),
    ("no-floating-promises", "Promises must be awaited or handled (no floating promises).", "src/job.ts",
     ["async function save(x: Item) { await db.put(x); }", "save(item);"],
     ["async function save(x: Item) { await db.put(x); }", "await save(item);"]),
    ("no-danger", "Never use dangerouslySetInnerHTML.", "src/Card.tsx", ["<div dangerouslySetInnerHTML={{ __html: body }} />"],
     ["<div>{body}</div>"]),
    ("no-array-index-key", "Disallow the use of the array index as a React key.", "src/List.tsx",
     ["{items.map((it, index) => <Row key={index} item={it} />)}"], ["{items.map((it) => <Row key={it.id} item={it} />)}"]),
    ("bare-except", "Do not use bare `except` (E722).", "app/io.py", ["try:", "    run()", "except:", "    log.exception('x')"],
     ["try:", "    run()", "except ValueError:", "    log.exception('x')"]),
    ("mutable-default", "Do not use mutable data structures for argument defaults (B006).", "app/r.py",
     ["def add(item, bucket=[]):", "    bucket.append(item)"], ["def add(item, bucket=None):", "    bucket = bucket or []"]),
    ("wildcard-import", "No wildcard imports (`from module import *`).", "app/views.py", ["from app.models import *"],
     ["from app.models import User"]),
    ("wildcard-import", "Avoid glob imports.", "src/lib.rs", ["use crate::types::*;"], ["use crate::types::{Id, Name};"]),
    ("wildcard-import", "Do not use star imports.", "src/main/java/a/B.java", ["import java.util.*;"], ["import java.util.List;"]),
    ("print", "Do not use `print`; use logging (T201).", "app/sync.py", ["    print('synced', n)"], ["    log.info('synced %d', n)"]),
    ("print", "Library code must not use fmt.Println; return errors or log.", "pkg/store/store.go",
     ["\tfmt.Println(\"saved\")"], ["\tlogger.Info(\"saved\")"]),
    ("print", "Never use `println!` in library code.", "src/lib.rs", ["    println!(\"{}\", x);"], ["    log::info!(\"{}\", x);"]),
    ("print", "Disallow System.out in production code.", "src/main/java/a/B.java", ["System.out.println(order);"],
     ["LOG.info(\"{}\", order);"]),
    ("assert", "Do not use `assert` in production code (S101).", "app/pay.py", ["    assert amount > 0"],
     ["    if amount <= 0:", "        raise ValueError(amount)"]),
    ("shell-true", "Avoid calling subprocess with a shell (S602).", "tools/run.py", ["subprocess.run(cmd, shell=True)"],
     ["subprocess.run(['ls', path])"]),
    ("unsafe-deserialization", "Load YAML with safe_load only (S506).", "app/cfg.py", ["cfg = yaml.load(fh)"],
     ["cfg = yaml.safe_load(fh)"]),
    ("unsafe-deserialization", "Do not deserialize untrusted data with pickle.", "app/cache.py", ["obj = pickle.loads(blob)"],
     ["obj = json.loads(blob)"]),
    ("todo-issue", "TODO comments must reference an issue.", "app/a.py", ["x = 1  # TODO handle retries"],
     ["x = 1  # TODO(#412) handle retries"]),
    ("no-todo", "No TODO comments in committed code.", "src/a.ts", ["// TODO: remove later"], ["// Kept for the v1 clients."]),
    ("global-statement", "Avoid the `global` statement (W0603).", "app/state.py", ["    global CACHE"], ["    cache.clear()"]),
    ("none-comparison", "Comparisons to None should use `is` / `is not` (E711), never `== None`.", "app/a.py",
     ["if user == None:"], ["if user is None:"]),
    ("ignore-without-code", "`# type: ignore` must carry a specific error code.", "app/a.py",
     ["x = f()  # type: ignore"], ["x = f()  # type: ignore[attr-defined]"]),
    ("no-init", "No init() functions (gochecknoinits).", "pkg/reg/reg.go", ["func init() {"], ["func Register() {"]),
    ("naked-return", "No naked returns in functions with named results.", "pkg/a/a.go",
     ["func split(n int) (a, b int) {", "\ta = n / 2", "\tb = n - a", "\treturn", "}"],
     ["func split(n int) (int, int) {", "\ta := n / 2", "\treturn a, n - a", "}"]),
    ("dot-import", "Dot imports are forbidden.", "pkg/a/a_impl.go", ["import . \"strings\""], ["import \"strings\""]),
    ("dbg", "No `dbg!` in committed code.", "src/lib.rs", ["    let v = dbg!(compute());"], ["    let v = compute();"]),
    ("todo-macro", "Never leave `todo!()` or `unimplemented!()` in main.", "src/lib.rs", ["    todo!()"],
     ["    Err(Error::Unsupported)"]),
    ("quote-expansions", "Always double-quote variables in shell scripts (SC2086).", "scripts/deploy.sh",
     ["rm -rf $BUILD_DIR/out"], ["rm -rf \"$BUILD_DIR/out\""]),
    ("cd-or-exit", "Use `cd dir || exit` so a failed cd stops the script (SC2164).", "scripts/build.sh",
     ["cd build"], ["cd build || exit 1"]),
    ("backticks", "Use $(...) instead of backticks for command substitution.", "scripts/a.sh", ["now=`date +%s`"],
     ["now=$(date +%s)"]),
    ("posix-sh", "Scripts must be POSIX sh (no bashisms).", "scripts/a.sh", ["if [[ -n \"$x\" ]]; then"],
     ["if [ -n \"$x\" ]; then"]),
    ("no-install-recommends", "Avoid additional packages by specifying `--no-install-recommends` (DL3015).", "Dockerfile",
     ["RUN apt-get update && apt-get install -y curl=7.88.1-10"],
     ["RUN apt-get update && apt-get install -y --no-install-recommends curl=7.88.1-10"]),
    ("no-latest-tag", "Never use the `latest` tag for base images.", "Dockerfile", ["FROM node:latest"], ["FROM node:20.11-alpine"]),
    ("copy-not-add", "Use COPY instead of ADD for files and folders (DL3020).", "Dockerfile", ["ADD . /app"], ["COPY . /app"]),
    ("no-sudo", "Do not use sudo in Dockerfiles (DL3004).", "Dockerfile", ["RUN sudo apt-get update"], ["RUN apt-get update"]),
    ("records-for-dtos", "Use records for DTOs.", "src/main/java/a/UserDto.java", ["public class UserDto {"],
     ["public record UserDto(long id, String name) {"]),
    ("catch-exception", "Do not catch `Exception`; catch the specific type.", "src/main/java/a/B.java",
     ["} catch (Exception e) {"], ["} catch (IOException e) {"]),
    ("unwrap", "Checks for `.unwrap()` calls on Results and Options (unwrap_used).", "src/parse.rs",
     ["    let n = s.parse::<u32>().unwrap();"], ["    let n = s.parse::<u32>()?;"]),
    ("expect", "Disallow `.expect()` outside tests.", "src/parse.rs", ["    let n = s.parse::<u32>().expect(\"n\");"],
     ["    let n = s.parse::<u32>()?;"]),
    ("panic", "Do NOT: ignore context cancellation; swallow errors; panic in normal flow.", "internal/svc/svc.go",
     ["\t\tpanic(err)"], ["\t\treturn fmt.Errorf(\"validate: %w\", err)"]),
    ("no-require-imports", "Disallow `require` statements; use ES module imports.", "src/a.ts", ["const fs = require('fs');"],
     ["import fs from 'fs';"]),
    ("printf-format", "Prefer f-strings over `%` formatting and `.format()` (UP031).", "app/a.py", ["msg = 'hi %s' % name"],
     ["msg = f'hi {name}'"]),
    ("no-debugger", "Checks for debug calls (binding.pry, byebug).", "app/models/user.rb", ["    binding.pry"], ["    save!"]),
    ("no-foreign-keys", "Never add foreign key constraints (Vitess cannot enforce them).", "db/migrate/20240101_add_orders.rb",
     ["    add_foreign_key :orders, :users"], ["    add_index :orders, :user_id"]),
    ("no-transaction-statements", "Goose runs each migration in a transaction; don't add `BEGIN` and `COMMIT`.",
     "db/migrations/0003_idx.sql", ["START TRANSACTION;", "CREATE INDEX i ON t (c);", "END;"], ["CREATE INDEX i ON t (c);"]),
    ("no-app-logic-in-migrations", "Never put business logic in migrations.", "db/migrations/0005_backfill.py",
     ["from app.services.billing import recompute"], ["import sqlalchemy as sa"]),
    ("no-queries-in-views", "No DB queries in Blade views.", "resources/views/users/show.blade.php",
     ["<p>{{ \\App\\Models\\Review::where('user_id', $user->id)->count() }}</p>"], ["<p>{{ $user->reviews_count }}</p>"]),
    ("snake-case-functions", "Use snake_case for function and variable names (N802).", "app/a.py", ["def loadUser(uid):"],
     ["def load_user(uid):"]),
    ("pascal-case-classes", "Class names use PascalCase.", "app/a.py", ["class user_store:"], ["class UserStore:"]),
    ("camel-case-js", "Use camelCase for variables and functions.", "src/a.ts", ["const user_name = get();"],
     ["const userName = get();"]),
    ("go-mixed-caps", "Use MixedCaps, never underscores in Go names.", "pkg/a/a.go", ["func parse_header(s string) {"],
     ["func parseHeader(s string) {"]),
    ("prefer-template", "Require template literals instead of string concatenation.", "src/a.ts",
     ["const msg = 'Hello, ' + name;"], ["const msg = `Hello, ${name}`;"]),
    ("no-plusplus", "Disallow the unary operators `++` and `--`.", "src/a.js", ["count++;"], ["count += 1;"]),
    ("prefer-arrow-callback", "Prefer arrow functions for callbacks.", "src/a.js", ["items.forEach(function (x) { use(x); });"],
     ["items.forEach((x) => use(x));"]),
    ("no-type-assertions", "Avoid type assertions; narrow with type guards.", "src/a.ts", ["const u = data as User;"],
     ["const u = parseUser(data);"]),
    ("http-timeout", "Always pass a timeout to requests calls (S113).", "app/client.py", ["r = requests.get(url)"],
     ["r = requests.get(url, timeout=10)"]),
    ("open-encoding", "Always specify an encoding when calling open() (PLW1514).", "app/io.py", ["with open(path) as fh:"],
     ["with open(path, encoding='utf-8') as fh:"]),
    ("logging-fstring", "Use lazy % formatting in logging calls, not f-strings (G004).", "app/a.py",
     ["log.info(f'loaded {n} rows')"], ["log.info('loaded %d rows', n)"]),
    ("raise-from", "Within an except clause, raise exceptions with `raise ... from err` (B904).", "app/a.py",
     ["try:", "    load()", "except KeyError:", "    raise ConfigError('missing key')"],
     ["try:", "    load()", "except KeyError as err:", "    raise ConfigError('missing key') from err"]),
    ("go-error-strings", "Error strings should not be capitalized or end with punctuation (ST1005).", "pkg/a/a.go",
     ["\treturn errors.New(\"Invalid header\")"], ["\treturn errors.New(\"invalid header\")"]),
    ("go-wrap-errors", "Wrap errors with %w so callers can unwrap them.", "pkg/a/a.go",
     ["\treturn fmt.Errorf(\"read config: %v\", err)"], ["\treturn fmt.Errorf(\"read config: %w\", err)"]),
    ("undocumented-unsafe", "Every unsafe block needs a `// SAFETY:` comment.", "src/buf.rs", ["    let b = unsafe { buf.get_unchecked(i) };"],
     ["    // SAFETY: i < buf.len() was checked above.", "    let b = unsafe { buf.get_unchecked(i) };"]),
    ("json-cmd", "Use arguments JSON notation for CMD and ENTRYPOINT arguments (DL3025).", "Dockerfile", ["CMD node server.js"],
     ["CMD [\"node\", \"server.js\"]"]),
    ("workdir-not-cd", "Use WORKDIR to switch to a directory (DL3003).", "Dockerfile", ["RUN cd /app && make"],
     ["WORKDIR /app"]),
    ("apt-lists", "Delete the apt-get lists after installing something (DL3009).", "Dockerfile",
     ["RUN apt-get update && apt-get install -y --no-install-recommends curl=7.88.1-10"],
     ["RUN apt-get update && apt-get install -y --no-install-recommends curl=7.88.1-10 && rm -rf /var/lib/apt/lists/*"]),
    ("no-important", "Never use `!important` in stylesheets.", "src/styles/app.css", ["  color: red !important;"],
     ["  color: red;"]),
    ("prefer-val", "Prefer val over var in Kotlin.", "app/src/A.kt", ["    var count = 0"], ["    val count = 0"]),
    ("field-injection", "Prefer constructor injection; avoid field injection.", "src/main/java/a/Svc.java",
     ["    @Autowired", "    private UserRepository users;"], ["    private final UserRepository users;"]),
    ("print-stack-trace", "Never call `printStackTrace()`; log the exception.", "src/main/java/a/Svc.java",
     ["        e.printStackTrace();"], ["        log.error(\"failed\", e);"]),
    ("async-void", "Avoid `async void` methods.", "src/Svc.cs", ["    public async void Refresh()"],
     ["    public async Task Refresh()"]),
    ("sync-over-async", "Never block on async code with `.Result` or `.Wait()`.", "src/Svc.cs",
     ["        var user = GetUserAsync(id).Result;"], ["        var user = await GetUserAsync(id);"]),
    ("print", "Checks for printing to stdout (print_stdout).", "src/lib.rs", ["    println!(\"{}\", x);"], ["    tracing::info!(x);"]),
]


def _warns(decision: str, path: str, lines: list[str]) -> bool:
    return check([node(decision)], path, new_file(path, *lines)).verdict != "NO_CONTRADICTION"


@pytest.mark.parametrize("rule,decision,path,bad,good", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_entry_warns_on_the_violation_only(rule, decision, path, bad, good):
    assert rule in [e.rule for e in lint_rules.entries_for(decision)]
    assert _warns(decision, path, bad)
    assert not _warns(decision, path, good)


def test_every_entry_is_tested():
    assert {e.rule for e in lint_rules.ENTRIES} - {c[0] for c in CASES} <= {"nullable-disable"}


@pytest.mark.parametrize("decision", [
    "Use Postgres for all persistent data.",
    "Never log passwords or tokens.",
    "Keep functions under 50 lines.",
    "Do not add new dependencies without review.",
    "All API responses use camelCase keys.",
    "No direct pushes to main; open a pull request.",
    "Prefer composition over inheritance.",
    "Avoid premature optimisation; measure first.",
    "Never run containers as root.",
])
def test_unrelated_decisions_switch_no_entry_on(decision):
    assert lint_rules.entries_for(decision) == []


def test_a_justified_use_stands_where_the_decision_allows_one():
    rule = "Avoid null-forgiving (`!`) unless absolutely necessary and justified."
    bare = ["var token = Environment.GetEnvironmentVariable(\"TOKEN\")!;"]
    assert _warns(rule, "Program.cs", bare)
    assert not _warns(rule, "Program.cs", ["// Set by the host before start; checked in Startup.", *bare])


def test_shapes_in_comments_and_strings_do_not_count():
    assert not _warns("Disallow the use of `eval()`.", "src/a.js", ["// never eval(x) here", "const s = 'eval(x)';"])
    assert not _warns("No wildcard imports.", "app/a.py", ['"""Do not write from x import * here."""'])


def test_a_dockerfile_stage_is_not_an_untagged_image():
    lines = ["FROM node:20.11 AS build", "RUN npm ci", "FROM build"]
    assert not _warns("Never use the `latest` tag for base images.", "Dockerfile", lines)


def test_a_rule_for_library_code_leaves_entry_points_alone():
    rule = "Never use `fmt.Println` in library code."
    assert _warns(rule, "internal/store/store.go", ["\tfmt.Println(\"saved\")"])
    assert not _warns(rule, "cmd/tool/main.go", ["\tfmt.Println(\"saved\")"])


def test_each_item_of_a_list_of_prohibitions_is_prohibited():
    text = lint_rules.distributed("Do NOT: Ignore context cancellation; Swallow errors; Panic in normal flow")
    assert "Do not Panic in normal flow" in text
    assert [e.rule for e in lint_rules.entries_for("Do NOT: Ignore context cancellation; Panic in normal flow")] == ["panic"]


def test_a_rule_put_in_a_place_holds_there_only():
    rule = "NEVER add foreign key constraints in the SQLite migration flavours."
    line = ["    add_foreign_key :steps, :workflows"]
    assert _warns(rule, "lib/templates/sqlite/add_fk.rb", line)
    assert not _warns(rule, "lib/templates/postgresql/add_fk.rb", line)
    assert not _warns("Never insert application logic into alembic/versions.", "app/jobs/backfill.py",
                      ["from app.services.billing import recompute"])


def test_a_function_body_is_no_hand_written_transaction():
    rule = "Don't add `BEGIN` and `COMMIT` statements to migrations."
    body = ["CREATE FUNCTION touch() RETURNS trigger AS $$", "BEGIN", "  NEW.updated_at = now();", "END;", "$$ LANGUAGE plpgsql;"]
    path = "db/migrations/0004_touch.sql"
    parsed = code_lines.parse(new_file(path, *body), path, context=True)
    assert lint_rules.violations(parsed, "sql", rule, path) == []


def test_an_event_handler_may_be_async_void():
    parsed = code_lines.parse(new_file("src/Form.cs", "    private async void OnClick(object sender, EventArgs e)"), "src/Form.cs")
    assert lint_rules.violations(parsed, "clike", "Avoid `async void` methods.", "src/Form.cs") == []


def test_a_cap_on_timeouts_does_not_ask_for_one_on_every_call():
    assert lint_rules.entries_for("HTTP request timeouts are capped at 30 seconds.") == []


def test_set_e_covers_a_bare_cd():
    assert not _warns("Use `cd dir || exit` (SC2164).", "scripts/a.sh", ["set -euo pipefail", "cd build"])


def test_the_catalogue_is_a_detector_cued_by_the_decision():
    assert "detector:lint_rules" in cued("Require `===` and `!==`.")
    assert "detector:lint_rules" not in cued("Use Postgres for all persistent data.")


# -- where in the code a prohibition holds (engram.monitor.readings.code_scope) and term fixes ----------

ASYNC_SLEEP = "Never use `time.sleep()` in async functions; use `asyncio.sleep()`."


def test_a_call_banned_in_async_functions_stands_in_a_plain_one():
    plain = ["import time", "", "def wait(n):", "    time.sleep(n)"]
    assert not _warns(ASYNC_SLEEP, "app/cli.py", plain)
    assert _warns(ASYNC_SLEEP, "app/poll.py", ["import time", "", "async def poll():", "    time.sleep(1)"])


def test_a_plain_helper_called_from_async_code_still_blocks_the_loop():
    lines = ["def _pause():", "    time.sleep(1)", "", "async def poll():", "    _pause()"]
    assert _warns(ASYNC_SLEEP, "app/poll.py", lines)


def test_banning_a_module_function_does_not_ban_the_module():
    rules = decision_rules.rules_for(node(ASYNC_SLEEP))
    assert [t.phrase for t in rules.forbids] == ["time.sleep()"]


NAMES = 'Never include "Async" in method names.'


def test_a_naming_rule_is_about_declared_names_not_calls():
    assert not _warns(NAMES, "src/Reader.cs", ["        var json = await content.ReadAsStringAsync(ct);"])
    assert _warns(NAMES, "src/Reader.cs", ["    public async Task<string> ReadAsync(CancellationToken ct)"])


def test_a_rename_that_adds_the_word_to_a_method_name_breaks_a_naming_rule():
    change = ("--- a/src/R.cs\n+++ b/src/R.cs\n@@ -1,1 +1,1 @@\n"
              "-    public async Task<object> Deserialize(HttpContent c)\n"
              "+    public async Task<object> DeserializeAsync(HttpContent c)\n")
    assert check([node(NAMES)], "src/R.cs", change).verdict != "NO_CONTRADICTION"


def test_a_property_named_like_a_banned_keyword_is_not_the_keyword():
    rule = "Avoid `enum`; use string literal unions instead."
    assert not _warns(rule, "src/tasks.ts", ['export const Priority = z.enum(["low", "high"]);'])
    assert _warns(rule, "src/tasks.ts", ["export enum Priority { Low, High }"])


def test_code_that_looks_for_a_suppression_comment_is_no_suppression():
    rule = "Never add eslint-disable comments."
    assert not _warns(rule, "scripts/check.ts", ["const banned = /eslint-disable/;"])
    assert _warns(rule, "src/a.ts", ["// eslint-disable-next-line no-console"])


def test_an_error_logged_and_dropped_for_nil_is_swallowed():
    rule = "Never swallow errors."
    change = ("--- a/internal/svc/svc.go\n+++ b/internal/svc/svc.go\n@@ -10,2 +10,3 @@\n"
              "-\t\treturn fmt.Errorf(\"save: %w\", err)\n+\t\tlog.Printf(\"save failed: %v\", err)\n+\t\treturn nil\n")
    assert check([node(rule)], "internal/svc/svc.go", change).verdict != "NO_CONTRADICTION"


# -- look-alikes each entry must stay silent on -----------------------------------------------------------

@pytest.mark.parametrize("decision,path,lines", [
    ("Disallow non-null assertions using the `!` postfix operator.", "src/Hello.tsx", ["  <p>Welcome back!</p>", "  Hello there!"]),
    ("Always double-quote variables (SC2086).", "scripts/a.sh", ["cat <<EOF", "home is $HOME", "EOF"]),
    ("Always double-quote variables (SC2086).", "scripts/a.sh", ["case $mode in", "  fast) run ;;", "esac"]),
    ("Disallow `.unwrap()` (unwrap_used).", "src/lib.rs", ["#[cfg(test)]", "mod tests {", "    fn t() { f().unwrap(); }", "}"]),
    ("Use records for DTOs and value objects.", "src/main/java/a/Order.java", ["@Entity", "@Data", "public class Order {"]),
    ("Disallow `require` statements.", "tools/build.cjs", ["const path = require('path');"]),
    ("Pin versions in apt-get install (DL3008).", "Dockerfile",
     ["RUN apt-get install -y --no-install-recommends $(cat /tmp/packages.txt)"]),
])
def test_look_alikes_stay_silent(decision, path, lines):
    assert not _warns(decision, path, lines)


@pytest.mark.parametrize("decision,path,lines", [
    ("No `console.log` in committed code.", "src/api.ts", ["console.error('request failed', err);"]),
    ("Do not panic in normal flow.", "pkg/re/re.go", ["func MustParse(s string) *T {", "\tpanic(err)", "}"]),
    ("Do not use sudo in Dockerfiles (DL3004).", "scripts/setup-dev.sh", ["sudo apt-get install -y jq"]),
])
def test_the_catalogue_stays_silent_on(decision, path, lines):
    parsed = code_lines.parse(new_file(path, *lines), path, context=True)
    assert lint_rules.violations(parsed, code_lines.language(path), decision, path) == []


def test_a_let_whose_block_is_out_of_sight_is_not_judged():
    change = "--- a/src/a.js\n+++ b/src/a.js\n@@ -5,2 +5,3 @@\n function f() {\n+  let n = 0;\n   loop();\n"
    assert check([node("Prefer const over let.")], "src/a.js", change).verdict == "NO_CONTRADICTION"


# -- file length (engram.monitor.readings.sizes) --------------------------------------------------------

def _grow(path: str, start: int, count: int, first: str = "") -> str:
    added = ([f"+{first}"] if first else []) + [f"+func f{k}() {{}}" for k in range(count)]
    return f"--- a/{path}\n+++ b/{path}\n@@ -{start},1 +{start},{len(added) + 1} @@\n }}\n" + "\n".join(added) + "\n"


@pytest.mark.parametrize("rule", ["Aim for ~500 lines per file; split when it exceeds.", "Keep files under 500 lines.",
                                  "No file longer than 500 lines."])
def test_a_change_that_grows_a_file_past_its_length_limit(rule):
    assert check([node(rule)], "internal/a/a.go", _grow("internal/a/a.go", 470, 60)).verdict != "NO_CONTRADICTION"
    assert check([node(rule)], "internal/a/b.go", _grow("internal/a/b.go", 200, 40)).verdict == "NO_CONTRADICTION"


def test_a_generated_file_is_its_generators_business():
    rule = "Aim for ~500 lines per file."
    change = _grow("internal/a/tables_gen.go", 470, 60)
    assert check([node(rule)], "internal/a/tables_gen.go", change).verdict == "NO_CONTRADICTION"
