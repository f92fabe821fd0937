"""Raw Celery tasks for ops smoke checks and the benchmarks' baseline: no job bookkeeping."""

from __future__ import annotations

import time

import redis
from django.conf import settings

from config.celery_app import app

_client: redis.Redis | None = None


@app.task(name="diagnostics.noop", ignore_result=True, acks_late=True)
def noop(sent_at: float, report_key: str) -> None:
    """Do nothing but note when it ran, so a caller can time raw Celery end to end."""
    global _client
    if _client is None:
        _client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    _client.rpush(report_key, f"{sent_at} {time.time()}")
