"""The worker's drain rate against raw Celery no-op tasks, in the same run.

N jobs (``diagnostics.sleep`` with 0 s, submitted through the API) are queued with no worker,
then a worker started as a deploy starts one (``entrypoint.sh worker``, production settings,
the same concurrency) drains them; the same for N raw Celery no-op tasks on the same broker
and queue. The drain rate is counted from the first 5 % done to the last, so a worker's start
is not in it. Rounds alternate (raw, ours, then ours, raw, ...), so a machine getting busier or quieter
during the run weighs on both sides alike. Printed, not asserted.

Bar (PostgreSQL, our production database): ours ≥ 0.8× raw Celery.

There are no latency rows: the two sides are drained from a full queue, and a latency is
only comparable between two systems at the same offered load.
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

import pytest
import redis
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

from jobs.models import Job, JobStatus
from tests.bench.production import database_label, load, purge, start_worker
from tests.support.processes import wait_for
from workers.tasks.diagnostics import noop

N = int(os.environ.get("BENCH_JOBS", "400"))
ROUNDS = int(os.environ.get("BENCH_JOBS_ROUNDS", "2"))
CONCURRENCY = int(os.environ.get("BENCH_JOBS_CONCURRENCY", "2"))
BAR = 0.8


def drain_rate(done: list[float]) -> float:
    """Jobs per second from the first 5 % done to the last."""
    done = sorted(done)
    skip = len(done) // 20
    span = done[-1] - done[skip]
    return (len(done) - 1 - skip) / span if span > 0 else float("inf")


class Raw:
    label = "raw Celery no-op"

    def __init__(self, queue: str) -> None:
        self.queue = queue
        self.client = redis.Redis.from_url(settings.CELERY_BROKER_URL)

    def publish(self, n: int) -> None:
        self.key = f"bench:{uuid.uuid4().hex}"
        for _ in range(n):
            noop.apply_async(args=[time.time(), self.key], queue=self.queue)

    def done(self, n: int) -> list[float]:
        wait_for(lambda: self.client.llen(self.key) >= n, 900, interval=0.1,
                 what="raw Celery tasks")
        rows = self.client.lrange(self.key, 0, -1)
        self.client.delete(self.key)
        return [float(r.split()[1]) for r in rows]


class Ours:
    label = "Atelier jobs"

    def __init__(self, api: APIClient) -> None:
        self.api = api

    def publish(self, n: int) -> None:
        Job.objects.all().delete()
        for _ in range(n):
            resp = self.api.post("/api/diagnostics/sleep", {"seconds": 0}, format="json")
            assert resp.status_code == 202, resp.content

    def done(self, n: int) -> list[float]:
        final = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELED)
        wait_for(lambda: Job.objects.filter(status__in=final).count() >= n, 900, interval=0.2,
                 what="jobs")
        assert Job.objects.count() == n
        failed = list(Job.objects.exclude(status=JobStatus.SUCCEEDED)
                      .values_list("status", "error_message")[:3])
        assert not failed, failed
        return [f.timestamp() for f in Job.objects.values_list("finished_at", flat=True)]


def one_round(side: Any, queue: str) -> float:
    purge(queue)
    side.publish(N)
    with start_worker(queue, CONCURRENCY):
        done = side.done(N)
    return drain_rate(done)


@pytest.mark.timeout(3600)
@pytest.mark.django_db(transaction=True)
def bench_drain_against_raw_celery(staff_api: APIClient, capsys: Any) -> None:
    resp = staff_api.post("/api/diagnostics/sleep", {"seconds": 0}, format="json")
    assert resp.status_code == 202, resp.content
    queue = Job.objects.get(pk=resp.json()["id"]).queue
    raw, ours = Raw(queue), Ours(staff_api)
    rates: dict[str, list[float]] = {raw.label: [], ours.label: []}
    for i in range(ROUNDS):
        for side in ((raw, ours) if i % 2 == 0 else (ours, raw)):
            rates[side.label].append(one_round(side, queue))
    Job.objects.all().delete()
    mean = {k: sum(v) / len(v) for k, v in rates.items()}
    ratio = mean[ours.label] / mean[raw.label]
    with capsys.disabled():
        print(f"\n[bench] drain of {N} queued jobs/tasks, database {database_label()}, broker "
              f"Redis, one worker (entrypoint.sh worker {queue}, production settings, "
              f"prefork concurrency {CONCURRENCY}), {ROUNDS} rounds each, alternated; load "
              f"average {load()}")
        for label, values in rates.items():
            each = ", ".join(f"{v:.0f}" for v in values)
            print(f"[bench] {label:18} {mean[label]:8.1f} jobs/s   (rounds: {each})")
        if connection.vendor == "postgresql":
            verdict = "bar met" if ratio >= BAR else "NOT MET"
            print(f"[bench] drain ratio Atelier/raw on {database_label()}: {ratio:.2f}x   "
                  f"bar >= {BAR}x: {verdict}")
        else:
            print(f"[bench] drain ratio Atelier/raw on {database_label()}: {ratio:.2f}x   "
                  f"(the bar is for PostgreSQL)")
