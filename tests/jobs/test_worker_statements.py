"""What one job costs the database in the worker (issue 22, item 1): at most 4 statements from
the task receiving the id to the task returning. Take: one UPDATE ... RETURNING. Progress:
throttled, so a job that ends within the throttle writes none. Finish: one transaction with
the guarded UPDATE, the outputs (one bulk INSERT) and the event (one outbox INSERT); the
activity entry reads its outcome from the job and the webhooks are matched by the dispatcher
later, so an organisation with or without webhooks costs the same.

Counted with a connection execute_wrapper around the real task function (run in-process):
every statement Django sends, except the transaction's own BEGIN/COMMIT/ROLLBACK/SAVEPOINT/
RELEASE, and the connection health checks (CONN_HEALTH_CHECKS: a `SELECT 1` on PostgreSQL
before a task's first query, armed by the task's prerun as Celery does it here), of which the
job's task does none: its take replaces a broken connection itself."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.db import close_old_connections, connection
from django.utils import timezone
from webhooks.models import Webhook, WebhookDelivery
from webhooks.services import events_dispatch

from jobs.models import Activity, Job, JobEvent, JobStatus
from jobs.services import _finish_sql, _take_sql, job_submit
from tests.support.loopback import LoopbackServer, respond, serving
from tools.registry import TOOLS
from workers.tasks.jobs import run_job

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def production_throttle(settings: Any) -> None:
    """The runs here end within the throttle, however loaded the machine (the suites' own is
    0.1 s, production's 0.5 s): a longer run adds one UPDATE per interval, and its heartbeat's
    thread one per beat, on its own connection."""
    settings.JOB_PROGRESS_MIN_INTERVAL = 600.0

MAX_STATEMENTS = 4
TRANSACTION = re.compile(r"\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b", re.IGNORECASE)
POLO = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "fashion" / "garment")
              .glob("*.jpg"))[0]


def counted_run(job: Job) -> tuple[str, list[str]]:
    """Run the job's task as the worker does, and the statements it sent."""
    statements: list[str] = []

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if not TRANSACTION.match(sql):
            statements.append(sql)
        return execute(sql, params, many, context)

    checks: list[bool] = []
    usable = connection.is_usable

    def is_usable() -> bool:
        checks.append(True)
        return usable()

    close_old_connections()  # what Celery's task prerun does: it arms the health check
    began = time.monotonic()
    with connection.execute_wrapper(count), mock.patch.object(connection, "is_usable",
                                                               is_usable):
        outcome = run_job(str(job.pk))
    statements += ["SELECT 1 (health check)"] * len(checks)
    print(f"\n{job.tool} ({outcome}, {time.monotonic() - began:.2f} s): {len(statements)} "
          f"statements on {connection.vendor}")
    for sql in statements:
        print("   ", sql[:110])
    return outcome, statements


@pytest.fixture
def photo_server(settings: Any) -> Iterator[LoopbackServer]:
    settings.OUTBOUND_ALLOW = ["127.0.0.1"]
    body = POLO.read_bytes()

    class Photo(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            respond(self, 200, body, "image/jpeg")

        def log_message(self, *args: Any) -> None:
            pass

    with serving(Photo) as server:
        yield server


@pytest.mark.parametrize("with_webhook", [False, True], ids=["no-webhook", "webhook"])
def test_a_diagnostics_job_costs_at_most_4_statements(partner: Any, with_webhook: bool) -> None:
    if with_webhook:
        Webhook.objects.create(organization=partner.organization, url="https://h.maison.test/x",
                               secret="whsec_x", events=["job.succeeded"])
    # progress at 0.1 s and 0.2 s: inside the throttle, so none is written
    job = job_submit(org=partner.organization, user=partner, tool=TOOLS["diagnostics.sleep"],
                     payload={"seconds": 0.2}).job

    outcome, statements = counted_run(job)

    assert outcome == "succeeded"
    assert len(statements) <= MAX_STATEMENTS, statements
    job.refresh_from_db()
    assert (job.status, job.progress, job.output_count) == (JobStatus.SUCCEEDED, 100, 1)
    # what the finish no longer writes is read from the job: the activity entry's outcome,
    # and the event, which the dispatcher turns into the subscribed webhook's delivery
    entry = Activity.objects.select_related("job").get(job=job)
    assert entry.shown() == ("Success", "Finished with 1 output(s).")
    assert list(JobEvent.objects.filter(job=job).values_list("event", flat=True)) == [
        "job.succeeded"]
    events_dispatch()
    assert not JobEvent.objects.exists()
    assert WebhookDelivery.objects.filter(event="job.succeeded").count() == int(with_webhook)


def test_a_recolor_card_job_costs_at_most_4_statements(partner: Any,
                                                       photo_server: LoopbackServer) -> None:
    job = job_submit(org=partner.organization, user=partner, tool=TOOLS["recolor"],
                     payload={"image_url": f"{photo_server.origin}/polo.jpg",
                              "target_color": "#C5B299", "garment_type": "polo"}).job

    outcome, statements = counted_run(job)

    assert outcome == "succeeded", Job.objects.get(pk=job.pk).error_message
    assert len(statements) <= MAX_STATEMENTS, statements
    job.refresh_from_db()
    assert job.outputs.count() == job.output_count >= 1


def test_a_failed_job_costs_at_most_4_statements(partner: Any) -> None:
    job = job_submit(org=partner.organization, user=partner, tool=TOOLS["diagnostics.sleep"],
                     payload={"seconds": 0, "fail": True}).job

    outcome, statements = counted_run(job)

    assert outcome == "failed"
    assert len(statements) <= MAX_STATEMENTS, statements
    entry = Activity.objects.select_related("job").get(job=job)
    assert entry.shown() == ("Error", "The diagnostic job failed as asked.")


def plan_indexes(sql: str, params: list[Any]) -> list[str]:
    """The indexes PostgreSQL's plan for the statement reads jobs_job through."""
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
        plan = cursor.fetchone()[0]
    found: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        if node.get("Relation Name") == "jobs_job" and "Index Name" in node:
            found.append(node["Index Name"])
        for child in node.get("Plans", []):
            walk(child)

    walk((plan if isinstance(plan, list) else json.loads(plan))[0]["Plan"])
    return found


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's planner")
def test_the_take_and_the_finish_find_the_job_by_its_primary_key_whatever_the_statistics(
        partner: Any) -> None:
    """Statistics taken when no job was queued (a history of ended jobs), then a backlog: the
    take and the finish still read the job by its primary key, never by the status index
    (which would read every queued or running entry, dead ones included, for each job)."""
    Job.objects.bulk_create([
        Job(organization=partner.organization, user=partner, tool="diagnostics.sleep",
            queue="interactive", status=JobStatus.SUCCEEDED) for _ in range(2000)])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE jobs_job")
    Job.objects.bulk_create([
        Job(organization=partner.organization, user=partner, tool="diagnostics.sleep",
            queue="interactive") for _ in range(300)])
    job = Job.objects.filter(status=JobStatus.QUEUED).first()
    assert job is not None
    now = timezone.now()
    take = _take_sql(connection, with_lease=False)
    assert plan_indexes(take, [JobStatus.RUNNING.value, uuid.uuid4(), now, now, "host", 1,
                               job.pk, JobStatus.QUEUED.value]) == ["jobs_job_pkey"]
    names = ["status", "progress", "finished_at", "lease", "output_count"]
    finish = _finish_sql(connection, names, [])
    assert plan_indexes(finish, [JobStatus.SUCCEEDED.value, 100, now, None, 1, job.pk,
                                 JobStatus.RUNNING.value, uuid.uuid4()]) == ["jobs_job_pkey"]
