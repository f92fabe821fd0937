"""What grows with history, on PostgreSQL: the hot calls timed at 0, 100k and 1M finished jobs
of history (BENCH_SCALE_SIZES), then at 0 again after the table is emptied, so a machine that
got busier or quieter during the run shows up instead of passing for growth.

History is inserted in one INSERT ... SELECT generate_series per organisation (ten of them;
the caller's own holds half), across the catalogue's tools (the batch tools weigh three
times), as the worker leaves it: finished jobs (5 % failed, 2 % canceled) with their input,
one output per succeeded job (delivered to its drive folder for the batch tools), one activity
entry per job, and a delivered webhook event per job in the organisations that have a webhook.
Then VACUUM ANALYZE, as autovacuum would have done.

Each round starts with the same backlog: BENCH_SCALE_BACKLOG queued jobs in the broker, past
their enqueue grace, so every reconcile tick checks them. Figures are the fastest of
BENCH_SCALE_REPEAT calls, in ms (the median is printed beside it): other work on the machine
only ever adds time to a call, so the fastest is the figure it disturbs least, and a cost that
grows with history (a deeper index, a longer scan) raises the fastest call as much as any.
The calls go through the API client in-process (token auth, throttle,
middleware) with the suites' settings (no ETA cache, so every GET works the ETA out). The
reconcile tick is the ``jobs.reconcile`` task's body run in-process (lock, stale and queued
scans, lost deliveries, due webhooks).

Bar: each figure at the largest size ≤ 1.2× its figure at 0 (the mean of both runs at 0).
The EXPLAIN (ANALYZE, BUFFERS) of every query of these calls that reads or writes a table of
more than 10,000 rows at the largest size goes to var/bench/scale-explain.md.
"""

from __future__ import annotations

import os
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.db import connection, models, transaction
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient
from webhooks.models import Webhook, WebhookDelivery

from config.celery_app import app
from jobs.models import Activity, Job, JobOutput, JobStatus
from jobs.services import job_cancel
from tests.bench.production import load, purge
from tests.support.factories import OrganizationFactory, UserFactory
from tests.support.processes import REPO
from tools.registry import TOOLS

SIZES = tuple(int(s) for s in os.environ.get("BENCH_SCALE_SIZES",
                                             "0,100000,1000000").split(","))
REPEAT = int(os.environ.get("BENCH_SCALE_REPEAT", "40"))
BACKLOG = int(os.environ.get("BENCH_SCALE_BACKLOG", "20"))
ORGS = 10
BAR = 1.2
BIG_TABLE_ROWS = 10_000
EXPLAIN = REPO / "var" / "bench" / "scale-explain.md"


# --- history ------------------------------------------------------------------------------

def _columns(model: type[models.Model],
             given: dict[str, str | tuple[str, list[Any]]]) -> tuple[list[str], list[str],
                                                                    list[Any]]:
    """Column names, SQL expressions and their parameters, in order, for an INSERT ... SELECT
    of ``model``: ``given`` (column: SQL, or SQL and its parameters) for what history needs,
    each other field's default, so a column added later does not break this insert."""
    columns, exprs, params = [], [], []
    for f in model._meta.concrete_fields:
        if f.column in given:
            value = given[f.column]
            sql, args = (value, []) if isinstance(value, str) else value
            columns.append(f.column)
            exprs.append(sql)
            params += args
            continue
        if isinstance(f, models.AutoField):
            continue
        default = f.get_default()
        if default is None and not f.null:
            raise RuntimeError(f"{model.__name__}.{f.name}: history gives it no value")
        columns.append(f.column)
        exprs.append("%s")
        params.append(f.get_db_prep_save(default, connection))
    return columns, exprs, params


def _quoted(columns: list[str]) -> str:
    return ", ".join(connection.ops.quote_name(c) for c in columns)


def insert_history(org_id: Any, user_id: Any, count: int, webhook_id: Any,
                   tools: list[tuple[str, str]]) -> None:
    """``count`` finished jobs of one organisation, with outputs, activities and (when it has
    a webhook) deliveries, in one statement."""
    if count <= 0:
        return
    k = len(tools)
    pick = f"(%s::text[])[1 + mod(g, {k})]"
    # spread over the last 30 days, the newest an hour ago
    created = f"(now() - interval '1 hour' - interval '30 days' * (1.0 - g::float / {count}))"
    status = ("CASE WHEN mod(g, 20) = 0 THEN 'failed' WHEN mod(g, 50) = 1 THEN 'canceled' "
              "ELSE 'succeeded' END")
    names = [t for t, _ in tools]
    queues = [q for _, q in tools]
    job_cols, job_exprs, job_params = _columns(Job, {
        "id": "gen_random_uuid()",
        "organization_id": ("%s", [org_id]),
        "user_id": ("%s", [user_id]),
        "tool": (pick, [names]), "queue": (pick, [queues]),
        "engine_name": "'local'", "made_by": "'local'",
        "status": status,
        "progress": "100", "attempts": "1", "enqueue_count": "1",
        "input": ("jsonb_build_object('image', 'https://images.example.com/looks/' || g || "
                  "'.jpg', 'target_color', '#C5B299', 'garment_type', 'polo')"),
        "error_code": "CASE WHEN mod(g, 20) = 0 THEN 'engine_error' ELSE '' END",
        "error_message": ("CASE WHEN mod(g, 20) = 0 THEN 'No garment was found in the image.' "
                          "ELSE '' END"),
        "created_at": created, "enqueued_at": created,
        "started_at": f"{created} + interval '1 second'",
        "finished_at": f"{created} + interval '6 seconds'",
        "request_digest": "md5(g::text) || md5(g::text)",
        # batch tools run in batches of ten
        "batch_id": (f"CASE WHEN {pick} = 'batch' THEN md5(%s::text || (g / 10)::text)::uuid END",
                     [queues, f"{org_id}-"]),
    })
    out_cols, out_exprs, out_params = _columns(JobOutput, {
        "job_id": "j.id", "index": "0",
        "file": "'outputs/' || j.id || '/0.png'", "filename": "'result.png'",
        "content_type": "'image/png'", "size": "812345",
        "sha256": "md5(j.id::text) || md5(j.id::text)",
        "drive_file_id": "CASE WHEN j.queue = 'batch' THEN 'file-' || j.id ELSE '' END",
        "created_at": "j.finished_at",
    })
    act_cols, act_exprs, act_params = _columns(Activity, {
        "organization_id": "j.organization_id", "tool": "j.tool", "job_id": "j.id",
        "timestamp": "j.finished_at", "action": "'Run'",
        "status": "CASE WHEN j.status = 'succeeded' THEN 'Success' ELSE 'Error' END",
        "details": "''",
    })
    sql = (f"WITH j AS (INSERT INTO jobs_job ({_quoted(job_cols)}) "
           f"SELECT {', '.join(job_exprs)} FROM generate_series(1, {int(count)}) g "
           f"RETURNING id, status, tool, queue, organization_id, finished_at), "
           f"o AS (INSERT INTO jobs_joboutput ({_quoted(out_cols)}) "
           f"SELECT {', '.join(out_exprs)} FROM j WHERE j.status = 'succeeded'), "
           f"a AS (INSERT INTO jobs_activity ({_quoted(act_cols)}) "
           f"SELECT {', '.join(act_exprs)} FROM j)")
    params = job_params + out_params + act_params
    if webhook_id is not None:
        hook_cols, hook_exprs, hook_params = _columns(WebhookDelivery, {
            "id": "gen_random_uuid()", "webhook_id": ("%s", [webhook_id]),
            "event": "CASE WHEN j.status = 'succeeded' THEN 'job.succeeded' ELSE 'job.failed' END",
            "payload": "jsonb_build_object('event', 'job.' || j.status, 'job_id', j.id, "
                       "'tool', j.tool)",
            "url": "'https://hooks.example.com/atelier'", "status": "'succeeded'",
            "attempts": "1", "response_code": "200", "response_ms": "84",
            "created_at": "j.finished_at", "finished_at": "j.finished_at",
        })
        sql += (f", w AS (INSERT INTO webhooks_webhookdelivery ({_quoted(hook_cols)}) "
                f"SELECT {', '.join(hook_exprs)} FROM j WHERE j.status <> 'canceled')")
        params += hook_params
    sql += " SELECT count(*) FROM j"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def tool_mix() -> list[tuple[str, str]]:
    mix = []
    for slug, tool in TOOLS.items():
        if slug.startswith("diagnostics"):
            continue
        mix += [(slug, tool.queue)] * (3 if tool.queue == "batch" else 1)
    return mix


def cancel_active() -> None:
    """Through the service, so whatever it keeps up to date besides the rows (queue figures)
    is."""
    for job in Job.objects.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING]):
        job_cancel(job=job)


class History:
    def __init__(self, caller: Any) -> None:
        self.caller = caller
        self.orgs: list[tuple[Any, Any, Any]] = [(caller.organization_id, caller.pk, None)]
        for i in range(ORGS - 1):
            user = UserFactory(organization=OrganizationFactory())
            hook = None
            if i % 3 == 0:
                hook = Webhook.objects.create(organization=user.organization, created_by=user,
                                              url="https://hooks.example.com/atelier",
                                              events=["job.succeeded", "job.failed"],
                                              secret="s" * 32).pk
            self.orgs.append((user.organization_id, user.pk, hook))
        self.tools = tool_mix()
        self.size = 0

    def grow_to(self, size: int) -> float:
        """Seconds it took to add the history up to ``size`` jobs."""
        adding = size - self.size
        if adding <= 0:
            return 0.0
        start = time.perf_counter()
        mine = adding // 2
        others = adding - mine
        shares = [mine] + [others // (ORGS - 1) + (1 if i < others % (ORGS - 1) else 0)
                           for i in range(ORGS - 1)]
        for (org, user, hook), count in zip(self.orgs, shares, strict=True):
            # A session's foreign-key checks keep the plan they made when the tables were
            # small (a scan each): a new session per insert plans them on today's sizes.
            connection.close()
            insert_history(org, user, count, hook, self.tools)
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE jobs_job")
        with connection.cursor() as cursor:
            for table in ("jobs_job", "jobs_joboutput", "jobs_activity",
                          "webhooks_webhookdelivery"):
                cursor.execute(f"VACUUM ANALYZE {table}")
        self.size = size
        return time.perf_counter() - start

    def empty(self) -> None:
        cancel_active()
        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE jobs_job, jobs_joboutput, jobs_activity, "
                           "webhooks_webhookdelivery CASCADE")
            cursor.execute("VACUUM ANALYZE")
        self.size = 0


# --- the calls ----------------------------------------------------------------------------

def timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """The fastest and the median of REPEAT calls, in ms."""
    fn()  # warm
    samples = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return min(samples), statistics.median(samples)


def reconcile_tick() -> Any:
    app.loader.import_default_modules()
    return app.tasks["jobs.reconcile"]


def calls(api: APIClient) -> dict[str, Callable[[], None]]:
    """The calls, each on the same backlog: BACKLOG queued jobs, the polled one last."""
    cancel_active()
    purge("interactive")
    for _ in range(max(1, BACKLOG)):
        resp = api.post("/api/diagnostics/sleep", {"seconds": 0}, format="json")
        assert resp.status_code == 202, resp.content
    job_id = resp.json()["id"]
    tick = reconcile_tick()

    def get_job() -> None:
        assert api.get(f"/api/jobs/{job_id}/").status_code == 200

    def job_list() -> None:
        assert api.get("/api/jobs/?limit=20").status_code == 200

    def queues() -> None:
        assert api.get("/api/queues/").status_code == 200

    def reconcile() -> None:
        report = tick()
        assert not report.get("skipped_locked"), report

    def submit() -> None:
        resp = api.post("/api/diagnostics/sleep", {"seconds": 0}, format="json")
        assert resp.status_code == 202, resp.content

    # submit last: it adds to the backlog the others see
    return {"GET /api/jobs/{id}/": get_job, "GET /api/jobs/?limit=20": job_list,
            "GET /api/queues/": queues, "reconcile tick": reconcile,
            "submit (POST)": submit}


def measure(api: APIClient) -> tuple[dict[str, float], dict[str, int], dict[str, float]]:
    times, counts, medians = {}, {}, {}
    for label, fn in calls(api).items():
        fn()  # a first call may do once-only work (a tick seeds run times from history)
        with CaptureQueriesContext(connection) as ctx:
            fn()
        counts[label] = sum(1 for q in ctx.captured_queries
                            if not re.match(r"\s*(SAVEPOINT|RELEASE|ROLLBACK)", q["sql"]))
        times[label], medians[label] = timed(fn)
    return times, counts, medians


# --- the plans ----------------------------------------------------------------------------

def big_tables() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname FROM pg_class WHERE relkind = 'r' AND reltuples > %s",
                       [BIG_TABLE_ROWS])
        return sorted(r[0] for r in cursor.fetchall())


def explain_all(api: APIClient, size: int) -> str:
    tables = big_tables()
    lines = [f"## EXPLAIN (ANALYZE, BUFFERS) at {size:,} jobs of history", "",
             f"Every query of the scale benchmark's calls that touches a table of more than "
             f"{BIG_TABLE_ROWS:,} rows ({', '.join(tables)}); writes are explained inside a "
             "transaction that is rolled back.", ""]
    seen: set[str] = set()
    for label, fn in calls(api).items():
        with CaptureQueriesContext(connection) as ctx:
            fn()
        lines += [f"### {label}", "", f"{len(ctx.captured_queries)} queries in all.", ""]
        for q in ctx.captured_queries:
            sql = q["sql"]
            if not any(re.search(rf'\b"?{t}"?\b', sql) for t in tables):
                continue
            if not re.match(r"\s*(SELECT|UPDATE|INSERT|DELETE|WITH)", sql, re.I):
                continue
            shape = re.sub(r"'[^']*'|\b\d+\b", "?", sql)
            if shape in seen:
                continue
            seen.add(shape)
            lines += ["```sql", sql, "```", "```", plan(sql), "```", ""]
    return "\n".join(lines) + "\n"


class _Rollback(Exception):
    pass


def plan(sql: str) -> str:
    rows: list[str] = []
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}".replace("%", "%%"))
                rows = [r[0] for r in cursor.fetchall()]
            raise _Rollback
    except _Rollback:
        pass
    except Exception as exc:  # noqa: BLE001 - a plan that cannot be read is said, not fatal
        rows = [f"(no plan: {exc})"]
    return "\n".join(rows)


# --- the benchmark ------------------------------------------------------------------------

@pytest.mark.timeout(3600)
@pytest.mark.django_db(transaction=True)
def bench_costs_flat_in_history(staff: Any, staff_api: APIClient, settings: Any,
                                capsys: Any) -> None:
    # Every tick checks the whole backlog against the broker, however young its jobs.
    settings.JOB_ENQUEUE_GRACE_SECONDS = 0
    if connection.vendor != "postgresql":
        pytest.skip("bench_scale measures PostgreSQL, our production database: run it with "
                    "DATABASE_URL pointing at PostgreSQL (make bench does)")
    history = History(staff)
    history.empty()
    results: dict[str, tuple[dict[str, float], dict[str, int], dict[str, float]]] = {}
    fills: dict[int, float] = {}
    for size in SIZES:
        fills[size] = history.grow_to(size)
        results[f"{size:,}"] = measure(staff_api)
    largest = max(SIZES)
    if largest:
        EXPLAIN.parent.mkdir(parents=True, exist_ok=True)
        EXPLAIN.write_text(explain_all(staff_api, largest))
    history.empty()
    results["0 again"] = measure(staff_api)
    history.empty()

    columns = list(results)
    zero = [c for c in columns if c in ("0", "0 again")]
    big = f"{largest:,}"
    with capsys.disabled():
        fill = ", ".join(f"{s:,} in {t:.0f} s" for s, t in fills.items() if t)
        print(f"\n[bench] PostgreSQL, fastest of {REPEAT} calls in ms (median in brackets), {BACKLOG} jobs queued; "
              f"history inserted: {fill or 'none'}; {ORGS} organisations, the caller's "
              f"holding half; load average {load()}")
        print(f"[bench] {'':24} " + " ".join(f"{c:>10}" for c in columns)
              + f" {'ratio':>6}  bar ≤ {BAR}x at {big} vs 0")
        for label in results[columns[0]][0]:
            row = [results[c][0][label] for c in columns]
            base = statistics.mean(results[c][0][label] for c in zero)
            ratio = results[big][0][label] / base if base else float("inf")
            verdict = ("bar met" if ratio <= BAR else "NOT MET") + f" (scale, {big} vs 0)"
            medians = " ".join(f"({results[c][2][label]:.2f})" for c in columns)
            print(f"[bench] {label:24} " + " ".join(f"{v:10.2f}" for v in row)
                  + f" {ratio:6.2f}  {verdict}; medians {medians}")
        print("[bench] queries per call   " + ", ".join(
            f"{label} {results[big][1][label]}" for label in results[big][1])
              + f" (at {big}; at 0: " + ", ".join(
            str(results['0'][1][label]) for label in results['0'][1]) + ")")
        if largest:
            print(f"[bench] EXPLAIN (ANALYZE) of the hot queries at {big}: "
                  f"{Path(EXPLAIN).relative_to(REPO)}")
