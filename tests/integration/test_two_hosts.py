"""Two worker hosts on one broker and database: jobs are shared between them, and a killed
host's job is finished by the other."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from jobs.models import Job, JobOutput
from tests.support.polling import wait_job
from tests.support.processes import CeleryProcess, start_beat, start_worker, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_jobs_are_shared_and_a_killed_hosts_job_is_finished_by_the_other(
    staff_api: APIClient, django_db_setup: Any
) -> None:
    hosts: list[CeleryProcess] = [start_worker(concurrency=1, name="host-a"),
                                  start_worker(concurrency=1, name="host-b"), start_beat()]
    try:
        ids = [staff_api.post("/api/diagnostics/sleep", {"seconds": 0.5}, format="json")
               .json()["id"] for _ in range(8)]
        for job_id in ids:
            assert wait_job(job_id, timeout=60).status == "succeeded"
        served = {h.name for h in hosts[:2] if f"{h.name}@" in h.log.read_text()
                  and "succeeded" in h.log.read_text()}
        assert served == {"host-a", "host-b"}  # both hosts took work

        long_job = staff_api.post("/api/diagnostics/sleep", {"seconds": 3},
                                  format="json").json()["id"]
        wait_job(long_job, statuses={"running"}, timeout=30)
        wait_for(lambda: Job.objects.get(pk=long_job).progress > 10, 20, what="progress")
        owner = next(h for h in hosts[:2] if long_job in h.log.read_text())
        owner.kill()
        job = wait_job(long_job, timeout=60)
        assert job.status == "succeeded" and job.attempts == 2
        assert JobOutput.objects.filter(job=job).count() == 1
    finally:
        for proc in hosts:
            proc.kill()
