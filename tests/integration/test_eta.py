"""ETAs partners can trust: the figure at submit and while the work goes on, against the time
it really took, on a real worker; and the workers the ETA divides by, counted live."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from jobs import presence
from jobs.models import Job, JobStatus
from tests.support.processes import CeleryProcess, start_worker, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SLEEP_URL = "/api/diagnostics/sleep"


@pytest.fixture
def procs(django_db_setup: Any) -> Iterator[list[CeleryProcess]]:
    # Workers SIGKILLed by earlier suites never withdrew: their entries would count until
    # they expire. None of them runs now.
    client = presence._redis()
    for key in client.scan_iter("atelier:workers:*"):
        client.delete(key)
    started: list[CeleryProcess] = []
    yield started
    for proc in started:
        proc.kill()


def live(queue: str) -> int | None:
    presence._read_cache.clear()
    return presence.live_processes(queue=queue)


def test_the_eta_divides_by_the_workers_that_really_consume_the_queue(
        procs: list[CeleryProcess]) -> None:
    # given one worker of two processes on the video queue
    first = start_worker(queues="video", concurrency=2)
    procs.append(first)
    wait_for(lambda: live("video") == 2, 20, what="the first worker announced")

    # when a second host joins with one process, then the first one stops
    second = start_worker(queues="video,batch", concurrency=1)
    procs.append(second)
    wait_for(lambda: live("video") == 3, 20, what="the second worker announced")
    assert live("batch") == 1
    first.stop()

    # then the count follows at once (a stopped worker withdraws itself)
    wait_for(lambda: live("video") == 1, 10, what="the first worker withdrawn")
    assert presence.queue_processes(queue="video") == 1


def test_etas_of_a_mixed_backlog_are_close_to_the_time_it_took(
        staff_api: APIClient, procs: list[CeleryProcess]) -> None:
    # given a worker of two processes that ran the mix a few times, and 20 jobs of mixed
    # lengths sent at once
    procs.append(start_worker(queues="interactive", concurrency=2))
    wait_for(lambda: live("interactive") == 2, 20, what="the worker announced")
    lengths = [0.6, 1.0, 1.4, 2.0] * 5
    # A few runs first, as any deployment has after its first minutes: before them the ETA
    # can only quote the tool's declared time, which says nothing of this mix.
    warm = [staff_api.post(SLEEP_URL, {"seconds": s}, format="json").json()["id"]
            for s in lengths[:4]]
    wait_for(lambda: Job.objects.filter(pk__in=warm, status=JobStatus.SUCCEEDED).count() == 4,
             30, what="the warm-up runs")
    ids = [staff_api.post(SLEEP_URL, {"seconds": s}, format="json").json()["id"] for s in lengths]

    # when we ask for every unfinished job's ETA at submit and every 2.5 s
    samples: list[tuple[str, float, float]] = []  # (job, asked at, eta)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        open_ids = [i for i in ids if Job.objects.get(pk=i).status in (JobStatus.QUEUED,
                                                                       JobStatus.RUNNING)]
        if not open_ids:
            break
        for job_id in open_ids:
            body = staff_api.get(f"/api/jobs/{job_id}/").json()
            if body["status"] in ("queued", "running") and body["eta_seconds"] is not None:
                samples.append((job_id, time.time(), float(body["eta_seconds"])))
        time.sleep(2.5)

    # then the ETAs were close to when each job really finished
    finished = {str(j.pk): j.finished_at.timestamp() for j in Job.objects.filter(pk__in=ids)}
    assert all(Job.objects.get(pk=i).status == JobStatus.SUCCEEDED for i in ids)
    errors, ratios = [], []
    for job_id, asked, eta in samples:
        # Pages show ETAs in whole seconds: under a second to go, "1 s" is right.
        actual = max(1.0, finished[job_id] - asked)
        eta = max(1.0, eta)
        errors.append(abs(eta - actual) / actual)
        ratios.append(max(eta, actual) / min(eta, actual))
    median_error = statistics.median(errors)
    p90_ratio = statistics.quantiles(ratios, n=10)[-1]
    print(f"ETA over {len(samples)} samples: median error {median_error:.0%}, "
          f"90th percentile ratio {p90_ratio:.2f}x (at {timezone.now():%H:%M:%S})")
    assert len(samples) >= 30
    assert median_error <= 0.30, (median_error, p90_ratio)
    assert p90_ratio <= 2.0, (median_error, p90_ratio)
