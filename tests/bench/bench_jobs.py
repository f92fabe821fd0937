"""The worker's drain rate against raw Celery no-op tasks, in the same run.

N jobs (``diagnostics.sleep`` with 0 s, submitted through the API) are queued with no worker,
then a worker started as a deploy starts one (``entrypoint.sh worker``, production settings,
the same concurrency) drains them; the same for N raw Celery no-op tasks on the same broker
and queue. The drain rate is counted from the first 5 % done to the last, so a worker's start
is not in it. Rounds alternate (raw, ours, then ours, raw, ...), so a machine getting busier or quieter
during the run weighs on both sides alike. Printed, not asserted. Beside each rate, the CPU
milliseconds per job of the worker's main process, its pool children, PostgreSQL and Redis
while that side drained: on one machine they share the cores, so they say where a difference
in rate comes from. The broker fsyncs its log once a second, as deployed.

Bar (PostgreSQL, our production database): ours ≥ 0.8× raw Celery.

There are no latency rows: the two sides are drained from a full queue, and a latency is
only comparable between two systems at the same offered load.
"""

from __future__ import annotations

import os
import threading
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

    def count(self) -> int:
        return int(self.client.llen(self.key))

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

    def count(self) -> int:
        return Job.objects.filter(finished_at__isnull=False).count()

    def done(self, n: int) -> list[float]:
        final = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELED)
        wait_for(lambda: Job.objects.filter(status__in=final).count() >= n, 900, interval=0.2,
                 what="jobs")
        assert Job.objects.count() == n
        failed = list(Job.objects.exclude(status=JobStatus.SUCCEEDED)
                      .values_list("status", "error_message")[:3])
        assert not failed, failed
        return [f.timestamp() for f in Job.objects.values_list("finished_at", flat=True)]


@pytest.fixture
def broker_as_deployed() -> Any:
    """The suites' Redis fsyncs every write (the fault suite kills it and counts what
    survives); the deployed broker fsyncs once a second (deploy/compose.yaml). Both sides
    are drained on the broker as it is deployed."""
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    before = client.config_get("appendfsync")["appendfsync"]
    client.config_set("appendfsync", "everysec")
    yield
    client.config_set("appendfsync", before)


CPU_PARTS = ("worker main", "pool children", "PostgreSQL", "Redis")


def cpu_seconds(worker_session: int, redis_pid: int) -> dict[str, float]:
    """CPU seconds (user + system, children reaped included) so far of the worker's main
    process and its pool children (the processes of its session named celery), of every
    PostgreSQL process, and of the suite's Redis."""
    tick = os.sysconf("SC_CLK_TCK")
    found = dict.fromkeys(CPU_PARTS, 0.0)
    rows = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                name, rest = f.read().split(" (", 1)[1].rsplit(") ", 1)
        except OSError:
            continue
        fields = rest.split()
        rows.append((int(entry), name, int(fields[3]),
                     sum(int(v) for v in fields[11:15]) / tick))
    celery = [pid for pid, name, session, _ in rows if session == worker_session
              and name.startswith("celery")]
    for pid, name, _, seconds in rows:
        if pid in celery:
            found["worker main" if pid == min(celery) else "pool children"] += seconds
        elif name.startswith("postgres"):
            found["PostgreSQL"] += seconds
        elif pid == redis_pid:
            found["Redis"] += seconds
    return found


def one_round(side: Any, queue: str, redis_pid: int) -> tuple[float, dict[str, float]]:
    """The side's drain rate, and its CPU milliseconds per job by process while it drained
    (sampled with the count of jobs done, from the first 5 % done to the last, as the rate)."""
    purge(queue)
    side.publish(N)
    samples: list[tuple[int, dict[str, float]]] = []
    stop = threading.Event()
    threads: list[threading.Thread] = []

    def sample(session: int) -> None:
        try:
            while not stop.wait(0.05):
                samples.append((side.count(), cpu_seconds(session, redis_pid)))
        finally:
            connection.close()  # this thread's own

    def started(worker: Any) -> None:
        # sampled from its start: a side may drain much of its queue before it logs ready
        session = worker.proc.pid  # the worker's process group leads its own session
        threads.append(threading.Thread(target=sample, args=(session,), daemon=True))
        threads[0].start()

    try:
        with start_worker(queue, CONCURRENCY, started=started) as worker:
            done = side.done(N)
            stop.set()
            threads[0].join(10)
            samples.append((N, cpu_seconds(worker.proc.pid, redis_pid)))
    finally:
        stop.set()
    first = next((s for s in samples if s[0] >= N // 20), samples[-1])
    last = max(samples, key=lambda s: s[0])  # the first sample with every job done
    ran = last[0] - first[0]
    cpu = {part: (1000 * (last[1][part] - first[1][part]) / ran if ran > N // 4
                  else float("nan")) for part in CPU_PARTS}
    return drain_rate(done), cpu


@pytest.mark.timeout(3600)
@pytest.mark.django_db(transaction=True)
def bench_drain_against_raw_celery(staff_api: APIClient, capsys: Any,
                                   broker_as_deployed: Any, redis_server: Any) -> None:
    resp = staff_api.post("/api/diagnostics/sleep", {"seconds": 0}, format="json")
    assert resp.status_code == 202, resp.content
    queue = Job.objects.get(pk=resp.json()["id"]).queue
    raw, ours = Raw(queue), Ours(staff_api)
    rates: dict[str, list[float]] = {raw.label: [], ours.label: []}
    cpus: dict[str, list[dict[str, float]]] = {raw.label: [], ours.label: []}
    for i in range(ROUNDS):
        for side in ((raw, ours) if i % 2 == 0 else (ours, raw)):
            rate, cpu = one_round(side, queue, redis_server.proc.pid)
            rates[side.label].append(rate)
            cpus[side.label].append(cpu)
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
        # Where the difference goes: both sides share the same cores with the database and
        # the broker, so CPU spent anywhere per job bounds the drain.
        for label, rounds in cpus.items():
            per = {part: sum(r[part] for r in rounds) / len(rounds) for part in CPU_PARTS}
            parts = ", ".join(f"{part} {ms:.2f}" for part, ms in per.items())
            print(f"[bench] {label:18} CPU ms per job: {parts}; total "
                  f"{sum(per.values()):.2f}")
        if connection.vendor == "postgresql":
            verdict = "bar met" if ratio >= BAR else "NOT MET"
            print(f"[bench] drain ratio Atelier/raw on {database_label()}: {ratio:.2f}x   "
                  f"bar >= {BAR}x: {verdict}")
        else:
            print(f"[bench] drain ratio Atelier/raw on {database_label()}: {ratio:.2f}x   "
                  f"(the bar is for PostgreSQL)")
