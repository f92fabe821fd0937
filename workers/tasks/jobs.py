"""The generic job task: takes an id, hands it to the runner."""

from __future__ import annotations

import logging
from typing import Any

from billiard.einfo import ExceptionInfo
from billiard.exceptions import WorkerLostError
from celery import Task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded

from config.celery_app import app
from jobs.services import RUN_TASK, job_fail
from tools.registry import TOOLS
from workers.broker import message_to_front
from workers.runner import job_execute
from workers.tasks.drives import deliver_outputs_enqueue

logger = logging.getLogger(__name__)


class JobTask(Task):
    # A pool child killed mid-run (SIGKILL, OOM): the worker's main process publishes the
    # task again at once (same task id; the killed message is acked) and moves it to the
    # front of its queue, so the job runs again next, ahead of newer work; the run that takes
    # it sees from the job's host and pid that the old run is dead and takes the job over
    # (jobs.services.job_start). The job's attempts cap repeats, not Celery's retry count.
    retry_on_worker_lost = True
    max_retries = None
    default_retry_delay = 0

    def on_retry(self, exc: Exception, task_id: str, args: Any, kwargs: Any,
                 einfo: ExceptionInfo) -> None:
        if isinstance(exc, WorkerLostError):
            queue = (self.request.delivery_info or {}).get("routing_key") or self.queue
            try:
                message_to_front(str(queue), task_id)
            except Exception:  # noqa: BLE001 - it runs all the same, behind the queue
                logger.warning("job task %s could not be moved to the front", task_id,
                               exc_info=True)

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
        try:
            deliver_outputs_enqueue(job_id=job_id, tool=job.tool)
        except SoftTimeLimitExceeded:
            # The job has ended; its outputs await delivery in the database and the
            # reconciler enqueues the delivery.
            logger.warning("job %s: the time limit fired while its delivery was enqueued",
                           job_id)
    return outcome


# One task name per tool (jobs.run.<tool>, see jobs.services.run_task_name) so Flower shows
# runs by tool, and the generic jobs.run for jobs of a tool no longer declared. Time limits
# are set per job when it is enqueued. A pool child lost mid-run is retried at the queue's
# front (JobTask); a whole worker or host lost is the reconciler's, which requeues the job up
# to JOB_MAX_ATTEMPTS; a duplicate delivery finds the job taken and does nothing.
RUN_TASKS = {
    name: app.task(base=JobTask, name=name, acks_late=True, reject_on_worker_lost=True,
                   ignore_result=True)(run_job)
    for name in [RUN_TASK, *(f"{RUN_TASK}.{slug}" for slug in TOOLS)]
}
