"""No lost work: a worker SIGKILLed mid-job, Redis restarted (and wiped) with jobs queued.

Each scenario runs real worker and beat processes of its own and checks that every job
finished exactly once, with one set of outputs.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from jobs.models import Activity, Job, JobOutput, JobStatus
from tests.support.polling import wait_job
from tests.support.processes import CeleryProcess, start_beat, start_worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SLEEP_URL = "/api/diagnostics/sleep"


@pytest.fixture
def procs(django_db_setup: Any) -> Iterator[list[CeleryProcess]]:
    started: list[CeleryProcess] = []
    yield started
    for proc in started:
        proc.kill()


def submit(api: APIClient, **payload: Any) -> str:
    resp = api.post(SLEEP_URL, payload, format="json")
    assert resp.status_code == 202, resp.content
    return resp.json()["id"]


def assert_exactly_once(job_ids: list[str], outputs_each: int = 1) -> None:
    for job_id in job_ids:
        job = Job.objects.get(pk=job_id)
        assert job.status == JobStatus.SUCCEEDED, (job_id, job.status, job.error_message)
        assert JobOutput.objects.filter(job=job).count() == outputs_each
        assert [a.shown_status for a in Activity.objects.filter(job=job)
                .select_related("job")] == ["Success"]


def test_a_worker_killed_mid_job_leaves_the_job_to_another(staff_api: APIClient,
                                                           procs: list[CeleryProcess]) -> None:
    first = start_worker(concurrency=1)
    procs += [first, start_beat()]
    job_id = submit(staff_api, seconds=3, outputs=2)
    wait_job(job_id, statuses={"running"}, timeout=30)
    wait_for_progress(job_id)

    shown = [staff_api.get(f"/api/jobs/{job_id}/").json()["progress"]]
    first.kill()  # SIGKILL to the whole worker: no goodbye, the message stays unacked
    second = start_worker(concurrency=1)
    procs.append(second)

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        body = staff_api.get(f"/api/jobs/{job_id}/").json()
        shown.append(body["progress"])
        if body["status"] not in ("queued", "running"):
            break
        time.sleep(0.1)
    job = wait_job(job_id, timeout=5)
    assert_exactly_once([job_id], outputs_each=2)
    assert job.attempts == 2
    # what partners saw never went back, though the second run started its engine at 0
    assert shown == sorted(shown) and shown[0] > 10 and shown[-1] == 100, shown


def wait_for_progress(job_id: str) -> None:
    from tests.support.processes import wait_for

    wait_for(lambda: Job.objects.get(pk=job_id).progress > 10, 20, what="progress")


def test_redis_restart_with_jobs_queued_loses_nothing(staff_api: APIClient, redis_server: Any,
                                                      procs: list[CeleryProcess]) -> None:
    procs += [start_worker(concurrency=1), start_beat()]
    long_job = submit(staff_api, seconds=3)
    queued = [submit(staff_api, seconds=0.2) for _ in range(5)]
    wait_job(long_job, statuses={"running"}, timeout=30)

    redis_server.stop()  # its append-only file keeps the queued messages
    during = [submit(staff_api, seconds=0.2) for _ in range(3)]  # the API still takes work
    redis_server.start()

    every = [long_job, *queued, *during]
    for job_id in every:
        wait_job(job_id, timeout=90)
    assert_exactly_once(every)


def test_redis_wiped_with_jobs_queued_loses_nothing(staff_api: APIClient, redis_server: Any,
                                                    procs: list[CeleryProcess]) -> None:
    queued = [submit(staff_api, seconds=0.2) for _ in range(6)]  # no worker yet: all wait

    redis_server.stop()
    redis_server.wipe()  # the broker comes back empty
    redis_server.start()
    procs += [start_worker(concurrency=2), start_beat()]

    for job_id in queued:
        wait_job(job_id, timeout=90)
    assert_exactly_once(queued)
    assert all(Job.objects.get(pk=j).enqueue_count >= 2 for j in queued)
