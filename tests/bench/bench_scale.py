"""What grows with history: the hot calls timed with an empty jobs table, then again with
100k finished jobs of history (BENCH_SCALE_JOBS) in the caller's own organisation. Printed,
not asserted; the bar is a ratio of at most 1.2× between the two sizes.

Runs on the test database: SQLite by default, PostgreSQL when DATABASE_URL says so.
"""

from __future__ import annotations

import os
import statistics
import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from drives.services import deliveries_pending
from jobs.models import Job, JobOutput, JobStatus
from jobs.services import jobs_reconcile

SIZES = (0, int(os.environ.get("BENCH_SCALE_JOBS", "100000")))
REPEAT = int(os.environ.get("BENCH_SCALE_REPEAT", "15"))
CHUNK = 5000
BAR = 1.2
TOOLS = ("recolor", "refabric", "flats", "tryon", "catalog_asset")
DRIVE = {"recolor", "refabric", "flats"}


def history(org: Any, user: Any, count: int) -> None:
    """Finished jobs, most succeeded with one output (delivered when of a drive tool)."""
    now = timezone.now()
    made = 0
    while made < count:
        n = min(CHUNK, count - made)
        jobs, outputs = [], []
        for i in range(made, made + n):
            tool = TOOLS[i % len(TOOLS)]
            status = (JobStatus.FAILED if i % 20 == 0 else
                      JobStatus.CANCELED if i % 50 == 1 else JobStatus.SUCCEEDED)
            created = now - timedelta(days=30, seconds=count - i)
            job = Job(id=uuid.uuid4(), organization=org, user=user, tool=tool,
                      queue="batch" if tool in DRIVE else "interactive", status=status,
                      progress=100, input={}, attempts=1, enqueue_count=1,
                      enqueued_at=created, started_at=created,
                      finished_at=created + timedelta(seconds=5))
            jobs.append(job)
            if status == JobStatus.SUCCEEDED:
                outputs.append(JobOutput(job=job, index=0, file=f"outputs/{job.id}/0.png",
                                         filename="out.png", content_type="image/png",
                                         size=1000, sha256="0" * 64,
                                         drive_file_id=f"f{i}" if tool in DRIVE else ""))
        Job.objects.bulk_create(jobs, batch_size=1000)
        JobOutput.objects.bulk_create(outputs, batch_size=1000)
        made += n
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def timed(fn: Callable[[], Any]) -> float:
    fn()  # warm
    samples = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def measure(api: APIClient) -> dict[str, float]:
    # The jobs an earlier round submitted become history too, so both sizes see the same
    # backlog (the reconcile's queued scan depends on the backlog, not on the history).
    Job.objects.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING]).update(
        status=JobStatus.CANCELED, finished_at=timezone.now(), lease=None)
    resp = api.post("/api/diagnostics/sleep", {"seconds": 0}, format="json")
    assert resp.status_code == 202, resp.content
    job_id = resp.json()["id"]

    def get_job() -> None:
        assert api.get(f"/api/jobs/{job_id}/").status_code == 200

    def submit() -> None:
        assert api.post("/api/diagnostics/sleep", {"seconds": 0},
                        format="json").status_code == 202

    def queues() -> None:
        assert api.get("/api/queues/").status_code == 200

    def job_list() -> None:
        assert api.get("/api/jobs/?limit=20").status_code == 200

    return {
        "GET /api/jobs/{id}/": timed(get_job),
        "submit (POST)": timed(submit),
        "GET /api/queues/": timed(queues),
        "GET /api/jobs/?limit=20": timed(job_list),
        "deliveries_pending": timed(lambda: deliveries_pending(
            older_than_seconds=settings.DELIVERY_GRACE_SECONDS)),
        "jobs_reconcile tick": timed(lambda: jobs_reconcile()),
    }


@pytest.mark.django_db(transaction=True)
def bench_costs_flat_in_history(staff: Any, staff_api: APIClient, capsys: Any) -> None:
    Job.objects.all().delete()
    results: dict[int, dict[str, float]] = {}
    fill = 0.0
    for size in SIZES:
        start = time.perf_counter()
        history(staff.organization, staff, size - Job.objects.count() if size else 0)
        if size:
            fill = time.perf_counter() - start
        results[size] = measure(staff_api)
    Job.objects.all().delete()
    small, big = SIZES
    with capsys.disabled():
        print(f"\n[bench] database {connection.vendor}, median of {REPEAT} calls (ms); "
              f"{big:,} finished jobs inserted in {fill:.1f} s")
        print(f"[bench] {'':24} {small:>10,} {big:>10,} {'ratio':>7}  bar ≤ {BAR}×")
        for key in results[small]:
            a, b = results[small][key], results[big][key]
            ratio = b / a if a else float("inf")
            flag = "ok" if ratio <= BAR else "OVER"
            print(f"[bench] {key:24} {a:10.2f} {b:10.2f} {ratio:7.2f}  {flag}")
