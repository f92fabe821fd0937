"""The generic job task: takes an id, hands it to the runner."""

from __future__ import annotations

from typing import Any

from billiard.einfo import ExceptionInfo
from celery import Task
from celery.exceptions import TimeLimitExceeded

from config.celery_app import app
from jobs.services import RUN_TASK, job_fail
from tools.registry import TOOLS
from workers.runner import job_execute
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


def run_job(job_id: str) -> str:
    outcome, job = job_execute(job_id=job_id)
    if outcome == "succeeded" and job is not None:
        deliver_outputs_enqueue(job_id=job_id, tool=job.tool)
    return outcome


# One task name per tool (jobs.run.<tool>, see jobs.services.run_task_name) so Flower shows
# runs by tool, and the generic jobs.run for jobs of a tool no longer declared. Time limits
# are set per job when it is enqueued. Nothing to retry here: the reconciler requeues a job
# whose worker died, up to JOB_MAX_ATTEMPTS, and a duplicate delivery finds the job taken and
# does nothing.
RUN_TASKS = {
    name: app.task(base=JobTask, name=name, acks_late=True, reject_on_worker_lost=True,
                   ignore_result=True)(run_job)
    for name in [RUN_TASK, *(f"{RUN_TASK}.{slug}" for slug in TOOLS)]
}
