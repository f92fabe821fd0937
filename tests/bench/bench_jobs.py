"""Throughput and latency of jobs through our API and workers, against raw Celery no-op
tasks on the same broker and worker settings, measured in the same run. Printed, not asserted.
"""

from __future__ import annotations

import os
import statistics
import time
import uuid
from typing import Any

import pytest
import redis
from django.conf import settings
from rest_framework.test import APIClient

from jobs.models import Job, JobStatus
from tests.support.processes import start_worker, wait_for
from workers.tasks.diagnostics import noop

N = int(os.environ.get("BENCH_JOBS", "300"))
CONCURRENCY = 2


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def raw_celery(n: int) -> tuple[float, list[float]]:
    key = f"bench:{uuid.uuid4().hex}"
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    start = time.time()
    for _ in range(n):
        noop.apply_async(args=[time.time(), key], queue="interactive")
    wait_for(lambda: client.llen(key) >= n, 600, interval=0.05, what="raw tasks")
    rows = [tuple(map(float, r.split())) for r in client.lrange(key, 0, -1)]
    end = max(done for _, done in rows)
    return n / (end - start), [done - sent for sent, done in rows]


def through_jobs(api: APIClient, n: int) -> tuple[float, list[float]]:
    start = time.time()
    for _ in range(n):
        resp = api.post("/api/diagnostics/sleep", {"seconds": 0}, format="json")
        assert resp.status_code == 202
    wait_for(lambda: Job.objects.filter(status=JobStatus.SUCCEEDED).count() >= n, 600,
             interval=0.2, what="jobs")
    jobs = list(Job.objects.values_list("created_at", "finished_at"))
    end = max(f for _, f in jobs).timestamp()
    return n / (end - start), [(f - c).total_seconds() for c, f in jobs]


@pytest.mark.django_db(transaction=True)
def bench_job_bookkeeping_against_raw_celery(staff_api: APIClient, capsys: Any) -> None:
    worker = start_worker(queues="interactive", concurrency=CONCURRENCY)
    try:
        raw_celery(20)  # warm the pool
        raw_rate, raw_lat = raw_celery(N)
        ours_rate, ours_lat = through_jobs(staff_api, N)
    finally:
        worker.stop()
    with capsys.disabled():
        print(f"\n[bench] {N} jobs, worker concurrency {CONCURRENCY}, "
              f"database {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}")
        print(f"[bench] raw Celery no-op : {raw_rate:8.1f} jobs/s  p50 {pct(raw_lat, .5):.3f}s"
              f"  p99 {pct(raw_lat, .99):.3f}s")
        print(f"[bench] Atelier jobs     : {ours_rate:8.1f} jobs/s  p50 {pct(ours_lat, .5):.3f}s"
              f"  p99 {pct(ours_lat, .99):.3f}s  (API submit, bookkeeping, output stored)")
        print(f"[bench] ratio Atelier/raw throughput: {ours_rate / raw_rate:.2f}  "
              f"(bookkeeping costs {100 * (1 - ours_rate / raw_rate):.0f}% of raw throughput)")
        print(f"[bench] mean latency raw {statistics.mean(raw_lat):.3f}s, "
              f"Atelier {statistics.mean(ours_lat):.3f}s")
