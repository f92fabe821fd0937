"""Drive work on the drivesync queue: delivering job outputs to output folders."""

from __future__ import annotations

import logging

from config.celery_app import app
from drives.services import DRIVE_TOOLS, deliveries_pending, job_outputs_deliver

logger = logging.getLogger(__name__)


# A drive outage retries with backoff; the upload itself is keyed by (job, index), so a
# retry never makes a second file. A lost delivery is found again by the reconciler.
@app.task(name="drives.deliver_outputs", queue="drivesync", acks_late=True,
          reject_on_worker_lost=True, ignore_result=True, autoretry_for=(Exception,),
          retry_backoff=5, retry_backoff_max=600, retry_jitter=True, max_retries=8,
          soft_time_limit=540, time_limit=600)
def deliver_outputs(job_id: str) -> int:
    return job_outputs_deliver(job_id=job_id)


def deliver_outputs_enqueue(*, job_id: str, tool: str) -> None:
    if tool not in DRIVE_TOOLS:
        return
    try:
        deliver_outputs.apply_async(args=[str(job_id)], queue="drivesync")
    except Exception as exc:  # noqa: BLE001 - broker down: the reconciler finds it later
        logger.warning("delivery of job %s not enqueued: %s", job_id, exc)


def deliveries_reconcile(*, older_than_seconds: float) -> int:
    pending = deliveries_pending(older_than_seconds=older_than_seconds)
    for job_id in pending:
        deliver_outputs_enqueue(job_id=str(job_id), tool=next(iter(DRIVE_TOOLS)))
    return len(pending)
