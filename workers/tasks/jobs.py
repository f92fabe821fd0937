"""The generic job task: takes an id, makes one service call."""

from __future__ import annotations

from typing import Any

from billiard.einfo import ExceptionInfo
from celery import Task
from celery.exceptions import TimeLimitExceeded

from config.celery_app import app
from jobs.models import Job
from jobs.services import job_fail, job_run
from workers.tasks.drives import deliver_outputs_enqueue


class JobTask(Task):
    def on_failure(self, exc: Exception, task_id: str, args: Any, kwargs: Any,
                   einfo: ExceptionInfo) -> None:
        # At the hard time limit the pool child is killed and Celery calls this in the parent
        # process: fail the job now, clearly, rather than leave it for the reconciler.
        if isinstance(exc, TimeLimitExceeded) and args:
            job_fail(job_id=args[0], lease=None, code="time_limit",
                     message=f"The job ran longer than its hard time limit of {exc.args[0]} "
                             "seconds and was stopped.")


# Time limits are set per tool when the job is enqueued (see jobs.services.job_enqueue).
# Nothing to retry here: the reconciler requeues a job whose worker died, up to
# JOB_MAX_ATTEMPTS, and a duplicate delivery finds the job taken and does nothing.
@app.task(base=JobTask, name="jobs.run", acks_late=True, reject_on_worker_lost=True,
          ignore_result=True)
def run_job(job_id: str) -> str:
    outcome = job_run(job_id=job_id)
    if outcome == "succeeded":
        tool = Job.objects.only("tool").get(pk=job_id).tool
        deliver_outputs_enqueue(job_id=job_id, tool=tool)
    return outcome
