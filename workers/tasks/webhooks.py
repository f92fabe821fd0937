"""Webhook deliveries, sent from their own queue, never from the web process."""

from __future__ import annotations

from webhooks.services import delivery_send

from config.celery_app import app


# Retries are scheduled in the database (next_attempt_at) and swept by beat, not held as
# countdown messages: a message held past Redis's visibility timeout would be delivered twice.
@app.task(name="webhooks.send_delivery", queue="webhooks", acks_late=True,
          ignore_result=True, soft_time_limit=60, time_limit=90)
def send_delivery(delivery_id: str) -> str:
    return delivery_send(delivery_id=delivery_id)
