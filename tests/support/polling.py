from __future__ import annotations

from typing import Any

from jobs.models import Job
from tests.support.processes import wait_for

FINAL = {"succeeded", "failed", "canceled"}


def wait_job(job_id: Any, timeout: float = 60, statuses: set[str] = FINAL) -> Job:
    def done() -> Job | None:
        job = Job.objects.get(pk=job_id)
        return job if job.status in statuses else None

    return wait_for(done, timeout, interval=0.1, what=f"job {job_id} to reach {statuses}")
