"""Periodic housekeeping started by beat."""

from __future__ import annotations

import logging
from dataclasses import asdict

import redis
from django.conf import settings
from redis.exceptions import LockError
from webhooks.services import deliveries_due, events_dispatch

from config.celery_app import app
from jobs.figures import figures_heal, redis_client
from jobs.kinds import job_catalogue
from jobs.services import jobs_reconcile, outputs_cleanup
from workers.tasks.drives import deliveries_reconcile

logger = logging.getLogger(__name__)


RECONCILE_LOCK = "atelier:lock:jobs.reconcile"
# As long as a tick may run (the task's hard time limit): a tick killed mid-way frees it then.
RECONCILE_LOCK_SECONDS = 150


@app.task(name="jobs.reconcile", ignore_result=True, soft_time_limit=120, time_limit=150)
def reconcile() -> dict[str, int]:
    """One reconcile tick. Any number of beats or workers may start it: a Redis lock with a
    TTL lets one tick work at a time, and a tick that finds it held does nothing."""
    lock = redis_client().lock(RECONCILE_LOCK, timeout=RECONCILE_LOCK_SECONDS, blocking=False)
    if not lock.acquire():
        logger.info("jobs.reconcile: another tick holds the lock; skipped")
        return {"skipped_locked": 1}
    try:
        report = asdict(jobs_reconcile())
        # Outputs of jobs that succeeded a while ago but never reached their output folder.
        report["deliveries_requeued"] = deliveries_reconcile(
            older_than_seconds=settings.DELIVERY_GRACE_SECONDS)
        # Events whose dispatch was not woken (Redis was down when their job ended).
        report["events_dispatched"] = events_dispatch()
        report["webhooks_due"] = deliveries_due()
        # Queue counters a lost update (or a Redis restart) left wrong are rebuilt here.
        try:
            healed = figures_heal(tools=[kind.slug for kind in job_catalogue()])
            report["figures_rebuilt"] = len(healed.rebuilt)
        except redis.RedisError as exc:
            logger.warning("jobs.reconcile: queue figures not checked: %s", exc)
        report["skipped_locked"] = 0
        return report
    finally:
        try:
            lock.release()
        except LockError:  # it outlived its TTL and another tick may own it now
            logger.warning("jobs.reconcile: the lock expired before the tick ended")


@app.task(name="jobs.cleanup_outputs", ignore_result=True, soft_time_limit=600, time_limit=660)
def cleanup_outputs() -> int:
    return outputs_cleanup()
