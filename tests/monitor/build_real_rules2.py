"""Builds tests/monitor/real_rules2.json, the round-2 contradiction set (issue 17).

    python tests/monitor/build_real_rules2.py

How the cases were made (docs/labelled-sets.md, "Method"): every
decision is a rule a public project wrote (CONTRIBUTING files, ADRs, AGENTS.md / CLAUDE.md
files, lint and tool configurations), found with a code search and named in `source`
(repository and path). For each rule a realistic file of that project's language and
layout was written first, then each case edits it the way an agent's Edit or Write does
(several hunks, new files, some changes over two files), and the diff is computed from
the two versions with three lines of context, as engram's capture does for a whole-file
write. Labels say what the rule means, whatever the checker can see. Rules are grouped by
category and alternate (one counter over all rules) between `dev2` and `holdout2`, so no
rule has cases in both halves. Written and committed before the checker was tuned on it.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

D, I, N = "DIRECT_CONTRADICTION", "INDIRECT_CONTRADICTION", "NO_CONTRADICTION"
OUT = Path(__file__).with_name("real_rules2.json")
RULES: list[dict] = []


def edit(text: str, *pairs: tuple[str, str]) -> str:
    """`text` with each (old, new) replaced; old must occur exactly once."""
    for old, new in pairs:
        assert text.count(old) == 1, f"not exactly once: {old!r}"
        text = text.replace(old, new)
    return text


def diff(path: str, before: str, after: str) -> list[str]:
    """A unified diff of two versions, three lines of context (an empty `before`: a new file)."""
    old_l = before.split("\n")[:-1] if before else []
    new_l = after.split("\n")[:-1]
    out = [f"--- a/{path}", f"+++ b/{path}"]
    if not old_l:
        return out + [f"@@ -0,0 +1,{len(new_l)} @@"] + ["+" + x for x in new_l]
    for group in difflib.SequenceMatcher(None, old_l, new_l, autojunk=False).get_grouped_opcodes(3):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{i1 + 1},{i2 - i1} +{j1 + 1},{j2 - j1} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out += [" " + x for x in old_l[a1:a2]]
            else:
                out += ["-" + x for x in old_l[a1:a2]] + ["+" + x for x in new_l[b1:b2]]
    return out


def rule(rid: str, source: str, category: str, decision: str) -> dict:
    r = {"rule": rid, "source": source, "category": category, "decision": decision, "cases": []}
    RULES.append(r)
    return r


def case(r: dict, n: int, kind: str, expected: str, files: list[tuple[str, str, str]], note: str) -> None:
    """One labelled change: files as (path, before, after); `note` says why the label is right."""
    r["cases"].append({"id": f"{r['rule']}-{n}", "kind": kind, "expected": expected, "note": note,
                       "files": [{"path": p, "diff": diff(p, b, a)} for p, b, a in files]})


def build() -> dict:
    by_category: dict[str, list[dict]] = {}
    for r in RULES:
        by_category.setdefault(r["category"], []).append(r)
    cases = []
    ordered = [r for group in by_category.values() for r in group]
    for k, r in enumerate(ordered):  # alternating over rules grouped by category: both halves cover each
        split = "dev2" if k % 2 == 0 else "holdout2"
        for c in r["cases"]:
            cases.append({"id": c["id"], "rule": r["rule"], "split": split, "category": r["category"],
                          "kind": c["kind"], "source": r["source"], "decisions": [r["decision"]],
                          "expected": c["expected"], "note": c["note"], "files": c["files"]})
    return {"about": __doc__.split("\n\n", 2)[2].strip().replace("\n", " "), "cases": cases}



# -- the rules and their cases -------------------------------------------------------------

# ---- tool choice -------------------------------------------------------------------------

r = rule("structlog-adr", "LuisHBarros/orchestra-planner/docs/adrs/008-observability.md", "tool choice",
         "Adopt structured logging using the `structlog` library with a mandatory correlation identifier.")
PLANNER = '''"""Assigns tasks of a project to its members."""

from __future__ import annotations

import structlog

from app.domain.project import Project
from app.domain.task import Task

log = structlog.get_logger(__name__)


class Planner:
    def __init__(self, repository) -> None:
        self._repository = repository

    def assign(self, project: Project, task: Task) -> None:
        member = project.least_loaded_member()
        task.assignee_id = member.id
        self._repository.save(task)
        log.info("task.assigned", task_id=task.id, member_id=member.id)

    def unassign(self, task: Task) -> None:
        task.assignee_id = None
        self._repository.save(task)
        log.info("task.unassigned", task_id=task.id)
'''
MIDDLEWARE = '''import uuid

import structlog
from starlette.middleware.base import BaseHTTPMiddleware


class RequestIdMiddleware(BaseHTTPMiddleware):
    async def dispatch(self, request, call_next):
        request_id = request.headers.get("X-Request-Id") or str(uuid.uuid4())
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        response = await call_next(request)
        response.headers["X-Request-Id"] = request_id
        return response
'''
case(r, 1, "indirect", I, [("app/services/planner.py", PLANNER, edit(PLANNER,
    ("import structlog\n", "import logging\n"),
    ("log = structlog.get_logger(__name__)", "log = logging.getLogger(__name__)"),
    ('log.info("task.assigned", task_id=task.id, member_id=member.id)',
     'log.info("task %s assigned to %s", task.id, member.id)'),
    ('log.info("task.unassigned", task_id=task.id)', 'log.info("task %s unassigned", task.id)')))],
    "the stdlib logging module replaces structlog: plain-text logs, the ADR's rejected option")
case(r, 2, "indirect", I, [("app/services/planner.py", PLANNER, edit(PLANNER,
    ("        member = project.least_loaded_member()\n",
     "        member = project.least_loaded_member()\n        print(f\"assigning {task.id} -> {member.id} (load {member.load})\")\n")))],
    "a print added to trace assignments: plain-text output instead of a structured log event")
case(r, 3, "direct", D, [("app/middleware/request_id.py", MIDDLEWARE, edit(MIDDLEWARE,
    ("        structlog.contextvars.clear_contextvars()\n        structlog.contextvars.bind_contextvars(request_id=request_id)\n", "")))],
    "the correlation identifier is no longer bound to the logs: the mandatory part of the decision removed")
case(r, 4, "compliant", N, [("app/services/planner.py", PLANNER, edit(PLANNER,
    ("    def unassign(self, task: Task) -> None:\n",
     "    def reassign(self, task: Task, member_id: str) -> None:\n        previous = task.assignee_id\n"
     "        task.assignee_id = member_id\n        self._repository.save(task)\n"
     "        log.info(\"task.reassigned\", task_id=task.id, previous=previous, member_id=member_id)\n\n"
     "    def unassign(self, task: Task) -> None:\n")))],
    "a new structlog event with key-value fields")
case(r, 5, "lookalike", N, [("app/services/planner.py", PLANNER, edit(PLANNER,
    ('"""Assigns tasks of a project to its members."""',
     '"""Assigns tasks of a project to its members.\n\nLogging goes through structlog (ADR 008), never print or the logging module.\n"""')))],
    "the docstring names print and logging; no code uses them")

r = rule("httpx-async-only", "pypi-data/pypi-mirror-383/packages/airbeld-api-sdk/airbeld_api_sdk-0.2.0.tar.gz/"
         "airbeld_api_sdk-0.2.0/CONTRIBUTING.md", "tool choice",
         "Async-only networking (httpx.AsyncClient). Default timeouts (10s) and retries (3, exponential backoff).")
CLIENT = '''"""The Airbeld API client."""

from __future__ import annotations

import asyncio

import httpx

from airbeld.errors import ApiError

DEFAULT_TIMEOUT = 10.0
MAX_RETRIES = 3


class AirbeldClient:
    def __init__(self, base_url: str, token: str) -> None:
        self._http = httpx.AsyncClient(base_url=base_url, timeout=DEFAULT_TIMEOUT,
                                       headers={"Authorization": f"Bearer {token}"})

    async def _get(self, path: str, **params) -> dict:
        for attempt in range(MAX_RETRIES):
            try:
                response = await self._http.get(path, params=params)
                response.raise_for_status()
                return response.json()
            except httpx.TransportError:
                await asyncio.sleep(2 ** attempt)
        raise ApiError(f"GET {path} failed after {MAX_RETRIES} attempts")

    async def devices(self) -> list[dict]:
        return (await self._get("/v1/devices"))["items"]
'''
case(r, 1, "direct", D, [("src/airbeld/client.py", CLIENT, edit(CLIENT,
    ("import httpx\n", "import httpx\nimport requests\n"),
    ("    async def devices(self) -> list[dict]:\n",
     "    def telemetry(self, device_id: str) -> list[dict]:\n"
     "        response = requests.get(f\"{self._http.base_url}/v1/devices/{device_id}/telemetry\",\n"
     "                                headers=self._http.headers, timeout=DEFAULT_TIMEOUT)\n"
     "        response.raise_for_status()\n        return response.json()[\"items\"]\n\n"
     "    async def devices(self) -> list[dict]:\n")))],
    "a blocking requests call in the client: networking that is not httpx.AsyncClient")
case(r, 2, "indirect", I, [("src/airbeld/client.py", CLIENT, edit(CLIENT,
    ("    async def devices(self) -> list[dict]:\n",
     "    def devices_sync(self) -> list[dict]:\n"
     "        with httpx.Client(base_url=str(self._http.base_url), timeout=DEFAULT_TIMEOUT) as http:\n"
     "            return http.get(\"/v1/devices\").json()[\"items\"]\n\n"
     "    async def devices(self) -> list[dict]:\n")))],
    "httpx, but its synchronous Client: the rule is async-only")
case(r, 3, "direct", D, [("src/airbeld/client.py", CLIENT, edit(CLIENT,
    ("DEFAULT_TIMEOUT = 10.0", "DEFAULT_TIMEOUT = 60.0")))],
    "the default timeout the rule sets at 10 s raised to 60 s")
case(r, 4, "direct", D, [("src/airbeld/client.py", CLIENT, edit(CLIENT, ("MAX_RETRIES = 3", "MAX_RETRIES = 8")))],
    "retries are 3 by the rule; 8 now")
case(r, 5, "compliant", N, [("src/airbeld/client.py", CLIENT, edit(CLIENT,
    ("                await asyncio.sleep(2 ** attempt)\n",
     "                await asyncio.sleep(min(2 ** attempt, 8) + random.random() / 10)\n"),
    ("import asyncio\n", "import asyncio\nimport random\n")))],
    "exponential backoff with jitter; still 3 retries, 10 s, AsyncClient")

r = rule("date-fns-not-locale", "LumiPad/CalcDown/src/util/AGENTS.md", "path scope",
         "Scope: `src/util/**`. Dependency-free, small, and easy to audit; avoid locale-dependent output; "
         "be explicit about timezone handling (prefer UTC and ISO formats).")
UTILDATE = '''export function parseIsoDate(text: string): Date {
  const m = /^(\\d{4})-(\\d{2})-(\\d{2})$/.exec(text.trim());
  if (!m) throw new Error(`Invalid date: ${text}`);
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
}

export function formatIsoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000);
}
'''
VIEWCELL = '''import { formatIsoDate } from "../util/date";

export function renderDateCell(cell: HTMLElement, value: Date): void {
  cell.textContent = formatIsoDate(value);
  cell.classList.add("cd-date");
}
'''
case(r, 1, "direct", D, [("src/util/date.ts", UTILDATE, edit(UTILDATE,
    ("export function parseIsoDate", 'import { differenceInCalendarDays } from "date-fns";\n\nexport function parseIsoDate'),
    ("export function addDays", "export function daysBetween(a: Date, b: Date): number {\n"
     "  return differenceInCalendarDays(b, a);\n}\n\nexport function addDays")))],
    "a third-party dependency in src/util, which must stay dependency-free")
case(r, 2, "direct", D, [("src/util/date.ts", UTILDATE, edit(UTILDATE,
    ("export function addDays", "export function formatHumanDate(date: Date): string {\n"
     "  return date.toLocaleDateString();\n}\n\nexport function addDays")))],
    "locale-dependent output from a util")
case(r, 3, "exempt", N, [("src/ui/dateCell.ts", VIEWCELL, edit(VIEWCELL,
    ("  cell.textContent = formatIsoDate(value);\n",
     "  cell.textContent = formatIsoDate(value);\n  cell.title = value.toLocaleDateString();\n")))],
    "locale output in the UI, outside src/util/**, where the rule does not apply")
case(r, 4, "compliant", N, [("src/util/date.ts", UTILDATE, edit(UTILDATE,
    ("export function addDays", "export function startOfUtcMonth(date: Date): Date {\n"
     "  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));\n}\n\nexport function addDays")))],
    "UTC arithmetic with the standard Date only")

r = rule("sqlalchemy2-select", "sboagy/tunetrees/tunetrees/app/AGENTS.md", "tool choice",
         "SQLAlchemy 2.0 only: `stmt = select(Model).where(Model.field == value)` then `session.execute(stmt)`.")
QUERIES = '''from sqlalchemy import select
from sqlalchemy.orm import Session

from tunetrees.models.tunetrees import Playlist, Tune


def get_tune(session: Session, tune_id: int) -> Tune | None:
    stmt = select(Tune).where(Tune.id == tune_id)
    return session.execute(stmt).scalar_one_or_none()


def playlist_tunes(session: Session, playlist_id: int) -> list[Tune]:
    stmt = select(Tune).join(Playlist.tunes).where(Playlist.playlist_id == playlist_id)
    return list(session.execute(stmt).scalars())
'''
case(r, 1, "direct", D, [("tunetrees/app/queries.py", QUERIES, edit(QUERIES,
    ("def playlist_tunes", "def tunes_by_type(session: Session, tune_type: str) -> list[Tune]:\n"
     "    return session.query(Tune).filter(Tune.type == tune_type).order_by(Tune.title).all()\n\n\ndef playlist_tunes")))],
    "the legacy session.query() API")
case(r, 2, "compliant", N, [("tunetrees/app/queries.py", QUERIES, edit(QUERIES,
    ("def playlist_tunes", "def tunes_by_type(session: Session, tune_type: str) -> list[Tune]:\n"
     "    stmt = select(Tune).where(Tune.type == tune_type).order_by(Tune.title)\n"
     "    return list(session.execute(stmt).scalars())\n\n\ndef playlist_tunes")))],
    "2.0-style select() executed by the session")
case(r, 3, "lookalike", N, [("tunetrees/app/queries.py", QUERIES, edit(QUERIES,
    ("def playlist_tunes", "def search_tunes(session: Session, query: str) -> list[Tune]:\n"
     "    stmt = select(Tune).where(Tune.title.ilike(f\"%{query.strip()}%\"))\n"
     "    return list(session.execute(stmt).scalars())\n\n\ndef playlist_tunes")))],
    "a parameter named query, not the Query API")

r = rule("pydantic-dump-json", "unoplat/unoplat-code-confluence/unoplat-code-confluence-query-engine/AGENTS.md",
         "tool choice", "Pydantic: Use `model_dump_json()` for JSON serialization (not `json.dumps`).")
CACHE = '''from redis.asyncio import Redis

from src.engine.models.repository_summary import RepositorySummary


class SummaryCache:
    def __init__(self, redis: Redis, ttl_seconds: int = 3600) -> None:
        self._redis = redis
        self._ttl = ttl_seconds

    async def get(self, repo_id: str) -> RepositorySummary | None:
        raw = await self._redis.get(f"summary:{repo_id}")
        return RepositorySummary.model_validate_json(raw) if raw else None

    async def put(self, summary: RepositorySummary) -> None:
        await self._redis.set(f"summary:{summary.repo_id}", summary.model_dump_json(), ex=self._ttl)
'''
case(r, 1, "direct", D, [("src/engine/cache/summary_cache.py", CACHE, edit(CACHE,
    ("from redis.asyncio import Redis\n", "import json\n\nfrom redis.asyncio import Redis\n"),
    ("summary.model_dump_json()", "json.dumps(summary.model_dump(mode=\"json\"))")))],
    "json.dumps of a model dump instead of model_dump_json()")
case(r, 2, "compliant", N, [("src/engine/cache/summary_cache.py", CACHE, edit(CACHE,
    ("    async def put(", "    async def put_many(self, summaries: list[RepositorySummary]) -> None:\n"
     "        async with self._redis.pipeline() as pipe:\n            for s in summaries:\n"
     "                pipe.set(f\"summary:{s.repo_id}\", s.model_dump_json(), ex=self._ttl)\n"
     "            await pipe.execute()\n\n    async def put(")))],
    "model_dump_json() again")
case(r, 3, "lookalike", N, [("src/engine/cache/summary_cache.py", CACHE, edit(CACHE,
    ('        raw = await self._redis.get(f"summary:{repo_id}")\n',
     '        # cached with model_dump_json(), never json.dumps, so validate_json reads it back\n'
     '        raw = await self._redis.get(f"summary:{repo_id}")\n')))],
    "a comment naming json.dumps")

# ---- required practices: kept on, removed, replaced, left out ---------------------------------

SALOON = "Shrawanv/saloonApp-Project/AGENTS.md"
r = rule("csrf-always-enabled", SALOON, "keep enabled",
         "CSRF: Always enabled; use @ensure_csrf_cookie on endpoints that need it.")
VIEWS = '''from django.views.decorators.csrf import ensure_csrf_cookie
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response

from bookings.serializers import BookingSerializer


@api_view(["GET"])
@permission_classes([AllowAny])
@ensure_csrf_cookie
def csrf(request):
    return Response({"detail": "CSRF cookie set"})


@api_view(["POST"])
@permission_classes([IsAuthenticated])
def create_booking(request):
    serializer = BookingSerializer(data=request.data, context={"request": request})
    serializer.is_valid(raise_exception=True)
    serializer.save(customer=request.user)
    return Response(serializer.data, status=201)
'''
SETTINGS = '''MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]

CSRF_COOKIE_SECURE = True
CSRF_TRUSTED_ORIGINS = ["https://app.saloon.example"]

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.CookieJWTAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
}
'''
case(r, 1, "direct", D, [("bookings/views.py", VIEWS, edit(VIEWS,
    ("from django.views.decorators.csrf import ensure_csrf_cookie\n",
     "from django.views.decorators.csrf import csrf_exempt, ensure_csrf_cookie\n"),
    ('@api_view(["POST"])\n@permission_classes([IsAuthenticated])\ndef create_booking',
     '@csrf_exempt\n@api_view(["POST"])\n@permission_classes([IsAuthenticated])\ndef create_booking')))],
    "@csrf_exempt on a state-changing view")
case(r, 2, "direct", D, [("config/settings/base.py", SETTINGS, edit(SETTINGS,
    ('    "django.middleware.csrf.CsrfViewMiddleware",\n', "")))],
    "the CSRF middleware removed from the stack")
case(r, 3, "compliant", N, [("bookings/views.py", VIEWS, edit(VIEWS,
    ("    return Response(serializer.data, status=201)\n",
     "    return Response(serializer.data, status=201)\n\n\n@api_view([\"POST\"])\n"
     "@permission_classes([IsAuthenticated])\ndef cancel_booking(request, pk):\n"
     "    booking = request.user.bookings.get(pk=pk)\n    booking.cancel()\n    return Response(status=204)\n")))],
    "a new POST view under the same CSRF protection")
case(r, 4, "lookalike", N, [("config/settings/base.py", SETTINGS, edit(SETTINGS,
    ('CSRF_TRUSTED_ORIGINS = ["https://app.saloon.example"]',
     'CSRF_TRUSTED_ORIGINS = ["https://app.saloon.example", "https://admin.saloon.example"]')))],
    "a CSRF setting changed, protection still on")

r = rule("authenticated-by-default", SALOON, "keep enabled",
         "All APIs require authentication by default; public endpoints must explicitly use the `AllowAny` permission class.")
case(r, 1, "direct", D, [("config/settings/base.py", SETTINGS, edit(SETTINGS,
    ('"DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"]',
     '"DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"]')))],
    "the default flipped to AllowAny: every API public unless it says otherwise")
case(r, 2, "exempt", N, [("bookings/views.py", VIEWS, edit(VIEWS,
    ("    return Response(serializer.data, status=201)\n",
     "    return Response(serializer.data, status=201)\n\n\n@api_view([\"GET\"])\n"
     "@permission_classes([AllowAny])\ndef opening_hours(request):\n"
     "    return Response({\"weekdays\": \"09:00-19:00\", \"saturday\": \"10:00-16:00\"})\n")))],
    "a public endpoint that says AllowAny explicitly, as the rule asks")
case(r, 3, "direct", D, [("bookings/views.py", VIEWS, edit(VIEWS,
    ('@api_view(["POST"])\n@permission_classes([IsAuthenticated])\ndef create_booking',
     '@api_view(["POST"])\n@permission_classes([])\ndef create_booking')))],
    "an empty permission list: the view is public without saying AllowAny")

r = rule("list-endpoints-paginated", SALOON, "required practice left out",
         "Pagination REQUIRED for list endpoints.")
LISTVIEWS = '''from rest_framework import generics

from services.models import Service
from services.serializers import ServiceSerializer


class ServiceListView(generics.ListAPIView):
    serializer_class = ServiceSerializer

    def get_queryset(self):
        return Service.objects.filter(salon_id=self.kwargs["salon_id"], active=True).select_related("category")
'''
case(r, 1, "direct", D, [("services/views.py", LISTVIEWS, edit(LISTVIEWS,
    ("    serializer_class = ServiceSerializer\n", "    serializer_class = ServiceSerializer\n    pagination_class = None\n")))],
    "pagination switched off on a list endpoint")
case(r, 2, "direct", D, [("config/settings/base.py", SETTINGS, edit(SETTINGS,
    ('    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",\n    "PAGE_SIZE": 20,\n', "")))],
    "the default paginator removed: every list endpoint unpaginated")
case(r, 3, "compliant", N, [("services/views.py", LISTVIEWS, edit(LISTVIEWS,
    ("from rest_framework import generics\n", "from rest_framework import generics\nfrom rest_framework.pagination import CursorPagination\n"),
    ("class ServiceListView", "class ServiceCursor(CursorPagination):\n    ordering = \"-created_at\"\n\n\nclass ServiceListView"),
    ("    serializer_class = ServiceSerializer\n", "    serializer_class = ServiceSerializer\n    pagination_class = ServiceCursor\n")))],
    "another paginator, still paginated")

r = rule("with-credentials", "joao-januario/streamretriever-fe/Claude.md", "required practice left out",
         "HttpOnly Cookie Authentication, NOT localStorage! Backend sets JWT in HttpOnly cookie. Frontend never "
         "touches tokens. All API calls MUST use `withCredentials: true`.")
APISERVICE = '''import axios from "axios";

const API_URL = process.env.NEXT_PUBLIC_API_URL ?? "http://localhost:8080";

export async function getProfile() {
  const { data } = await axios.get(`${API_URL}/api/me`, { withCredentials: true });
  return data;
}

export async function getChannels() {
  const { data } = await axios.get(`${API_URL}/api/channels`, { withCredentials: true });
  return data;
}

export async function logout() {
  await axios.post(`${API_URL}/api/logout`, {}, { withCredentials: true });
}
'''
case(r, 1, "direct", D, [("src/services/apiService.ts", APISERVICE, edit(APISERVICE,
    ("export async function logout", "export async function getClips(channelId: string) {\n"
     "  const { data } = await axios.get(`${API_URL}/api/channels/${channelId}/clips`);\n  return data;\n}\n\n"
     "export async function logout")))],
    "a new API call without withCredentials")
case(r, 2, "direct", D, [("src/services/apiService.ts", APISERVICE, edit(APISERVICE,
    ("export async function getChannels() {\n  const { data } = await axios.get(`${API_URL}/api/channels`, { withCredentials: true });",
     "export async function getChannels() {\n  const token = localStorage.getItem(\"access_token\");\n"
     "  const { data } = await axios.get(`${API_URL}/api/channels`, {\n    headers: { Authorization: `Bearer ${token}` },\n  });")))],
    "the token read from localStorage and sent by hand, and withCredentials dropped")
case(r, 3, "compliant", N, [("src/services/apiService.ts", APISERVICE, edit(APISERVICE,
    ("export async function logout", "export async function getClips(channelId: string) {\n"
     "  const { data } = await axios.get(`${API_URL}/api/channels/${channelId}/clips`, { withCredentials: true });\n"
     "  return data;\n}\n\nexport async function logout")))],
    "the new call sends the cookie")
case(r, 4, "lookalike", N, [("src/services/apiService.ts", APISERVICE, edit(APISERVICE,
    ('import axios from "axios";\n', 'import axios from "axios";\n\n// Auth lives in an HttpOnly cookie: never read tokens from localStorage here.\n')))],
    "a comment naming localStorage")

r = rule("can-user-access", "root-daemon/berri-space/lib/CLAUDE.md", "required practice removed or replaced",
         "All permission checks must go through a single helper function (e.g. `canUserAccess`); no API or "
         "service may bypass this logic.")
ROUTE = '''import { NextResponse } from "next/server";

import { canUserAccess } from "@/lib/permissions";
import { getSessionUser } from "@/lib/session";
import { db } from "@/lib/db";

export async function GET(_req: Request, { params }: { params: { id: string } }) {
  const user = await getSessionUser();
  const file = await db.file.findUnique({ where: { id: params.id } });
  if (!file) return NextResponse.json({ error: "not found" }, { status: 404 });
  if (!(await canUserAccess(user, file, "read"))) {
    return NextResponse.json({ error: "forbidden" }, { status: 403 });
  }
  return NextResponse.json(file);
}
'''
case(r, 1, "direct", D, [("app/api/files/[id]/route.ts", ROUTE, edit(ROUTE,
    ('  if (!(await canUserAccess(user, file, "read"))) {',
     '  if (file.ownerId !== user.id && user.role !== "admin") {'),
    ('import { canUserAccess } from "@/lib/permissions";\n', "")))],
    "the helper replaced by an inline ownership check")
case(r, 2, "indirect", I, [("app/api/files/[id]/route.ts", ROUTE, edit(ROUTE,
    ("export async function GET", "export async function DELETE(_req: Request, { params }: { params: { id: string } }) {\n"
     "  const user = await getSessionUser();\n  const file = await db.file.findUnique({ where: { id: params.id } });\n"
     "  if (!file || file.ownerId !== user.id) {\n    return NextResponse.json({ error: \"forbidden\" }, { status: 403 });\n  }\n"
     "  await db.file.delete({ where: { id: file.id } });\n  return new NextResponse(null, { status: 204 });\n}\n\n"
     "export async function GET")))],
    "a new handler with its own permission logic, not the helper")
case(r, 3, "compliant", N, [("app/api/files/[id]/route.ts", ROUTE, edit(ROUTE,
    ("export async function GET", "export async function DELETE(_req: Request, { params }: { params: { id: string } }) {\n"
     "  const user = await getSessionUser();\n  const file = await db.file.findUnique({ where: { id: params.id } });\n"
     "  if (!file) return NextResponse.json({ error: \"not found\" }, { status: 404 });\n"
     "  if (!(await canUserAccess(user, file, \"delete\"))) {\n    return NextResponse.json({ error: \"forbidden\" }, { status: 403 });\n  }\n"
     "  await db.file.delete({ where: { id: file.id } });\n  return new NextResponse(null, { status: 204 });\n}\n\n"
     "export async function GET")))],
    "the new handler goes through canUserAccess")

r = rule("flake8-lint-gate", "cxristalclear/cm-directory/AGENTS.md", "required practice removed or replaced",
         "All commits must pass lint checks via flake8.")
PRECOMMIT = '''repos:
  - repo: https://github.com/psf/black
    rev: 24.4.2
    hooks:
      - id: black
  - repo: https://github.com/pycqa/flake8
    rev: 7.0.0
    hooks:
      - id: flake8
        additional_dependencies: [flake8-bugbear]
  - repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v4.6.0
    hooks:
      - id: end-of-file-fixer
      - id: trailing-whitespace
'''
case(r, 1, "direct", D, [(".pre-commit-config.yaml", PRECOMMIT, edit(PRECOMMIT,
    ("  - repo: https://github.com/pycqa/flake8\n    rev: 7.0.0\n    hooks:\n      - id: flake8\n"
     "        additional_dependencies: [flake8-bugbear]\n", "")))],
    "the flake8 hook removed")
case(r, 2, "direct", D, [(".pre-commit-config.yaml", PRECOMMIT, edit(PRECOMMIT,
    ("  - repo: https://github.com/pycqa/flake8\n    rev: 7.0.0\n    hooks:\n      - id: flake8\n"
     "        additional_dependencies: [flake8-bugbear]\n",
     "  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.4.4\n    hooks:\n      - id: ruff\n")))],
    "flake8 replaced by ruff")
case(r, 3, "compliant", N, [(".pre-commit-config.yaml", PRECOMMIT, edit(PRECOMMIT,
    ("    rev: 7.0.0\n", "    rev: 7.1.1\n"),
    ("        additional_dependencies: [flake8-bugbear]\n", "        additional_dependencies: [flake8-bugbear, flake8-comprehensions]\n")))],
    "flake8 upgraded and given one more plugin")

r = rule("lll-120", "RevoTale/agent-docs/modules/go/AGENTS.md", "limit",
         "Enforce a maximum line length of 120 characters through golangci-lint configuration.")
GOLANGCI = '''version: "2"
linters:
  enable:
    - errcheck
    - govet
    - lll
    - staticcheck
  settings:
    lll:
      line-length: 120
      tab-width: 4
formatters:
  enable:
    - gofmt
'''
case(r, 1, "direct", D, [(".golangci.yml", GOLANGCI, edit(GOLANGCI, ("      line-length: 120", "      line-length: 160")))],
    "the limit raised to 160")
case(r, 2, "direct", D, [(".golangci.yml", GOLANGCI, edit(GOLANGCI, ("    - lll\n", "")))],
    "the lll linter no longer enabled")
case(r, 3, "compliant", N, [(".golangci.yml", GOLANGCI, edit(GOLANGCI,
    ("    - staticcheck\n", "    - staticcheck\n    - revive\n")))],
    "another linter enabled; lll at 120 untouched")
case(r, 4, "compliant", N, [(".golangci.yml", GOLANGCI, edit(GOLANGCI, ("      line-length: 120", "      line-length: 100")))],
    "a stricter limit than the rule's maximum")

# ---- sensitive data in logs ----------------------------------------------------------------

r = rule("no-secrets-in-logs-sdk", "pypi-data/pypi-mirror-383/packages/airbeld-api-sdk/airbeld_api_sdk-0.2.0.tar.gz/"
         "airbeld_api_sdk-0.2.0/CONTRIBUTING.md", "sensitive data in logs",
         "Strict typing; concise docstrings; **no secrets in logs**.")
AUTH = '''"""Token exchange for the Airbeld API."""

from __future__ import annotations

import logging

import httpx

logger = logging.getLogger(__name__)


async def fetch_token(http: httpx.AsyncClient, client_id: str, client_secret: str) -> str:
    response = await http.post("/oauth/token", data={"grant_type": "client_credentials",
                                                     "client_id": client_id, "client_secret": client_secret})
    response.raise_for_status()
    token = response.json()["access_token"]
    logger.info("obtained access token for client %s", client_id)
    return token
'''
case(r, 1, "direct", D, [("src/airbeld/auth.py", AUTH, edit(AUTH,
    ('    logger.info("obtained access token for client %s", client_id)',
     '    logger.debug("token response for %s: %s", client_id, token)')))],
    "the access token written to the log")
case(r, 2, "indirect", I, [("src/airbeld/auth.py", AUTH, edit(AUTH,
    ("    response.raise_for_status()\n",
     "    if response.is_error:\n        logger.warning(\"token request failed: %s %s\", response.status_code, response.request.content)\n"
     "    response.raise_for_status()\n")))],
    "the request body logged, and it holds the client secret")
case(r, 3, "compliant", N, [("src/airbeld/auth.py", AUTH, edit(AUTH,
    ("    response.raise_for_status()\n",
     "    if response.is_error:\n        logger.warning(\"token request failed for client %s: HTTP %s\", client_id, response.status_code)\n"
     "    response.raise_for_status()\n")))],
    "the client id and the status code only")
case(r, 4, "lookalike", N, [("src/airbeld/auth.py", AUTH, edit(AUTH,
    ('    logger.info("obtained access token for client %s", client_id)',
     '    logger.info("obtained access token for client %s (expires in %ss)", client_id, response.json()["expires_in"])')))],
    "the words 'access token' in the message, no token value")

r = rule("mask-card-numbers", "vlad-musienko/AI-Coding-Partner-Homework/homework-3/agents.md", "sensitive data in logs",
         "NEVER log sensitive data → Mask: `****3456`.")
CAPS = '''import { Request, Response } from "express";

import { logger } from "../utils/logger";
import { maskCard } from "../utils/formatters";
import { budgetService } from "../services/budgetService";

export function createCap(req: Request, res: Response): void {
  const { userId, cardNumber, limit } = req.body;
  const result = budgetService.createCap(userId, cardNumber, limit);
  if ("error" in result) {
    res.status(400).json(result);
    return;
  }
  logger.info("cap.created", { userId, card: maskCard(cardNumber), limit });
  res.status(201).json(result);
}
'''
case(r, 1, "direct", D, [("src/controllers/capsController.ts", CAPS, edit(CAPS,
    ('  if ("error" in result) {\n', '  if ("error" in result) {\n    logger.warn("cap.rejected", { userId, cardNumber, reason: result.error });\n')))],
    "the full card number logged on rejection")
case(r, 2, "compliant", N, [("src/controllers/capsController.ts", CAPS, edit(CAPS,
    ('  if ("error" in result) {\n', '  if ("error" in result) {\n    logger.warn("cap.rejected", { userId, card: maskCard(cardNumber), reason: result.error });\n')))],
    "masked, as the rule says")
case(r, 3, "indirect", I, [("src/controllers/capsController.ts", CAPS, edit(CAPS,
    ("  const { userId, cardNumber, limit } = req.body;\n",
     "  logger.debug(\"cap.request\", { body: req.body });\n  const { userId, cardNumber, limit } = req.body;\n")))],
    "the whole request body logged; it carries the card number")

r = rule("redact-http-hooks", "pypi-data/pypi-mirror-396/packages/imednet/imednet-0.2.2.tar.gz/imednet-0.2.2/imednet/http/AGENTS.md",
         "sensitive data in logs", "Optional request/response hooks. Redact sensitive fields.")
HOOKS = '''"""Request/response tracing hooks for the HTTP client."""

from __future__ import annotations

import logging

import httpx

from imednet.http.redaction import redact_headers

logger = logging.getLogger("imednet.http")


def log_request(request: httpx.Request) -> None:
    logger.debug("-> %s %s headers=%s", request.method, request.url, redact_headers(request.headers))


def log_response(response: httpx.Response) -> None:
    logger.debug("<- %s %s in %.0f ms", response.status_code, response.request.url,
                 response.elapsed.total_seconds() * 1000)
'''
case(r, 1, "direct", D, [("imednet/http/hooks.py", HOOKS, edit(HOOKS,
    ("headers=%s\", request.method, request.url, redact_headers(request.headers))",
     "headers=%s\", request.method, request.url, dict(request.headers))")))],
    "headers (the API key and security key) logged without redaction")
case(r, 2, "compliant", N, [("imednet/http/hooks.py", HOOKS, edit(HOOKS,
    ("                 response.elapsed.total_seconds() * 1000)\n",
     "                 response.elapsed.total_seconds() * 1000)\n    if response.is_error:\n"
     "        logger.debug(\"<- headers=%s\", redact_headers(response.headers))\n")))],
    "more tracing, redacted")
case(r, 3, "lookalike", N, [("imednet/http/hooks.py", HOOKS, edit(HOOKS,
    ('"""Request/response tracing hooks for the HTTP client."""',
     '"""Request/response tracing hooks for the HTTP client.\n\nHeaders such as x-api-key and x-imn-security-key are redacted before logging.\n"""')))],
    "the docstring names the keys")

# ---- protected tables ------------------------------------------------------------------------

r = rule("ledger-events-append-only", "yrippert-maker/papa-app/migrations/010_ledger_append_only_triggers.up.sql",
         "protected table", "ledger_events: append-only invariants. UPDATE and DELETE on ledger_events are not allowed.")
LEDGER = '''import { db } from "@/lib/db";

export interface LedgerEvent {
  id: string;
  kind: string;
  payload: string;
  actorId: string;
}

export function appendEvent(event: LedgerEvent): void {
  db.prepare(
    "INSERT INTO ledger_events (id, kind, payload, actor_id, created_at) VALUES (?, ?, ?, ?, datetime('now'))",
  ).run(event.id, event.kind, event.payload, event.actorId);
}

export function eventsFor(actorId: string): LedgerEvent[] {
  return db.prepare("SELECT id, kind, payload, actor_id AS actorId FROM ledger_events WHERE actor_id = ?").all(actorId);
}
'''
case(r, 1, "direct", D, [("lib/ledger/events.ts", LEDGER, edit(LEDGER,
    ("export function eventsFor", "export function correctEvent(id: string, payload: string): void {\n"
     "  db.prepare(\"UPDATE ledger_events SET payload = ? WHERE id = ?\").run(payload, id);\n}\n\nexport function eventsFor")))],
    "an UPDATE of ledger_events")
case(r, 2, "direct", D, [("lib/ledger/events.ts", LEDGER, edit(LEDGER,
    ("export function eventsFor", "export function purgeActor(actorId: string): void {\n"
     "  db.prepare(\"DELETE FROM ledger_events WHERE actor_id = ?\").run(actorId);\n}\n\nexport function eventsFor")))],
    "a DELETE from ledger_events")
case(r, 3, "indirect", I, [("migrations/024_relax_ledger.up.sql", "",
    "-- allow corrections of mistyped payloads from the admin console\n"
    "DROP TRIGGER IF EXISTS ledger_events_no_update;\n")],
    "the trigger that enforces the invariant dropped")
case(r, 4, "compliant", N, [("lib/ledger/events.ts", LEDGER, edit(LEDGER,
    ("export function eventsFor", "export function correctEvent(original: LedgerEvent, payload: string, actorId: string): void {\n"
     "  appendEvent({ id: crypto.randomUUID(), kind: `${original.kind}.correction`, payload, actorId });\n}\n\nexport function eventsFor")))],
    "a correction appended as a new event")
case(r, 5, "lookalike", N, [("lib/ledger/snapshots.ts", "",
    'import { db } from "@/lib/db";\n\nexport function refreshSnapshot(actorId: string, balance: number): void {\n'
    '  db.prepare("UPDATE ledger_snapshots SET balance = ?, refreshed_at = datetime(\'now\') WHERE actor_id = ?")\n'
    "    .run(balance, actorId);\n}\n")],
    "an UPDATE of ledger_snapshots, another table")

r = rule("audit-logs-insert-only", "Grindin247/decision-system/docs/specs/audit-spec.md", "protected table",
         "Table `audit_logs`: no UPDATE/DELETE permissions for app role; insert-only from API service role.")
AUDIT = '''from datetime import datetime, timezone

from sqlalchemy.orm import Session

from app.models import AuditLog


def record(session: Session, actor_id: int | None, entity_type: str, entity_id: int, action: str,
           changes: dict) -> AuditLog:
    entry = AuditLog(actor_member_id=actor_id, entity_type=entity_type, entity_id=entity_id,
                     action=action, changes_json=changes, created_at=datetime.now(timezone.utc))
    session.add(entry)
    return entry
'''
case(r, 1, "direct", D, [("app/services/audit.py", AUDIT, edit(AUDIT,
    ("from sqlalchemy.orm import Session\n", "from sqlalchemy import text\nfrom sqlalchemy.orm import Session\n"),
    ("    session.add(entry)\n    return entry\n",
     "    session.add(entry)\n    return entry\n\n\ndef prune(session: Session, before: datetime) -> None:\n"
     "    session.execute(text(\"DELETE FROM audit_logs WHERE created_at < :before\"), {\"before\": before})\n")))],
    "DELETE from audit_logs")
case(r, 2, "indirect", I, [("app/services/audit.py", AUDIT, edit(AUDIT,
    ("    session.add(entry)\n    return entry\n",
     "    session.add(entry)\n    return entry\n\n\ndef redact_actor(session: Session, actor_id: int) -> None:\n"
     "    for entry in session.query(AuditLog).filter(AuditLog.actor_member_id == actor_id):\n"
     "        entry.actor_member_id = None\n")))],
    "audit rows updated through the ORM, no SQL words")
case(r, 3, "compliant", N, [("app/services/audit.py", AUDIT, edit(AUDIT,
    ("    session.add(entry)\n    return entry\n",
     "    session.add(entry)\n    return entry\n\n\ndef history(session: Session, entity_type: str, entity_id: int) -> list[AuditLog]:\n"
     "    return list(session.query(AuditLog).filter_by(entity_type=entity_type, entity_id=entity_id)\n"
     "                .order_by(AuditLog.created_at))\n")))],
    "reads only")

r = rule("no-mutating-posted-financials", "richiegimmel/nexus-greenfield/docs/AI_AGENT_GUIDANCE.md", "protected table",
         "Agents must NOT mutate posted financial data.")
JOURNAL = '''from decimal import Decimal

from nexus.accounting.models import JournalEntry, JournalLine


def post(entry: JournalEntry) -> None:
    if sum(line.amount for line in entry.lines) != Decimal("0"):
        raise ValueError("unbalanced entry")
    entry.status = "posted"
    entry.save()


def reverse(entry: JournalEntry, reason: str) -> JournalEntry:
    reversal = JournalEntry.objects.create(memo=f"Reversal of {entry.number}: {reason}", reverses=entry)
    for line in entry.lines.all():
        JournalLine.objects.create(entry=reversal, account=line.account, amount=-line.amount)
    post(reversal)
    return reversal
'''
case(r, 1, "direct", D, [("nexus/accounting/journal.py", JOURNAL, edit(JOURNAL,
    ("def reverse(", "def correct_amount(entry: JournalEntry, line_id: int, amount: Decimal) -> None:\n"
     "    line = entry.lines.get(pk=line_id)\n    line.amount = amount\n    line.save(update_fields=[\"amount\"])\n\n\ndef reverse(")))],
    "a posted entry's line amount edited in place")
case(r, 2, "compliant", N, [("nexus/accounting/journal.py", JOURNAL, edit(JOURNAL,
    ("def reverse(", "def correct_amount(entry: JournalEntry, line_id: int, amount: Decimal, reason: str) -> JournalEntry:\n"
     "    if entry.status != \"posted\":\n        line = entry.lines.get(pk=line_id)\n        line.amount = amount\n"
     "        line.save(update_fields=[\"amount\"])\n        return entry\n    return reverse(entry, reason)\n\n\ndef reverse(")))],
    "drafts edited, posted entries reversed")

# ---- suppression comments ------------------------------------------------------------------

r = rule("no-noqa", "matheushrc/scdp-automation/AGENTS.md", "suppression comment",
         "Resolve type and lint errors directly; do not add `# noqa` suppressions.")
EXTRACT = '''"""Extracts the travel requests listed on the SCDP search page."""

from __future__ import annotations

from dataclasses import dataclass

from playwright.sync_api import Page


@dataclass
class TravelRequest:
    number: str
    traveller: str
    status: str


def read_rows(page: Page) -> list[TravelRequest]:
    rows = page.locator("table#resultado tbody tr")
    out = []
    for i in range(rows.count()):
        cells = rows.nth(i).locator("td")
        out.append(TravelRequest(cells.nth(0).inner_text(), cells.nth(2).inner_text(), cells.nth(5).inner_text()))
    return out
'''
case(r, 1, "direct", D, [("scdp_automation/extract.py", EXTRACT, edit(EXTRACT,
    ("from playwright.sync_api import Page\n", "from playwright.sync_api import Page\nfrom scdp_automation.browser import *  # noqa: F403\n")))],
    "a star import kept quiet with noqa")
case(r, 2, "direct", D, [("scdp_automation/extract.py", EXTRACT, edit(EXTRACT,
    ("        cells = rows.nth(i).locator(\"td\")\n",
     "        cells = rows.nth(i).locator(\"td\")\n        status = cells.nth(5).inner_text()  # type: ignore[union-attr]\n")))],
    "a type error silenced instead of resolved (the rule covers type errors too)")
case(r, 3, "compliant", N, [("scdp_automation/extract.py", EXTRACT, edit(EXTRACT,
    ("    status: str\n", "    status: str\n    destination: str = \"\"\n"),
    ("cells.nth(5).inner_text()))", "cells.nth(5).inner_text(),\n                                 cells.nth(3).inner_text()))")))],
    "a field added, nothing suppressed")
case(r, 4, "lookalike", N, [("scdp_automation/extract.py", EXTRACT, edit(EXTRACT,
    ('"""Extracts the travel requests listed on the SCDP search page."""',
     '"""Extracts the travel requests listed on the SCDP search page.\n\nRuff runs clean here: fix findings, no noqa.\n"""')))],
    "the docstring mentions noqa")

r = rule("no-nolint", "penny-vault/pvbt/CLAUDE.md", "suppression comment",
         "Never use `//nolint` directives; fix the underlying issue.")
BROKER = '''package broker

import (
	"context"
	"fmt"
	"time"
)

// SimulatedBroker fills orders at the next bar's open.
type SimulatedBroker struct {
	clock    func() time.Time
	slippage float64
}

// Submit queues an order for execution.
func (b *SimulatedBroker) Submit(ctx context.Context, order Order) error {
	if order.Quantity <= 0 {
		return fmt.Errorf("submit %s: quantity must be positive", order.Ticker)
	}
	return b.enqueue(ctx, order)
}
'''
case(r, 1, "direct", D, [("broker/simulated.go", BROKER, edit(BROKER,
    ("	return b.enqueue(ctx, order)\n", "	b.enqueue(ctx, order) //nolint:errcheck\n	return nil\n")))],
    "an unchecked error silenced with nolint")
case(r, 2, "direct", D, [("broker/simulated.go", BROKER, edit(BROKER,
    ("type SimulatedBroker struct {\n", "type SimulatedBroker struct { //nolint:govet // fieldalignment\n")))],
    "a nolint with a reason is still a nolint: the rule has no exceptions")
case(r, 3, "compliant", N, [("broker/simulated.go", BROKER, edit(BROKER,
    ("	return b.enqueue(ctx, order)\n", "	if err := b.enqueue(ctx, order); err != nil {\n"
     "		return fmt.Errorf(\"submit %s: %w\", order.Ticker, err)\n	}\n	return nil\n")))],
    "the error wrapped and returned")

r = rule("ts-ignore-needs-issue", "leeroybrun/edison/src/edison/data/packs/typescript/validators/claude-context.md",
         "suppression comment", "Enforce `strict` mode for all TS projects. No `@ts-ignore` or `@ts-expect-error` "
         "without issue link and scope.")
FETCHER = '''import type { Task } from "./types";

export async function loadTasks(signal: AbortSignal): Promise<Task[]> {
  const response = await fetch("/api/tasks", { signal });
  if (!response.ok) {
    throw new Error(`loadTasks: HTTP ${response.status}`);
  }
  return (await response.json()) as Task[];
}
'''
case(r, 1, "direct", D, [("src/tasks/fetcher.ts", FETCHER, edit(FETCHER,
    ('  const response = await fetch("/api/tasks", { signal });\n',
     '  // @ts-ignore\n  const response = await fetch("/api/tasks", { signal, priority: "high" });\n')))],
    "a bare @ts-ignore")
case(r, 2, "exempt", N, [("src/tasks/fetcher.ts", FETCHER, edit(FETCHER,
    ('  const response = await fetch("/api/tasks", { signal });\n',
     '  // @ts-expect-error -- lib.dom lacks RequestInit.priority (https://github.com/microsoft/TypeScript/issues/54472); '
     'scope: this call only\n  const response = await fetch("/api/tasks", { signal, priority: "high" });\n')))],
    "an @ts-expect-error with the issue link and its scope, which the rule allows")
case(r, 3, "direct", D, [("tsconfig.json", '{\n  "compilerOptions": {\n    "target": "ES2022",\n    "module": "ESNext",\n'
    '    "strict": true,\n    "noEmit": true\n  },\n  "include": ["src"]\n}\n',
    '{\n  "compilerOptions": {\n    "target": "ES2022",\n    "module": "ESNext",\n'
    '    "strict": false,\n    "noEmit": true\n  },\n  "include": ["src"]\n}\n')],
    "strict mode turned off")

r = rule("no-allow-attributes", "lambdalisue/dotfiles/home/claude/rules/rust/clippy.md", "suppression comment",
         "Never suppress warnings (`#[allow(dead_code)]` etc.) without excellent justification. Remove unused code "
         "instead of suppressing warnings.")
RUSTSRC = '''use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    pub fn open(root: &Path) -> Result<Self> {
        let root = root.canonicalize().with_context(|| format!("open {}", root.display()))?;
        Ok(Self { root })
    }

    pub fn config_path(&self) -> PathBuf {
        self.root.join("denops.toml")
    }
}
'''
case(r, 1, "direct", D, [("src/workspace.rs", RUSTSRC, edit(RUSTSRC,
    ("    pub fn config_path", "    #[allow(dead_code)]\n    fn legacy_config_path(&self) -> PathBuf {\n"
     "        self.root.join(\".denops.toml\")\n    }\n\n    pub fn config_path")))],
    "dead code kept and its warning suppressed")
case(r, 2, "exempt", N, [("src/workspace.rs", RUSTSRC, edit(RUSTSRC,
    ("    pub fn config_path", "    // The signature mirrors the C callback registered with libgit2, which takes all seven.\n"
     "    #[allow(clippy::too_many_arguments)]\n    pub fn on_checkout(&self, a: u32, b: u32, c: u32, d: u32, e: u32, f: u32, g: u32) {}\n\n"
     "    pub fn config_path")))],
    "an allow with its justification written above it, which the rule permits")
case(r, 3, "compliant", N, [("src/workspace.rs", RUSTSRC, edit(RUSTSRC,
    ("use std::path::{Path, PathBuf};\n", "use std::path::{Path, PathBuf};\n"),
    ("    pub fn config_path(&self) -> PathBuf {\n        self.root.join(\"denops.toml\")\n    }\n",
     "    pub fn config_path(&self) -> PathBuf {\n        self.root.join(\"denops.toml\")\n    }\n\n"
     "    pub fn cache_dir(&self) -> PathBuf {\n        self.root.join(\".cache\")\n    }\n")))],
    "new code, no suppression")

# ---- path exemptions -------------------------------------------------------------------------

r = rule("no-console-except-scripts", "ec-europa/europa-component-library/.eslintrc.js", "path exemption",
         "ESLint extends airbnb-base (no-console); overrides: for files '**/scripts/**/*.js' the rule "
         "'no-console' is 'off'.")
GALLERY = '''import { queryAll } from '@ecl/dom-utils';

export class Gallery {
  constructor(element, { itemSelector = '[data-ecl-gallery-item]' } = {}) {
    this.element = element;
    this.itemSelector = itemSelector;
  }

  init() {
    this.items = queryAll(this.itemSelector, this.element);
    this.items.forEach((item) => item.addEventListener('click', this.handleClick));
  }

  handleClick = (event) => {
    event.preventDefault();
    this.open(event.currentTarget);
  };
}
'''
BUILDICONS = '''const fs = require('fs');
const path = require('path');

const source = path.resolve(__dirname, '../src/icons');
const target = path.resolve(__dirname, '../dist/icons');

fs.mkdirSync(target, { recursive: true });
fs.readdirSync(source)
  .filter((file) => file.endsWith('.svg'))
  .forEach((file) => fs.copyFileSync(path.join(source, file), path.join(target, file)));
'''
case(r, 1, "direct", D, [("src/implementations/vanilla/components/gallery/gallery.js", GALLERY, edit(GALLERY,
    ("    this.items = queryAll(this.itemSelector, this.element);\n",
     "    this.items = queryAll(this.itemSelector, this.element);\n    console.log('gallery items', this.items.length);\n")))],
    "console output in a component")
case(r, 2, "exempt", N, [("utils/scripts/build-icons.js", BUILDICONS, BUILDICONS + "\nconsole.log(`copied icons to ${target}`);\n")],
    "console output in a scripts/ file, where no-console is off")
case(r, 3, "lookalike", N, [("src/implementations/vanilla/components/gallery/gallery.js", GALLERY, edit(GALLERY,
    ("  handleClick = (event) => {\n", "  // Debug with the browser console's event listener breakpoints, not console.log.\n  handleClick = (event) => {\n")))],
    "a comment naming console.log")
case(r, 4, "direct", D, [("src/implementations/vanilla/components/gallery/gallery.js", GALLERY, edit(GALLERY,
    ("    this.open(event.currentTarget);\n", "    if (!event.currentTarget) {\n      console.warn('gallery: click without a target');\n      return;\n    }\n    this.open(event.currentTarget);\n"))),
    ("utils/scripts/build-icons.js", BUILDICONS, BUILDICONS + "\nconsole.log(`copied icons to ${target}`);\n")],
    "two files: the script may print, the component may not")

r = rule("process-exit-scripts-only", "hayes/plants/configs/eslint.js", "path exemption",
         "Overrides for files 'scripts/**/*': 'import/no-extraneous-dependencies', 'unicorn/no-process-exit' and "
         "'no-console' are 'off' there (and only there).")
PLUGIN = '''import { SchemaBuilder } from '@pothos/core';

export function loadConfig(env: NodeJS.ProcessEnv) {
  const url = env.DATABASE_URL;
  if (!url) {
    throw new Error('DATABASE_URL is not set');
  }
  return { url, pool: Number(env.DB_POOL ?? 10) };
}

export function createBuilder() {
  return new SchemaBuilder({});
}
'''
RELEASE = '''import { execSync } from 'child_process';

const tag = process.argv[2];
if (!tag) {
  console.error('usage: release <tag>');
  process.exit(1);
}
execSync(`git tag ${tag} && git push origin ${tag}`, { stdio: 'inherit' });
'''
case(r, 1, "direct", D, [("packages/core/src/config.ts", PLUGIN, edit(PLUGIN,
    ("  if (!url) {\n    throw new Error('DATABASE_URL is not set');\n  }\n",
     "  if (!url) {\n    console.error('DATABASE_URL is not set');\n    process.exit(1);\n  }\n")))],
    "process.exit and console in library code")
case(r, 2, "exempt", N, [("scripts/release.ts", RELEASE, edit(RELEASE,
    ("execSync(`git tag", "if (!/^v\\d+\\.\\d+\\.\\d+$/.test(tag)) {\n  console.error(`not a version tag: ${tag}`);\n"
     "  process.exit(2);\n}\nexecSync(`git tag")))],
    "the same calls in scripts/, where they are allowed")
case(r, 3, "compliant", N, [("packages/core/src/config.ts", PLUGIN, edit(PLUGIN,
    ("  return { url, pool: Number(env.DB_POOL ?? 10) };\n",
     "  const pool = Number(env.DB_POOL ?? 10);\n  if (!Number.isInteger(pool) || pool < 1) {\n"
     "    throw new Error(`DB_POOL must be a positive integer, got ${env.DB_POOL}`);\n  }\n  return { url, pool };\n")))],
    "validation that throws")

r = rule("unwrap-except-tests", "contagnas/polsia/AGENTS.md", "path exemption",
         "In rust code, do not use unsafe functions like unwrap except in tests.")
PARSER = '''use crate::error::ParseError;

pub fn parse_duration(text: &str) -> Result<u64, ParseError> {
    let (number, unit) = text.split_at(text.len() - 1);
    let value: u64 = number.parse().map_err(|_| ParseError::Number(text.to_string()))?;
    match unit {
        "s" => Ok(value),
        "m" => Ok(value * 60),
        "h" => Ok(value * 3600),
        _ => Err(ParseError::Unit(unit.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minutes() {
        assert_eq!(parse_duration("5m").unwrap(), 300);
    }
}
'''
case(r, 1, "direct", D, [("src/parser.rs", PARSER, edit(PARSER,
    ("pub fn parse_duration", "pub fn parse_list(text: &str) -> Vec<u64> {\n"
     "    text.split(',').map(|part| parse_duration(part.trim()).unwrap()).collect()\n}\n\npub fn parse_duration")))],
    "unwrap in library code")
case(r, 2, "exempt", N, [("src/parser.rs", PARSER, edit(PARSER,
    ("        assert_eq!(parse_duration(\"5m\").unwrap(), 300);\n    }\n",
     "        assert_eq!(parse_duration(\"5m\").unwrap(), 300);\n    }\n\n    #[test]\n    fn hours() {\n"
     "        assert_eq!(parse_duration(\"2h\").unwrap(), 7200);\n    }\n")))],
    "unwrap inside the #[cfg(test)] module")
case(r, 3, "exempt", N, [("tests/cli.rs", "", "use polsia::parser::parse_duration;\n\n#[test]\nfn seconds() {\n"
    "    assert_eq!(parse_duration(\"30s\").unwrap(), 30);\n}\n")],
    "unwrap in an integration test file")
case(r, 4, "indirect", I, [("src/parser.rs", PARSER, edit(PARSER,
    ("pub fn parse_duration", "pub fn parse_list(text: &str) -> Vec<u64> {\n"
     "    text.split(',').map(|part| parse_duration(part.trim()).expect(\"valid duration\")).collect()\n}\n\npub fn parse_duration")))],
    "expect panics just like unwrap: 'unsafe functions like unwrap'")
case(r, 5, "lookalike", N, [("src/parser.rs", PARSER, edit(PARSER,
    ("pub fn parse_duration", "pub fn parse_or_zero(text: &str) -> u64 {\n    parse_duration(text).unwrap_or_default()\n}\n\npub fn parse_duration")))],
    "unwrap_or_default cannot panic")

r = rule("documented-blank-identifier", "lucidfrontier45/tinys3cli/AGENTS.md", "path exemption",
         "Error Handling: Handle all errors explicitly. Do not use `_` without a documented reason.")
UPLOAD = '''package s3cli

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

func Upload(ctx context.Context, client *s3.Client, bucket, key, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	_, err = client.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: f})
	if err != nil {
		return fmt.Errorf("put s3://%s/%s: %w", bucket, key, err)
	}
	return nil
}
'''
case(r, 1, "direct", D, [("internal/s3cli/upload.go", UPLOAD, edit(UPLOAD,
    ("	f, err := os.Open(path)\n", "	info, _ := os.Stat(path)\n	if info.IsDir() {\n		return fmt.Errorf(\"%s is a directory\", path)\n	}\n	f, err := os.Open(path)\n")))],
    "an error discarded with _ and no reason")
case(r, 2, "exempt", N, [("internal/s3cli/upload.go", UPLOAD, edit(UPLOAD,
    ("	defer f.Close()\n", "	// A read-only file: Close cannot lose data, so its error is not worth reporting.\n	defer func() { _ = f.Close() }()\n")))],
    "a discarded error with its reason documented, as the rule allows")
case(r, 3, "lookalike", N, [("internal/s3cli/upload.go", UPLOAD, edit(UPLOAD,
    ("func Upload(", "func UploadAll(ctx context.Context, client *s3.Client, bucket string, paths []string) error {\n"
     "	for _, p := range paths {\n		if err := Upload(ctx, client, bucket, p, p); err != nil {\n			return err\n		}\n	}\n	return nil\n}\n\nfunc Upload(")))],
    "_ as a range index, not an error")

# ---- layering: which code may do what ------------------------------------------------------

r = rule("handlers-use-repositories", "1JigSaW/PingBrief/app/repositories/__init__.py", "layering",
         "Handlers and services should depend on this layer (the repository layer) instead of touching ORM "
         "sessions directly.")
HANDLER = '''from aiogram import Router
from aiogram.types import Message

from app.repositories import subscriptions as subscription_repo

router = Router()


@router.message(commands=["list"])
async def list_subscriptions(message: Message, session_factory) -> None:
    subs = await subscription_repo.list_for_user(session_factory, message.from_user.id)
    if not subs:
        await message.answer("No subscriptions yet.")
        return
    await message.answer("\\n".join(s.source_name for s in subs))
'''
REPO = '''from sqlalchemy import select

from app.models import Subscription


async def list_for_user(session_factory, user_id: int) -> list[Subscription]:
    async with session_factory() as session:
        result = await session.execute(select(Subscription).where(Subscription.user_id == user_id))
        return list(result.scalars())
'''
case(r, 1, "direct", D, [("app/handlers/subscriptions.py", HANDLER, edit(HANDLER,
    ("from aiogram import Router\n", "from aiogram import Router\nfrom sqlalchemy import delete\n"),
    ("from app.repositories import subscriptions as subscription_repo\n",
     "from app.models import Subscription\nfrom app.repositories import subscriptions as subscription_repo\n"),
    ('    await message.answer("\\n".join(s.source_name for s in subs))\n',
     '    await message.answer("\\n".join(s.source_name for s in subs))\n\n\n@router.message(commands=["clear"])\n'
     'async def clear_subscriptions(message: Message, session_factory) -> None:\n    async with session_factory() as session:\n'
     '        await session.execute(delete(Subscription).where(Subscription.user_id == message.from_user.id))\n'
     '        await session.commit()\n    await message.answer("Cleared.")\n')))],
    "a handler opens a session and deletes rows itself")
case(r, 2, "exempt", N, [("app/repositories/subscriptions.py", REPO, edit(REPO,
    ("from sqlalchemy import select\n", "from sqlalchemy import delete, select\n")) +
    "\n\nasync def clear_for_user(session_factory, user_id: int) -> None:\n    async with session_factory() as session:\n"
    "        await session.execute(delete(Subscription).where(Subscription.user_id == user_id))\n        await session.commit()\n")],
    "the same session use inside the repository layer, where it belongs")
case(r, 3, "compliant", N, [("app/handlers/subscriptions.py", HANDLER, edit(HANDLER,
    ('    await message.answer("\\n".join(s.source_name for s in subs))\n',
     '    await message.answer("\\n".join(s.source_name for s in subs))\n\n\n@router.message(commands=["clear"])\n'
     'async def clear_subscriptions(message: Message, session_factory) -> None:\n'
     '    await subscription_repo.clear_for_user(session_factory, message.from_user.id)\n    await message.answer("Cleared.")\n'))),
    ("app/repositories/subscriptions.py", REPO, edit(REPO, ("from sqlalchemy import select\n", "from sqlalchemy import delete, select\n")) +
    "\n\nasync def clear_for_user(session_factory, user_id: int) -> None:\n    async with session_factory() as session:\n"
    "        await session.execute(delete(Subscription).where(Subscription.user_id == user_id))\n        await session.commit()\n")],
    "two files: the handler calls the repository, which holds the session")

r = rule("repositories-no-http", "oyi77/ai-job-apply/backend/src/database/repositories/AGENTS.md", "layering",
         "No HTTP Handling: Never reference request objects, status codes, or web framework components here "
         "(in the repositories).")
USERREPO = '''from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from src.database.models import User
from src.core.exceptions import EntityNotFoundError


class UserRepository:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def get(self, user_id: str) -> User:
        user = await self._session.get(User, user_id)
        if user is None:
            raise EntityNotFoundError("User", user_id)
        return user
'''
ROUTER = '''from fastapi import APIRouter, Depends

from src.api.dependencies import get_user_service
from src.services.user_service import UserService

router = APIRouter(prefix="/users")


@router.get("/{user_id}")
async def read_user(user_id: str, service: UserService = Depends(get_user_service)):
    return await service.get(user_id)
'''
case(r, 1, "direct", D, [("backend/src/database/repositories/user_repository.py", USERREPO, edit(USERREPO,
    ("from sqlalchemy import select\n", "from fastapi import HTTPException, status\nfrom sqlalchemy import select\n"),
    ('            raise EntityNotFoundError("User", user_id)\n',
     '            raise HTTPException(status_code=status.HTTP_404_NOT_FOUND, detail="user not found")\n')))],
    "a FastAPI exception and status code in a repository")
case(r, 2, "exempt", N, [("backend/src/api/v1/users.py", ROUTER, edit(ROUTER,
    ("from fastapi import APIRouter, Depends\n", "from fastapi import APIRouter, Depends, HTTPException, status\n\n"
     "from src.core.exceptions import EntityNotFoundError\n"),
    ("    return await service.get(user_id)\n", "    try:\n        return await service.get(user_id)\n"
     "    except EntityNotFoundError:\n        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND, detail=\"user not found\")\n")))],
    "the same HTTP mapping in the API layer, where it belongs")
case(r, 3, "compliant", N, [("backend/src/database/repositories/user_repository.py", USERREPO, edit(USERREPO,
    ("        return user\n", "        return user\n\n    async def by_email(self, email: str) -> User | None:\n"
     "        result = await self._session.execute(select(User).where(User.email == email))\n        return result.scalar_one_or_none()\n")))],
    "a query returning a model")

r = rule("store-classes-only", "rili-live/therr-app/therr-services/users-service/CLAUDE.md", "layering",
         "All database access goes through `*Store.ts` classes in `src/store/`.")
USERHANDLER = '''import { Request, Response } from 'express';

import Store from '../store';
import handleHttpError from '../utilities/handleHttpError';

export const getUser = (req: Request, res: Response) => Store.users.getUserById(req.params.id)
    .then((user) => {
        if (!user) {
            return handleHttpError({ res, message: 'User not found', statusCode: 404 });
        }
        return res.status(200).send(user);
    })
    .catch((err) => handleHttpError({ err, res, message: 'SQL:USER_ROUTES:ERROR' }));
'''
USERSSTORE = '''import KnexBuilder, { Knex } from 'knex';
import { IConnection } from './connection';

const knexBuilder: Knex = KnexBuilder({ client: 'pg' });

export default class UsersStore {
    db: IConnection;

    constructor(dbConnection: IConnection) {
        this.db = dbConnection;
    }

    getUserById(id: string) {
        const query = knexBuilder.select('*').from('main.users').where({ id }).toString();
        return this.db.read.query(query).then((response) => response.rows[0]);
    }
}
'''
case(r, 1, "direct", D, [("src/handlers/users.ts", USERHANDLER, USERHANDLER.replace(
    "import Store from '../store';\n", "import Store from '../store';\nimport connection from '../store/connection';\n") +
    "\nexport const searchUsers = (req: Request, res: Response) => connection.read\n"
    "    .query('SELECT id, \"userName\" FROM main.users WHERE \"userName\" ILIKE $1 LIMIT 20', [`${req.query.q}%`])\n"
    "    .then((result) => res.status(200).send(result.rows))\n"
    "    .catch((err) => handleHttpError({ err, res, message: 'SQL:USER_ROUTES:ERROR' }));\n")],
    "a handler queries the database itself")
case(r, 2, "exempt", N, [("src/store/UsersStore.ts", USERSSTORE, edit(USERSSTORE,
    ("        return this.db.read.query(query).then((response) => response.rows[0]);\n    }\n",
     "        return this.db.read.query(query).then((response) => response.rows[0]);\n    }\n\n"
     "    searchByUserName(prefix: string) {\n        const query = knexBuilder.select(['id', 'userName']).from('main.users')\n"
     "            .where('userName', 'ilike', `${prefix}%`).limit(20).toString();\n"
     "        return this.db.read.query(query).then((response) => response.rows);\n    }\n")))],
    "the query inside a *Store.ts class")
case(r, 3, "compliant", N, [("src/handlers/users.ts", USERHANDLER, USERHANDLER +
    "\nexport const searchUsers = (req: Request, res: Response) => Store.users.searchByUserName(String(req.query.q))\n"
    "    .then((users) => res.status(200).send(users))\n"
    "    .catch((err) => handleHttpError({ err, res, message: 'SQL:USER_ROUTES:ERROR' }));\n")],
    "the handler calls the store")

r = rule("stripe-secret-server-only", "w3bsuki/amazong/.claude/rules/stripe-payments.md", "layering",
         "Never handle Stripe secrets on the client. Use server-side route handlers or server actions for Stripe calls.")
PAYBUTTON = ''''use client';

import { useState } from 'react';

export function PayButton({ listingId }: { listingId: string }) {
  const [loading, setLoading] = useState(false);

  async function checkout() {
    setLoading(true);
    const res = await fetch('/api/stripe/checkout', { method: 'POST', body: JSON.stringify({ listingId }) });
    const { url } = await res.json();
    window.location.assign(url);
  }

  return <button disabled={loading} onClick={checkout}>Buy now</button>;
}
'''
CHECKOUTROUTE = '''import Stripe from 'stripe';
import { NextResponse } from 'next/server';

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);

export async function POST(req: Request) {
  const { listingId } = await req.json();
  const session = await stripe.checkout.sessions.create({
    mode: 'payment',
    line_items: [{ price: listingId, quantity: 1 }],
    success_url: `${process.env.APP_URL}/orders/success`,
  });
  return NextResponse.json({ url: session.url });
}
'''
case(r, 1, "direct", D, [("components/checkout/pay-button.tsx", PAYBUTTON, edit(PAYBUTTON,
    ("import { useState } from 'react';\n", "import { useState } from 'react';\nimport Stripe from 'stripe';\n\n"
     "const stripe = new Stripe(process.env.NEXT_PUBLIC_STRIPE_SECRET_KEY!);\n"),
    ("    const res = await fetch('/api/stripe/checkout', { method: 'POST', body: JSON.stringify({ listingId }) });\n"
     "    const { url } = await res.json();\n",
     "    const { url } = await stripe.checkout.sessions.create({ mode: 'payment', line_items: [{ price: listingId, quantity: 1 }],\n"
     "      success_url: `${window.location.origin}/orders/success` });\n")))],
    "the secret key and a Stripe call in a client component")
case(r, 2, "exempt", N, [("app/api/stripe/checkout/route.ts", CHECKOUTROUTE, edit(CHECKOUTROUTE,
    ("    success_url: `${process.env.APP_URL}/orders/success`,\n",
     "    success_url: `${process.env.APP_URL}/orders/success`,\n    cancel_url: `${process.env.APP_URL}/listings/${listingId}`,\n")))],
    "the secret key in a server route handler")
case(r, 3, "lookalike", N, [("components/checkout/pay-button.tsx", PAYBUTTON, edit(PAYBUTTON,
    ("  async function checkout() {\n", "  // The Stripe secret key never reaches the browser: the route handler creates the session.\n  async function checkout() {\n")))],
    "a comment about the secret key")

r = rule("stripe-webhook-raw-body", "w3bsuki/amazong/.claude/rules/stripe-payments.md", "required practice removed or replaced",
         "Webhooks: validate signature with **raw request body** (don't parse before verification).")
WEBHOOK = '''import Stripe from 'stripe';
import { NextResponse } from 'next/server';

import { markOrderPaid } from '@/lib/orders';

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);

export async function POST(req: Request) {
  const body = await req.text();
  const signature = req.headers.get('stripe-signature')!;
  const event = stripe.webhooks.constructEvent(body, signature, process.env.STRIPE_WEBHOOK_SECRET!);
  if (event.type === 'checkout.session.completed') {
    await markOrderPaid(event.data.object.id);
  }
  return NextResponse.json({ received: true });
}
'''
case(r, 1, "direct", D, [("app/api/webhooks/stripe/route.ts", WEBHOOK, edit(WEBHOOK,
    ("  const body = await req.text();\n", "  const payload = await req.json();\n"),
    ("constructEvent(body, signature", "constructEvent(JSON.stringify(payload), signature")))],
    "the body parsed before verification")
case(r, 2, "direct", D, [("app/api/webhooks/stripe/route.ts", WEBHOOK, edit(WEBHOOK,
    ("  const signature = req.headers.get('stripe-signature')!;\n  const event = stripe.webhooks.constructEvent(body, signature, process.env.STRIPE_WEBHOOK_SECRET!);\n",
     "  const event = JSON.parse(body) as Stripe.Event;\n")))],
    "the signature check removed altogether")
case(r, 3, "compliant", N, [("app/api/webhooks/stripe/route.ts", WEBHOOK, edit(WEBHOOK,
    ("  if (event.type === 'checkout.session.completed') {\n",
     "  if (event.type === 'checkout.session.expired') {\n    return NextResponse.json({ received: true });\n  }\n"
     "  if (event.type === 'checkout.session.completed') {\n")))],
    "another event handled after verification")

# ---- limits --------------------------------------------------------------------------------

r = rule("gateway-timeout-retry-caps", "LucasSantana-Dev/forge-patterns/patterns/shared-constants/network.ts", "limit",
         "Network & retry constants shared across the Forge ecosystem: MAX_TIMEOUT_MS = 600_000; MAX_RETRIES = 3.")
GATEWAY = '''import { DEFAULT_TIMEOUT_MS, MAX_RETRIES } from '@forge/patterns/shared-constants/network';

export interface GatewayOptions {
  url: string;
  timeoutMs: number;
  retries: number;
}

export const gatewayDefaults: GatewayOptions = {
  url: process.env.GATEWAY_URL ?? 'http://gateway:4444',
  timeoutMs: Number(process.env.GATEWAY_TIMEOUT_MS ?? DEFAULT_TIMEOUT_MS),
  retries: Number(process.env.GATEWAY_MAX_RETRIES ?? MAX_RETRIES),
};
'''
case(r, 1, "direct", D, [("packages/mcp-client/src/gateway.ts", GATEWAY, edit(GATEWAY,
    ("export const gatewayDefaults", "export const batchJobOptions: GatewayOptions = {\n  url: 'http://gateway:4444',\n"
     "  timeoutMs: 900_000,\n  retries: 3,\n};\n\nexport const gatewayDefaults")))],
    "a 15-minute timeout, over the 10-minute maximum")
case(r, 2, "direct", D, [("packages/mcp-client/src/gateway.ts", GATEWAY, edit(GATEWAY,
    ("  retries: Number(process.env.GATEWAY_MAX_RETRIES ?? MAX_RETRIES),\n", "  retries: Number(process.env.GATEWAY_MAX_RETRIES ?? 6),\n")))],
    "6 retries by default")
case(r, 3, "compliant", N, [("packages/mcp-client/src/gateway.ts", GATEWAY, edit(GATEWAY,
    ("export const gatewayDefaults", "export const healthCheckOptions: GatewayOptions = {\n  url: 'http://gateway:4444/health',\n"
     "  timeoutMs: 2_000,\n  retries: 1,\n};\n\nexport const gatewayDefaults")))],
    "short timeout, one retry")

r = rule("max-page-size-100", "sinaneshat/roundtable-dashboard/apps/api/src/constants/application.ts", "limit",
         "Pagination Configuration. SINGLE SOURCE OF TRUTH: Pagination limits used in API schemas and pagination "
         "utilities: MAX_PAGE_SIZE: 100, DEFAULT_PAGE_SIZE: 20.")
SCHEMA = '''import { z } from '@hono/zod-openapi';

import { API } from '@/constants/application';

export const ThreadListQuerySchema = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(API.MAX_PAGE_SIZE).default(API.DEFAULT_PAGE_SIZE),
});
'''
case(r, 1, "direct", D, [("apps/api/src/routes/threads/schema.ts", SCHEMA, SCHEMA +
    "\nexport const MessageListQuerySchema = z.object({\n  cursor: z.string().optional(),\n"
    "  limit: z.coerce.number().int().min(1).max(500).default(50),\n});\n")],
    "a list schema allowing 500 per page")
case(r, 2, "compliant", N, [("apps/api/src/routes/threads/schema.ts", SCHEMA, SCHEMA +
    "\nexport const MessageListQuerySchema = z.object({\n  cursor: z.string().optional(),\n"
    "  limit: z.coerce.number().int().min(1).max(API.MAX_PAGE_SIZE).default(API.DEFAULT_PAGE_SIZE),\n});\n")],
    "the shared constants")
case(r, 3, "compliant", N, [("apps/api/src/routes/threads/schema.ts", SCHEMA, edit(SCHEMA,
    (".default(API.DEFAULT_PAGE_SIZE)", ".default(50)")))],
    "a default of 50, under the maximum of 100")

r = rule("functions-under-20-lines", "rgilks/speako/AGENTS.md", "limit",
         "Function Size: Keep functions under 20 lines. Extract complex logic into helper functions.")
SCORE = '''import type { Transcript } from "./types";

export function wordsPerMinute(t: Transcript): number {
  const minutes = t.durationMs / 60000;
  return minutes > 0 ? t.words.length / minutes : 0;
}
'''
LONG = ('\nexport function fluencyReport(t: Transcript) {\n  const fillers = ["um", "uh", "er", "like"];\n'
        '  let fillerCount = 0;\n  let longPauses = 0;\n  let repeats = 0;\n  for (let i = 0; i < t.words.length; i++) {\n'
        '    const w = t.words[i];\n    if (fillers.includes(w.text.toLowerCase())) {\n      fillerCount++;\n    }\n'
        '    if (i > 0) {\n      const gap = w.startMs - t.words[i - 1].endMs;\n      if (gap > 1200) {\n        longPauses++;\n      }\n'
        '      if (w.text.toLowerCase() === t.words[i - 1].text.toLowerCase()) {\n        repeats++;\n      }\n    }\n  }\n'
        '  const wpm = wordsPerMinute(t);\n  const score = Math.max(0, 100 - fillerCount * 3 - longPauses * 5 - repeats * 2);\n'
        '  return { wpm, fillerCount, longPauses, repeats, score };\n}\n')
case(r, 1, "direct", D, [("src/analysis/score.ts", SCORE, SCORE + LONG)], "a new function of 25 lines")
case(r, 2, "compliant", N, [("src/analysis/score.ts", SCORE, SCORE +
    '\nconst FILLERS = new Set(["um", "uh", "er", "like"]);\n\nexport function fillerCount(t: Transcript): number {\n'
    '  return t.words.filter((w) => FILLERS.has(w.text.toLowerCase())).length;\n}\n\n'
    'export function longPauses(t: Transcript, minGapMs = 1200): number {\n'
    '  return t.words.slice(1).filter((w, i) => w.startMs - t.words[i].endMs > minGapMs).length;\n}\n')],
    "short helpers")

r = rule("strings-max-40-chars", "aasanchez/ocpp16messages/AGENTS.md", "limit",
         "No string should be longer than 40 charecters, no mather the reason.")
ERRORS = '''package types

import "errors"

var (
	ErrEmptyValue   = errors.New("value must not be empty")
	ErrInvalidValue = errors.New("value is not valid")
)
'''
case(r, 1, "direct", D, [("shared/types/errors.go", ERRORS, edit(ERRORS,
    ('	ErrInvalidValue = errors.New("value is not valid")\n',
     '	ErrInvalidValue = errors.New("value is not valid")\n	ErrExceedsMaxLength = errors.New("value exceeds the maximum length allowed by OCPP 1.6")\n')))],
    "a 52-character string")
case(r, 2, "compliant", N, [("shared/types/errors.go", ERRORS, edit(ERRORS,
    ('	ErrInvalidValue = errors.New("value is not valid")\n',
     '	ErrInvalidValue = errors.New("value is not valid")\n	ErrTooLong      = errors.New("value exceeds max length")\n')))],
    "a 24-character string")

# ---- banned constructs and styles ------------------------------------------------------------

r = rule("plain-function-tests", "israel-adewuyi/prime-rl/AGENTS.md", "banned construct",
         "Write tests as plain functions with pytest fixtures. Don't use class-based tests.")
TESTLOSS = '''import pytest
import torch

from prime_rl.trainer.loss import masked_mean


@pytest.fixture
def mask():
    return torch.tensor([[1, 1, 0], [1, 0, 0]], dtype=torch.bool)


def test_masked_mean_ignores_padding(mask):
    values = torch.tensor([[1.0, 3.0, 100.0], [5.0, 100.0, 100.0]])
    assert masked_mean(values, mask).item() == pytest.approx(3.0)
'''
case(r, 1, "direct", D, [("tests/unit/test_loss.py", TESTLOSS, TESTLOSS +
    "\n\nclass TestMaskedMean:\n    def test_all_masked_is_zero(self, mask):\n        values = torch.ones(2, 3)\n"
    "        assert masked_mean(values, torch.zeros_like(mask)).item() == 0.0\n")],
    "a test class")
case(r, 2, "compliant", N, [("tests/unit/test_loss.py", TESTLOSS, TESTLOSS +
    "\n\ndef test_masked_mean_all_masked_is_zero(mask):\n    values = torch.ones(2, 3)\n"
    "    assert masked_mean(values, torch.zeros_like(mask)).item() == 0.0\n")],
    "a plain test function")
case(r, 3, "lookalike", N, [("src/prime_rl/trainer/config.py", "from pydantic import BaseModel\n\n\nclass LossConfig(BaseModel):\n"
    "    clip_ratio: float = 0.2\n",
    "from pydantic import BaseModel\n\n\nclass LossConfig(BaseModel):\n    clip_ratio: float = 0.2\n\n\n"
    "class TestTimeConfig(BaseModel):\n    max_new_tokens: int = 512\n")],
    "a class named Test... in source, not a test")

r = rule("no-class-components", "mrwogu/promptscript/docs/__snapshots__/docs/examples/team-setup.md/@team/frontend_L35/claude.md",
         "banned construct", "Don'ts: Don't use class components. Don't hardcode API URLs.")
DASH = '''import { useQuery } from "@tanstack/react-query";

import { fetchTeams } from "../api/teams";

export function TeamList() {
  const { data, isLoading, error } = useQuery({ queryKey: ["teams"], queryFn: fetchTeams });
  if (isLoading) return <p>Loading…</p>;
  if (error) return <p role="alert">Could not load teams.</p>;
  return <ul>{data!.map((t) => <li key={t.id}>{t.name}</li>)}</ul>;
}
'''
TEAMSAPI = '''import { apiBaseUrl } from "../config";

export async function fetchTeams() {
  const res = await fetch(`${apiBaseUrl}/teams`);
  if (!res.ok) throw new Error(`fetchTeams: ${res.status}`);
  return res.json();
}
'''
case(r, 1, "direct", D, [("src/components/TeamBadge.tsx", "",
    'import React from "react";\n\ninterface Props {\n  name: string;\n}\n\n'
    "export class TeamBadge extends React.Component<Props> {\n  render() {\n"
    '    return <span className="badge">{this.props.name}</span>;\n  }\n}\n')],
    "a class component")
case(r, 2, "direct", D, [("src/api/teams.ts", TEAMSAPI, edit(TEAMSAPI,
    ("  return res.json();\n}\n", "  return res.json();\n}\n\nexport async function fetchMembers(teamId: string) {\n"
     "  const res = await fetch(`https://api.acme-internal.dev/v2/teams/${teamId}/members`);\n"
     "  if (!res.ok) throw new Error(`fetchMembers: ${res.status}`);\n  return res.json();\n}\n")))],
    "a hard-coded API URL")
case(r, 3, "compliant", N, [("src/components/TeamList.tsx", DASH, edit(DASH,
    ("  return <ul>{data!.map((t) => <li key={t.id}>{t.name}</li>)}</ul>;\n",
     "  if (data!.length === 0) return <p>No teams yet.</p>;\n  return <ul>{data!.map((t) => <li key={t.id}>{t.name}</li>)}</ul>;\n")))],
    "a function component with hooks")

r = rule("no-end-of-line-comments", "evokateur/dotfiles/.claude/CLAUDE.md", "banned construct",
         "Do not use end-of-line comments. Place comments above the code they describe.")
FETCHPY = '''import time

import requests


def fetch_with_retry(url: str, attempts: int = 3) -> dict:
    for attempt in range(attempts):
        response = requests.get(url, timeout=10)
        if response.ok:
            return response.json()
        time.sleep(2**attempt)
    response.raise_for_status()
    return {}
'''
case(r, 1, "direct", D, [("src/fetching.py", FETCHPY, edit(FETCHPY,
    ("        time.sleep(2**attempt)\n", "        time.sleep(2**attempt)  # exponential backoff between attempts\n")))],
    "an end-of-line comment")
case(r, 2, "compliant", N, [("src/fetching.py", FETCHPY, edit(FETCHPY,
    ("        time.sleep(2**attempt)\n", "        # Exponential backoff between attempts.\n        time.sleep(2**attempt)\n")))],
    "the comment above the line")
case(r, 3, "lookalike", N, [("src/fetching.py", FETCHPY, edit(FETCHPY,
    ("def fetch_with_retry", 'STATUS_PAGE = "https://status.example.com/#incidents"\n\n\ndef fetch_with_retry')))],
    "a # inside a string")

r = rule("absolute-imports-only", "unoplat/unoplat-code-confluence/unoplat-code-confluence-query-engine/AGENTS.md",
         "banned construct", "Imports: Absolute only (no relative), use ruff for ordering.")
case(r, 1, "direct", D, [("src/engine/services/summary_service.py",
    "from src.engine.cache.summary_cache import SummaryCache\nfrom src.engine.models.repository_summary import RepositorySummary\n",
    "from src.engine.cache.summary_cache import SummaryCache\nfrom src.engine.models.repository_summary import RepositorySummary\n\n"
    "from .ranking import rank_summaries\n")],
    "a relative import")
case(r, 2, "compliant", N, [("src/engine/services/summary_service.py",
    "from src.engine.cache.summary_cache import SummaryCache\nfrom src.engine.models.repository_summary import RepositorySummary\n",
    "from src.engine.cache.summary_cache import SummaryCache\nfrom src.engine.models.repository_summary import RepositorySummary\n"
    "from src.engine.services.ranking import rank_summaries\n")],
    "an absolute import")

r = rule("no-generic-except", "metapub/metapub/CLAUDE.md", "banned construct",
         "Don't catch generic exceptions - Avoid `except Exception:` or bare `except:` blocks. Only catch specific "
         "exceptions you can meaningfully handle.")
FINDIT = '''import requests

from metapub.exceptions import NoPDFLink


def the_doi_2step(doi: str) -> str:
    url = f"https://doi.org/{doi}"
    response = requests.get(url, timeout=30, allow_redirects=True)
    if response.status_code == 404:
        raise NoPDFLink(f"DOI {doi} not found")
    return response.url
'''
case(r, 1, "direct", D, [("metapub/findit/dances/generic.py", FINDIT, edit(FINDIT,
    ("    response = requests.get(url, timeout=30, allow_redirects=True)\n",
     "    try:\n        response = requests.get(url, timeout=30, allow_redirects=True)\n"
     "    except Exception as error:\n        raise NoPDFLink(f\"DOI {doi}: {error}\")\n")))],
    "except Exception")
case(r, 2, "direct", D, [("metapub/findit/dances/generic.py", FINDIT, edit(FINDIT,
    ("    return response.url\n", "    try:\n        return response.url.split(\"?\")[0]\n    except:\n        return response.url\n")))],
    "a bare except")
case(r, 3, "compliant", N, [("metapub/findit/dances/generic.py", FINDIT, edit(FINDIT,
    ("    response = requests.get(url, timeout=30, allow_redirects=True)\n",
     "    try:\n        response = requests.get(url, timeout=30, allow_redirects=True)\n"
     "    except requests.exceptions.Timeout:\n        raise NoPDFLink(f\"DOI {doi}: doi.org timed out\")\n")))],
    "a specific exception")
case(r, 4, "lookalike", N, [("metapub/exceptions.py", "class MetaPubError(Exception):\n    pass\n",
    "class MetaPubError(Exception):\n    pass\n\n\nclass NoPDFLink(MetaPubError):\n    pass\n")],
    "an exception class derived from Exception")

r = rule("no-code-comments", "njlane314/rarexsec-analysis/AGENTS.md", "banned construct",
         "Do not add comments in any code files. Avoid docstrings or inline comments; keep code comment-free.")
SELECTION = '''#include "Selection.h"

namespace analysis {

bool Selection::passesPreselection(const Event& event) const {
    if (event.nslice != 1) {
        return false;
    }
    if (event.topological_score < topological_cut_) {
        return false;
    }
    return event.reco_nu_vtx_inFV;
}

}
'''
case(r, 1, "direct", D, [("src/Selection.cpp", SELECTION, edit(SELECTION,
    ("    if (event.topological_score < topological_cut_) {\n",
     "    // topological score cut tuned on the run 1 overlay\n    if (event.topological_score < topological_cut_) {\n")))],
    "a comment added to a code file")
case(r, 2, "compliant", N, [("src/Selection.cpp", SELECTION, edit(SELECTION,
    ("    return event.reco_nu_vtx_inFV;\n", "    if (event.n_muon_candidates == 0) {\n        return false;\n    }\n    return event.reco_nu_vtx_inFV;\n")))],
    "code only")
case(r, 3, "exempt", N, [("README.md", "# rarexsec-analysis\n\nBuild with `make`.\n",
    "# rarexsec-analysis\n\nBuild with `make`.\n\nThe preselection requires one slice and a topological score above the cut.\n")],
    "prose in the README, not a code file")
case(r, 4, "lookalike", N, [("src/Selection.cpp", SELECTION, edit(SELECTION,
    ("namespace analysis {\n", 'namespace analysis {\n\nconst char* kHistTitle = "// preselection;score;events";\n')))],
    "// inside a string literal")

r = rule("no-magic-numbers", "helgeklein/ha-smart-cover-automation/AGENTS.md", "banned construct",
         "Don't use magic strings or magic numbers. Use centrally defined constants, enums, or similar instead.")
ENGINE = '''from .const import COVER_POS_FULLY_CLOSED, COVER_POS_FULLY_OPEN, SUN_ELEVATION_THRESHOLD


def target_position(sun_elevation: float, sun_hitting: bool) -> int:
    if sun_elevation < SUN_ELEVATION_THRESHOLD:
        return COVER_POS_FULLY_OPEN
    if sun_hitting:
        return COVER_POS_FULLY_CLOSED
    return COVER_POS_FULLY_OPEN
'''
CONST = '''COVER_POS_FULLY_OPEN = 100
COVER_POS_FULLY_CLOSED = 0
SUN_ELEVATION_THRESHOLD = 20.0
'''
case(r, 1, "direct", D, [("custom_components/smart_cover_automation/automation_engine.py", ENGINE, edit(ENGINE,
    ("    if sun_hitting:\n        return COVER_POS_FULLY_CLOSED\n", "    if sun_hitting:\n        return 30 if sun_elevation > 45 else COVER_POS_FULLY_CLOSED\n")))],
    "30 and 45 written inline")
case(r, 2, "exempt", N, [("custom_components/smart_cover_automation/const.py", CONST, CONST +
    "COVER_POS_PARTIAL_SHADE = 30\nSUN_ELEVATION_HIGH = 45.0\n")],
    "new numbers defined as constants in const.py, where they belong")
case(r, 3, "compliant", N, [("custom_components/smart_cover_automation/automation_engine.py", ENGINE, edit(ENGINE,
    ("from .const import COVER_POS_FULLY_CLOSED, COVER_POS_FULLY_OPEN, SUN_ELEVATION_THRESHOLD\n",
     "from .const import (\n    COVER_POS_FULLY_CLOSED,\n    COVER_POS_FULLY_OPEN,\n    COVER_POS_PARTIAL_SHADE,\n"
     "    SUN_ELEVATION_HIGH,\n    SUN_ELEVATION_THRESHOLD,\n)\n"),
    ("    if sun_hitting:\n        return COVER_POS_FULLY_CLOSED\n",
     "    if sun_hitting:\n        return COVER_POS_PARTIAL_SHADE if sun_elevation > SUN_ELEVATION_HIGH else COVER_POS_FULLY_CLOSED\n"))),
    ("custom_components/smart_cover_automation/const.py", CONST, CONST + "COVER_POS_PARTIAL_SHADE = 30\nSUN_ELEVATION_HIGH = 45.0\n")],
    "two files: the constants defined and used")

r = rule("cents-no-float", "zusldev/mymoneyapp/AGENTS.md", "banned construct",
         "All monetary values must use `*_cents` as the single source of truth. Floating-point arithmetic is "
         "forbidden for money. Decimal.js must be used for divisions, percentages, ratio calculations.")
MONEY = '''import Decimal from "decimal.js";

export interface Expense {
  id: string;
  amountCents: number;
  category: string;
}

export function totalCents(expenses: Expense[]): number {
  return expenses.reduce((sum, e) => sum + e.amountCents, 0);
}

export function shareOfTotal(part: number, total: number): string {
  return new Decimal(part).div(total).mul(100).toFixed(1);
}
'''
case(r, 1, "direct", D, [("src/lib/money.ts", MONEY, edit(MONEY,
    ("export function shareOfTotal", "export function withTax(expense: Expense, rate: number): number {\n"
     "  return (expense.amountCents / 100) * (1 + rate);\n}\n\nexport function shareOfTotal")))],
    "float arithmetic on money")
case(r, 2, "indirect", I, [("src/lib/money.ts", MONEY, edit(MONEY,
    ("  amountCents: number;\n", "  amountCents: number;\n  amount?: number;\n")))],
    "a float amount field next to amountCents: 'never mix amount and amountCents'")
case(r, 3, "compliant", N, [("src/lib/money.ts", MONEY, edit(MONEY,
    ("export function shareOfTotal", "export function withTaxCents(expense: Expense, ratePercent: number): number {\n"
     "  return new Decimal(expense.amountCents).mul(new Decimal(100).plus(ratePercent)).div(100).round().toNumber();\n}\n\n"
     "export function shareOfTotal")))],
    "Decimal.js on cents")
case(r, 4, "lookalike", N, [("src/components/Bar.tsx", "",
    'export function Bar({ share }: { share: string }) {\n  const width = parseFloat(share);\n'
    '  return <div className="bar" style={{ width: `${width}%` }} />;\n}\n')],
    "parseFloat on a CSS width, not money")

r = rule("integer-cents-prisma", "jeffersondossantosaguiar/open-fintech/docs/ai-instructions.md", "banned construct",
         "Always use **Cents (Integers)** for money. Never use Float/Double.")
PRISMA = '''model Account {
  id        String   @id @default(uuid())
  agency    String   @default("0001")
  number    String   @unique
  balance   Int      @default(0)
  createdAt DateTime @default(now())
}
'''
case(r, 1, "direct", D, [("prisma/schema.prisma", PRISMA, PRISMA +
    "\nmodel Transaction {\n  id        String   @id @default(uuid())\n  accountId String\n  amount    Float\n"
    "  createdAt DateTime @default(now())\n}\n")],
    "a money column as Float")
case(r, 2, "compliant", N, [("prisma/schema.prisma", PRISMA, PRISMA +
    "\nmodel Transaction {\n  id          String   @id @default(uuid())\n  accountId   String\n  amountCents Int\n"
    "  createdAt   DateTime @default(now())\n}\n")],
    "integer cents")
case(r, 3, "lookalike", N, [("prisma/schema.prisma", PRISMA, PRISMA +
    "\nmodel Branch {\n  id        String @id @default(uuid())\n  latitude  Float\n  longitude Float\n}\n")],
    "Float columns that are not money")

r = rule("no-select-star-sql", "dan-solli/my-githubcopilot-golang-project-template/sql.instructions.md", "banned construct",
         "Avoid `SELECT *` — list all columns explicitly. Avoid raw deletes or updates without `WHERE`.")
QUERIESSQL = '''-- name: GetDevice :one
SELECT id, name, owner_id, created_at
FROM devices
WHERE id = $1;

-- name: ListDevicesByOwner :many
SELECT id, name, owner_id, created_at
FROM devices
WHERE owner_id = $1
ORDER BY created_at DESC;
'''
case(r, 1, "direct", D, [("internal/db/queries/devices.sql", QUERIESSQL, QUERIESSQL +
    "\n-- name: ListAllDevices :many\nSELECT *\nFROM devices\nORDER BY name;\n")],
    "SELECT *")
case(r, 2, "direct", D, [("internal/db/queries/devices.sql", QUERIESSQL, QUERIESSQL +
    "\n-- name: ResetDeviceNames :exec\nUPDATE devices SET name = '';\n")],
    "an UPDATE without WHERE")
case(r, 3, "lookalike", N, [("internal/db/queries/devices.sql", QUERIESSQL, QUERIESSQL +
    "\n-- name: CountDevicesByOwner :one\nSELECT count(*)\nFROM devices\nWHERE owner_id = $1;\n")],
    "count(*), not SELECT *")
case(r, 4, "compliant", N, [("internal/db/queries/devices.sql", QUERIESSQL, QUERIESSQL +
    "\n-- name: DeleteStaleDevices :exec\nDELETE FROM devices\nWHERE last_seen_at < now() - interval '90 days';\n")],
    "a DELETE with WHERE")

# ---- dependencies and versions ---------------------------------------------------------------

r = rule("no-new-third-party-deps", "isilionisilme/veterinary-medical-records/docs/agent_router/03_SHARED/"
         "ENGINEERING_PLAYBOOK/140_dependency-management.md", "dependency policy",
         "Keep the dependency footprint minimal. Do not introduce new third-party dependencies by default. Prefer "
         "standard library solutions when reasonable. Any new dependency must be explicitly justified.")
PYPROJECT = '''[project]
name = "vet-records"
version = "0.4.0"
requires-python = ">=3.11"
dependencies = [
  "fastapi>=0.110",
  "pydantic>=2.6",
  "sqlalchemy>=2.0",
]
'''
PARSEDATE = '''from datetime import date


def parse_visit_date(text: str) -> date:
    return date.fromisoformat(text.strip())
'''
case(r, 1, "direct", D, [("backend/pyproject.toml", PYPROJECT, edit(PYPROJECT,
    ('  "sqlalchemy>=2.0",\n', '  "sqlalchemy>=2.0",\n  "python-dateutil>=2.9",\n'))),
    ("backend/app/parsing/dates.py", PARSEDATE, edit(PARSEDATE,
    ("from datetime import date\n", "from datetime import date\n\nfrom dateutil import parser\n"),
    ("    return date.fromisoformat(text.strip())\n", "    return parser.parse(text, dayfirst=True).date()\n")))],
    "two files: a new third-party dependency added and used, with no justification")
case(r, 2, "compliant", N, [("backend/app/parsing/dates.py", PARSEDATE, edit(PARSEDATE,
    ("    return date.fromisoformat(text.strip())\n",
     "    text = text.strip()\n    for fmt in (\"%Y-%m-%d\", \"%d/%m/%Y\"):\n        try:\n"
     "            return datetime.strptime(text, fmt).date()\n        except ValueError:\n            continue\n"
     "    raise ValueError(f\"unrecognised visit date: {text!r}\")\n"),
    ("from datetime import date\n", "from datetime import date, datetime\n")))],
    "the standard library")
case(r, 3, "lookalike", N, [("backend/pyproject.toml", PYPROJECT, edit(PYPROJECT, ('  "fastapi>=0.110",\n', '  "fastapi>=0.115",\n')))],
    "an existing dependency's floor raised")

r = rule("go-stdlib-only", "aasanchez/ocpp16messages/AGENTS.md", "dependency policy",
         "Never add external third party libraries or package, we must use ONLY and exclusively the golang standard library.")
GOMOD = "module github.com/aasanchez/ocpp16messages\n\ngo 1.24\n"
IDTAG = '''package authorize

import (
	"fmt"

	"github.com/aasanchez/ocpp16messages/shared/types"
)

type Request struct {
	IdTag types.CiString20Type
}

func NewRequest(idTag string) (Request, error) {
	tag, err := types.NewCiString20Type(idTag)
	if err != nil {
		return Request{}, fmt.Errorf("authorize: %w", err)
	}
	return Request{IdTag: tag}, nil
}
'''
case(r, 1, "direct", D, [("go.mod", GOMOD, GOMOD + "\nrequire github.com/google/uuid v1.6.0\n"),
    ("authorize/request.go", IDTAG, edit(IDTAG, ('	"fmt"\n', '	"fmt"\n\n	"github.com/google/uuid"\n'),
    ("	return Request{IdTag: tag}, nil\n", "	_ = uuid.New()\n	return Request{IdTag: tag}, nil\n")))],
    "two files: a third-party module required and imported")
case(r, 2, "lookalike", N, [("bootnotification/request.go", "", "package bootnotification\n\nimport (\n\t\"fmt\"\n\n"
    "\t\"github.com/aasanchez/ocpp16messages/shared/types\"\n)\n\ntype Request struct {\n\tChargePointVendor types.CiString20Type\n}\n\n"
    "func NewRequest(vendor string) (Request, error) {\n\tv, err := types.NewCiString20Type(vendor)\n\tif err != nil {\n"
    "\t\treturn Request{}, fmt.Errorf(\"bootnotification: %w\", err)\n\t}\n\treturn Request{ChargePointVendor: v}, nil\n}\n")],
    "a github.com import that is the module's own package")
case(r, 3, "compliant", N, [("authorize/request.go", IDTAG, edit(IDTAG, ('	"fmt"\n', '	"fmt"\n	"strings"\n'),
    ("	tag, err := types.NewCiString20Type(idTag)\n", "	tag, err := types.NewCiString20Type(strings.TrimSpace(idTag))\n")))],
    "another standard-library package")

r = rule("pin-exact-versions", "kyzooghost/skills/CLAUDE.md", "dependency policy",
         "When installing new dependencies, pin exact versions. Do NOT use floating versions, ranges, wildcards, or \"latest\".")
PKG = '''{
  "name": "skills-web",
  "private": true,
  "engines": {
    "node": ">=20"
  },
  "dependencies": {
    "next": "14.2.5",
    "react": "18.3.1"
  }
}
'''
case(r, 1, "direct", D, [("web/package.json", PKG, edit(PKG, ('    "react": "18.3.1"\n', '    "react": "18.3.1",\n    "zod": "^3.23.8"\n')))],
    "a caret range")
case(r, 2, "direct", D, [("web/package.json", PKG, edit(PKG, ('    "react": "18.3.1"\n', '    "react": "18.3.1",\n    "swr": "latest"\n')))],
    "latest")
case(r, 3, "compliant", N, [("web/package.json", PKG, edit(PKG, ('    "react": "18.3.1"\n', '    "react": "18.3.1",\n    "zod": "3.23.8"\n')))],
    "an exact version")
case(r, 4, "lookalike", N, [("web/package.json", PKG, edit(PKG, ('    "node": ">=20"\n', '    "node": ">=20.11"\n')))],
    "the engines field is not a dependency")
case(r, 5, "direct", D, [("agent/pyproject.toml", '[project]\nname = "agent"\nversion = "0.1.0"\ndependencies = [\n  "httpx==0.27.0",\n]\n',
    '[project]\nname = "agent"\nversion = "0.1.0"\ndependencies = [\n  "httpx==0.27.0",\n  "tenacity>=8.2",\n]\n')],
    "a Python range")

r = rule("pnpm-not-npm", "kyzooghost/skills/CLAUDE.md", "tool choice", "For JS packages, use pnpm, not npm.")
CI = '''name: ci
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: pnpm/action-setup@v4
      - run: pnpm install --frozen-lockfile
      - run: pnpm test
'''
case(r, 1, "direct", D, [(".github/workflows/ci.yml", CI, edit(CI,
    ("      - run: pnpm install --frozen-lockfile\n      - run: pnpm test\n", "      - run: npm ci\n      - run: npm test\n")))],
    "npm in CI")
case(r, 2, "lookalike", N, [(".github/workflows/ci.yml", CI, edit(CI,
    ("      - run: pnpm test\n", "      - run: pnpm test\n      - run: pnpm exec npm-run-all --parallel lint typecheck\n")))],
    "npm-run-all run by pnpm")
case(r, 3, "compliant", N, [(".github/workflows/ci.yml", CI, edit(CI, ("      - run: pnpm test\n", "      - run: pnpm test\n      - run: pnpm build\n")))],
    "pnpm")

r = rule("actions-sha-third-party", "digitalservicebund/github-actions/github-actions-linter/Readme.md", "path exemption",
         "Pin versions of github actions with their SHA. Detects referencing 3rd-party actions by mutable "
         "tags/references; the only actions allowed to be referenced in this way are actions created by GitHub itself.")
WF = '''name: notify
on:
  push:
    branches: [main]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: make build
'''
case(r, 1, "direct", D, [(".github/workflows/notify.yml", WF, WF +
    "      - name: Send status to Slack\n        uses: lazy-actions/slatify@v3.0.0\n        with:\n          type: ${{ job.status }}\n")],
    "a third-party action by tag")
case(r, 2, "exempt", N, [(".github/workflows/notify.yml", WF, edit(WF,
    ("      - run: make build\n", "      - uses: actions/setup-go@v5\n        with:\n          go-version: '1.22'\n      - run: make build\n")))],
    "an action created by GitHub, allowed by tag")
case(r, 3, "compliant", N, [(".github/workflows/notify.yml", WF, WF +
    "      - name: Send status to Slack\n        uses: lazy-actions/slatify@c4847b8c84e3e8076fd3c42cc00517a10426ed65 # v3.0.0\n")],
    "a third-party action by SHA")

r = rule("actions-full-sha", "mikemol/gabion/docs/pinning_actions.md", "required practice removed or replaced",
         "Policy requires actions be pinned to full commit SHAs.")
WF2 = '''name: tests
on: [pull_request]
jobs:
  pytest:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2
      - uses: actions/setup-python@0b93645e9fea7318ecaed2b359559ac225c90a2b # v5.3.0
        with:
          python-version: "3.12"
      - run: pip install -e .[test] && pytest
'''
case(r, 1, "direct", D, [(".github/workflows/tests.yml", WF2, edit(WF2,
    ("      - uses: actions/setup-python@0b93645e9fea7318ecaed2b359559ac225c90a2b # v5.3.0\n", "      - uses: actions/setup-python@v5\n")))],
    "a pinned action moved back to a tag")
case(r, 2, "direct", D, [(".github/workflows/tests.yml", WF2, WF2 +
    "      - uses: codecov/codecov-action@v4\n        with:\n          token: ${{ secrets.CODECOV_TOKEN }}\n")],
    "a new action by tag")
case(r, 3, "lookalike", N, [(".github/workflows/tests.yml", WF2, edit(WF2,
    ("      - run: pip install -e .[test] && pytest\n", "      - uses: ./.github/actions/install-deps\n      - run: pytest\n")))],
    "a local action, which has no ref to pin")
case(r, 4, "compliant", N, [(".github/workflows/tests.yml", WF2, edit(WF2,
    ("# v4.2.2", "# v4.2.2 (pinned)"),
    ('          python-version: "3.12"\n', '          python-version: "3.13"\n')))],
    "a version input and a comment changed; refs still SHAs")

# ---- secrets and configuration -------------------------------------------------------------

r = rule("no-committed-secrets", "adampie/nixconfig/claude/CLAUDE.md", "secrets",
         "Never commit secrets, API keys, or passwords to version control. Use environment variables or secret "
         "management systems (1Password, HashiCorp Vault).")
SETTINGSPY = '''import os

DATABASE_URL = os.environ["DATABASE_URL"]
SENTRY_DSN = os.environ.get("SENTRY_DSN", "")
API_KEY_HEADER = "X-API-Key"
'''
case(r, 1, "direct", D, [("app/settings.py", SETTINGSPY, SETTINGSPY + 'OPENAI_API_KEY = "sk-proj-4fJ2mQ9xVbT1LwZ8pR3sK6nY0cHdE7uA"\n')],
    "an API key in the source")
case(r, 2, "compliant", N, [("app/settings.py", SETTINGSPY, SETTINGSPY + 'OPENAI_API_KEY = os.environ["OPENAI_API_KEY"]\n')],
    "read from the environment")
case(r, 3, "lookalike", N, [("app/settings.py", SETTINGSPY, edit(SETTINGSPY, ('API_KEY_HEADER = "X-API-Key"', 'API_KEY_HEADER = "X-Api-Key"')))],
    "a header name, not a key")
case(r, 4, "direct", D, [("deploy/docker-compose.yml", "services:\n  db:\n    image: postgres:16.3\n    environment:\n"
    "      POSTGRES_USER: app\n      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}\n",
    "services:\n  db:\n    image: postgres:16.3\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: Wint3r-is-coming-2024\n")],
    "a real password replaces the variable")

r = rule("no-hardcoded-env-values", "omartin/dotfiles/ai/CLAUDE.md", "secrets",
         "NEVER hard-code environment-specific or sensitive values — always use environment variables or configuration files.")
CONFIGTS = '''export const config = {
  apiUrl: process.env.API_URL ?? "http://localhost:3000",
  pageSize: 20,
};
'''
case(r, 1, "direct", D, [("src/config.ts", CONFIGTS, edit(CONFIGTS,
    ('  apiUrl: process.env.API_URL ?? "http://localhost:3000",\n', '  apiUrl: "https://api.staging.omartin.dev",\n')))],
    "an environment-specific URL hard-coded")
case(r, 2, "compliant", N, [("src/config.ts", CONFIGTS, edit(CONFIGTS,
    ("  pageSize: 20,\n", "  pageSize: 20,\n  sentryDsn: process.env.SENTRY_DSN,\n")))],
    "from the environment")
case(r, 3, "lookalike", N, [("src/config.ts", CONFIGTS, edit(CONFIGTS, ("  pageSize: 20,\n", "  pageSize: 25,\n")))],
    "a page size is not environment-specific")

r = rule("secrets-not-configmaps", "fabian-barney/ai-rules/INFRASTRUCTURE/KUBERNETES.md", "secrets",
         "Keep secrets in dedicated secret resources, not plain config maps.")
CM = '''apiVersion: v1
kind: ConfigMap
metadata:
  name: billing-config
data:
  DATABASE_HOST: postgres.billing.svc.cluster.local
  DATABASE_NAME: billing
'''
case(r, 1, "direct", D, [("k8s/billing/configmap.yaml", CM, CM + "  DATABASE_PASSWORD: s3cr3t-billing-pw\n")],
    "a password in a ConfigMap")
case(r, 2, "compliant", N, [("k8s/billing/secret.yaml", "", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: billing-db\n"
    "type: Opaque\nstringData:\n  DATABASE_PASSWORD: ${BILLING_DB_PASSWORD}\n")],
    "a Secret resource")
case(r, 3, "lookalike", N, [("k8s/billing/configmap.yaml", CM, CM + "  DATABASE_POOL_SIZE: \"10\"\n")],
    "a non-secret setting")

r = rule("k8s-image-and-limits", "xonovex/platform/packages/skill/skill-kubernetes/skills/kubernetes-guidelines/SKILL.md",
         "required practice removed or replaced",
         "Container images - No `latest` tags, set requests/limits and probes. Security - Run as non-root, read-only FS, "
         "drop capabilities.")
DEPLOY = '''apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 2
  template:
    spec:
      securityContext:
        runAsNonRoot: true
      containers:
        - name: api
          image: ghcr.io/xonovex/api:1.8.2
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
            limits:
              memory: 256Mi
          readinessProbe:
            httpGet:
              path: /healthz
              port: 8080
'''
case(r, 1, "direct", D, [("clusters/prod/api/deployment.yaml", DEPLOY, edit(DEPLOY,
    ("          image: ghcr.io/xonovex/api:1.8.2\n", "          image: ghcr.io/xonovex/api:latest\n")))],
    "the latest tag")
case(r, 2, "direct", D, [("clusters/prod/api/deployment.yaml", DEPLOY, edit(DEPLOY,
    ("          resources:\n            requests:\n              cpu: 100m\n              memory: 128Mi\n"
     "            limits:\n              memory: 256Mi\n", "")))],
    "requests and limits removed")
case(r, 3, "indirect", I, [("clusters/prod/api/deployment.yaml", DEPLOY, edit(DEPLOY,
    ("      securityContext:\n        runAsNonRoot: true\n", "      securityContext:\n        runAsUser: 0\n")))],
    "uid 0: root without the word")
case(r, 4, "compliant", N, [("clusters/prod/api/deployment.yaml", DEPLOY, edit(DEPLOY,
    ("          image: ghcr.io/xonovex/api:1.8.2\n", "          image: ghcr.io/xonovex/api:1.9.0\n"),
    ("  replicas: 2\n", "  replicas: 3\n")))],
    "a version bump and a replica")

# ---- protected files and directories -------------------------------------------------------

r = rule("migrations-immutable", "aaronsb/claude-code-config/hooks/ways/softwaredev/delivery/migrations/way.md",
         "protected file", "Never modify existing migrations — create a new one.")
MIG = '''"""add orders

Revision ID: 3f2a9c1d7b10
Revises: 1b7e2d4c9a01
"""
import sqlalchemy as sa
from alembic import op

revision = "3f2a9c1d7b10"
down_revision = "1b7e2d4c9a01"


def upgrade() -> None:
    op.create_table(
        "orders",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("customer_id", sa.Integer, sa.ForeignKey("customers.id"), nullable=False),
        sa.Column("total_cents", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("orders")
'''
case(r, 1, "direct", D, [("alembic/versions/3f2a9c1d7b10_add_orders.py", MIG, edit(MIG,
    ('        sa.Column("total_cents", sa.Integer, nullable=False),\n',
     '        sa.Column("total_cents", sa.BigInteger, nullable=False),\n        sa.Column("status", sa.String(16), nullable=False, server_default="new"),\n')))],
    "an existing migration edited")
case(r, 2, "compliant", N, [("alembic/versions/7c1d4e2f8a33_add_order_status.py", "",
    '"""add order status\n\nRevision ID: 7c1d4e2f8a33\nRevises: 3f2a9c1d7b10\n"""\nimport sqlalchemy as sa\nfrom alembic import op\n\n'
    'revision = "7c1d4e2f8a33"\ndown_revision = "3f2a9c1d7b10"\n\n\ndef upgrade() -> None:\n'
    '    op.add_column("orders", sa.Column("status", sa.String(16), nullable=False, server_default="new"))\n\n\n'
    'def downgrade() -> None:\n    op.drop_column("orders", "status")\n')],
    "a new migration")
case(r, 3, "lookalike", N, [("app/models/order.py", "from app.db import Base\nimport sqlalchemy as sa\n\n\nclass Order(Base):\n"
    '    __tablename__ = "orders"\n    id = sa.Column(sa.Integer, primary_key=True)\n    total_cents = sa.Column(sa.Integer, nullable=False)\n',
    "from app.db import Base\nimport sqlalchemy as sa\n\n\nclass Order(Base):\n"
    '    __tablename__ = "orders"\n    id = sa.Column(sa.Integer, primary_key=True)\n    total_cents = sa.Column(sa.Integer, nullable=False)\n'
    '    status = sa.Column(sa.String(16), nullable=False, server_default="new")  # migration 7c1d4e2f8a33\n')],
    "the model, not a migration")

r = rule("db-init-approval", "zhaobomin/sh_highschools/db/AGENTS.md", "protected file",
         "Do not modify `db_init.sql` unless explicitly approved.")
INITSQL = '''CREATE TABLE IF NOT EXISTS schools (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  district TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS admissions (
  school_id INTEGER NOT NULL REFERENCES schools(id),
  year INTEGER NOT NULL,
  cutoff_score INTEGER
);
'''
case(r, 1, "direct", D, [("db_init.sql", INITSQL, edit(INITSQL, ("  district TEXT NOT NULL\n", "  district TEXT NOT NULL,\n  is_key_school INTEGER DEFAULT 0\n")))],
    "db_init.sql changed")
case(r, 2, "compliant", N, [("db/migrations/002_key_schools.sql", "", "ALTER TABLE schools ADD COLUMN is_key_school INTEGER DEFAULT 0;\n")],
    "a separate script")
case(r, 3, "lookalike", N, [("scripts/load_admissions.py", "", 'import sqlite3\n\n\ndef load(path: str, rows: list[tuple]) -> None:\n'
    '    """Loads rows into the tables db_init.sql creates."""\n    with sqlite3.connect(path) as db:\n'
    '        db.executemany("INSERT INTO admissions (school_id, year, cutoff_score) VALUES (?, ?, ?)", rows)\n')],
    "a script that names db_init.sql in its docstring")

r = rule("sdk-generated", "vercel/vercel/packages/sdk/CONTRIBUTING.md", "protected file",
         "Please note that this repository contains generated code. As such, we do not accept direct changes or pull requests.")
SDKMODEL = '''/*
 * Code generated by Speakeasy (https://speakeasy.com). DO NOT EDIT.
 */

import * as z from "zod";

export type GetDeploymentsRequest = {
  app?: string | undefined;
  limit?: number | undefined;
};
'''
case(r, 1, "direct", D, [("packages/sdk/src/models/getdeploymentsop.ts", SDKMODEL, edit(SDKMODEL,
    ("  limit?: number | undefined;\n", "  limit?: number | undefined;\n  target?: \"production\" | \"preview\" | undefined;\n")))],
    "generated SDK code edited by hand")
case(r, 2, "exempt", N, [("packages/cli/src/commands/list/index.ts", "import { getDeployments } from '../../util/deploy/get-deployments';\n\n"
    "export default async function list(client: Client, argv: string[]) {\n  const deployments = await getDeployments(client, { limit: 20 });\n"
    "  return deployments;\n}\n",
    "import { getDeployments } from '../../util/deploy/get-deployments';\n\n"
    "export default async function list(client: Client, argv: string[]) {\n  const limit = argv.includes('--all') ? 100 : 20;\n"
    "  const deployments = await getDeployments(client, { limit });\n  return deployments;\n}\n")],
    "another package of the monorepo, not the generated SDK")

r = rule("no-new-examples", "contagnas/polsia/AGENTS.md", "protected file", "Do not add any new files to the examples/ directory.")
EXBASIC = 'use polsia::parser::parse_duration;\n\nfn main() {\n    println!("{}", parse_duration("5m").unwrap_or(0));\n}\n'
case(r, 1, "direct", D, [("examples/stream.rs", "", 'use polsia::parser::parse_list;\n\nfn main() {\n'
    '    for d in parse_list("1s, 2m") {\n        println!("{d}");\n    }\n}\n')],
    "a new file in examples/")
case(r, 2, "compliant", N, [("examples/basic.rs", EXBASIC, edit(EXBASIC, ('parse_duration("5m")', 'parse_duration("90s")')))],
    "an existing example edited")
case(r, 3, "exempt", N, [("src/bin/polsia-cli.rs", "", 'use polsia::parser::parse_duration;\n\nfn main() {\n'
    '    let arg = std::env::args().nth(1).unwrap_or_default();\n    match parse_duration(&arg) {\n'
    '        Ok(s) => println!("{s}"),\n        Err(e) => eprintln!("{e}"),\n    }\n}\n')],
    "a new file outside examples/")

r = rule("ddl-only-in-migrations", "jjbrunton/Sauci/AGENTS.md", "path exemption",
         "NEVER run DDL (`CREATE`, `ALTER`, `DROP`) via execute_sql. All schema changes must be local migration "
         "files in `apps/supabase/migrations/`. `execute_sql` is ONLY for SELECT queries.")
ADMINTS = '''import { createClient } from "@supabase/supabase-js";

const supabase = createClient(process.env.SUPABASE_URL!, process.env.SUPABASE_SERVICE_ROLE_KEY!);

export async function packStats() {
  const { data, error } = await supabase.rpc("execute_sql", {
    sql: "SELECT pack_id, count(*) AS answers FROM responses GROUP BY pack_id",
  });
  if (error) throw error;
  return data;
}
'''
case(r, 1, "direct", D, [("apps/admin/src/lib/stats.ts", ADMINTS, ADMINTS +
    '\nexport async function ensureIndex() {\n  await supabase.rpc("execute_sql", {\n'
    '    sql: "CREATE INDEX IF NOT EXISTS responses_pack_id_idx ON responses (pack_id)",\n  });\n}\n')],
    "DDL through execute_sql")
case(r, 2, "exempt", N, [("apps/supabase/migrations/20250301120000_responses_pack_idx.sql", "",
    "CREATE INDEX IF NOT EXISTS responses_pack_id_idx ON responses (pack_id);\n")],
    "the same DDL in a migration file")
case(r, 3, "compliant", N, [("apps/admin/src/lib/stats.ts", ADMINTS, ADMINTS +
    '\nexport async function activeCouples() {\n  const { data, error } = await supabase.rpc("execute_sql", {\n'
    '    sql: "SELECT count(DISTINCT couple_id) FROM responses WHERE created_at > now() - interval \'7 days\'",\n  });\n'
    "  if (error) throw error;\n  return data;\n}\n")],
    "a SELECT through execute_sql")

r = rule("test-prefix-reserved", "nthmost/home_assistant_AI_integration/CLAUDE.md", "path scope",
         "Never use `test_*.py` for demo/trial scripts - this prefix is reserved for unit tests. Keep `test_*.py` "
         "exclusively for proper unit tests in the `tests/` directory.")
case(r, 1, "direct", D, [("test_voice_pipeline.py", "", 'import asyncio\n\nfrom saga_assistant.pipeline import VoicePipeline\n\n\n'
    'async def main() -> None:\n    pipeline = VoicePipeline.from_config("config.yaml")\n    await pipeline.say("Testing one two three")\n\n\n'
    'if __name__ == "__main__":\n    asyncio.run(main())\n')],
    "a demo script named test_*.py at the root")
case(r, 2, "compliant", N, [("demo_voice_pipeline.py", "", 'import asyncio\n\nfrom saga_assistant.pipeline import VoicePipeline\n\n\n'
    'async def main() -> None:\n    pipeline = VoicePipeline.from_config("config.yaml")\n    await pipeline.say("Testing one two three")\n\n\n'
    'if __name__ == "__main__":\n    asyncio.run(main())\n')],
    "the same script named demo_*.py")
case(r, 3, "exempt", N, [("tests/test_intents.py", "", "from saga_assistant.intents import parse_intent\n\n\n"
    "def test_lights_on():\n    assert parse_intent(\"turn on the kitchen lights\").action == \"light.turn_on\"\n")],
    "a real unit test in tests/")

# ---- error handling --------------------------------------------------------------------------

r = rule("no-discarded-results", "arthur-zhang/conduit/AGENTS.md", "error handling",
         "Do not swallow errors. Avoid `let _ =` or `_ =` to discard `Result` values; handle them explicitly or log "
         "the failure with context.")
SESSION = '''use tokio::sync::mpsc::Sender;
use tracing::warn;

use crate::event::SessionEvent;

pub struct Session {
    events: Sender<SessionEvent>,
}

impl Session {
    pub async fn finish(&self, code: i32) {
        if let Err(err) = self.events.send(SessionEvent::Exited(code)).await {
            warn!(%err, "session exit event dropped");
        }
    }
}
'''
case(r, 1, "direct", D, [("crates/core/src/session.rs", SESSION, edit(SESSION,
    ("    pub async fn finish", "    pub async fn started(&self) {\n        let _ = self.events.send(SessionEvent::Started).await;\n    }\n\n    pub async fn finish")))],
    "let _ = on a Result")
case(r, 2, "indirect", I, [("crates/core/src/session.rs", SESSION, edit(SESSION,
    ("    pub async fn finish", "    pub async fn started(&self) {\n        self.events.send(SessionEvent::Started).await.ok();\n    }\n\n    pub async fn finish")))],
    ".ok() discards the error the same way")
case(r, 3, "compliant", N, [("crates/core/src/session.rs", SESSION, edit(SESSION,
    ("    pub async fn finish", "    pub async fn started(&self) {\n        if let Err(err) = self.events.send(SessionEvent::Started).await {\n"
     "            warn!(%err, \"session start event dropped\");\n        }\n    }\n\n    pub async fn finish")))],
    "the failure logged with context")
case(r, 4, "lookalike", N, [("crates/core/src/session.rs", SESSION, edit(SESSION,
    ("    pub async fn finish(&self, code: i32) {\n", "    pub async fn finish(&self, code: i32) {\n        let _span = tracing::info_span!(\"finish\", code).entered();\n")))],
    "a named guard binding, not a discarded Result")

r = rule("wrap-errors-w", "penny-vault/pvbt/CLAUDE.md", "error handling",
         "Error handling: wrap errors with context via `fmt.Errorf(\"context: %w\", err)`. Never silently swallow or "
         "degrade on errors.")
LOADER = '''package data

import (
	"encoding/json"
	"fmt"
	"os"
)

func LoadUniverse(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load universe %s: %w", path, err)
	}
	var tickers []string
	if err := json.Unmarshal(raw, &tickers); err != nil {
		return nil, fmt.Errorf("parse universe %s: %w", path, err)
	}
	return tickers, nil
}
'''
case(r, 1, "direct", D, [("data/universe.go", LOADER, edit(LOADER,
    ('		return nil, fmt.Errorf("parse universe %s: %w", path, err)\n', '		return nil, fmt.Errorf("parse universe %s: %v", path, err)\n')))],
    "%v instead of %w: the error is no longer wrapped")
case(r, 2, "direct", D, [("data/universe.go", LOADER, edit(LOADER,
    ("	if err != nil {\n		return nil, fmt.Errorf(\"load universe %s: %w\", path, err)\n	}\n",
     "	if err != nil {\n		return []string{}, nil\n	}\n")))],
    "a read error degraded to an empty universe")
case(r, 3, "compliant", N, [("data/universe.go", LOADER, edit(LOADER,
    ("	return tickers, nil\n", "	if len(tickers) == 0 {\n		return nil, fmt.Errorf(\"universe %s is empty\", path)\n	}\n	return tickers, nil\n")))],
    "a new error with context")

r = rule("zerolog-only", "penny-vault/pvbt/CLAUDE.md", "tool choice",
         "Logging: use zerolog. The zerologlint linter enforces correct usage.")
ENGINELOG = '''package engine

import (
	"github.com/rs/zerolog/log"
)

func (e *Engine) step(date string) {
	log.Debug().Str("date", date).Msg("engine step")
	e.compute(date)
}
'''
case(r, 1, "indirect", I, [("engine/step.go", ENGINELOG, edit(ENGINELOG,
    ('	"github.com/rs/zerolog/log"\n', '	stdlog "log"\n\n	"github.com/rs/zerolog/log"\n'),
    ("	e.compute(date)\n", "	stdlog.Printf(\"computing %s\", date)\n	e.compute(date)\n")))],
    "the standard library logger next to zerolog")
case(r, 2, "indirect", I, [("engine/step.go", ENGINELOG, edit(ENGINELOG,
    ('	"github.com/rs/zerolog/log"\n', '	"log/slog"\n'),
    ('	log.Debug().Str("date", date).Msg("engine step")\n', '	slog.Debug("engine step", "date", date)\n')))],
    "slog replaces zerolog")
case(r, 3, "compliant", N, [("engine/step.go", ENGINELOG, edit(ENGINELOG,
    ("	e.compute(date)\n", "	e.compute(date)\n	log.Trace().Str(\"date\", date).Int(\"holdings\", len(e.holdings)).Msg(\"engine step done\")\n")))],
    "zerolog")

r = rule("no-authorization-header", SALOON, "tool choice",
         "Authentication: JWT via django-rest-framework-simplejwt; storage: HttpOnly cookies ONLY (never localStorage); "
         "headers: use X-CSRFToken header; do NOT use Authorization headers.")
CLIENTJS = '''import { getCookie } from "./cookies";

export async function apiPost(path, body) {
  const res = await fetch(`/api/${path}/`, {
    method: "POST",
    credentials: "include",
    headers: { "Content-Type": "application/json", "X-CSRFToken": getCookie("csrftoken") },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return res.json();
}
'''
case(r, 1, "direct", D, [("web/src/api/client.js", CLIENTJS, edit(CLIENTJS,
    ('    headers: { "Content-Type": "application/json", "X-CSRFToken": getCookie("csrftoken") },\n',
     '    headers: { "Content-Type": "application/json", Authorization: `Bearer ${localStorage.getItem("access")}` },\n')))],
    "an Authorization header with a token from localStorage")
case(r, 2, "compliant", N, [("web/src/api/client.js", CLIENTJS, CLIENTJS +
    '\nexport async function apiGet(path) {\n  const res = await fetch(`/api/${path}/`, { credentials: "include" });\n'
    "  if (!res.ok) throw new Error(`${path}: ${res.status}`);\n  return res.json();\n}\n")],
    "cookies, no Authorization header")
case(r, 3, "lookalike", N, [("web/src/api/client.js", CLIENTJS, edit(CLIENTJS,
    ('import { getCookie } from "./cookies";\n', 'import { getCookie } from "./cookies";\n\n// No Authorization header: the JWT travels in an HttpOnly cookie.\n')))],
    "a comment naming the header")

r = rule("utc-dates", "jeffersondossantosaguiar/open-fintech/docs/ai-instructions.md", "banned construct",
         "All dates must be in **UTC**.")
TXSVC = '''import { prisma } from "../prisma";

export async function recordTransfer(fromId: string, toId: string, amountCents: number) {
  return prisma.transaction.create({
    data: { fromId, toId, amountCents, occurredAt: new Date().toISOString() },
  });
}
'''
case(r, 1, "direct", D, [("src/transactions/service.ts", TXSVC, edit(TXSVC,
    ("occurredAt: new Date().toISOString()", "occurredAt: new Date().toLocaleString(\"pt-BR\", { timeZone: \"America/Sao_Paulo\" })")))],
    "a local São Paulo time stored")
case(r, 2, "compliant", N, [("src/transactions/service.ts", TXSVC, edit(TXSVC,
    ("export async function recordTransfer", "export function statementDay(date: Date): string {\n  return date.toISOString().slice(0, 10);\n}\n\nexport async function recordTransfer")))],
    "UTC ISO dates")


if __name__ == "__main__":
    data = build()
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{len(data['cases'])} cases from {len(RULES)} rules -> {OUT.name}")
