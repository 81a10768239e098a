"""Issue 17, round 4: readings added after round 3's held-out run (docs/monitoring.md, "Checkers"),
each with the look-alike that must stay silent.

The decisions here are written for these tests; the round-3 set is development material now, and
its figure is the bench's."""

from __future__ import annotations

import pytest

from engram.monitor import decision_rules
from engram.monitor.readings import imports, required_code, settings
from engram.monitor.offline_checker import check

from testing.decisions import diff, new_file, node


SHELL = "Avoid `os.system` and `subprocess(shell=True)` in the build tools."
ROUTER = "Use the App Router (do not use the Pages Router)."
LEDGER = ("ledger_entries are append-only. No UPDATE or DELETE on them. "
          "ledger_totals recomputed nightly by a job, documented as a cache.")
SEEDS = "NEVER include `delete_all` in seeds. Never call TRUNCATE."
DOTENV = "NEVER commit `.env` files or `*.pem` keys."
KEYVALUE = "INFO logs: no static statements, key=value syntax. Never shell=True."
PII = "No personally identifiable information (PII) or API keys shall ever be logged."
PARAMETERIZE = "Parameterize every query (no string interpolation into SQL)."
SCHEMA = "Do not write code that removes existing database columns."
COMMANDS = "FORBIDDEN COMMANDS: `npx drizzle-kit push`. Use migrations."
NO_LOMBOK = "Avoid Lombok unless explicitly requested."
SESSIONS = "Short-lived sessions (30 min); retries (3, with backoff)."
CORS = "Restrict allowed origins to our own domains."
SCOPES = "Tokens get least-privilege scopes."
STRICT = "New scripts must be idempotent and `set -euo pipefail`."
SAFETY = "All unsafe blocks require `// SAFETY:` comments."
BOUNDARIES = 'Scope: src/core/. Boundaries: {"layer": "core", "must_not_import": ["ui", "adapters"]}'
DOMAIN = "The domain layer never imports from persistence or from the web layer."
CATCH = "Do not catch generic exceptions unless re-throwing."
PAYMENTS = "Records are kept. Settled payments must never be deleted."
NO_JS = "TypeScript only, no JavaScript."
MECHANISMS = '`[auth] methods` - MUST include "passkey".'
UNSAFE = ("Avoid `eval`, `os.system(cmd)`, and `yaml.load` without SafeLoader. If required, document the "
          "justification in a code comment.")
NO_DISABLE = "Never disable eslint rules; fix the code instead of suppressing the warning."
IDEMPOTENCY = "Write operations must require the x-idempotency-key header."
CLEAN = "Keep shellcheck clean."
TF_SECRETS = "Never hardcode secret values in Terraform; use Secret Manager."

CASES = [
    # a construct written as a call with arguments rules out that call, not the name
    (SHELL, "tools/build.py", diff("tools/build.py", "+    subprocess.run(argv, check=True)"), False),
    (SHELL, "tools/build.py", diff("tools/build.py", "+    os.system(cmd)"), True),
    (KEYVALUE, "db/schema.py", diff("db/schema.py", '+    id = Column(Integer, primary_key=True)  # key'), False),
    (KEYVALUE, "tools/run.py", diff("tools/run.py", "+    subprocess.run(cmd, shell = True)"), True),
    # a two-word title-case name is one name, not its first word
    (ROUTER, "src/app/docs/page.tsx", new_file("src/app/docs/page.tsx", "export default function DocsPage() {}"), False),
    # only the tables named where the protection is stated
    (LEDGER, "src/totals.ts", new_file("src/totals.ts", "await db.update(ledgerTotals).set({ total: 0 });"), False),
    (LEDGER, "src/entries.ts", new_file("src/entries.ts", "await db.update(ledgerEntries).set({ amount: 0 });"), True),
    # a prohibition placed in a folder holds there only
    (SEEDS, "app/jobs/purge.rb", new_file("app/jobs/purge.rb", "  Session.where(old: true).delete_all"), False),
    (SEEDS, "db/seeds.rb", new_file("db/seeds.rb", "User.delete_all"), True),
    # an ignore file keeps out what it lists
    (DOTENV, ".gitignore", diff(".gitignore", " node_modules/", "+.env", "+*.pem"), False),
    (DOTENV, ".env", new_file(".env", "PORT=8080"), True),
    # a log call's fields on the lines after it; "API keys" is no api/ layer
    (PII, "src/share.js", diff("src/share.js", '+  logger.info("shared", {', "+    projectId: project.id,",
                               "+    ownerEmail: owner.email,", "+  });"), True),
    (PII, "src/share.js", diff("src/share.js", '+  logger.info("shared", {', "+    projectId: project.id,", "+  });",
                               "+  const ownerEmail = owner.email;"), False),
    # more phrasings of known families: the verb, "removes ... columns", a "FORBIDDEN" heading
    (PARAMETERIZE, "api/users.py", diff("api/users.py", '+    cur.execute(f"SELECT * FROM users WHERE id = {uid}")'), True),
    (PARAMETERIZE, "api/users.py", diff("api/users.py", '+    cur.execute("SELECT * FROM users WHERE id = %s", (uid,))'), False),
    (SCHEMA, "migrations/0009.sql", new_file("migrations/0009.sql", "ALTER TABLE users DROP COLUMN nickname;"), True),
    (SCHEMA, "migrations/0009.sql", new_file("migrations/0009.sql", "ALTER TABLE users ADD COLUMN nickname TEXT;"), False),
    (COMMANDS, "package.json", diff("package.json", '-    "db": "drizzle-kit migrate",', '+    "db": "drizzle-kit push",'), True),
    (COMMANDS, "package.json", diff("package.json", '-    "db": "drizzle-kit generate",', '+    "db": "drizzle-kit migrate",'), False),
    # "unless explicitly requested" is the user's permission, not a condition on the code
    (NO_LOMBOK, "src/main/java/a/Dto.java", new_file("src/main/java/a/Dto.java", "import lombok.Data;", "@Data", "public class Dto {}"), True),
    # a value in parentheses after what it sets; Go durations multiplied out
    (SESSIONS, "auth/ttl.go", diff("auth/ttl.go", "-\tSessionTTL = 30 * time.Minute", "+\tSessionTTL = 2 * 24 * time.Hour"), True),
    (SESSIONS, "auth/ttl.go", diff("auth/ttl.go", "-\tSessionTTL = 30 * time.Minute", "+\tSessionTTL = 20 * time.Minute"), False),
    (SESSIONS, "net/retry.py", diff("net/retry.py", "+        await asyncio.sleep(min(2 ** attempt, 8))"), False),
    # a setting kept narrow, opened to everything
    (CORS, "api/app.py", diff("api/app.py", "-    allow_origins=settings.origins,", '+    allow_origins=["*"],'), True),
    (CORS, "api/app.py", diff("api/app.py", "-    allow_origins=settings.origins,", '+    allow_origin_regex=r"https://.*",'), True),
    (CORS, "api/app.py", diff("api/app.py", "-    allow_origins=settings.origins,", '+    allow_origins=["https://a.example"],'), False),
    (CORS, "api/app.py", diff("api/app.py", '+    allow_methods=["*"],'), False),
    (SCOPES, "auth/token.yaml", diff("auth/token.yaml", "-scopes: [read]", "+scopes: '*'"), True),
    # code every thing of a kind must carry, left out
    (STRICT, "scripts/build.sh", new_file("scripts/build.sh", "#!/usr/bin/env bash", "make docs"), True),
    (STRICT, "scripts/build.sh", new_file("scripts/build.sh", "#!/usr/bin/env bash", "set -euo pipefail", "make docs"), False),
    (STRICT, "scripts/build.sh", diff("scripts/build.sh", "-make docs", "+make html"), False),
    (SAFETY, "src/map.rs", diff("src/map.rs", "+    unsafe { &*(ptr as *const Header) }"), True),
    (SAFETY, "src/map.rs", diff("src/map.rs", "+    // SAFETY: ptr is aligned and lives as long as self.",
                                "+    unsafe { &*(ptr as *const Header) }"), False),
    (SAFETY, "src/map.rs", diff("src/map.rs", "-    // SAFETY: the file is never modified while mapped.",
                                "     let map = unsafe { Mmap::map(&file) }?;"), True),
    (SAFETY, "src/map.rs", diff("src/map.rs", "+    let n = bytes.len();"), False),
    # layers a decision forbids importing from, in JSON or in prose
    (BOUNDARIES, "src/core/price.ts", diff("src/core/price.ts", '+import { Button } from "@/ui/button";'), True),
    (BOUNDARIES, "src/core/price.ts", diff("src/core/price.ts", '+import { round } from "@/core/math";'), False),
    (BOUNDARIES, "src/ui/page.ts", diff("src/ui/page.ts", '+import { stripe } from "@/adapters/stripe";'), False),
    (DOMAIN, "app/domain/order.py", diff("app/domain/order.py", "+from app.persistence.orders import save"), True),
    (DOMAIN, "app/domain/order.py", diff("app/domain/order.py", "+from app.domain.money import Money"), False),
    # a handler of every exception, in the languages that type their handlers
    (CATCH, "src/Sync.cs", diff("src/Sync.cs", "+        catch (Exception ex)", "+        {", "+            return 0;", "+        }"), True),
    (CATCH, "src/Sync.cs", diff("src/Sync.cs", "+        catch (Exception ex)", "+        {", "+            throw new SyncError(ex);", "+        }"), False),
    (CATCH, "src/Sync.kt", diff("src/Sync.kt", "+    } catch (e: Exception) {", "+        null"), True),
    (CATCH, "src/Sync.java", diff("src/Sync.java", "+        } catch (IOException e) {", "+            return 0;"), False),
    (CATCH, "app/sync.py", diff("app/sync.py", "+    except Exception:", "+        return 0"), True),
    # a table named by the noun of its rows
    (PAYMENTS, "src/payments.ts", diff("src/payments.ts", "+    return prisma.payment.delete({ where: { id } });"), True),
    (PAYMENTS, "src/users.ts", diff("src/users.ts", "+    return prisma.user.delete({ where: { id } });"), False),
    # a new source file in a language the decision rules out, not a tool's configuration
    (NO_JS, "src/util/dates.js", new_file("src/util/dates.js", "export const day = 86400;"), True),
    (NO_JS, "eslint.config.js", new_file("eslint.config.js", "export default [];"), False),
    (NO_JS, "src/util/dates.ts", new_file("src/util/dates.ts", "export const day = 86400;"), False),
    # a value a configuration's list must keep, dropped
    (MECHANISMS, "config.toml", diff("config.toml", '-methods = ["password", "passkey"]', '+methods = ["password"]'), True),
    (MECHANISMS, "config.toml", diff("config.toml", '-methods = ["passkey"]', '+methods = ["passkey", "otp"]'), False),
    # a quote's condition is the one after it, before the next quote; a justifying comment allows a use
    (UNSAFE, "tools/run.py", diff("tools/run.py", "+    os.system(cmd)"), True),
    (UNSAFE, "tools/run.py", diff("tools/run.py", "+    # Justification: cmd is a constant pipeline, never user input.",
                                  "+    os.system(cmd)"), False),
    # a rule turned off in the linter's configuration
    (NO_DISABLE, ".eslintrc.json", diff(".eslintrc.json", '-    "no-console": "error"', '+    "no-console": "off"'), True),
    (NO_DISABLE, ".eslintrc.json", diff(".eslintrc.json", '-    "no-console": "off"', '+    "no-console": "error"'), False),
    (NO_DISABLE, "src/settings.json", diff("src/settings.json", '-    "darkMode": "on"', '+    "darkMode": "off"'), False),
    # a model's field removed: its column goes with the next migration
    (SCHEMA, "prisma/schema.prisma", diff("prisma/schema.prisma", "   sku        String   @unique", "-  legacySku  String?"), True),
    (SCHEMA, "prisma/schema.prisma", diff("prisma/schema.prisma", "-  legacySku  String?", "+  legacySku  String?  @map(\"legacy_sku\")"), False),
    (SCHEMA, "shop/models.py", diff("shop/models.py", "-    nickname = models.CharField(max_length=40)"), True),
    # a header name is an identifier a practice is written with; "keep <linter> clean" rules out silencing it
    (IDEMPOTENCY, "src/pay.controller.ts", diff("src/pay.controller.ts", '-  create(@Headers("x-idempotency-key") key: string, @Body() dto: Dto) {',
                                               "+  create(@Body() dto: Dto) {"), True),
    (CLEAN, "scripts/lint.sh", diff("scripts/lint.sh", "+# shellcheck disable=SC2086", "+ruff check $ARGS"), True),
    (CLEAN, "scripts/lint.sh", diff("scripts/lint.sh", '+ruff check "$ARGS"'), False),
    # a secret's name is no secret; a value is
    (TF_SECRETS, "infra/db.tf", new_file("infra/db.tf", 'secret = "billing-db-password"'), False),
    (TF_SECRETS, "infra/db.tf", new_file("infra/db.tf", 'password = "Billing-2024!"'), True),
    (TF_SECRETS, "infra/vars.tf", new_file("infra/vars.tf", 'variable "api_token" {', "  type = string",
                                          '  default = "tk_live_6c1f0e9a7b"', "}"), True),
    (TF_SECRETS, "infra/vars.tf", new_file("infra/vars.tf", 'variable "region" {', '  default = "europe-west1"', "}"), False),
]


@pytest.mark.parametrize("decision,path,text,warns", CASES, ids=[f"{i}-{c[1]}" for i, c in enumerate(CASES)])
def test_round_four_readings(decision, path, text, warns):
    assert check([node(decision)], path, text).warns is warns


def test_call_with_arguments_is_no_term():
    rules = decision_rules.rules_for(node(SHELL))
    assert "os.system" in [t.phrase for t in rules.forbids]
    assert not any("subprocess" in t.forms for t in rules.forbids)


def test_places_of_a_prohibition():
    (term,) = [t for t in decision_rules.rules_for(node(SEEDS)).forbids if "delete_all" in t.forms]
    assert term.places == ("seeds",)


def test_narrowed_settings_by_noun():
    assert settings.narrowed("CORS: restrict origins to the expected hostnames.") == ["origin"]
    assert settings.narrowed("Declare minimal required permissions per job.") == ["permission"]
    assert settings.narrowed("Keep the dependency footprint minimal.") == []


def test_required_code_by_subject():
    assert required_code.required(SAFETY) == [required_code.Requirement("unsafe", "// SAFETY:", False)]
    assert required_code.required("All schema changes must be files in `db/migrations/`.") == []


def test_forbidden_import_layers():
    assert imports.forbidden_layers(BOUNDARIES) == ["ui", "adapters"]
    assert imports.forbidden_layers(DOMAIN) == ["persistence"]  # "the web layer": no one name


def test_quoted_lists_share_what_follows_their_parentheses():
    from engram.monitor.readings import literals

    assert literals.forbidden("Never run DDL (`CREATE`, `ALTER`) via execute_sql.") == []
    assert literals.forbidden("Avoid `eval`, and `yaml.load` without SafeLoader.") == ["eval"]
