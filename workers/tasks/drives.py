"""Drive work on the drivesync queue: delivering job outputs to output folders."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.cache import cache

from config.celery_app import app
from drives.services import DRIVE_TOOLS, deliveries_pending, job_outputs_deliver

logger = logging.getLogger(__name__)

# The longest wait before a retry of a delivery (Celery's backoff, capped).
RETRY_BACKOFF_MAX = 600


# A drive outage retries with backoff; the upload itself is keyed by (job, index), so a
# retry never makes a second file. A lost delivery is found again by the reconciler.
@app.task(name="drives.deliver_outputs", queue="drivesync", acks_late=True,
          reject_on_worker_lost=True, ignore_result=True, autoretry_for=(Exception,),
          retry_backoff=5, retry_backoff_max=RETRY_BACKOFF_MAX, retry_jitter=True,
          max_retries=8, soft_time_limit=540, time_limit=600, bind=True)
def deliver_outputs(self: Any, job_id: str) -> int:
    try:
        delivered = job_outputs_deliver(job_id=job_id)
    except Exception:
        if self.request.retries < (self.max_retries or 0):
            # Celery holds the retry for up to RETRY_BACKOFF_MAX seconds: the mark outlives
            # that wait, so the reconciler adds no second delivery meanwhile.
            _mark_waiting(job_id, seconds=settings.DELIVERY_MARKER_SECONDS + RETRY_BACKOFF_MAX)
        else:
            _unmark(job_id)  # no retry follows: the reconciler may enqueue it again later
        raise
    # Done: a later need (a new output, a lost upload) may enqueue this job again at once.
    _unmark(job_id)
    return delivered


def _marker(job_id: str) -> str:
    return f"drive-delivery-waiting:{job_id}"


def _mark(job_id: str) -> bool:
    """True when no delivery of this job is waiting or running (and marks one): one message
    per job, however often the reconciler finds it pending."""
    try:
        return bool(cache.add(_marker(job_id), 1, timeout=settings.DELIVERY_MARKER_SECONDS))
    except Exception as exc:  # noqa: BLE001 - Redis down: better a no-op duplicate than none
        logger.warning("delivery marker of job %s unavailable: %s", job_id, exc)
        return True


def _mark_waiting(job_id: str, *, seconds: float) -> None:
    try:
        cache.set(_marker(job_id), 1, timeout=seconds)
    except Exception as exc:  # noqa: BLE001 - Redis down: the reconciler may add a no-op copy
        logger.warning("delivery marker of job %s not kept: %s", job_id, exc)


def _unmark(job_id: str) -> None:
    try:
        cache.delete(_marker(job_id))
    except Exception as exc:  # noqa: BLE001 - it expires by itself
        logger.warning("delivery marker of job %s not cleared: %s", job_id, exc)


def deliver_outputs_enqueue(*, job_id: str, tool: str) -> bool:
    """Enqueue the delivery of a drive tool's job unless one is already waiting."""
    if tool not in DRIVE_TOOLS or not _mark(str(job_id)):
        return False
    try:
        deliver_outputs.apply_async(args=[str(job_id)], queue="drivesync")
    except Exception as exc:  # noqa: BLE001 - broker down: the reconciler finds it later
        logger.warning("delivery of job %s not enqueued: %s", job_id, exc)
        _unmark(str(job_id))
        return False
    return True


def deliveries_reconcile(*, older_than_seconds: float) -> int:
    """Enqueue the deliveries that were lost; returns how many were enqueued."""
    tool = next(iter(DRIVE_TOOLS))
    return sum(deliver_outputs_enqueue(job_id=str(job_id), tool=tool)
               for job_id in deliveries_pending(older_than_seconds=older_than_seconds))
