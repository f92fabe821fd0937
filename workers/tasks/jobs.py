"""The generic job task: takes an id, makes one service call."""

from __future__ import annotations

from config.celery_app import app
from jobs.services import job_run


# Time limits are set per tool when the job is enqueued (see jobs.services.job_enqueue).
# Nothing to retry here: the reconciler requeues a job whose worker died, up to
# JOB_MAX_ATTEMPTS, and a duplicate delivery finds the job taken and does nothing.
@app.task(name="jobs.run", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_job(job_id: str) -> str:
    return job_run(job_id=job_id)
