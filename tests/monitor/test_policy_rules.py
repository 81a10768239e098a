"""Issue 17, round 5 (part B): policy-shaped readings (engram.monitor.readings.policies and
tool_families), each with the look-alike or compliant change that must stay silent.

The decisions are written for these tests in the shape lint configurations, ADRs and CONTRIBUTING
files state them; none is a case of a labelled set."""

from __future__ import annotations

import pytest

from engram.monitor import decision_rules, tech_terms
from engram.monitor.offline_checker import check
from engram.monitor.readings import tool_families
from engram.monitor.readings.policies import new_files

from testing.decisions import diff, new_file, node

FOCUSED = "Disallow focused tests."
DISABLED = "Disallow disabled tests."
SLEEP = "Tests must not sleep; avoid fixed waits."
NETWORK = "Unit tests must not hit the network."
CLOCK = "Tests must not depend on the current time; freeze time instead."
ALT = "Images must have alt text."
BLANK = 'Links opening new tabs include `rel="noopener noreferrer"`.'
BUTTON = "Disallow usage of button elements without an explicit type attribute."
CLICKABLE = "Prefer `<button>` over clickable `<div>` elements."
ICON = "Icon-only buttons need an `aria-label`."
H1 = "Each page has only one `<h1>`."
AUTOFOCUS = "Do not use autofocus."
TABINDEX = "Avoid positive tabIndex values."
TIMEOUTS = "Timeouts on all jobs."
PERMISSIONS = "Workflows declare explicit permissions."
APK = "Pin `apk add` packages to exact versions (hadolint DL3018)."
SECRETS = "Load secrets from the environment; never commit credentials."
ERRORS = "Sensitive data: never log it or include it in errors."
TS_STRICT = "TypeScript strict mode."
CSRF = "CSRF protection stays on for every form."
COOKIES = "Session cookies are Secure and HttpOnly."
DEPS = "Avoid dependencies: adding a dependency is a big deal."
PHP = "PHP strict types `declare(strict_types=1);` required in new files."
LICENSE = "Every new source file must have the license header."
I18N = "All user-facing strings must be translated; no hard-coded UI text."
AUDIT = "Never reduce auditability: no removing audit logs, no reducing log detail."
GENERATED = "Generated code must not be edited by hand; change the generator."
MIGRATIONS = "`db/migrate/` – migration files (you CREATE, NEVER MODIFY existing)."
STATE = "We will use Zustand for client state."
LOGS = "Use Timber for logging, never `println`."

CASES = [
    (FOCUSED, "src/cart.test.ts", diff("src/cart.test.ts", '+it.only("adds an item", () => {'), True),
    (FOCUSED, "src/cart.test.ts", diff("src/cart.test.ts", '+it("adds an item", () => {'), False),
    (DISABLED, "tests/test_cart.py", diff("tests/test_cart.py", "+@pytest.mark.skip", "+def test_total():"), True),
    (DISABLED, "tests/test_cart.py", diff("tests/test_cart.py", '+@pytest.mark.skipif(sys.platform == "win32", reason="posix")'),
     False),
    (DISABLED, "pkg/cart_test.go", diff("pkg/cart_test.go", '+\tt.Skip("flaky")'), True),
    (SLEEP, "tests/test_jobs.py", diff("tests/test_jobs.py", "+    time.sleep(2)"), True),
    (SLEEP, "app/jobs.py", diff("app/jobs.py", "+    time.sleep(2)"), False),  # not a test
    (NETWORK, "tests/test_rates.py", diff("tests/test_rates.py", '+    r = requests.get("https://api.rates.io/v1")'), True),
    (NETWORK, "tests/test_rates.py", diff("tests/test_rates.py", '+    r = client.get("http://localhost:8000/v1")'), False),
    (NETWORK, "app/rates.py", diff("app/rates.py", '+    r = requests.get("https://api.rates.io/v1")'), False),
    (CLOCK, "tests/test_expiry.py", diff("tests/test_expiry.py", "+    issued = datetime.now()"), True),
    (CLOCK, "tests/test_expiry.py", diff("tests/test_expiry.py", "+    issued = datetime(2024, 1, 1)"), False),
    (ALT, "src/Avatar.tsx", diff("src/Avatar.tsx", "+  <img src={user.photo} />"), True),
    (ALT, "src/Avatar.tsx", diff("src/Avatar.tsx", '+  <img src={user.photo} alt="" />'), False),
    (ALT, "src/Avatar.tsx", diff("src/Avatar.tsx", "+  <img {...props} />"), False),  # the spread may carry alt
    (BLANK, "src/Links.tsx", diff("src/Links.tsx", '+  <a href={url} target="_blank">Docs</a>'), True),
    (BLANK, "src/Links.tsx", diff("src/Links.tsx", '+  <a href={url} target="_blank" rel="noreferrer">Docs</a>'), False),
    (BLANK, "src/open.ts", diff("src/open.ts", '+  window.open(url, "_blank");'), True),
    (BUTTON, "src/Form.tsx", diff("src/Form.tsx", "+  <button onClick={save}>Save</button>"), True),
    (BUTTON, "src/Form.tsx", diff("src/Form.tsx", '+  <button type="submit">Save</button>'), False),
    (CLICKABLE, "src/Card.tsx", diff("src/Card.tsx", "+  <div className=\"card\" onClick={open}>", "+  </div>"), True),
    (CLICKABLE, "src/Card.tsx", diff("src/Card.tsx", '+  <div className="card">', "+  </div>"), False),
    (ICON, "src/Close.tsx", diff("src/Close.tsx", "+  <button onClick={close}><XIcon /></button>"), True),
    (ICON, "src/Close.tsx", diff("src/Close.tsx", "+  <button onClick={close}><XIcon /> Close</button>"), False),
    (ICON, "src/Close.tsx", diff("src/Close.tsx", '+  <button aria-label="Close" onClick={close}><XIcon /></button>'),
     False),
    (H1, "app/page.tsx", diff("app/page.tsx", "   <h1>Pricing</h1>", "+  <h1>FAQ</h1>"), True),
    (H1, "app/page.tsx", diff("app/page.tsx", "   <h1>Pricing</h1>", '+  <p className="text-h1">FAQ</p>'), False),
    (AUTOFOCUS, "src/Search.tsx", diff("src/Search.tsx", "+  <input autoFocus value={q} />"), True),
    (TABINDEX, "src/Menu.tsx", diff("src/Menu.tsx", "+  <li tabIndex={3}>Home</li>"), True),
    (TABINDEX, "src/Menu.tsx", diff("src/Menu.tsx", "+  <li tabIndex={0}>Home</li>"), False),
    (TIMEOUTS, ".github/workflows/ci.yml", diff(".github/workflows/ci.yml", "+  lint:", "+    runs-on: ubuntu-latest",
                                                "+    steps:", "+      - run: make lint"), True),
    (TIMEOUTS, ".github/workflows/ci.yml", diff(".github/workflows/ci.yml", "+  lint:", "+    runs-on: ubuntu-latest",
                                                "+    timeout-minutes: 10", "+    steps:"), False),
    (PERMISSIONS, ".github/workflows/ci.yml", diff(".github/workflows/ci.yml", "-permissions:", "-  contents: read",
                                                   " jobs:"), True),
    (PERMISSIONS, ".github/workflows/ci.yml", new_file(".github/workflows/ci.yml", "on: push", "jobs:", "  a:",
                                                       "    runs-on: ubuntu-latest"), True),
    (PERMISSIONS, ".github/workflows/ci.yml", new_file(".github/workflows/ci.yml", "on: push", "permissions: {}",
                                                       "jobs:"), False),
    (APK, "Dockerfile", diff("Dockerfile", "+RUN apk add --no-cache curl"), True),
    (APK, "Dockerfile", diff("Dockerfile", "+RUN apk add --no-cache curl=8.5.0-r0"), False),
    (APK, "Dockerfile", diff("Dockerfile", "+# curl is not pinned: the mirror drops old revisions",
                             "+RUN apk add --no-cache curl"), False),
    (SECRETS, "app/upload.py", diff("app/upload.py", "+    key = os.environ.get('API_TOKEN', '8f3b2c61d9a04e7')"), True),
    (SECRETS, "app/upload.py", diff("app/upload.py", "+    key = os.environ.get('API_TOKEN', 'changeme')"), False),
    (ERRORS, "auth/check.go", diff("auth/check.go", '+\treturn fmt.Errorf("bad login %s: %q", email, password)'), True),
    (ERRORS, "auth/check.go", diff("auth/check.go", '+\treturn errors.New("password too short")'), False),
    (TS_STRICT, "tsconfig.json", diff("tsconfig.json", '-    "strict": true,', '+    "strict": false,'), True),
    (TS_STRICT, "tsconfig.json", diff("tsconfig.json", '+    "noImplicitAny": false,'), True),
    (TS_STRICT, "tsconfig.json", diff("tsconfig.json", '+    "noUncheckedIndexedAccess": true,'), False),
    (CSRF, "app/views.py", diff("app/views.py", "+@csrf_exempt", "+def webhook(request):"), True),
    (COOKIES, "app/session.ts", diff("app/session.ts", "+  cookie: {", "+    httpOnly: false,"), True),
    (COOKIES, "app/mail.ts", diff("app/mail.ts", "+  transport({ host, secure: false })"), False),  # SMTP, no cookie
    (DEPS, "go.mod", diff("go.mod", "+\tgithub.com/pkg/errors v0.9.1"), True),
    (PHP, "app/Actions/Sync.php", new_file("app/Actions/Sync.php", "<?php", "", "namespace App\\Actions;"), True),
    (PHP, "app/Actions/Sync.php", new_file("app/Actions/Sync.php", "<?php", "", "declare(strict_types=1);"), False),
    (PHP, "app/Actions/Sync.php", diff("app/Actions/Sync.php", "+    $x = 1;"), False),  # an existing file
    (LICENSE, "src/util.py", new_file("src/util.py", "# SPDX-License-Identifier: MIT", "import os"), False),
    (LICENSE, "src/util.py", new_file("src/util.py", "import os"), True),
    (I18N, "src/Plans.tsx", diff("src/Plans.tsx", "+      <h2>Our plans</h2>"), True),
    (I18N, "src/Plans.tsx", diff("src/Plans.tsx", '+      <h2>{t("plans.title")}</h2>'), False),
    (I18N, "src/plans.py", diff("src/plans.py", '+    title = "<h2>Our plans</h2>"'), False),  # no markup file
    (AUDIT, "jobs/power.py", diff("jobs/power.py", "     log.info('cycle')", "-    audit.record(job_id=job_id, actor=actor)"),
     True),
    (AUDIT, "jobs/power.py", diff("jobs/power.py", "-    audit.record(job_id=job_id)", "+    audit.record(job_id=job_id, why=why)"),
     False),
    (AUDIT, "jobs/power.py", diff("jobs/power.py", '-    log.info("cycle host=%s job=%s", host, job)', '+    log.info("cycle")'),
     True),
    (GENERATED, "api/v1/user.pb.go", diff("api/v1/user.pb.go", "-	Name string", "+	Name  string"), True),
    (GENERATED, "api/client.ts", diff("api/client.ts", " // This file was automatically generated. DO NOT EDIT.",
                                      "+export const base = '/v2';"), True),
    (GENERATED, "api/client.ts", diff("api/client.ts", " // the API client", "+export const base = '/v2';"), False),
    (GENERATED, "api/v1/user.pb.go", new_file("api/v1/user.pb.go", "package v1"), False),  # the generator's new file
    (MIGRATIONS, "db/migrate/20250110_create_users.rb", diff("db/migrate/20250110_create_users.rb", "+      t.string :name"),
     True),
    (MIGRATIONS, "db/migrate/20250302_add_name.rb", new_file("db/migrate/20250302_add_name.rb", "class AddName"), False),
    (STATE, "src/store.ts", diff("src/store.ts", '+import { configureStore } from "@reduxjs/toolkit";',
                                 '+import { createSlice } from "redux";'), True),
    (STATE, "src/store.ts", diff("src/store.ts", '+import { create } from "zustand";'), False),
    (LOGS, "app/src/main/kotlin/Sync.kt", diff("app/src/main/kotlin/Sync.kt", '+        println("synced $count")'), True),
    (LOGS, "app/src/main/kotlin/Sync.kt", diff("app/src/main/kotlin/Sync.kt", '+        Timber.d("synced %d", count)'), False),
]


@pytest.mark.parametrize("decision,path,text,warns", CASES)
def test_policy_readings(decision, path, text, warns):
    assert (check([node(decision)], path, text).verdict != "NO_CONTRADICTION") is warns


@pytest.mark.parametrize("text", [
    "Use the app's logger, not print.", "Never turn off the linter in CI.", "Run the tests before pushing.",
    "Keep the README short.", "All API responses are JSON.",
])  # fmt: skip
def test_unrelated_decisions_call_for_no_policy_reading(text):
    from engram.monitor.readings import policies
    assert not set(decision_rules.rules_for(node(text)).detectors) & set(policies.DETECTORS)


def test_a_rule_about_tests_governs_test_files_only():
    assert decision_rules.rules_for(node(SLEEP)).tests_only
    assert not decision_rules.rules_for(node(DISABLED)).tests_only  # a lint rule, read in the test files it names


def test_new_file_rule_is_bound_to_the_named_language():
    (rule,) = new_files.rules_of(PHP)
    assert rule.extensions == (".php",)


def test_family_members_are_roles_and_a_tools_files_are_not_its_spellings():
    assert "zustand" in tech_terms.ROLES["state management library"]
    assert "yarn.lock" not in tool_families.code_forms(("yarn", "yarn.lock"))
    assert tech_terms.canonical("poetry.lock") is None
