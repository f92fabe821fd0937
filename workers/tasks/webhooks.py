"""Webhook deliveries, sent from their own queue, never from the web process."""

from __future__ import annotations

from webhooks.services import DISPATCH_TASK, delivery_send, events_dispatch

from config.celery_app import app


# Retries are scheduled in the database (next_attempt_at) and swept by beat, not held as
# countdown messages: a message held past Redis's visibility timeout would be delivered twice.
@app.task(name="webhooks.send_delivery", queue="webhooks", acks_late=True,
          ignore_result=True, soft_time_limit=60, time_limit=90)
def send_delivery(delivery_id: str) -> str:
    return delivery_send(delivery_id=delivery_id)


@app.task(name=DISPATCH_TASK, queue="webhooks", ignore_result=True, soft_time_limit=60,
          time_limit=90)
def dispatch_events() -> int:
    """The outbox's events into deliveries (woken when a job ends; the reconcile tick too)."""
    return events_dispatch()
