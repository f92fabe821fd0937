"""Periodic housekeeping started by beat."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from dataclasses import asdict

import redis
from django.conf import settings
from redis.exceptions import LockError
from redis.lock import Lock
from webhooks.services import deliveries_due, events_dispatch

from config.celery_app import app
from jobs.figures import figures_heal, redis_client
from jobs.kinds import job_catalogue
from jobs.services import jobs_reconcile, outputs_cleanup
from workers.tasks.drives import deliveries_reconcile

logger = logging.getLogger(__name__)


RECONCILE_LOCK = "atelier:lock:jobs.reconcile"
# The lock's time to live. A tick renews it every third of this while it works, so a long
# tick keeps it, and a tick whose process was killed frees it within this many seconds (with
# a TTL as long as the tick's time limit, a host killed mid-tick stopped every reconcile, the
# one that recovers its jobs too, for two and a half minutes).
RECONCILE_LOCK_SECONDS = 15


@app.task(name="jobs.reconcile", ignore_result=True, soft_time_limit=120, time_limit=150)
def reconcile() -> dict[str, int]:
    """One reconcile tick. Any number of beats or workers may start it: a Redis lock with a
    TTL lets one tick work at a time, and a tick that finds it held does nothing."""
    # thread_local off: the thread that renews it needs the lock's token
    lock = redis_client().lock(RECONCILE_LOCK, timeout=RECONCILE_LOCK_SECONDS, blocking=False,
                               thread_local=False)
    if not lock.acquire():
        logger.info("jobs.reconcile: another tick holds the lock; skipped")
        return {"skipped_locked": 1}
    try:
        with _renewed(lock):
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


@contextlib.contextmanager
def _renewed(lock: Lock) -> Iterator[None]:
    """The lock's TTL renewed every third of it while the block runs (a thread: the tick's
    own steps may each take longer than that)."""
    done = threading.Event()

    def renew() -> None:
        while not done.wait(float(lock.timeout or RECONCILE_LOCK_SECONDS) / 3):
            try:
                lock.reacquire()
            except (LockError, redis.RedisError) as exc:  # lost: the tick ends as it is
                logger.warning("jobs.reconcile: the lock could not be renewed: %s", exc)
                return

    thread = threading.Thread(target=renew, name="reconcile-lock", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=5)


@app.task(name="jobs.cleanup_outputs", ignore_result=True, soft_time_limit=600, time_limit=660)
def cleanup_outputs() -> int:
    return outputs_cleanup()
