"""Jobs through our API and workers against raw Celery no-op tasks on the same broker and
worker settings, measured in the same run. Printed, not asserted.

Three figures each: publishing N (our API call against a bare apply_async), draining N queued
ones with a worker started afterwards, and end to end with the worker already running
(submit→succeeded latency).
"""

from __future__ import annotations

import os
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


class Raw:
    def __init__(self) -> None:
        self.key = f"bench:{uuid.uuid4().hex}"
        self.client = redis.Redis.from_url(settings.CELERY_BROKER_URL)

    def submit(self, n: int) -> float:
        start = time.time()
        for _ in range(n):
            noop.apply_async(args=[time.time(), self.key], queue="interactive")
        return time.time() - start

    def wait(self, n: int) -> list[tuple[float, float]]:
        wait_for(lambda: self.client.llen(self.key) >= n, 600, interval=0.05, what="raw tasks")
        rows = [tuple(map(float, r.split())) for r in self.client.lrange(self.key, 0, -1)]
        return rows  # type: ignore[return-value]


class Ours:
    def __init__(self, api: APIClient) -> None:
        self.api = api
        self.since = time.time()
        Job.objects.all().delete()

    def submit(self, n: int) -> float:
        start = time.time()
        for _ in range(n):
            resp = self.api.post("/api/diagnostics/sleep", {"seconds": 0}, format="json")
            assert resp.status_code == 202
        return time.time() - start

    def wait(self, n: int) -> list[tuple[float, float]]:
        wait_for(lambda: Job.objects.filter(status=JobStatus.SUCCEEDED).count() >= n, 600,
                 interval=0.2, what="jobs")
        assert not Job.objects.exclude(status=JobStatus.SUCCEEDED).exists()
        return [(c.timestamp(), f.timestamp())
                for c, f, s in Job.objects.values_list("created_at", "finished_at", "started_at")]


def measure(kind: Any) -> dict[str, float]:
    # 1. publish N with no worker, then drain them with a worker started afterwards
    publish = kind.submit(N)
    worker = start_worker(queues="interactive", concurrency=CONCURRENCY)
    try:
        t0 = time.time()
        rows = kind.wait(N)
        drain = max(done for _, done in rows) - t0
        # 2. end to end with the worker running
        fresh = type(kind)(*([kind.api] if isinstance(kind, Ours) else []))
        start = time.time()
        fresh.submit(N)
        rows = fresh.wait(N)
        e2e = max(done for _, done in rows) - start
        latencies = [done - sent for sent, done in rows]
    finally:
        worker.stop()
    return {"publish": N / publish, "drain": N / drain, "e2e": N / e2e,
            "p50": pct(latencies, 0.5), "p99": pct(latencies, 0.99)}


@pytest.mark.django_db(transaction=True)
def bench_job_bookkeeping_against_raw_celery(staff_api: APIClient, capsys: Any) -> None:
    raw = measure(Raw())
    ours = measure(Ours(staff_api))
    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    with capsys.disabled():
        print(f"\n[bench] {N} jobs, one worker process with concurrency {CONCURRENCY}, "
              f"database {engine}, broker Redis")
        print(f"[bench] {'':22} {'raw Celery':>12} {'Atelier':>12} {'ratio':>7}")
        for key, label in (("publish", "publish (jobs/s)"), ("drain", "drain (jobs/s)"),
                           ("e2e", "end to end (jobs/s)")):
            print(f"[bench] {label:22} {raw[key]:12.1f} {ours[key]:12.1f} "
                  f"{ours[key] / raw[key]:7.2f}")
        for key in ("p50", "p99"):
            print(f"[bench] {key + ' submit→done (s)':22} {raw[key]:12.3f} {ours[key]:12.3f}")
        cost = 100 * (1 - ours["drain"] / raw["drain"])
        print(f"[bench] worker-side bookkeeping costs {cost:.0f}% of raw Celery throughput")
