"""Periodic housekeeping started by beat."""

from __future__ import annotations

from dataclasses import asdict

from config.celery_app import app
from jobs.services import jobs_reconcile, outputs_cleanup


@app.task(name="jobs.reconcile", ignore_result=True, soft_time_limit=120, time_limit=150)
def reconcile() -> dict[str, int]:
    return asdict(jobs_reconcile())


@app.task(name="jobs.cleanup_outputs", ignore_result=True, soft_time_limit=600, time_limit=660)
def cleanup_outputs() -> int:
    return outputs_cleanup()
