"""Periodic housekeeping started by beat."""

from __future__ import annotations

from dataclasses import asdict

from django.conf import settings
from webhooks.services import deliveries_due

from config.celery_app import app
from jobs.services import jobs_reconcile, outputs_cleanup
from workers.tasks.drives import deliveries_reconcile


@app.task(name="jobs.reconcile", ignore_result=True, soft_time_limit=120, time_limit=150)
def reconcile() -> dict[str, int]:
    report = asdict(jobs_reconcile())
    # Outputs of jobs that succeeded a while ago but never reached their output folder.
    report["deliveries_requeued"] = deliveries_reconcile(
        older_than_seconds=settings.DELIVERY_GRACE_SECONDS)
    report["webhooks_due"] = deliveries_due()
    return report


@app.task(name="jobs.cleanup_outputs", ignore_result=True, soft_time_limit=600, time_limit=660)
def cleanup_outputs() -> int:
    return outputs_cleanup()
