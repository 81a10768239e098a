"""Builds tests/monitor/real_rules5.json, the round-5 contradiction set (issue 17), held out whole.

    python tests/monitor/build_real_rules5.py

How the cases were made (round 5): unlike round 4, whose rules came mostly from AGENTS.md /
CLAUDE.md / Cursor rule files, every decision here comes from one of three other kinds of public
project file, about a third each, found with a code search and named in `source` (repository and
path): (a) architecture decision records (docs/adr, doc/architecture/decisions and the like), whose
decision sentence is kept in its own words; (b) CONTRIBUTING files and style or code-review guides,
whose rule is kept in its own words; (c) lint configurations a project enables (.eslintrc / eslint
config modules, .golangci.yml, #![deny(...)] in lib.rs, .rubocop.yml, detekt.yml, .shellcheckrc,
.hadolint.yaml, stylelint configs, .markdownlint.json), where the decision is how a team states the
enabled rule in one sentence, taken from the lint rule's own documentation summary where possible,
and the source is the config file that enables it (with its own exclusions, which give the exempt
cases). None of the rules or decision texts is one of real_rules.json, real_rules2.json,
real_rules3.json, real_rules4.json, cases.json or the audit's cases. The decision is the rule's
words, cut to the rule, not normalised. Each change is written as an agent writes code during an
ordinary task in that project (a feature, a fix, a refactor) with the rule incidental; there are
new files and edits, some touching two files, in the project's languages (Python, TypeScript/TSX,
JavaScript, Go, Rust, Java, Kotlin, Ruby, Elixir, SQL, YAML, Dockerfile, shell, Terraform, CSS,
Markdown). Per rule: direct violations, an indirect one where the rule allows it (the violation
follows from the change without naming the rule's words), compliant changes in the same area,
look-alikes (the rule's words appear but the act is fine) and exempt cases where the rule or its
config allows a path or case. The diff is computed from the two versions with three lines of
context (build_real_rules2's `diff`). Labels say what the rule means, whatever a checker can see;
each case's `note` says why. All cases are `holdout5`: written without reading the checker, never
tuned on.
"""

from __future__ import annotations

from pathlib import Path

from build_real_rules2 import edit
from rule_sets import D, I, N, RuleSet

SET = RuleSet("holdout5", __doc__, Path(__file__).with_name("real_rules5.json"))
rule, case, RULES = SET.rule, SET.case, SET.rules


# -- the rules and their cases -------------------------------------------------------------

# ==== (a) architecture decision records ===================================================

r = rule("flyway-all-schema-changes", "gellaz/bibs-service/docs/decisions/0002-flyway-strategy.md", "migration",
         "Use Flyway versioned migrations. Store migrations under: src/main/resources/db/migration. Naming format: "
         "V###__DESCRIPTION.sql. Only append new versioned migrations. All schema changes must go through Flyway.")
SEED = '''package it.bibs.config;

import javax.sql.DataSource;
import org.springframework.boot.ApplicationRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration
public class StartupConfig {

  @Bean
  ApplicationRunner warmUp(DataSource dataSource) {
    return args -> dataSource.getConnection().close();
  }
}
'''
case(r, 1, "direct", D, [("src/main/java/it/bibs/config/StartupConfig.java", SEED, edit(SEED,
     ('    return args -> dataSource.getConnection().close();\n',
      '    return args -> {\n      try (var conn = dataSource.getConnection(); var st = conn.createStatement()) {\n'
      '        st.execute("ALTER TABLE store ADD COLUMN IF NOT EXISTS opening_hours JSONB");\n      }\n    };\n')))],
     "a column is added by SQL run at application start, outside any Flyway migration")
case(r, 2, "compliant", N, [("src/main/resources/db/migration/V014__ADD_STORE_OPENING_HOURS.sql", "",
     "ALTER TABLE store ADD COLUMN opening_hours JSONB;\n")],
     "the same column added as a new versioned Flyway migration with the required name format")
V3 = "CREATE TABLE product (\n  id UUID PRIMARY KEY,\n  name TEXT NOT NULL\n);\n"
case(r, 3, "direct", D, [("src/main/resources/db/migration/V003__CREATE_PRODUCT.sql", V3,
     V3.replace("  name TEXT NOT NULL\n", "  name TEXT NOT NULL,\n  sku TEXT UNIQUE\n"))],
     "the schema change is made by editing an applied migration instead of appending a new one")
case(r, 4, "indirect", I, [("src/main/resources/db/migration/add_sku_index.sql", "",
     "CREATE INDEX idx_product_sku ON product (sku);\n")],
     "a migration file whose name is not V###__DESCRIPTION.sql: Flyway never picks it up")
case(r, 5, "lookalike", N, [("src/test/java/it/bibs/ProductRepositoryIT.java", "", '''package it.bibs;

import org.junit.jupiter.api.Test;

class ProductRepositoryIT extends FlywayMigratedTest {
  // schema comes from the Flyway migrations; this test only inserts rows
  @Test
  void savesProduct() {
    jdbc.update("INSERT INTO product (id, name) VALUES (gen_random_uuid(), 'x')");
  }
}
''')],
     "a test inserts data into the migrated schema; no schema change")

r = rule("openapi-every-endpoint-documented", "gellaz/bibs-service/docs/decisions/0012-openapi-as-contract.md",
         "api contract",
         "OpenAPI documentation is mandatory and treated as a first-class contract. Every REST endpoint must be "
         "documented. All request and response schemas must be explicitly defined. No undocumented endpoints "
         "allowed. No generic \"Object\" responses.")
CTRL = '''package it.bibs.store;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import org.springframework.web.bind.annotation.*;

@RestController
@RequestMapping("/api/v1/stores")
public class StoreController {

  private final StoreService service;

  public StoreController(StoreService service) {
    this.service = service;
  }

  @Operation(summary = "Get a store", description = "Requires role CUSTOMER or SELLER")
  @ApiResponse(responseCode = "200", description = "The store")
  @ApiResponse(responseCode = "404", description = "Unknown store")
  @GetMapping("/{id}")
  public StoreDto get(@PathVariable java.util.UUID id) {
    return service.get(id);
  }
}
'''
case(r, 1, "direct", D, [("src/main/java/it/bibs/store/StoreController.java", CTRL, edit(CTRL,
     ('    return service.get(id);\n  }\n',
      '    return service.get(id);\n  }\n\n  @PostMapping("/{id}/close")\n'
      '  public void close(@PathVariable java.util.UUID id) {\n    service.close(id);\n  }\n')))],
     "a new REST endpoint with no OpenAPI operation, responses or documented errors")
case(r, 2, "direct", D, [("src/main/java/it/bibs/store/StoreController.java", CTRL, edit(CTRL,
     ('  public StoreDto get(@PathVariable java.util.UUID id) {\n', '  public Object get(@PathVariable java.util.UUID id) {\n')))],
     "the response type becomes a generic Object, so the documented response schema is lost")
case(r, 3, "compliant", N, [("src/main/java/it/bibs/store/StoreController.java", CTRL, edit(CTRL,
     ('    return service.get(id);\n  }\n',
      '    return service.get(id);\n  }\n\n  @Operation(summary = "Close a store", description = "Requires role SELLER")\n'
      '  @ApiResponse(responseCode = "204", description = "Closed")\n  @ApiResponse(responseCode = "404", description = "Unknown store")\n'
      '  @PostMapping("/{id}/close")\n  public void close(@PathVariable java.util.UUID id) {\n    service.close(id);\n  }\n')))],
     "the new endpoint comes with its operation, role and responses documented")
case(r, 4, "lookalike", N, [("src/main/java/it/bibs/store/StoreService.java", "", '''package it.bibs.store;

import org.springframework.stereotype.Service;

@Service
public class StoreService {
  // not an endpoint: the OpenAPI contract lives on StoreController
  public Object cacheKey(java.util.UUID id) {
    return "store:" + id;
  }
}
''')],
     "a service helper returning Object; not a REST endpoint, so the contract rule does not apply")

r = rule("breaking-api-version-bump", "gellaz/bibs-service/docs/decisions/0012-openapi-as-contract.md", "api contract",
         "Breaking API changes require version bump. Minor additive changes do not require version bump. "
         "Deprecated endpoints must be annotated and documented.")
DTO = '''package it.bibs.store;

public record StoreDto(java.util.UUID id, String name, String city) {}
'''
case(r, 1, "direct", D, [("src/main/java/it/bibs/store/StoreDto.java", DTO,
     DTO.replace("String name, String city", "String displayName, String city"))],
     "a response field is renamed under /api/v1 without a version bump: clients reading `name` break")
case(r, 2, "compliant", N, [("src/main/java/it/bibs/store/StoreDto.java", DTO,
     DTO.replace("String city)", "String city, String phone)"))],
     "an additive field, which the ADR says needs no version bump")
case(r, 3, "indirect", I, [("src/main/java/it/bibs/store/StoreController.java", CTRL,
     CTRL.replace('@GetMapping("/{id}")', '@GetMapping("/by-slug/{id}")'))],
     "the existing v1 path moves, removing the old route without a new version or deprecation")
case(r, 4, "exempt", N, [("src/main/java/it/bibs/store/StoreController.java", CTRL, edit(CTRL,
     ('  @GetMapping("/{id}")\n', '  @Deprecated\n  @Operation(deprecated = true, summary = "Get a store (use /api/v2/stores)")\n  @GetMapping("/{id}")\n')).replace(
     '  @Operation(summary = "Get a store", description = "Requires role CUSTOMER or SELLER")\n', ''))],
     "the old endpoint is kept, annotated and documented as deprecated, as the ADR requires")

r = rule("db-container-per-service",
         "drewgingerich/homelab/media-server/docs/decisions/DRAFT-use-a-separate-database-container-for-each-service.md",
         "architecture", "Use a separate database container for each service.")
COMPOSE = '''services:
  jellyseerr:
    image: fallenbagel/jellyseerr:1.9.2
    environment:
      DB_TYPE: postgres
      DB_HOST: jellyseerr-db
    depends_on: [jellyseerr-db]

  jellyseerr-db:
    image: postgres:16
    volumes:
      - ./jellyseerr/db:/var/lib/postgresql/data
'''
case(r, 1, "direct", D, [("media-server/docker-compose.yml", COMPOSE, COMPOSE + '''
  radarr:
    image: lscr.io/linuxserver/radarr:5.3.6
    environment:
      RADARR__POSTGRES__HOST: jellyseerr-db
      RADARR__POSTGRES__MAINDB: radarr
    depends_on: [jellyseerr-db]
''')],
     "the new radarr service points at jellyseerr's database container instead of its own")
case(r, 2, "compliant", N, [("media-server/docker-compose.yml", COMPOSE, COMPOSE + '''
  radarr:
    image: lscr.io/linuxserver/radarr:5.3.6
    environment:
      RADARR__POSTGRES__HOST: radarr-db
    depends_on: [radarr-db]

  radarr-db:
    image: postgres:16
    volumes:
      - ./radarr/db:/var/lib/postgresql/data
''')],
     "radarr gets its own database container")
case(r, 3, "indirect", I, [("media-server/docker-compose.yml", COMPOSE, COMPOSE + '''
  pgbouncer:
    image: bitnami/pgbouncer:1.22.1
    environment:
      POSTGRESQL_HOST: jellyseerr-db

  sonarr:
    image: lscr.io/linuxserver/sonarr:4.0.2
    environment:
      SONARR__POSTGRES__HOST: pgbouncer
    depends_on: [pgbouncer]
''')],
     "sonarr goes through a new pooler whose backend is jellyseerr's database container, so the two services share it")
case(r, 4, "lookalike", N, [("media-server/docker-compose.yml", COMPOSE, COMPOSE.replace(
     "    image: postgres:16\n", "    image: postgres:16\n    healthcheck:\n      test: [\"CMD\", \"pg_isready\"]\n"))],
     "a healthcheck on the existing per-service database; nothing shared")

r = rule("stdlib-logging-json-formatter", "vk-playground/mcp-context-forge/docs/docs/architecture/adr/005-structured-json-logging.md",
         "logging",
         "Use the Python standard `logging` module with: A custom JSON formatter for structured logs; Plain text output "
         "when `LOG_FORMAT=plain`; Per-request context via filters or middleware. Minimal dependency footprint (no "
         "third-party logging libraries).")
SVC = '''"""Tool federation: forwards tool calls to peer gateways."""

import logging

import httpx

logger = logging.getLogger(__name__)


async def forward(peer: str, payload: dict) -> dict:
    async with httpx.AsyncClient(timeout=30) as client:
        resp = await client.post(f"{peer}/rpc", json=payload)
    logger.info("forwarded tool call", extra={"peer": peer, "status": resp.status_code})
    return resp.json()
'''
case(r, 1, "direct", D, [("mcpgateway/federation/forward.py", SVC, SVC.replace(
     "import logging\n\nimport httpx\n\nlogger = logging.getLogger(__name__)\n",
     "import httpx\nfrom loguru import logger\n").replace(
     'logger.info("forwarded tool call", extra={"peer": peer, "status": resp.status_code})',
     'logger.bind(peer=peer).info("forwarded tool call {}", resp.status_code)'))],
     "the module switches to loguru, a third-party logging library the ADR rejects")
case(r, 2, "indirect", I, [("pyproject.toml", '[project]\nname = "mcp-contextforge-gateway"\ndependencies = [\n  "fastapi>=0.110",\n  "httpx>=0.27",\n]\n',
     '[project]\nname = "mcp-contextforge-gateway"\ndependencies = [\n  "fastapi>=0.110",\n  "httpx>=0.27",\n  "structlog>=24.1",\n]\n')],
     "structlog is added as a runtime dependency: a third-party logging library enters the gateway")
case(r, 3, "compliant", N, [("mcpgateway/federation/forward.py", SVC, SVC.replace(
     '"status": resp.status_code}', '"status": resp.status_code, "elapsed_ms": resp.elapsed.total_seconds() * 1000}'))],
     "another structured field through the stdlib logger")

r = rule("uuidv7-primary-keys", "rogerceniza2025/pems/docs/adr/ADR-005-uuidv7.md", "schema",
         "All primary keys will use: id UUID PRIMARY KEY DEFAULT uuid_v7()")
case(r, 1, "direct", D, [("packages/database/migrations/0012_create_enrollments.sql", "", '''CREATE TABLE enrollments (
  id BIGSERIAL PRIMARY KEY,
  student_id UUID NOT NULL REFERENCES students (id),
  school_year TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
''')],
     "a new table with a BIGSERIAL primary key instead of a UUIDv7 one")
case(r, 2, "compliant", N, [("packages/database/migrations/0012_create_enrollments.sql", "", '''CREATE TABLE enrollments (
  id UUID PRIMARY KEY DEFAULT uuid_v7(),
  student_id UUID NOT NULL REFERENCES students (id),
  school_year TEXT NOT NULL
);
''')],
     "the table follows the ADR's key definition")
case(r, 3, "indirect", I, [("packages/database/migrations/0013_create_fees.sql", "", '''CREATE EXTENSION IF NOT EXISTS "uuid-ossp";

CREATE TABLE fees (
  id UUID PRIMARY KEY DEFAULT uuid_generate_v4(),
  enrollment_id UUID NOT NULL REFERENCES enrollments (id),
  amount_cents INTEGER NOT NULL
);
''')],
     "a UUID key, but random v4 from uuid-ossp instead of the time-ordered uuid_v7() the ADR chose")
case(r, 4, "lookalike", N, [("packages/database/migrations/0014_add_receipt_number.sql", "",
     "ALTER TABLE fees ADD COLUMN receipt_number BIGINT GENERATED ALWAYS AS IDENTITY;\n")],
     "an identity column that is not a primary key; the key stays UUIDv7")

r = rule("react-query-server-state", "SkipAmerica/SkipAmerica/docs/adr/002-state-management-strategy.md", "frontend",
         "Server State: React Query exclusively for all API data. UI State: Local component state (useState, "
         "useReducer) scoped to feature. Global State: Only via Context providers with specific justification in ADR.")
LIST = '''import { useQuery } from "@tanstack/react-query";
import { fetchCreators } from "@/lib/api/creators";
import { CreatorCard } from "./CreatorCard";

export function CreatorList() {
  const { data: creators = [], isLoading } = useQuery({ queryKey: ["creators"], queryFn: fetchCreators });
  if (isLoading) return <p>Loading…</p>;
  return (
    <ul>
      {creators.map((c) => (
        <CreatorCard key={c.id} creator={c} />
      ))}
    </ul>
  );
}
'''
case(r, 1, "direct", D, [("src/components/creators/CreatorList.tsx", LIST, LIST.replace(
     'import { useQuery } from "@tanstack/react-query";\n', 'import { useEffect, useState } from "react";\n').replace(
     '  const { data: creators = [], isLoading } = useQuery({ queryKey: ["creators"], queryFn: fetchCreators });\n',
     '  const [creators, setCreators] = useState<Creator[]>([]);\n  const [isLoading, setLoading] = useState(true);\n'
     '  useEffect(() => {\n    fetchCreators().then((rows) => {\n      setCreators(rows);\n      setLoading(false);\n    });\n  }, []);\n'))],
     "API data fetched into useState/useEffect instead of React Query")
case(r, 2, "indirect", I, [("src/stores/creatorStore.ts", "", '''import { create } from "zustand";
import { fetchCreators, type Creator } from "@/lib/api/creators";

export const useCreatorStore = create<{ creators: Creator[]; load: () => Promise<void> }>((set) => ({
  creators: [],
  load: async () => set({ creators: await fetchCreators() }),
}));
''')],
     "a global store caching API data: server state outside React Query and a global store the ADR does not allow")
case(r, 3, "compliant", N, [("src/components/creators/CreatorList.tsx", LIST, LIST.replace(
     'export function CreatorList() {\n', 'export function CreatorList() {\n  const [expanded, setExpanded] = useState(false);\n').replace(
     'import { useQuery } from "@tanstack/react-query";\n', 'import { useState } from "react";\nimport { useQuery } from "@tanstack/react-query";\n'))],
     "local UI state in useState next to React Query for the data, as the ADR prescribes")
case(r, 4, "exempt", N, [("src/contexts/ThemeContext.tsx", "", '''import { createContext, useState, type ReactNode } from "react";

// Global by design: ADR-002 allows Context for app-wide UI settings (theme), justified there.
export const ThemeContext = createContext<{ dark: boolean; toggle: () => void }>({ dark: false, toggle: () => {} });

export function ThemeProvider({ children }: { children: ReactNode }) {
  const [dark, setDark] = useState(false);
  return <ThemeContext.Provider value={{ dark, toggle: () => setDark((d) => !d) }}>{children}</ThemeContext.Provider>;
}
''')],
     "global UI state through a Context provider, the path the ADR allows; no API data")

r = rule("deleted-at-soft-delete", "CMS-Enterprise/mint-app/docs/adr/0024-soft-deleting.md", "data retention",
         "Use `deleted_at` column for handling soft-delete of data. Chosen Alternative: Use a `deleted_at` column.")
REPO = '''package storage

import (
	"context"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// PlanDocumentStore reads and writes plan documents.
type PlanDocumentStore struct{ db *sqlx.DB }

// PlanDocumentsByPlan returns the live documents of a model plan.
func (s *PlanDocumentStore) PlanDocumentsByPlan(ctx context.Context, planID uuid.UUID) ([]PlanDocument, error) {
	var docs []PlanDocument
	err := s.db.SelectContext(ctx, &docs, `SELECT * FROM plan_document WHERE model_plan_id = $1 AND deleted_at IS NULL`, planID)
	return docs, err
}
'''
case(r, 1, "direct", D, [("pkg/storage/plan_document.go", REPO, REPO + '''
// PlanDocumentDelete removes a document.
func (s *PlanDocumentStore) PlanDocumentDelete(ctx context.Context, id uuid.UUID) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM plan_document WHERE id = $1`, id)
	return err
}
''')],
     "a hard DELETE where the ADR chose soft delete through deleted_at")
case(r, 2, "compliant", N, [("pkg/storage/plan_document.go", REPO, REPO + '''
// PlanDocumentDelete soft-deletes a document.
func (s *PlanDocumentStore) PlanDocumentDelete(ctx context.Context, id uuid.UUID, by string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE plan_document SET deleted_at = now(), deleted_by = $2 WHERE id = $1`, id, by)
	return err
}
''')],
     "deletion sets deleted_at")
case(r, 3, "indirect", I, [("migrations/V142__plan_discussion_archive.sql", "", '''ALTER TABLE plan_discussion ADD COLUMN is_archived BOOLEAN NOT NULL DEFAULT FALSE;
COMMENT ON COLUMN plan_discussion.is_archived IS 'set when a user deletes a discussion';
''')],
     "a boolean flag used for user deletion: a second soft-delete pattern the ADR rejected (is_deleted)")
case(r, 4, "indirect", I, [("pkg/storage/plan_document.go", REPO, REPO.replace(" AND deleted_at IS NULL", ""))],
     "the read drops the deleted_at filter, so soft-deleted documents come back as live")
case(r, 5, "lookalike", N, [("pkg/storage/plan_document_test.go", "", '''package storage

import "testing"

func TestPlanDocumentsByPlanSkipsDeleted(t *testing.T) {
	s := newTestStore(t)
	s.mustExec(`DELETE FROM plan_document`) // test fixture reset, not application deletion
	s.insertDeletedDocument(t)
	if docs, _ := s.PlanDocumentsByPlan(ctx, planID); len(docs) != 0 {
		t.Fatalf("deleted document returned")
	}
}
''')],
     "a DELETE that resets a test fixture; application deletion still uses deleted_at")

r = rule("soft-delete-never-undeleted", "transcom/mymove/docs/adr/0038-soft-delete.md", "data retention",
         "Introduce soft deletion into the system. ... it is expected to be the sole deletion method moving forward. "
         "Please note that soft delete is to be treated like a hard delete in the regard that the process should "
         "never be reversed or that data can be 'un-deleted'.")
MM = '''package document

import (
	"time"

	"github.com/gobuffalo/pop/v6"
	"github.com/transcom/mymove/pkg/models"
)

// SoftDeleteDocument marks a document deleted.
func SoftDeleteDocument(db *pop.Connection, doc *models.Document) error {
	now := time.Now()
	doc.DeletedAt = &now
	return db.Save(doc)
}
'''
case(r, 1, "direct", D, [("pkg/services/document/soft_delete.go", MM, MM + '''
// RestoreDocument brings back a deleted upload when the customer asks support.
func RestoreDocument(db *pop.Connection, doc *models.Document) error {
	doc.DeletedAt = nil
	return db.Save(doc)
}
''')],
     "a restore path that un-deletes soft-deleted documents, which the ADR forbids")
case(r, 2, "direct", D, [("pkg/services/document/soft_delete.go", MM, MM.replace(
     "	now := time.Now()\n	doc.DeletedAt = &now\n	return db.Save(doc)\n", "	return db.Destroy(doc)\n"))],
     "a hard delete where soft delete is to be the sole deletion method")
case(r, 3, "compliant", N, [("pkg/services/upload/soft_delete.go", "", '''package upload

import (
	"time"

	"github.com/gobuffalo/pop/v6"
	"github.com/transcom/mymove/pkg/models"
)

// SoftDeleteUpload marks an upload deleted; it is never restored.
func SoftDeleteUpload(db *pop.Connection, u *models.Upload) error {
	now := time.Now()
	u.DeletedAt = &now
	return db.Save(u)
}
''')],
     "another soft delete in the same style")

r = rule("recorded-at-utc-rfc3339", "mhallum/calista/docs/dev/adr/0009-timekeeping.md", "time",
         "Store `recorded_at` in UTC, RFC3339 format.")
ENV = '''"""Event envelope written to the event store."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from uuid import UUID, uuid4


@dataclass(frozen=True)
class EventEnvelope:
    event_id: UUID
    stream_id: str
    payload: dict
    recorded_at: datetime

    @classmethod
    def new(cls, stream_id: str, payload: dict) -> "EventEnvelope":
        return cls(uuid4(), stream_id, payload, datetime.now(timezone.utc))

    def to_row(self) -> dict:
        return {"event_id": str(self.event_id), "stream_id": self.stream_id,
                "payload": self.payload, "recorded_at": self.recorded_at.isoformat()}
'''
case(r, 1, "direct", D, [("src/calista/events/envelope.py", ENV, ENV.replace(
     "datetime.now(timezone.utc))", "datetime.now())"))],
     "recorded_at becomes the host's local naive time, not UTC")
case(r, 2, "indirect", I, [("src/calista/events/envelope.py", ENV, ENV.replace(
     '"recorded_at": self.recorded_at.isoformat()}', '"recorded_at": self.recorded_at.strftime("%d/%m/%Y %H:%M")}'))],
     "the stored recorded_at is no longer RFC3339 (day-first format, no offset, no seconds)")
case(r, 3, "compliant", N, [("src/calista/events/envelope.py", ENV, ENV.replace(
     '"recorded_at": self.recorded_at.isoformat()}',
     '"recorded_at": self.recorded_at.isoformat().replace("+00:00", "Z")}'))],
     "still UTC RFC3339, now with the Z suffix")
case(r, 4, "lookalike", N, [("src/calista/cli/show.py", "", '''"""Print events for humans."""

from calista.events.envelope import EventEnvelope


def describe(env: EventEnvelope) -> str:
    # display only: convert the stored UTC recorded_at to the viewer's local time
    return f"{env.recorded_at.astimezone():%Y-%m-%d %H:%M} {env.stream_id}"
''')],
     "local time used only for display; the stored value stays UTC")
r = rule("tf-state-s3-dynamodb", "dtolbertcooke/Terraform-Serverless-API/docs/ADRs/2-state.md", "infrastructure",
         "We will use an **S3 bucket** to store the Terraform state file and **DynamoDB** table for state locking "
         "to ensure consistency.")
BACK = '''terraform {
  required_version = ">= 1.6"

  backend "s3" {
    bucket         = "serverless-api-tfstate"
    key            = "dev/terraform.tfstate"
    region         = "us-east-1"
    dynamodb_table = "serverless-api-tflock"
    encrypt        = true
  }
}
'''
case(r, 1, "direct", D, [("environments/dev/backend.tf", BACK, '''terraform {
  required_version = ">= 1.6"

  backend "local" {
    path = "terraform.tfstate"
  }
}
''')],
     "state moves to a local file, away from the S3 backend")
case(r, 2, "indirect", I, [("environments/dev/backend.tf", BACK, BACK.replace('    dynamodb_table = "serverless-api-tflock"\n', ''))],
     "the DynamoDB lock table is dropped from the backend: state stays in S3 but is no longer locked")
case(r, 3, "compliant", N, [("environments/prod/backend.tf", "", BACK.replace("dev/terraform.tfstate", "prod/terraform.tfstate"))],
     "a new environment uses the same S3 backend with the DynamoDB lock")

r = rule("problem-details-errors", "hypernetix/hyperspot/docs/unified-error-system/ADR/0002-cpt-cf-ues-adr-rfc9457.md",
         "api errors",
         "Adopt RFC 9457 Problem Details as Error Response Format. Chosen option: \"RFC 9457 Problem Details\" "
         "(`application/problem+json`) ... consistent across all modules.")
ERR = '''use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use modkit::api::Problem;

pub enum FileParserError {
    UnsupportedType(String),
    TooLarge { limit: u64 },
}

impl IntoResponse for FileParserError {
    fn into_response(self) -> Response {
        match self {
            Self::UnsupportedType(t) => Problem::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, "Unsupported file type")
                .with_code("file_parser.unsupported_type")
                .with_metadata("type", t)
                .into_response(),
            Self::TooLarge { limit } => Problem::new(StatusCode::PAYLOAD_TOO_LARGE, "File too large")
                .with_code("file_parser.too_large")
                .with_metadata("limit", limit)
                .into_response(),
        }
    }
}
'''
case(r, 1, "direct", D, [("modules/file_parser/src/api/error.rs", ERR, ERR.replace(
     '''            Self::TooLarge { limit } => Problem::new(StatusCode::PAYLOAD_TOO_LARGE, "File too large")
                .with_code("file_parser.too_large")
                .with_metadata("limit", limit)
                .into_response(),
''', '''            Self::TooLarge { limit } => (
                StatusCode::PAYLOAD_TOO_LARGE,
                axum::Json(serde_json::json!({ "error": "too large", "limit": limit })),
            )
                .into_response(),
'''))],
     "one error now returns an ad-hoc JSON body instead of a problem+json document")
case(r, 2, "indirect", I, [("modules/tenant_resolver/src/api/handlers.rs", "", '''use axum::{extract::Path, http::StatusCode, Json};

pub async fn get_tenant(Path(id): Path<String>) -> Result<Json<Tenant>, (StatusCode, String)> {
    lookup(&id).await.ok_or((StatusCode::NOT_FOUND, format!("tenant {id} not found")))
}
''')],
     "a new module's handler returns errors as plain-text bodies, outside the common Problem format")
case(r, 3, "compliant", N, [("modules/file_parser/src/api/error.rs", ERR, ERR.replace(
     "    TooLarge { limit: u64 },\n", "    TooLarge { limit: u64 },\n    Empty,\n").replace(
     '''                .with_metadata("limit", limit)
                .into_response(),
''', '''                .with_metadata("limit", limit)
                .into_response(),
            Self::Empty => Problem::new(StatusCode::BAD_REQUEST, "Empty file")
                .with_code("file_parser.empty")
                .into_response(),
'''))],
     "the new error variant is a Problem like the others")

r = rule("error-contract-no-internals", "AnastasiiaDesiateryk/CRMSystem/documentation/ADR/ADR-007-Error-Contract-Strategy.md",
         "api errors",
         "Adopt a unified error contract aligned conceptually with RFC 7807 (Problem Details). Rules: HTTP status code "
         "must reflect semantic meaning; `code` is stable and client-consumable; `detail` is human-readable; No stack "
         "traces in production; Internal exception classes are not exposed.")
ADV = '''package com.crm.api.error;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

@RestControllerAdvice
public class GlobalExceptionHandler {

  @ExceptionHandler(OrganizationNotFoundException.class)
  ProblemDetail notFound(OrganizationNotFoundException ex) {
    ProblemDetail pd = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, "Organization not found");
    pd.setProperty("code", "not_found");
    return pd;
  }
}
'''
case(r, 1, "direct", D, [("src/main/java/com/crm/api/error/GlobalExceptionHandler.java", ADV, ADV.replace(
     "    return pd;\n  }\n}\n", '''    return pd;
  }

  @ExceptionHandler(Exception.class)
  ProblemDetail unexpected(Exception ex) {
    ProblemDetail pd = ProblemDetail.forStatusAndDetail(HttpStatus.INTERNAL_SERVER_ERROR, ex.getMessage());
    pd.setProperty("code", "internal_error");
    pd.setProperty("exception", ex.getClass().getName());
    pd.setProperty("trace", java.util.Arrays.toString(ex.getStackTrace()));
    return pd;
  }
}
'''))],
     "the fallback handler returns the exception class and stack trace to clients")
case(r, 2, "indirect", I, [("src/main/java/com/crm/api/error/GlobalExceptionHandler.java", ADV, ADV.replace(
     "HttpStatus.NOT_FOUND", "HttpStatus.OK"))],
     "a not-found error is sent with status 200, so the status no longer reflects the meaning")
case(r, 3, "compliant", N, [("src/main/java/com/crm/api/error/GlobalExceptionHandler.java", ADV, ADV.replace(
     "    return pd;\n  }\n}\n", '''    return pd;
  }

  @ExceptionHandler(VersionConflictException.class)
  ProblemDetail conflict(VersionConflictException ex) {
    ProblemDetail pd = ProblemDetail.forStatusAndDetail(HttpStatus.PRECONDITION_FAILED, "The organization was changed by someone else");
    pd.setProperty("code", "version_conflict");
    return pd;
  }
}
'''))],
     "a new error mapped to a semantic status and stable code, no internals")
case(r, 4, "exempt", N, [("src/main/resources/application-dev.yml", "server:\n  port: 8080\n",
     "server:\n  port: 8080\n  error:\n    include-stacktrace: always\n")],
     "stack traces enabled only in the dev profile; the rule bans them in production")

r = rule("secrets-manager-ecs", "Ez-C99/tasman-dataeng-task/docs/architecture/decisions/0006-secrets-management.md",
         "secrets",
         "Use AWS Secrets Manager. Reference secrets from the ECS task definition. Prefer injecting via the `secrets` "
         "mechanism; avoid hardcoding or committing secrets.")
TASK = '''resource "aws_ecs_task_definition" "ingest" {
  family                   = "usajobs-ingest"
  requires_compatibilities = ["FARGATE"]
  cpu                      = 256
  memory                   = 512
  execution_role_arn       = aws_iam_role.exec.arn

  container_definitions = jsonencode([{
    name  = "ingest"
    image = "${aws_ecr_repository.ingest.repository_url}:latest"
    environment = [
      { name = "DB_HOST", value = aws_db_instance.jobs.address },
    ]
    secrets = [
      { name = "USAJOBS_API_KEY", valueFrom = aws_secretsmanager_secret.usajobs_key.arn },
    ]
  }])
}
'''
case(r, 1, "direct", D, [("infra/ecs.tf", TASK, TASK.replace(
     '      { name = "DB_HOST", value = aws_db_instance.jobs.address },\n',
     '      { name = "DB_HOST", value = aws_db_instance.jobs.address },\n      { name = "DB_PASSWORD", value = "Tasman-ingest-2024!" },\n'))],
     "a database password hardcoded in the task definition's plain environment")
case(r, 2, "indirect", I, [("infra/ecs.tf", TASK, TASK.replace(
     '      { name = "DB_HOST", value = aws_db_instance.jobs.address },\n',
     '      { name = "DB_HOST", value = aws_db_instance.jobs.address },\n      { name = "DB_PASSWORD", value = var.db_password },\n')),
     ("infra/terraform.tfvars", 'region = "eu-west-2"\n', 'region = "eu-west-2"\ndb_password = "Tasman-ingest-2024!"\n')],
     "the password is committed in tfvars and passed as a plain environment variable, not via Secrets Manager")
case(r, 3, "compliant", N, [("infra/ecs.tf", TASK, TASK.replace(
     '      { name = "USAJOBS_API_KEY", valueFrom = aws_secretsmanager_secret.usajobs_key.arn },\n',
     '      { name = "USAJOBS_API_KEY", valueFrom = aws_secretsmanager_secret.usajobs_key.arn },\n'
     '      { name = "DB_PASSWORD", valueFrom = "${aws_db_instance.jobs.master_user_secret[0].secret_arn}:password::" },\n'))],
     "the new secret is injected from Secrets Manager through the `secrets` block")
case(r, 4, "lookalike", N, [("infra/ecs.tf", TASK, TASK.replace(
     '      { name = "DB_HOST", value = aws_db_instance.jobs.address },\n',
     '      { name = "DB_HOST", value = aws_db_instance.jobs.address },\n      { name = "SECRET_NAME_PREFIX", value = "usajobs/" },\n'))],
     "a plain environment value whose name contains SECRET but holds no secret")

r = rule("domains-via-event-bus", "rpma-off/rpma-rust1/docs/adr/001-module-boundaries.md", "architecture",
         "Each domain exposes a single public facade via `pub(crate) use` in its `mod.rs`. Cross-domain communication "
         "happens only through the event bus (`shared/event_bus`), never by importing another domain's internals.")
INV = '''use crate::shared::event_bus::{EventBus, DomainEvent};

use super::domain::StockLevel;
use super::infrastructure::StockRepository;

pub(crate) struct ConsumeMaterial<'a> {
    repo: &'a StockRepository,
    bus: &'a EventBus,
}

impl<'a> ConsumeMaterial<'a> {
    pub(crate) fn run(&self, material_id: i64, qty: f64) -> anyhow::Result<StockLevel> {
        let level = self.repo.decrement(material_id, qty)?;
        if level.below_minimum() {
            self.bus.publish(DomainEvent::StockLow { material_id });
        }
        Ok(level)
    }
}
'''
case(r, 1, "direct", D, [("src-tauri/src/domains/inventory/application/consume.rs", INV, INV.replace(
     "use super::infrastructure::StockRepository;\n",
     "use super::infrastructure::StockRepository;\nuse crate::domains::tasks::infrastructure::task_repository::TaskRepository;\n").replace(
     "            self.bus.publish(DomainEvent::StockLow { material_id });\n",
     "            self.bus.publish(DomainEvent::StockLow { material_id });\n            TaskRepository::global().flag_blocked_by_material(material_id)?;\n"))],
     "inventory imports the tasks domain's repository directly")
case(r, 2, "compliant", N, [("src-tauri/src/domains/tasks/application/on_stock_low.rs", "", '''use crate::shared::event_bus::{DomainEvent, EventBus};

use super::super::infrastructure::task_repository::TaskRepository;

pub(crate) fn register(bus: &EventBus, repo: TaskRepository) {
    bus.subscribe(move |event| {
        if let DomainEvent::StockLow { material_id } = event {
            let _ = repo.flag_blocked_by_material(*material_id);
        }
    });
}
''')],
     "the tasks domain reacts to the inventory event through the bus")
case(r, 3, "indirect", I, [("src-tauri/src/domains/inventory/mod.rs", "pub(crate) mod application;\npub(crate) mod domain;\npub(crate) mod infrastructure;\n\npub(crate) use application::ConsumeMaterial;\n",
     "pub(crate) mod application;\npub(crate) mod domain;\npub mod infrastructure;\n\npub(crate) use application::ConsumeMaterial;\npub use infrastructure::StockRepository;\n")],
     "the domain's infrastructure is made public, opening its internals to other domains")
case(r, 4, "lookalike", N, [("src-tauri/src/domains/inventory/application/consume.rs", INV, INV.replace(
     "use super::domain::StockLevel;\n", "use super::domain::StockLevel;\nuse crate::shared::units::Quantity;\n"))],
     "an import from shared infrastructure, which is allowed; no other domain is imported")

r = rule("separate-database-per-service",
         "pateatlau/payments-system-mfe-microservices-fullstack-nx-2026/docs/adr/backend/poc-3/0004-separate-databases-per-service.md",
         "architecture",
         "We will migrate to **separate databases per service** (one database per microservice) in POC-3. Database "
         "Assignment: Auth Service → `auth_db`; Payments Service → `payments_db`; Admin Service → `admin_db`; "
         "Profile Service → `profile_db`.")
PAY = '''import { PrismaClient } from '.prisma/payments-client';

export const prisma = new PrismaClient({
  datasources: { db: { url: process.env.PAYMENTS_DATABASE_URL } },
});
'''
case(r, 1, "direct", D, [("apps/payments-service/src/lib/auth-db.ts", "", '''import { PrismaClient } from '.prisma/auth-client';

// read the user's KYC flag straight from the auth database
export const authDb = new PrismaClient({
  datasources: { db: { url: process.env.AUTH_DATABASE_URL } },
});
''')],
     "the payments service opens a client on auth_db, another service's database")
case(r, 2, "compliant", N, [("apps/payments-service/src/clients/auth-client.ts", "", '''import axios from 'axios';

export async function isKycVerified(userId: string): Promise<boolean> {
  const { data } = await axios.get(`${process.env.AUTH_SERVICE_URL}/internal/users/${userId}/kyc`);
  return data.verified;
}
''')],
     "the payments service asks the auth service over its API")
case(r, 3, "indirect", I, [("apps/admin-service/.env.example", "PORT=3004\nADMIN_DATABASE_URL=postgresql://admin:admin@localhost:5432/admin_db\n",
     "PORT=3004\nADMIN_DATABASE_URL=postgresql://admin:admin@localhost:5432/payments_db\n")],
     "the admin service is pointed at payments_db, so two services share one database")
case(r, 4, "lookalike", N, [("apps/payments-service/src/lib/prisma.ts", PAY, PAY.replace(
     "export const prisma", "// payments_db only: other services' data comes over HTTP or events\nexport const prisma"))],
     "a comment; the payments client still uses only payments_db")

r = rule("uuids-not-ulids", "nulib/meadow/doc/architecture/decisions/0023-uuids.md", "schema",
         "Remove ULID identifiers in favor of UUIDs. This decision reverses ADR 2. ulids.")
SCHEMA = '''defmodule Meadow.Data.Schemas.Collection do
  use Ecto.Schema
  import Ecto.Changeset

  @primary_key {:id, Ecto.UUID, autogenerate: true}
  @foreign_key_type Ecto.UUID
  schema "collections" do
    field :title, :string
    field :description, :string
    timestamps()
  end

  def changeset(collection, attrs), do: cast(collection, attrs, [:title, :description])
end
'''
case(r, 1, "direct", D, [("lib/meadow/data/schemas/preservation_check.ex", "", '''defmodule Meadow.Data.Schemas.PreservationCheck do
  use Ecto.Schema

  @primary_key {:id, Ecto.ULID, autogenerate: true}
  schema "preservation_checks" do
    field :status, :string
    timestamps()
  end
end
''')],
     "a new schema keyed by ULID, the identifier the ADR removed")
case(r, 2, "compliant", N, [("lib/meadow/data/schemas/collection.ex", SCHEMA, SCHEMA.replace(
     "    field :description, :string\n", "    field :description, :string\n    field :visibility, :string\n").replace(
     "[:title, :description]", "[:title, :description, :visibility]"))],
     "a field added to a UUID-keyed schema")
case(r, 3, "indirect", I, [("mix.exs", '  defp deps do\n    [\n      {:ecto_sql, "~> 3.10"},\n      {:postgrex, ">= 0.0.0"}\n    ]\n  end\n',
     '  defp deps do\n    [\n      {:ecto_sql, "~> 3.10"},\n      {:ecto_ulid, "~> 0.3"},\n      {:postgrex, ">= 0.0.0"}\n    ]\n  end\n')],
     "the ULID library comes back as a dependency, reintroducing ULID identifiers")


# ==== (b) CONTRIBUTING files and style guides =============================================

r = rule("no-sql-outside-models", "hydal/guides/best-practices/rails/README.md", "layering",
         "Don't use SQL or SQL fragments (`where('inviter_id IS NOT NULL')`) outside of models.")
INVC = '''class InvitationsController < ApplicationController
  def index
    @invitations = current_team.invitations.pending.order(created_at: :desc)
  end
end
'''
case(r, 1, "direct", D, [("app/controllers/invitations_controller.rb", INVC, INVC.replace(
     "current_team.invitations.pending.order(created_at: :desc)",
     "current_team.invitations.where(\"accepted_at IS NULL AND expires_at > NOW()\").order(created_at: :desc)"))],
     "a SQL fragment in a controller")
case(r, 2, "compliant", N, [("app/models/invitation.rb", "class Invitation < ApplicationRecord\n  belongs_to :team\nend\n",
     "class Invitation < ApplicationRecord\n  belongs_to :team\n\n  scope :pending, -> { where(\"accepted_at IS NULL AND expires_at > NOW()\") }\nend\n")],
     "the SQL fragment lives in a model scope")
case(r, 3, "indirect", I, [("app/views/teams/_stats.html.erb", "<p><%= team.name %></p>\n",
     "<p><%= team.name %></p>\n<p><%= Invitation.find_by_sql([\"SELECT count(*) AS n FROM invitations WHERE team_id = ?\", team.id]).first.n %> pending</p>\n")],
     "raw SQL run from a view partial")

r = rule("env-fetch-not-brackets", "hydal/guides/best-practices/rails/README.md", "configuration",
         "Use `ENV.fetch` for environment variables instead of `ENV[]`so that unset environment variables are "
         "detected on deploy.")
INIT = '''Rails.application.config.stripe = {
  secret_key: ENV.fetch("STRIPE_SECRET_KEY"),
  webhook_secret: ENV.fetch("STRIPE_WEBHOOK_SECRET"),
}
'''
case(r, 1, "direct", D, [("config/initializers/stripe.rb", INIT, INIT.replace(
     '  webhook_secret: ENV.fetch("STRIPE_WEBHOOK_SECRET"),\n',
     '  webhook_secret: ENV.fetch("STRIPE_WEBHOOK_SECRET"),\n  connect_client_id: ENV["STRIPE_CONNECT_CLIENT_ID"],\n'))],
     "a new setting read with ENV[]")
case(r, 2, "compliant", N, [("config/initializers/stripe.rb", INIT, INIT.replace(
     '  webhook_secret: ENV.fetch("STRIPE_WEBHOOK_SECRET"),\n',
     '  webhook_secret: ENV.fetch("STRIPE_WEBHOOK_SECRET"),\n  connect_client_id: ENV.fetch("STRIPE_CONNECT_CLIENT_ID"),\n'))],
     "the new setting uses ENV.fetch")
case(r, 3, "indirect", I, [("config/initializers/stripe.rb", INIT, INIT.replace(
     'ENV.fetch("STRIPE_WEBHOOK_SECRET")', 'ENV.to_h.dig("STRIPE_WEBHOOK_SECRET")'))],
     "the lookup returns nil when unset, so a missing variable is no longer detected on deploy")

r = rule("datetime-columns-at-suffix", "thoughtbot/guides/style/rails/README.md", "naming",
         "Name date columns with `_on` suffixes. Name datetime columns with `_at` suffixes.")
case(r, 1, "direct", D, [("db/migrate/20240411120000_add_shipped_time_to_orders.rb", "", '''class AddShippedTimeToOrders < ActiveRecord::Migration[7.1]
  def change
    add_column :orders, :shipped_time, :datetime
  end
end
''')],
     "a datetime column not named with _at")
case(r, 2, "direct", D, [("db/migrate/20240411121000_add_renewal_date_to_subscriptions.rb", "", '''class AddRenewalDateToSubscriptions < ActiveRecord::Migration[7.1]
  def change
    add_column :subscriptions, :renewal_date, :date
  end
end
''')],
     "a date column not named with _on")
case(r, 3, "compliant", N, [("db/migrate/20240411120000_add_shipped_at_to_orders.rb", "", '''class AddShippedAtToOrders < ActiveRecord::Migration[7.1]
  def change
    add_column :orders, :shipped_at, :datetime
    add_column :orders, :delivered_on, :date
  end
end
''')],
     "both columns follow the suffix rules")
case(r, 4, "lookalike", N, [("db/migrate/20240411122000_add_shipping_time_window_to_orders.rb", "", '''class AddShippingTimeWindowToOrders < ActiveRecord::Migration[7.1]
  def change
    add_column :orders, :delivery_window_hours, :integer
  end
end
''')],
     "an integer column; the suffix rule covers date and datetime columns only")

r = rule("foreign-key-on-delete", "thoughtbot/guides/style/rails/README.md", "schema",
         "Set an explicit `on_delete` behavior for foreign keys.")
case(r, 1, "direct", D, [("db/migrate/20240412090000_create_line_items.rb", "", '''class CreateLineItems < ActiveRecord::Migration[7.1]
  def change
    create_table :line_items do |t|
      t.references :order, null: false, foreign_key: true
      t.integer :quantity, null: false
      t.timestamps
    end
  end
end
''')],
     "a foreign key without an on_delete behavior")
case(r, 2, "compliant", N, [("db/migrate/20240412090000_create_line_items.rb", "", '''class CreateLineItems < ActiveRecord::Migration[7.1]
  def change
    create_table :line_items do |t|
      t.references :order, null: false, foreign_key: { on_delete: :cascade }
      t.integer :quantity, null: false
      t.timestamps
    end
  end
end
''')],
     "the foreign key states on_delete")
case(r, 3, "indirect", I, [("db/migrate/20240412091000_add_coupon_to_orders.rb", "", '''class AddCouponToOrders < ActiveRecord::Migration[7.1]
  def change
    add_reference :orders, :coupon, index: true
    add_foreign_key :orders, :coupons
  end
end
''')],
     "add_foreign_key without on_delete: the behavior is left to the database default")

r = rule("private-controller-methods", "thoughtbot/guides/style/rails/README.md", "code style",
         "Use private instead of protected when defining controller methods.")
OC = '''class OrdersController < ApplicationController
  def show
    @order = find_order
  end

  private

  def find_order
    current_user.orders.find(params[:id])
  end
end
'''
case(r, 1, "direct", D, [("app/controllers/orders_controller.rb", OC, OC.replace("  private\n", "  protected\n"))],
     "controller helper methods made protected")
case(r, 2, "compliant", N, [("app/controllers/orders_controller.rb", OC, OC.replace(
     "    current_user.orders.find(params[:id])\n  end\n", "    current_user.orders.find(params[:id])\n  end\n\n  def order_params\n    params.require(:order).permit(:note)\n  end\n"))],
     "a new helper under private")
case(r, 3, "lookalike", N, [("app/models/order.rb", "class Order < ApplicationRecord\nend\n",
     "class Order < ApplicationRecord\n  def <=>(other)\n    total <=> other.total\n  end\n\n  protected\n\n  def total\n    line_items.sum(:amount_cents)\n  end\nend\n")],
     "protected in a model, where comparing with another instance needs it; the rule is about controllers")

r = rule("times-stored-utc-zone-aware", "ProctorU/guides/style/ruby/README.md", "time",
         "Times & Dates should always be stored as UTC in the database. We should _never_ store times with offsets. "
         "Do Not Use: Time.now, Date.today, Date.today.to_time, Time.parse(...). Do Use: Time.current, "
         "Time.zone.today, Date.current, Time.zone.parse(...).")
EXAM = '''class ExamSession < ApplicationRecord
  def start!
    update!(started_at: Time.current)
  end
end
'''
case(r, 1, "direct", D, [("app/models/exam_session.rb", EXAM, EXAM.replace("Time.current", "Time.now"))],
     "Time.now, which the guide lists under Do Not Use")
case(r, 2, "direct", D, [("app/services/schedule_import.rb", "", '''class ScheduleImport
  def call(row)
    ExamSession.create!(scheduled_at: Time.parse(row["start"]))
  end
end
''')],
     "Time.parse, on the guide's Do Not Use list: it ignores the application time zone")
case(r, 3, "compliant", N, [("app/models/exam_session.rb", EXAM, EXAM.replace(
     "    update!(started_at: Time.current)\n  end\n", "    update!(started_at: Time.current)\n  end\n\n  def due_today?\n    due_on == Date.current\n  end\n"))],
     "Date.current, on the Do Use list")
case(r, 4, "exempt", N, [("test/models/exam_session_test.rb", "", '''require "test_helper"

class ExamSessionTest < ActiveSupport::TestCase
  test "start! records a UTC time" do
    Time.use_zone("America/Denver") { exam_sessions(:draft).start! }
    assert_equal "UTC", exam_sessions(:draft).reload.started_at.zone
  end
end
''')],
     "a test using the zone helper the guide itself recommends")

r = rule("no-bypassing-validations", "hydal/guides/best-practices/rails/README.md", "data integrity",
         "Avoid bypassing validations with methods like `save(validate: false)`, `update_attribute`, and `toggle`.")
ACC = '''class Account < ApplicationRecord
  validates :email, presence: true, uniqueness: true

  def confirm!
    update!(confirmed_at: Time.current)
  end
end
'''
case(r, 1, "direct", D, [("app/models/account.rb", ACC, ACC.replace("update!(confirmed_at: Time.current)", "update_attribute(:confirmed_at, Time.current)"))],
     "update_attribute, which skips validations")
case(r, 2, "direct", D, [("app/services/account_merge.rb", "", '''class AccountMerge
  def call(from, into)
    into.email = from.email
    into.save(validate: false)
  end
end
''')],
     "save(validate: false)")
case(r, 3, "compliant", N, [("app/models/account.rb", ACC, ACC.replace(
     "    update!(confirmed_at: Time.current)\n  end\n", "    update!(confirmed_at: Time.current)\n  end\n\n  def lock!\n    update!(locked: true)\n  end\n"))],
     "validated update!")

r = rule("vavr-option-not-null", "JetBrains/bazel-bsp/docs/dev/CONTRIBUTING.md", "null handling",
         "`null` is bad, if something may be nullable / may not exist use `io.vavr.control.Option`.")
TR = '''package org.jetbrains.bsp.bazel.server.sync;

import io.vavr.collection.List;
import io.vavr.control.Option;

public class TargetRegistry {
  private final List<BuildTarget> targets;

  public TargetRegistry(List<BuildTarget> targets) {
    this.targets = targets;
  }

  public Option<BuildTarget> find(String label) {
    return targets.find(t -> t.label().equals(label));
  }
}
'''
case(r, 1, "direct", D, [("server/src/main/java/org/jetbrains/bsp/bazel/server/sync/TargetRegistry.java", TR, TR.replace(
     "    return targets.find(t -> t.label().equals(label));\n  }\n",
     "    return targets.find(t -> t.label().equals(label));\n  }\n\n  public BuildTarget findByPath(String path) {\n"
     "    for (BuildTarget t : targets) {\n      if (t.baseDirectory().equals(path)) return t;\n    }\n    return null;\n  }\n"))],
     "a new lookup returns null for a missing target instead of Option")
case(r, 2, "compliant", N, [("server/src/main/java/org/jetbrains/bsp/bazel/server/sync/TargetRegistry.java", TR, TR.replace(
     "    return targets.find(t -> t.label().equals(label));\n  }\n",
     "    return targets.find(t -> t.label().equals(label));\n  }\n\n  public Option<BuildTarget> findByPath(String path) {\n"
     "    return targets.find(t -> t.baseDirectory().equals(path));\n  }\n"))],
     "the new lookup returns Option")
case(r, 3, "indirect", I, [("server/src/main/java/org/jetbrains/bsp/bazel/server/sync/TargetRegistry.java", TR, TR.replace(
     "    return targets.find(t -> t.label().equals(label));\n  }\n",
     "    return targets.find(t -> t.label().equals(label));\n  }\n\n  public BuildTarget findOrDefault(String label) {\n"
     "    return find(label).getOrNull();\n  }\n"))],
     "the Option is unwrapped back into a nullable value handed to callers")

r = rule("no-author-javadoc-tag", "mung3r/MyWarp/CONTRIBUTING.md", "code style",
         "MyWarp follows the Google coding conventions with a few modifications: ... The `@author` tag in java-docs "
         "is forbidden.")
WP = '''/*
 * Copyright (C) 2011 - 2019, MyWarp team and contributors
 * This file is part of MyWarp, licensed under the GNU General Public License v3.
 */

package me.taylorkelly.mywarp.warp;

/**
 * Thrown when a warp with a given name does not exist.
 */
public class NoSuchWarpException extends Exception {

  public NoSuchWarpException(String name) {
    super("No warp named " + name);
  }
}
'''
case(r, 1, "direct", D, [("mywarp-core/src/main/java/me/taylorkelly/mywarp/warp/NoSuchWarpException.java", WP, WP.replace(
     " * Thrown when a warp with a given name does not exist.\n", " * Thrown when a warp with a given name does not exist.\n *\n * @author jdoe\n"))],
     "an @author tag added to a javadoc")
case(r, 2, "compliant", N, [("mywarp-core/src/main/java/me/taylorkelly/mywarp/warp/NoSuchWarpException.java", WP, WP.replace(
     "  public NoSuchWarpException(String name) {\n",
     "  /**\n   * Creates an instance for the given warp name.\n   *\n   * @param name the name that was looked up\n   */\n  public NoSuchWarpException(String name) {\n"))],
     "a javadoc with @param only")
case(r, 3, "lookalike", N, [("mywarp-core/src/main/java/me/taylorkelly/mywarp/warp/Warp.java", "", WP.split("package")[0] + '''package me.taylorkelly.mywarp.warp;

/**
 * A named location. See {@link #getCreator()} for the player who made it.
 */
public interface Warp {

  /**
   * Gets the author of this warp, that is the player who created it.
   *
   * @return the creator's profile
   */
  PlayerProfile getCreator();
}
''')],
     "javadoc text using the word 'author' about the warp's creator; no @author tag")

r = rule("license-header-required", "mung3r/MyWarp/CONTRIBUTING.md", "legal",
         "All files must have the license header that can be found in `config/checkstyle/header.txt`.")
case(r, 1, "direct", D, [("mywarp-core/src/main/java/me/taylorkelly/mywarp/warp/WarpCooldown.java", "", '''package me.taylorkelly.mywarp.warp;

import java.time.Duration;

/**
 * A cooldown applied after warping.
 */
public final class WarpCooldown {
  private final Duration duration;

  public WarpCooldown(Duration duration) {
    this.duration = duration;
  }
}
''')],
     "a new source file without the license header")
case(r, 2, "compliant", N, [("mywarp-core/src/main/java/me/taylorkelly/mywarp/warp/WarpCooldown.java", "", WP.split("package")[0] + '''package me.taylorkelly.mywarp.warp;

import java.time.Duration;

/**
 * A cooldown applied after warping.
 */
public final class WarpCooldown {
  private final Duration duration;

  public WarpCooldown(Duration duration) {
    this.duration = duration;
  }
}
''')],
     "the new file starts with the license header")
case(r, 3, "indirect", I, [("mywarp-core/src/main/java/me/taylorkelly/mywarp/warp/NoSuchWarpException.java", WP,
     "package" + WP.split("package", 1)[1])],
     "a cleanup drops the header from an existing file")

r = rule("no-return-null", "celestial-mc/celestial/CONTRIBUTING.md", "null handling",
         "Use `java.util.Optional` instead of null unless returning null if argument is null. No `return null;` statements.")
RES = '''package dev.celestial.api.resource;

import java.util.Map;
import java.util.Optional;
import org.jetbrains.annotations.NotNull;

public final class ResourceRegistry {
  private final Map<String, Resource> resources;

  public ResourceRegistry(@NotNull Map<String, Resource> resources) {
    this.resources = resources;
  }

  public @NotNull Optional<Resource> get(@NotNull String id) {
    return Optional.ofNullable(resources.get(id));
  }
}
'''
case(r, 1, "direct", D, [("api/src/main/java/dev/celestial/api/resource/ResourceRegistry.java", RES, RES.replace(
     "    return Optional.ofNullable(resources.get(id));\n  }\n",
     "    return Optional.ofNullable(resources.get(id));\n  }\n\n  public Resource first() {\n"
     "    if (resources.isEmpty()) {\n      return null;\n    }\n    return resources.values().iterator().next();\n  }\n"))],
     "a `return null;` for an empty registry instead of Optional")
case(r, 2, "compliant", N, [("api/src/main/java/dev/celestial/api/resource/ResourceRegistry.java", RES, RES.replace(
     "    return Optional.ofNullable(resources.get(id));\n  }\n",
     "    return Optional.ofNullable(resources.get(id));\n  }\n\n  public @NotNull Optional<Resource> first() {\n"
     "    return resources.values().stream().findFirst();\n  }\n"))],
     "the new method returns Optional")
case(r, 3, "exempt", N, [("api/src/main/java/dev/celestial/api/resource/ResourceIds.java", "", '''package dev.celestial.api.resource;

import org.jetbrains.annotations.Contract;
import org.jetbrains.annotations.Nullable;

public final class ResourceIds {
  private ResourceIds() {}

  @Contract("null -> null")
  public static @Nullable String normalize(@Nullable String id) {
    if (id == null) {
      return null;
    }
    return id.trim().toLowerCase(java.util.Locale.ROOT);
  }
}
''')],
     "returns null only when the argument is null, the case the rule allows")
case(r, 4, "indirect", I, [("api/src/main/java/dev/celestial/api/resource/ResourceRegistry.java", RES, RES.replace(
     "    return Optional.ofNullable(resources.get(id));\n  }\n",
     "    return Optional.ofNullable(resources.get(id));\n  }\n\n  public Resource require(@NotNull String id) {\n"
     "    return get(id).orElse(null);\n  }\n"))],
     "no literal `return null;`, but the method hands out null instead of an Optional")

r = rule("public-api-javadocs", "celestial-mc/celestial/CONTRIBUTING.md", "documentation",
         "Public packages, classes, methods, inner classes and public or protected fields must have javadocs.")
case(r, 1, "direct", D, [("api/src/main/java/dev/celestial/api/resource/ResourceRegistry.java", RES, RES.replace(
     "    return Optional.ofNullable(resources.get(id));\n  }\n",
     "    return Optional.ofNullable(resources.get(id));\n  }\n\n  public int size() {\n    return resources.size();\n  }\n"))],
     "a new public method with no javadoc")
case(r, 2, "compliant", N, [("api/src/main/java/dev/celestial/api/resource/ResourceRegistry.java", RES, RES.replace(
     "    return Optional.ofNullable(resources.get(id));\n  }\n",
     "    return Optional.ofNullable(resources.get(id));\n  }\n\n  /**\n   * Returns the number of registered resources.\n   *\n"
     "   * @return the resource count\n   */\n  public int size() {\n    return resources.size();\n  }\n"))],
     "the new public method is documented")
case(r, 3, "exempt", N, [("api/src/main/java/dev/celestial/api/resource/ResourceRegistry.java", RES, RES.replace(
     "    return Optional.ofNullable(resources.get(id));\n  }\n",
     "    return Optional.ofNullable(resources.get(id));\n  }\n\n  private boolean has(String id) {\n    return resources.containsKey(id);\n  }\n"))],
     "a private method, outside the rule's public/protected scope")

r = rule("tracing-not-println", "artrixdotdev/tortillas/CONTRIBUTING.md", "logging",
         "We use tracing for logging. ... Why? Always use tracing macros instead of println!")
PEER = '''use tracing::{debug, info};

use crate::peer::{Peer, PeerId};

pub async fn connect(peer: &Peer) -> anyhow::Result<PeerId> {
    debug!(addr = %peer.addr, "connecting to peer");
    let id = peer.handshake().await?;
    info!(%id, "peer connected");
    Ok(id)
}
'''
case(r, 1, "direct", D, [("crates/libtortillas/src/peer/connect.rs", PEER, PEER.replace(
     "    let id = peer.handshake().await?;\n", "    let id = peer.handshake().await?;\n    println!(\"handshake done with {}\", peer.addr);\n"))],
     "println! in library code instead of a tracing macro")
case(r, 2, "indirect", I, [("crates/libtortillas/src/tracker/announce.rs", "", '''use std::io::Write;

pub fn log_announce(url: &str, peers: usize) {
    let _ = writeln!(std::io::stderr(), "announced to {url}: {peers} peers");
}
''')],
     "logging by writing to stderr directly: output outside tracing without the println! name")
case(r, 3, "compliant", N, [("crates/libtortillas/src/peer/connect.rs", PEER, PEER.replace(
     "    let id = peer.handshake().await?;\n", "    let id = peer.handshake().await?;\n    debug!(addr = %peer.addr, \"handshake done\");\n"))],
     "a tracing macro")
case(r, 4, "lookalike", N, [("crates/tortillas-cli/src/main.rs", "", '''use clap::Parser;

#[derive(Parser)]
struct Args {
    magnet: String,
}

fn main() {
    let args = Args::parse();
    // user-facing CLI output, not logging
    println!("Added torrent: {}", args.magnet);
}
''')],
     "println! for a CLI's user-facing output, not logging")

r = rule("tracing-structured-fields", "artrixdotdev/tortillas/CONTRIBUTING.md", "logging",
         "Good logging: `info!(my_var, \"We have a variable\");` Bad logging: `info!(\"My variable is {}\", my_var);` "
         "Why? Tracing actually stores logs in a json-like format. Formatting variables into the string makes harder "
         "to search for them later on.")
case(r, 1, "direct", D, [("crates/libtortillas/src/peer/connect.rs", PEER, PEER.replace(
     '    info!(%id, "peer connected");\n', '    info!("peer {} connected from {}", id, peer.addr);\n'))],
     "variables formatted into the message instead of recorded as fields")
case(r, 2, "compliant", N, [("crates/libtortillas/src/peer/connect.rs", PEER, PEER.replace(
     '    info!(%id, "peer connected");\n', '    info!(%id, addr = %peer.addr, "peer connected");\n'))],
     "the extra value is a field")
case(r, 3, "lookalike", N, [("crates/libtortillas/src/peer/connect.rs", PEER, PEER.replace(
     '    debug!(addr = %peer.addr, "connecting to peer");\n', '    debug!(addr = %peer.addr, "connecting to peer {{retrying}}");\n'))],
     "braces in the message are escaped literal text, not a formatted variable")

r = rule("changelog-unreleased-entry", "obmarg/cynic/CONTRIBUTING.md", "process",
         "Update CHANGELOG.md with a new entry for your changes (under unreleased)")
CL = "# Changelog\n\n## Unreleased\n\n### Bug Fixes\n\n- Fixed `Option` handling in `InputObject` derive.\n\n## v3.7.0 - 2024-05-02\n\n### New Features\n\n- Added `cynic::Id::inner`.\n"
LIBRS = '''/// Options for the query builder.
pub struct QueryOptions {
    pub operation_name: Option<String>,
}
'''
NEW_LIBRS = LIBRS.replace("    pub operation_name: Option<String>,\n", "    pub operation_name: Option<String>,\n    pub variables_as_json: bool,\n")
case(r, 1, "direct", D, [("cynic/src/options.rs", LIBRS, NEW_LIBRS)],
     "a new public option with no CHANGELOG entry")
case(r, 2, "compliant", N, [("cynic/src/options.rs", LIBRS, NEW_LIBRS),
     ("CHANGELOG.md", CL, CL.replace("## Unreleased\n\n", "## Unreleased\n\n### New Features\n\n- Added `QueryOptions::variables_as_json`.\n\n"))],
     "the change with an entry under Unreleased")
case(r, 3, "indirect", I, [("cynic/src/options.rs", LIBRS, NEW_LIBRS),
     ("CHANGELOG.md", CL, CL.replace("- Added `cynic::Id::inner`.\n", "- Added `cynic::Id::inner`.\n- Added `QueryOptions::variables_as_json`.\n"))],
     "the entry is added to the already released v3.7.0 section, not under Unreleased")

r = rule("paths-relative-to-script", "pt-immer/supplychain-builder/CONTRIBUTING.md", "shell",
         "Shell Script Standards: Use `bash` with `set -euo pipefail`. Quote variable expansions. Resolve paths "
         "relative to script location where file coupling exists.")
SH = '''#!/usr/bin/env bash
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "${SCRIPT_DIR}/../lib/common.sh"

build_package "${1:?package name}"
'''
case(r, 1, "direct", D, [("ubuntu24.04/build/build.sh", SH, SH.replace(
     'build_package "${1:?package name}"\n', 'build_package "${1:?package name}"\ncp ../installer/verify.sh "${OUT_DIR}/"\n'))],
     "a coupled file copied by a path relative to the caller's working directory")
case(r, 2, "compliant", N, [("ubuntu24.04/build/build.sh", SH, SH.replace(
     'build_package "${1:?package name}"\n', 'build_package "${1:?package name}"\ncp "${SCRIPT_DIR}/../installer/verify.sh" "${OUT_DIR}/"\n'))],
     "the coupled file resolved from the script's location")
case(r, 3, "indirect", I, [("ubuntu24.04/build/build.sh", SH, SH.replace(
     'SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\nsource "${SCRIPT_DIR}/../lib/common.sh"\n',
     'cd "$(git rev-parse --show-toplevel)/ubuntu24.04"\nsource lib/common.sh\n'))],
     "the script depends on git and a cd instead of its own location to find its library")

r = rule("go-acronyms-capitalised", "thrasher-corp/gocryptotrader/.github/CONTRIBUTING.md", "naming",
         "Function names use PascalCase (func SomeFunc()). Function names using acronyms are capitilised "
         "(func SendHTTPRequest()).")
EX = '''package kraken

import "context"

// GetServerTime returns the exchange server time.
func (k *Kraken) GetServerTime(ctx context.Context) (TimeResponse, error) {
	var resp TimeResponse
	return resp, k.SendHTTPRequest(ctx, "/public/Time", &resp)
}
'''
case(r, 1, "direct", D, [("exchanges/kraken/kraken_rest.go", EX, EX + '''
// GetWsToken returns a websocket authentication token.
func (k *Kraken) GetWsToken(ctx context.Context) (string, error) {
	var resp WsTokenResponse
	return resp.Token, k.SendAuthenticatedHttpRequest(ctx, "/private/GetWebSocketsToken", &resp)
}
''')],
     "GetWsToken and SendAuthenticatedHttpRequest do not capitalise the acronyms WS and HTTP")
case(r, 2, "compliant", N, [("exchanges/kraken/kraken_rest.go", EX, EX + '''
// GetWSToken returns a websocket authentication token.
func (k *Kraken) GetWSToken(ctx context.Context) (string, error) {
	var resp WSTokenResponse
	return resp.Token, k.SendAuthenticatedHTTPRequest(ctx, "/private/GetWebSocketsToken", &resp)
}
''')],
     "acronyms capitalised")
case(r, 3, "lookalike", N, [("exchanges/kraken/kraken_rest.go", EX, EX.replace(
     'k.SendHTTPRequest(ctx, "/public/Time", &resp)', 'k.SendHTTPRequest(ctx, "/public/Time", &resp) // path is case sensitive: "Time"'))],
     "a mixed-case string literal for an API path; no function is named")


# ==== (c) lint configurations a project enables ===========================================

r = rule("eslint-no-eval", "GabrielAlmeidaFlores/nestjs-starter-architecture/eslint-config/core/conventions/javascript.js",
         "security", "Disallow the use of `eval()` (no-eval) and disallow the use of `eval()`-like methods (no-implied-eval).")
RULEJS = '''import { Injectable } from '@nestjs/common';

@Injectable()
export class PricingRuleService {
  evaluate(rule: { field: string; op: '>' | '<'; value: number }, order: Record<string, number>): boolean {
    const actual = order[rule.field];
    return rule.op === '>' ? actual > rule.value : actual < rule.value;
  }
}
'''
case(r, 1, "direct", D, [("src/modules/pricing/pricing-rule.service.ts", RULEJS, RULEJS.replace(
     "  evaluate(rule: { field: string; op: '>' | '<'; value: number }, order: Record<string, number>): boolean {\n"
     "    const actual = order[rule.field];\n    return rule.op === '>' ? actual > rule.value : actual < rule.value;\n",
     "  evaluate(expression: string, order: Record<string, number>): boolean {\n"
     "    return eval(expression.replace(/\\$(\\w+)/g, (_, k) => String(order[k])));\n"))],
     "rule expressions evaluated with eval()")
case(r, 2, "indirect", I, [("src/modules/pricing/pricing-rule.service.ts", RULEJS, RULEJS.replace(
     "    const actual = order[rule.field];\n    return rule.op === '>' ? actual > rule.value : actual < rule.value;\n",
     "    const check = new Function('actual', `return actual ${rule.op} ${rule.value};`);\n    return check(order[rule.field]);\n"))],
     "new Function(...) compiles a string into code: an eval-like method the config also disallows")
case(r, 3, "indirect", I, [("src/modules/jobs/retry.ts", "", '''export function scheduleRetry(jobName: string, delayMs: number): void {
  setTimeout(`globalThis.jobs.run("${jobName}")`, delayMs);
}
''')],
     "setTimeout with a string argument is an implied eval")
case(r, 4, "compliant", N, [("src/modules/pricing/pricing-rule.service.ts", RULEJS, RULEJS.replace("'>' | '<'", "'>' | '<' | '>='").replace(
     "    return rule.op === '>' ? actual > rule.value : actual < rule.value;\n",
     "    if (rule.op === '>=') return actual >= rule.value;\n    return rule.op === '>' ? actual > rule.value : actual < rule.value;\n"))],
     "a new operator handled in code, no string evaluation")

r = rule("eslint-eqeqeq-always", "GabrielAlmeidaFlores/nestjs-starter-architecture/eslint-config/core/conventions/javascript.js",
         "code style", "Require the use of `===` and `!==` (eqeqeq: always).")
GUARD = '''import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';

@Injectable()
export class TenantGuard implements CanActivate {
  canActivate(ctx: ExecutionContext): boolean {
    const req = ctx.switchToHttp().getRequest();
    return req.user?.tenantId === req.params.tenantId;
  }
}
'''
case(r, 1, "direct", D, [("src/common/guards/tenant.guard.ts", GUARD, GUARD.replace("req.user?.tenantId === req.params.tenantId", "req.user?.tenantId == req.params.tenantId"))],
     "loose equality")
case(r, 2, "direct", D, [("src/modules/orders/orders.util.ts", "", '''export function isUnpaid(order: { paidAt?: Date | null }): boolean {
  return order.paidAt == null;
}
''')],
     "`== null`: with eqeqeq set to always, even null comparisons must be strict")
case(r, 3, "compliant", N, [("src/common/guards/tenant.guard.ts", GUARD, GUARD.replace(
     "    return req.user?.tenantId === req.params.tenantId;\n",
     "    if (req.user?.role === 'admin') return true;\n    return req.user?.tenantId === req.params.tenantId;\n"))],
     "strict equality")

r = rule("eslint-no-path-concat", "erickmerchant/eslint-config/index.js", "node",
         "Disallow string concatenation with `__dirname` and `__filename` (no-path-concat).")
SRV = '''const path = require('path')
const fs = require('fs')

const templateDir = path.join(__dirname, 'templates')

module.exports = function render (name) {
  return fs.readFileSync(path.join(templateDir, name + '.html'), 'utf8')
}
'''
case(r, 1, "direct", D, [("src/render.js", SRV, SRV.replace("const templateDir = path.join(__dirname, 'templates')", "const templateDir = __dirname + '/templates'"))],
     "a path built by concatenating __dirname")
case(r, 2, "indirect", I, [("src/assets.js", "", '''const fs = require('fs')

module.exports = () => fs.readFileSync(`${__dirname}/static/app.css`, 'utf8')
''')],
     "__dirname joined into a path through a template literal: string concatenation by another syntax")
case(r, 3, "compliant", N, [("src/assets.js", "", '''const fs = require('fs')
const path = require('path')

module.exports = () => fs.readFileSync(path.join(__dirname, 'static', 'app.css'), 'utf8')
''')],
     "path.join")
case(r, 4, "lookalike", N, [("src/render.js", SRV, SRV.replace("name + '.html'", "`${name}.html`"))],
     "string building for a file name, not with __dirname")

r = rule("eslint-handle-callback-err", "erickmerchant/eslint-config/index.js", "error handling",
         "Require error handling in callbacks (handle-callback-err).")
CB = '''const fs = require('fs')

module.exports = function loadConfig (file, done) {
  fs.readFile(file, 'utf8', (err, text) => {
    if (err) return done(err)
    done(null, JSON.parse(text))
  })
}
'''
case(r, 1, "direct", D, [("src/config.js", CB, CB.replace("    if (err) return done(err)\n", ""))],
     "the callback's err is ignored")
case(r, 2, "indirect", I, [("src/watch.js", "", '''const fs = require('fs')

module.exports = function watch (file, onChange) {
  fs.stat(file, (err, stats) => {
    onChange(stats.mtimeMs)
  })
}
''')],
     "a new callback takes err and never handles it")
case(r, 3, "compliant", N, [("src/watch.js", "", '''const fs = require('fs')

module.exports = function watch (file, onChange) {
  fs.stat(file, (err, stats) => {
    if (err) return onChange(err)
    onChange(null, stats.mtimeMs)
  })
}
''')],
     "err handled first")

r = rule("clippy-expect-used", "mkpro118/prisma-rs/src/lib.rs", "error handling",
         "#![deny(clippy::expect_used)] // using deny so that test code can use it. Checks for `.expect()` or "
         "`.expect_err()` calls on `Result`s and `Option`s.")
LEX = '''use crate::core::scanner::{Token, TokenKind};

pub struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
}

impl<'a> Lexer<'a> {
    pub fn next_token(&mut self) -> Result<Token, LexError> {
        let c = self.chars.next().ok_or(LexError::Eof)?;
        Ok(Token::new(TokenKind::from_char(c)))
    }
}
'''
case(r, 1, "direct", D, [("src/core/scanner/lexer.rs", LEX, LEX.replace(
     "        let c = self.chars.next().ok_or(LexError::Eof)?;\n", "        let c = self.chars.next().expect(\"lexer called past end of input\");\n"))],
     ".expect() in library code")
case(r, 2, "compliant", N, [("src/core/scanner/lexer.rs", LEX, LEX.replace(
     "        Ok(Token::new(TokenKind::from_char(c)))\n", "        let kind = TokenKind::try_from_char(c).ok_or(LexError::Unexpected(c))?;\n        Ok(Token::new(kind))\n"))],
     "errors propagated with ?")
case(r, 3, "exempt", N, [("src/core/scanner/lexer.rs", LEX, LEX + '''
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexes_brace() {
        let mut lx = Lexer::new("{");
        assert_eq!(lx.next_token().expect("one token").kind(), TokenKind::LeftBrace);
    }
}
''')],
     "expect in test code, which the deny (not forbid) is set up to allow")

r = rule("stylelint-no-important", "mohdsazidkhan/eshop-test/.stylelintrc.js", "css",
         "Disallow `!important` within declarations (declaration-no-important).")
CSS = '''.product-card {
  display: flex;
  flex-direction: column;
  padding: 1rem;
}

.product-card__price {
  color: var(--color-accent);
  font-weight: 600;
}
'''
case(r, 1, "direct", D, [("src/styles/product-card.css", CSS, CSS.replace("  color: var(--color-accent);\n", "  color: var(--color-accent) !important;\n"))],
     "!important in a declaration")
case(r, 2, "compliant", N, [("src/styles/product-card.css", CSS, CSS + "\n.product-card--sale .product-card__price {\n  color: var(--color-sale);\n}\n")],
     "a more specific selector instead of !important")
case(r, 3, "indirect", I, [("src/components/ProductCard.jsx", "", '''export function ProductCard({ product }) {
  return (
    <div className="product-card">
      <span className="product-card__price" ref={(el) => el && el.style.setProperty('color', 'red', 'important')}>
        {product.price}
      </span>
    </div>
  );
}
''')],
     "the !important priority set from script, bypassing the stylesheet rule")
case(r, 4, "lookalike", N, [("src/styles/product-card.css", CSS, CSS.replace(".product-card__price {\n", "/* important: keep price bold for accessibility */\n.product-card__price {\n"))],
     "the word important in a comment")

r = rule("stylelint-no-vendor-prefix", "CrxusDonts/teacherApp/src/frontend/stylelint.config.js", "css",
         "不要使用已被 autoprefixer 支持的浏览器前缀 (do not use browser prefixes that autoprefixer supports): "
         "media-feature-name-no-vendor-prefix, at-rule-no-vendor-prefix, selector-no-vendor-prefix, "
         "property-no-vendor-prefix, value-no-vendor-prefix.")
SCSS = '''.lesson-list {
  display: flex;
  gap: 12px;

  &__item {
    user-select: none;
    transition: transform 0.2s;
  }
}
'''
case(r, 1, "direct", D, [("src/frontend/src/styles/lesson-list.scss", SCSS, SCSS.replace("    user-select: none;\n", "    -webkit-user-select: none;\n    user-select: none;\n"))],
     "a vendor-prefixed property")
case(r, 2, "direct", D, [("src/frontend/src/styles/lesson-list.scss", SCSS, SCSS.replace("  display: flex;\n", "  display: -webkit-box;\n  display: flex;\n"))],
     "a vendor-prefixed value")
case(r, 3, "compliant", N, [("src/frontend/src/styles/lesson-list.scss", SCSS, SCSS.replace("    transition: transform 0.2s;\n", "    transition: transform 0.2s;\n    backdrop-filter: blur(4px);\n"))],
     "an unprefixed property; autoprefixer adds prefixes at build")

r = rule("go-no-time-sleep", "0spoon/seam/.golangci.yml", "concurrency",
         "forbidigo: ^time\\.Sleep$ — \"no time.Sleep for synchronization. Use channels, sync.WaitGroup, or "
         "t.Eventually.\" (exclude-rules: path _test\\.go, linters forbidigo)")
WS = '''package hub

import "context"

// Broadcast sends msg to every connected client and waits until all have accepted it.
func (h *Hub) Broadcast(ctx context.Context, msg []byte) error {
	done := make(chan struct{}, len(h.clients))
	for _, c := range h.clients {
		go func(c *Client) {
			c.send <- msg
			done <- struct{}{}
		}(c)
	}
	for range h.clients {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
'''
case(r, 1, "direct", D, [("internal/hub/broadcast.go", WS, WS.replace(
     '''	for range h.clients {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
''', '''	time.Sleep(50 * time.Millisecond) // give the senders time to finish
	return nil
''').replace('import "context"', 'import (\n\t"context"\n\t"time"\n)'))],
     "time.Sleep used to wait for goroutines in production code")
case(r, 2, "exempt", N, [("internal/hub/broadcast_test.go", "", '''package hub

import (
	"testing"
	"time"
)

func TestBroadcastSlowClient(t *testing.T) {
	h := newTestHub(t, 2)
	time.Sleep(10 * time.Millisecond) // simulate a client that connects late
	if err := h.Broadcast(ctx, []byte("hi")); err != nil {
		t.Fatal(err)
	}
}
''')],
     "time.Sleep in a _test.go file, which the config excludes from forbidigo")
case(r, 3, "compliant", N, [("internal/hub/broadcast.go", WS, WS.replace("	return nil\n}\n", "	h.metrics.broadcasts.Inc()\n	return nil\n}\n"))],
     "a metric; synchronization stays on channels")
case(r, 4, "indirect", I, [("internal/hub/broadcast.go", WS, WS.replace(
     '''	for range h.clients {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
''', '''	<-time.After(50 * time.Millisecond) // give the senders time to finish
''').replace('import "context"', 'import (\n\t"context"\n\t"time"\n)'))],
     "waiting a fixed time with time.After instead of on the done channel: sleep-based synchronization by another name")
r = rule("go-no-ulid-mustnew", "0spoon/seam/.golangci.yml", "error handling",
         "forbidigo: ^ulid\\.MustNew$ — \"use ulid.New + error handling. ulid.MustNew panics on entropy failure.\"")
NOTE = '''package note

import (
	"crypto/rand"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"
)

// NewID returns a fresh note ID.
func NewID() (string, error) {
	id, err := ulid.New(ulid.Timestamp(time.Now()), rand.Reader)
	if err != nil {
		return "", fmt.Errorf("note id: %w", err)
	}
	return id.String(), nil
}
'''
case(r, 1, "direct", D, [("internal/note/id.go", NOTE, NOTE + '''
// NewLinkID returns an ID for a note link.
func NewLinkID() string {
	return ulid.MustNew(ulid.Timestamp(time.Now()), rand.Reader).String()
}
''')],
     "ulid.MustNew in new code")
case(r, 2, "compliant", N, [("internal/note/id.go", NOTE, NOTE + '''
// NewLinkID returns an ID for a note link.
func NewLinkID() (string, error) {
	return NewID()
}
''')],
     "reuses ulid.New with error handling")
case(r, 3, "indirect", I, [("internal/note/id.go", NOTE, NOTE + '''
// MustID is NewID for call sites that cannot fail.
func MustID() string {
	id, err := NewID()
	if err != nil {
		panic(err)
	}
	return id
}
''')],
     "a home-made MustNew: entropy failure panics again, which the ban exists to prevent")
case(r, 4, "exempt", N, [("internal/note/id_test.go", "", '''package note

import (
	"crypto/rand"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

func TestParseID(t *testing.T) {
	fixed := ulid.MustNew(ulid.Timestamp(time.Unix(0, 0)), rand.Reader)
	if _, err := ulid.Parse(fixed.String()); err != nil {
		t.Fatal(err)
	}
}
''')],
     "MustNew in a test fixture; the config excludes _test.go from forbidigo")

r = rule("go-errors-is-not-equality", "0spoon/seam/.golangci.yml", "error handling",
         "errorlint — catches `err == ErrXxx` and `err == sql.ErrNoRows` (comparison: true); use errors.Is so that "
         "wrapped errors match.")
GET = '''package store

import (
	"context"
	"database/sql"
	"errors"
)

func (s *Store) GetNote(ctx context.Context, id string) (*Note, error) {
	var n Note
	err := s.db.QueryRowContext(ctx, `SELECT id, title FROM notes WHERE id = ?`, id).Scan(&n.ID, &n.Title)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return &n, err
}
'''
case(r, 1, "direct", D, [("internal/store/notes.go", GET, GET.replace("if errors.Is(err, sql.ErrNoRows) {", "if err == sql.ErrNoRows {").replace('\t"errors"\n', ""))],
     "comparison with == against a sentinel error")
case(r, 2, "indirect", I, [("internal/api/notes.go", "", '''package api

import (
	"net/http"

	"seam/internal/store"
)

func (h *Handler) getNote(w http.ResponseWriter, r *http.Request) {
	n, err := h.store.GetNote(r.Context(), r.PathValue("id"))
	switch err {
	case nil:
		writeJSON(w, n)
	case store.ErrNotFound:
		http.NotFound(w, r)
	default:
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}
''')],
     "a switch on err compares by equality, so a wrapped ErrNotFound falls through to 500")
case(r, 3, "compliant", N, [("internal/store/notes.go", GET, GET.replace("		return nil, ErrNotFound\n", "		return nil, fmt.Errorf(\"note %s: %w\", id, ErrNotFound)\n").replace('\t"errors"\n', '\t"errors"\n\t"fmt"\n'))],
     "wraps with %w and still matches with errors.Is")
case(r, 4, "lookalike", N, [("internal/store/notes.go", GET, GET.replace("	return &n, err\n", "	if err != nil {\n		return nil, err\n	}\n	return &n, nil\n"))],
     "`err != nil` is a nil check, not a comparison with a sentinel")

r = rule("go-sql-rows-closed", "0spoon/seam/.golangci.yml", "resources",
         "sqlclosecheck — missing rows.Close() / stmt.Close(); rowserrcheck — missing rows.Err() after rows.Next().")
LST = '''package store

import "context"

func (s *Store) ListTags(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name FROM tags ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var tags []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		tags = append(tags, t)
	}
	return tags, rows.Err()
}
'''
case(r, 1, "direct", D, [("internal/store/tags.go", LST, LST.replace("	defer rows.Close()\n", ""))],
     "rows never closed")
case(r, 2, "direct", D, [("internal/store/tags.go", LST, LST.replace("	return tags, rows.Err()\n", "	return tags, nil\n"))],
     "rows.Err() no longer checked after the loop")
case(r, 3, "compliant", N, [("internal/store/tags.go", LST, LST.replace("`SELECT name FROM tags ORDER BY name`", "`SELECT name FROM tags WHERE deleted_at IS NULL ORDER BY name`"))],
     "a query change; Close and Err kept")

r = rule("rubocop-and-or", "greenriver/hmis-warehouse/.rubocop.yml", "code style",
         "Style/AndOr: Enabled: true — Use `&&` and `||` instead of `and` and `or`. (AllCops Exclude: 'db/**/*', "
         "'config/**/*', 'script/**/*')")
HC = '''class ClientsController < ApplicationController
  def show
    @client = Client.find(params[:id])
    redirect_to root_path unless can_view_client?(@client)
  end
end
'''
case(r, 1, "direct", D, [("app/controllers/clients_controller.rb", HC, HC.replace(
     "    redirect_to root_path unless can_view_client?(@client)\n",
     "    redirect_to root_path and return unless can_view_client?(@client) or current_user.admin?\n"))],
     "`and` / `or` as control flow in an included controller")
case(r, 2, "compliant", N, [("app/controllers/clients_controller.rb", HC, HC.replace(
     "    redirect_to root_path unless can_view_client?(@client)\n",
     "    return redirect_to(root_path) unless can_view_client?(@client) || current_user.admin?\n"))],
     "`||` and an explicit return")
case(r, 3, "exempt", N, [("db/migrate/20240301000000_backfill_enrollment_dates.rb", "", '''class BackfillEnrollmentDates < ActiveRecord::Migration[7.0]
  def up
    Enrollment.where(entry_date: nil).find_each do |e|
      e.update_columns(entry_date: e.created_at.to_date) if e.created_at and e.project_id
    end
  end
end
''')],
     "`and` in db/, which the config excludes from RuboCop")

r = rule("rubocop-rescue-standard-error", "greenriver/hmis-warehouse/.rubocop.yml", "error handling",
         "Style/RescueStandardError: Enabled: true — checks for rescuing `StandardError`; with the default "
         "`explicit` style, write `rescue StandardError` instead of a bare `rescue`.")
JOB = '''class ImportHmisJob < BaseJob
  def perform(upload_id)
    Importers::HmisTwentyTwenty::Base.new(upload_id: upload_id).import!
  rescue StandardError => e
    Rails.logger.error("HMIS import #{upload_id} failed: #{e.class}")
    raise
  end
end
'''
case(r, 1, "direct", D, [("app/jobs/import_hmis_job.rb", JOB, JOB.replace("  rescue StandardError => e\n", "  rescue => e\n"))],
     "a bare rescue in an included job")
case(r, 2, "indirect", I, [("app/jobs/export_job.rb", "", '''class ExportJob < BaseJob
  def perform(export_id)
    Exporters::Csv.new(export_id).run! rescue Rails.logger.warn("export #{export_id} failed")
  end
end
''')],
     "a rescue modifier, which rescues StandardError implicitly")
case(r, 3, "compliant", N, [("app/jobs/import_hmis_job.rb", JOB, JOB.replace(
     "  rescue StandardError => e\n", "  rescue ActiveRecord::RecordNotFound\n    nil\n  rescue StandardError => e\n"))],
     "specific and explicit rescues")

r = rule("detekt-too-generic-exception-thrown", "AdamMc331/CashCaretaker/config/detekt/detekt.yml", "error handling",
         "TooGenericExceptionThrown: active: true — exceptionNames: Error, Exception, Throwable, RuntimeException. "
         "Reports methods that throw a generic exception; throw a specific one instead.")
REPOK = '''package com.adammcneilly.cashcaretaker.account

class AccountRepository(private val dao: AccountDao) {

    suspend fun fetchAccount(name: String): Account =
        dao.findByName(name) ?: throw AccountNotFoundException(name)
}
'''
case(r, 1, "direct", D, [("app/src/main/java/com/adammcneilly/cashcaretaker/account/AccountRepository.kt", REPOK, REPOK.replace(
     "throw AccountNotFoundException(name)", "throw Exception(\"No account named $name\")"))],
     "throws a generic Exception")
case(r, 2, "direct", D, [("app/src/main/java/com/adammcneilly/cashcaretaker/transaction/TransferUseCase.kt", "", '''package com.adammcneilly.cashcaretaker.transaction

class TransferUseCase(private val repo: TransactionRepository) {

    suspend operator fun invoke(amount: Double) {
        if (amount <= 0) throw RuntimeException("Transfer amount must be positive")
        repo.transfer(amount)
    }
}
''')],
     "throws RuntimeException")
case(r, 3, "compliant", N, [("app/src/main/java/com/adammcneilly/cashcaretaker/transaction/TransferUseCase.kt", "", '''package com.adammcneilly.cashcaretaker.transaction

class TransferUseCase(private val repo: TransactionRepository) {

    suspend operator fun invoke(amount: Double) {
        require(amount > 0) { "Transfer amount must be positive" }
        repo.transfer(amount)
    }
}
''')],
     "require() throws IllegalArgumentException, which is not on the generic list")
case(r, 4, "lookalike", N, [("app/src/main/java/com/adammcneilly/cashcaretaker/account/AccountNotFoundException.kt", "", '''package com.adammcneilly.cashcaretaker.account

class AccountNotFoundException(name: String) : Exception("No account named $name")
''')],
     "a specific exception type extending Exception; nothing throws a generic one")

r = rule("detekt-return-count", "AdamMc331/CashCaretaker/config/detekt/detekt.yml", "complexity",
         "ReturnCount: active: true, max: 2, excludedFunctions: \"equals\", excludeReturnFromLambda: true — "
         "Restrict the number of return statements in methods.")
case(r, 1, "direct", D, [("app/src/main/java/com/adammcneilly/cashcaretaker/util/AmountParser.kt", "", '''package com.adammcneilly.cashcaretaker.util

object AmountParser {
    fun parse(input: String): Double? {
        if (input.isBlank()) return null
        val cleaned = input.replace("$", "").replace(",", "")
        if (cleaned.count { it == '.' } > 1) return null
        return cleaned.toDoubleOrNull()
    }
}
''')],
     "three return statements in one function, over the max of 2")
case(r, 2, "compliant", N, [("app/src/main/java/com/adammcneilly/cashcaretaker/util/AmountParser.kt", "", '''package com.adammcneilly.cashcaretaker.util

object AmountParser {
    fun parse(input: String): Double? {
        val cleaned = input.replace("$", "").replace(",", "")
        val valid = input.isNotBlank() && cleaned.count { it == '.' } <= 1
        return if (valid) cleaned.toDoubleOrNull() else null
    }
}
''')],
     "one return")
case(r, 3, "exempt", N, [("app/src/main/java/com/adammcneilly/cashcaretaker/account/Account.kt", "", '''package com.adammcneilly.cashcaretaker.account

class Account(val name: String, val balance: Double) {
    override fun equals(other: Any?): Boolean {
        if (this === other) return true
        if (other !is Account) return false
        if (name != other.name) return false
        return balance == other.balance
    }

    override fun hashCode(): Int = name.hashCode()
}
''')],
     "four returns in equals, which the config excludes")
case(r, 4, "exempt", N, [("app/src/main/java/com/adammcneilly/cashcaretaker/account/AccountFilter.kt", "", '''package com.adammcneilly.cashcaretaker.account

fun List<Account>.positive(): List<Account> = filter {
    if (it.balance.isNaN()) return@filter false
    if (it.balance <= 0) return@filter false
    return@filter true
}
''')],
     "returns from a lambda, excluded by excludeReturnFromLambda")

r = rule("shellcheck-require-variable-braces", "89luca89/distrobox/.shellcheckrc", "shell",
         "enable=all — enables optional checks, including SC2250 (require-variable-braces): Prefer putting braces "
         "around variable references even when not strictly required.")
DB = '''#!/bin/sh
# distrobox-stop: stop a running container
set -o errexit
set -o nounset

container_name="${1:-my-distrobox}"
container_manager="${DBX_CONTAINER_MANAGER:-podman}"

${container_manager} stop "${container_name}"
'''
case(r, 1, "direct", D, [("distrobox-stop", DB, DB.replace('${container_manager} stop "${container_name}"\n',
     'echo "Stopping $container_name..."\n${container_manager} stop "${container_name}"\n'))],
     "$container_name without braces")
case(r, 2, "compliant", N, [("distrobox-stop", DB, DB.replace('${container_manager} stop "${container_name}"\n',
     'printf "Stopping %s...\\n" "${container_name}"\n${container_manager} stop "${container_name}"\n'))],
     "braced references")
case(r, 3, "direct", D, [("distrobox-stop", DB, DB.replace(
     'container_manager="${DBX_CONTAINER_MANAGER:-podman}"\n',
     'container_manager="${DBX_CONTAINER_MANAGER:-podman}"\nlog_file=$HOME/.cache/distrobox-stop.log\n'))],
     "$HOME referenced without braces in a new assignment")
case(r, 4, "lookalike", N, [("docs/usage/distrobox-stop.md", "# distrobox-stop\n", "# distrobox-stop\n\n    distrobox-stop $NAME\n")],
     "a variable in Markdown docs; shellcheck applies to scripts")

r = rule("hadolint-copy-not-add", "9elements/firmware-action/.hadolint.yaml", "container",
         "Hadolint with DL3003, DL3006 and DL3018 ignored; DL3020 stays on: Use COPY instead of ADD for files and folders.")
DF = '''FROM ubuntu:22.04

RUN apt-get update && apt-get install -y --no-install-recommends make gcc && rm -rf /var/lib/apt/lists/*

COPY scripts/ /opt/scripts/
ENTRYPOINT ["/opt/scripts/entrypoint.sh"]
'''
case(r, 1, "direct", D, [("docker/coreboot/Dockerfile", DF, DF.replace("COPY scripts/ /opt/scripts/\n", "ADD scripts/ /opt/scripts/\n"))],
     "ADD for a local folder")
case(r, 2, "compliant", N, [("docker/coreboot/Dockerfile", DF, DF.replace("COPY scripts/ /opt/scripts/\n", "COPY scripts/ /opt/scripts/\nCOPY patches/ /opt/patches/\n"))],
     "COPY")
case(r, 3, "exempt", N, [("docker/coreboot/Dockerfile", DF, DF.replace("COPY scripts/ /opt/scripts/\n", "ADD toolchain-x86_64.tar.xz /opt/toolchain/\nCOPY scripts/ /opt/scripts/\n"))],
     "ADD of a local tar archive, which ADD extracts; DL3020 allows it for archives")

r = rule("markdownlint-no-inline-html", "0xz-0/engineering-standards/.markdownlint.json", "documentation",
         "\"MD033\": { \"allowed_elements\": [\"br\", \"details\", \"summary\"] } — Inline HTML (no-inline-html), except "
         "the allowed elements.")
MD = "# Code review standard\n\nEvery change needs one approving review.\n"
case(r, 1, "direct", D, [("standards/code-review.md", MD, MD + '\n<div align="center"><img src="flow.png" width="400"></div>\n')],
     "inline <div> and <img>, not on the allowed list")
case(r, 2, "exempt", N, [("standards/code-review.md", MD, MD + "\n<details>\n<summary>Why one review?</summary>\n\nSmall team; see the ADR.\n</details>\n")],
     "<details> and <summary>, both allowed")
case(r, 3, "compliant", N, [("standards/code-review.md", MD, MD + "\n![Review flow](flow.png)\n")],
     "a Markdown image instead of an <img> tag")
case(r, 4, "indirect", I, [("standards/code-review.md", MD, MD + "\nReviewers must check the <kbd>Ctrl</kbd>+<kbd>Enter</kbd> shortcut docs.\n")],
     "<kbd> tags inline in prose: inline HTML outside the allowed elements")

# ---- further violations, attached to rules defined above ---------------------------------


def R(rid: str) -> dict:
    return next(x for x in RULES if x["rule"] == rid)


case(R("private-controller-methods"), 4, "direct", D, [("app/controllers/admin/reports_controller.rb", "", '''module Admin
  class ReportsController < ApplicationController
    before_action :require_admin!

    def index
      @reports = Report.recent
    end

    protected

    def require_admin!
      head :forbidden unless current_user.admin?
    end
  end
end
''')],
     "a new controller puts its filter method under protected")
case(R("public-api-javadocs"), 4, "direct", D, [("api/src/main/java/dev/celestial/api/resource/ResourceKind.java", "", '''package dev.celestial.api.resource;

public enum ResourceKind {
  TEXTURE,
  SOUND,
  MODEL;

  public static final ResourceKind DEFAULT = TEXTURE;
}
''')],
     "a new public enum and public field without javadocs")
case(R("tracing-structured-fields"), 4, "indirect", I, [("crates/libtortillas/src/peer/connect.rs", PEER, PEER.replace(
     '    info!(%id, "peer connected");\n', '    let msg = format!("peer {id} connected from {}", peer.addr);\n    info!(msg);\n'))],
     "the variables are pre-formatted into one string field, so id and addr are not searchable fields")
case(R("go-acronyms-capitalised"), 4, "direct", D, [("exchanges/kraken/kraken_json.go", "", '''package kraken

import "encoding/json"

// parseJsonResponse decodes a Kraken REST envelope.
func parseJsonResponse(body []byte, out any) error {
	var env struct {
		Error  []string        `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return err
	}
	return json.Unmarshal(env.Result, out)
}
''')],
     "parseJsonResponse: the acronym JSON is not capitalised")
case(R("eslint-no-path-concat"), 5, "direct", D, [("src/render.js", SRV, SRV.replace(
     "module.exports = function render (name) {\n", "const sourceMap = __filename + '.map'\n\nmodule.exports = function render (name) {\n"))],
     "__filename concatenated with +")
case(R("clippy-expect-used"), 4, "direct", D, [("src/core/config.rs", "", '''use std::path::Path;

pub fn load_schema(path: &Path) -> String {
    std::fs::read_to_string(path).expect("schema file must exist")
}
''')],
     "a new library function calls .expect() on a Result")
case(R("no-author-javadoc-tag"), 4, "direct", D, [("mywarp-core/src/main/java/me/taylorkelly/mywarp/warp/package-info.java", "", WP.split("package")[0] + '''/**
 * Warps and the services that manage them.
 *
 * @author MyWarp team
 */
package me.taylorkelly.mywarp.warp;
''')],
     "@author in a package javadoc")


if __name__ == "__main__":
    SET.write()
